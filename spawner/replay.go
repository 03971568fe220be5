package spawner

import "hash/maphash"

// Ink, the React renderer of Claude Code's classic interface and of other
// agent CLIs, repaints everything once its live area grows taller than the
// screen: it clears the screen and the scrollback (ESC[2J ESC[3J ESC[H)
// and writes all its static output again, then the live area. Each such
// frame would commit the whole history again. The replay rule: after the
// scrollback is cleared, until output pauses, a line that repeats what was
// committed before, in the same order, is a replay and is not committed.
// Lines that repeat nothing are new and are committed; the replay goes on
// after them. The record of committed lines follows each replay, so the
// next one finds the lines that came new in it in their place.

// maxReplayLog bounds the record of committed lines a replay is matched
// against: a replay longer than that is committed again from where the
// record begins.
const maxReplayLog = 1 << 18

// maxReplayCands bounds the places in the record a replay may be following
// at once (a common line can start it at many).
const maxReplayCands = 256

// replaySkip is how far ahead in the record a replayed line may be found:
// lines of the live area committed between the static ones are skipped.
const replaySkip = 16

type replay struct {
	log    []uint64 // hashes of the non-blank lines committed, oldest first
	next   []uint64 // the record as the current replay rewrites it
	active bool
	began  bool  // a line matched the record
	cands  []int // positions in log after the last line each candidate matched
	found  []int
	far    int // the furthest position matched
	tries  int // lines looked for before one matched
}

// maxReplayTries ends a replay that has not matched in so many lines: the
// program cleared its scrollback and printed something new.
const maxReplayTries = 64

// record adds a committed line, outside a replay (which records its lines
// itself).
func (r *replay) record(text string) {
	if text == "" || r.active {
		return
	}
	r.log = append(r.log, maphash.String(keySeed, text))
	if len(r.log) > maxReplayLog {
		n := copy(r.log, r.log[len(r.log)-maxReplayLog*3/4:])
		r.log = r.log[:n]
	}
}

// begin starts matching: the scrollback was cleared.
func (r *replay) begin() {
	r.end()
	if len(r.log) == 0 {
		return
	}
	r.active, r.began, r.far, r.tries = true, false, 0, 0
	r.cands = r.cands[:0]
	r.next = r.next[:0]
}

// end stops matching: output paused, or the replay is over. The record
// becomes the replay's lines followed by what the replay did not reach.
func (r *replay) end() {
	if !r.active {
		return
	}
	r.active = false
	if r.far < len(r.log) {
		r.next = append(r.next, r.log[r.far:]...)
	}
	r.log, r.next = r.next, r.log[:0]
	if len(r.log) > maxReplayLog {
		n := copy(r.log, r.log[len(r.log)-maxReplayLog*3/4:])
		r.log = r.log[:n]
	}
}

// repeats reports whether text, about to be committed, is a replayed line.
// Blank lines are not matched: they are replayed when a replay has begun.
func (r *replay) repeats(text string) bool {
	if !r.active {
		return false
	}
	if text == "" {
		return r.began
	}
	h := maphash.String(keySeed, text)
	r.next = append(r.next, h)
	var found []int
	if !r.began {
		if r.tries++; r.tries > maxReplayTries {
			r.end()
			return false
		}
		for i, v := range r.log {
			if v == h && len(r.cands) < maxReplayCands {
				r.cands = append(r.cands, i+1)
			}
		}
		found = r.cands
	} else {
		found = r.found[:0]
		for _, c := range r.cands {
			for k := c; k < min(c+replaySkip, len(r.log)); k++ {
				if r.log[k] == h {
					found = append(found, k+1)
					break
				}
			}
		}
		r.found = found
		if len(found) > 0 {
			r.cands = append(r.cands[:0], found...)
		}
	}
	if len(found) == 0 {
		return false // new in this replay
	}
	r.began = true
	for _, c := range r.cands {
		r.far = max(r.far, c)
	}
	return true
}
