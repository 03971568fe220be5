package server

import (
	"fmt"
	"sync"

	"swarm/wire"
)

// A client shows a busy agent by asking for its screen each time it
// changes. What travels is only the rows that changed since the rendering
// the client holds: the server keeps, per connection, the last rows it
// sent of each live screen (a view scrolled back is sent whole), numbered. A client whose number is not the
// server's (its first request, or two requests that crossed) gets all the
// rows.

type screenKey struct {
	conn  uint64
	agent string
}

type sentScreen struct {
	gen  uint64
	rows []string
}

type screens struct {
	mu   sync.Mutex
	gen  uint64
	sent map[screenKey]sentScreen
}

func newScreens() *screens { return &screens{sent: map[screenKey]sentScreen{}} }

func (z *screens) diff(conn uint64, agent string, gen uint64, scrolled bool, rows []string) wire.RenderResult {
	z.mu.Lock()
	defer z.mu.Unlock()
	z.gen++
	if scrolled { // all of it, kept by nobody
		r := wire.RenderResult{Gen: z.gen, N: len(rows), Changed: make(map[int]string, len(rows))}
		for i, row := range rows {
			r.Changed[i] = row
		}
		return r
	}
	k := screenKey{conn, agent}
	prev, ok := z.sent[k]
	r := wire.RenderResult{Gen: z.gen, N: len(rows), Changed: map[int]string{}}
	if ok && gen != 0 && gen == prev.gen {
		r.Base = prev.gen
	}
	for i, row := range rows {
		if r.Base == 0 || i >= len(prev.rows) || prev.rows[i] != row {
			r.Changed[i] = row
		}
	}
	z.sent[k] = sentScreen{gen: z.gen, rows: rows}
	return r
}

// gone forgets a client's screens.
func (z *screens) gone(conn uint64) {
	z.mu.Lock()
	defer z.mu.Unlock()
	for k := range z.sent {
		if k.conn == conn {
			delete(z.sent, k)
		}
	}
}

// heldScreen is a screen as a client holds it.
type heldScreen struct {
	gen  uint64
	rows []string
}

// apply makes the client's copy of a screen the one r describes; false
// when r is a change to a rendering the client does not hold.
func (h *heldScreen) apply(r wire.RenderResult) error {
	if r.Base != 0 && r.Base != h.gen {
		return fmt.Errorf("rows changed since rendering %d, but this client holds %d", r.Base, h.gen)
	}
	rows := make([]string, r.N)
	if r.Base != 0 {
		copy(rows, h.rows)
	}
	for i, row := range r.Changed {
		if i >= 0 && i < r.N {
			rows[i] = row
		}
	}
	h.gen, h.rows = r.Gen, rows
	return nil
}
