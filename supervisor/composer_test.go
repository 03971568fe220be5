package supervisor

import (
	"bytes"
	"fmt"
	"os"
	"strconv"
	"strings"
	"time"

	"golang.org/x/sys/unix"
)

// runComposer is the "composer" scripted agent: a program that behaves
// like the agent CLIs where delivery is concerned. It reads keys in raw
// mode with bracketed paste on; what is typed goes into an input box at
// the bottom of the screen (the cursor stays in it) and a submitted input
// moves up into a transcript as "› text". As in Codex and Gemini CLI, an
// Enter that comes inside a paste, or less than COMPOSER_BURST_MS after
// the last typed text or paste, adds a new line to the box instead of
// submitting. Submissions are appended to $LOG (newlines as \n); every
// byte read to $RAWLOG; for a body "t=<unix ns>" (the pinger's), how long
// it took to $LAT. COMPOSER_ALT=1 draws on the alternate screen;
// COMPOSER_BUSY_MS turns a spinner for so long after each submission;
// COMPOSER_STUCK=1 never submits; COMPOSER_BLIND=1 never shows what is typed.
// COMPOSER_DIALOG=1 starts with a trust dialog, as the CLIs do on a first
// start (its text Codex's); COMPOSER_DIALOG_AFTER_MS=N shows it N ms
// after the prompt, as Codex does on a fresh HOME (its prompt first,
// then its sign-in question); COMPOSER_DIALOG_ON_TEXT=1, as the first
// text arrives in its box (which keeps it), before the box is drawn with
// it, as Codex does when its start is slow (it shows then at once, not
// after a timer: a timer of the program's, starved on a loaded machine,
// fired after swarm had looked and pressed Enter). The dialog: the cursor hidden, "No, exit" chosen; Down
// moves to "Yes", Enter answers (No exits with status 1), and what else
// is typed is ignored. "!" typed into an empty box enters a shell mode
// ("! " and "Shell mode" under the box; Esc leaves it) in which a
// submission is "run": appended to $SHELLLOG. COMPOSER_EXIT_MS: it exits
// with status 1 so long after it started.
func runComposer() int {
	old, err := unix.IoctlGetTermios(0, unix.TCGETS)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	raw := *old
	raw.Lflag &^= unix.ICANON | unix.ECHO | unix.ISIG | unix.IEXTEN
	raw.Iflag &^= unix.ICRNL | unix.IXON
	if err := unix.IoctlSetTermios(0, unix.TCSETS, &raw); err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	defer unix.IoctlSetTermios(0, unix.TCSETS, old) //nolint:errcheck
	c := &composer{
		burst:    time.Duration(envInt("COMPOSER_BURST_MS", 30)) * time.Millisecond,
		alt:      os.Getenv("COMPOSER_ALT") == "1",
		stuck:    os.Getenv("COMPOSER_STUCK") == "1",
		blind:    os.Getenv("COMPOSER_BLIND") == "1",
		box:      []string{""},
		busy:     time.Duration(envInt("COMPOSER_BUSY_MS", 0)) * time.Millisecond,
		dialog:   os.Getenv("COMPOSER_DIALOG") == "1",
		opencode: os.Getenv("COMPOSER_LOOK") == "opencode",
	}
	if p := os.Getenv("SHELLLOG"); p != "" {
		c.shellLog, _ = os.OpenFile(p, os.O_CREATE|os.O_APPEND|os.O_WRONLY, 0o600)
	}
	if p := os.Getenv("LOG"); p != "" {
		c.log, _ = os.OpenFile(p, os.O_CREATE|os.O_APPEND|os.O_WRONLY, 0o600)
	}
	if p := os.Getenv("LAT"); p != "" {
		c.lat, _ = os.OpenFile(p, os.O_CREATE|os.O_APPEND|os.O_WRONLY, 0o600)
	}
	if p := os.Getenv("RAWLOG"); p != "" {
		c.rawLog, _ = os.OpenFile(p, os.O_CREATE|os.O_APPEND|os.O_WRONLY, 0o600)
	}
	if c.alt {
		os.Stdout.WriteString("\x1b[?1049h")
	}
	os.Stdout.WriteString("\x1b[?2004h")
	c.transcript = append(c.transcript, "composer ready")
	c.draw()
	// Keys are read in one goroutine and applied with the spinner's turns
	// in this one, which alone draws.
	input := make(chan []byte)
	go func() {
		defer close(input)
		buf := make([]byte, 4096)
		for {
			n, err := os.Stdin.Read(buf)
			if n > 0 {
				input <- append([]byte(nil), buf[:n]...)
			}
			if err != nil {
				return
			}
		}
	}()
	spin := time.NewTicker(50 * time.Millisecond)
	defer spin.Stop()
	dialogAfter := make(<-chan time.Time)
	if ms := envInt("COMPOSER_DIALOG_AFTER_MS", 0); ms > 0 {
		dialogAfter = time.After(time.Duration(ms) * time.Millisecond)
	}
	onText := os.Getenv("COMPOSER_DIALOG_ON_TEXT") == "1"
	exit := make(<-chan time.Time)
	if ms := envInt("COMPOSER_EXIT_MS", 0); ms > 0 {
		exit = time.After(time.Duration(ms) * time.Millisecond)
	}
	for {
		select {
		case <-exit:
			return 1
		case <-dialogAfter:
			c.dialog = true
			c.draw()
		case b, ok := <-input:
			if !ok {
				return 0
			}
			if c.rawLog != nil {
				c.rawLog.Write(b)
			}
			if c.dialog {
				if c.answer(b) {
					return 1 // "No, exit"
				}
			} else {
				c.keys(b)
				if onText && strings.Join(c.box, "") != "" {
					c.dialog, onText = true, false
				}
			}
			c.draw()
		case <-spin.C:
			if busy := time.Now().Before(c.busyUntil); busy || c.spins > 0 {
				c.spins++
				if !busy {
					c.spins = 0 // drawn once more, without the spinner
				}
				c.draw()
			}
		}
	}
}

type composer struct {
	opencode          bool // COMPOSER_LOOK=opencode
	burst             time.Duration
	alt, stuck, blind bool
	transcript        []string
	box               []string // the input's lines; the cursor ends the last
	pasting           bool
	lastText          time.Time
	esc               []byte // an escape sequence being read
	log, rawLog, lat  *os.File
	busy              time.Duration // how long a spinner turns after a submission
	busyUntil         time.Time
	spins             int
	dialog            bool // the trust dialog shows
	yes               bool // the dialog's choice is "Yes"
	shell             bool // in its shell mode
	shellLog          *os.File
}

// answer applies keys to the trust dialog; true: the answer was No.
func (c *composer) answer(b []byte) bool {
	for len(b) > 0 {
		switch {
		case bytes.HasPrefix(b, []byte("\x1b[B")):
			c.yes, b = true, b[3:]
		case bytes.HasPrefix(b, []byte("\x1b[A")):
			c.yes, b = false, b[3:]
		case b[0] == '\r':
			if !c.yes {
				return true
			}
			c.dialog = false
			return false // what follows goes to the prompt's box
		default:
			b = b[1:]
		}
	}
	return false
}

func (c *composer) keys(b []byte) {
	for _, ch := range b {
		if len(c.esc) > 0 || ch == 0x1b {
			c.esc = append(c.esc, ch)
			if len(c.esc) >= 3 && (ch >= 0x40 && ch <= 0x7e) || len(c.esc) == 2 && ch != '[' {
				switch string(c.esc) {
				case "\x1b[200~":
					c.pasting = true
				case "\x1b[201~":
					c.pasting, c.lastText = false, time.Now()
				}
				c.esc = c.esc[:0]
			}
			continue
		}
		last := &c.box[len(c.box)-1]
		if len(c.esc) == 0 && ch == '!' && !c.pasting && len(c.box) == 1 && *last == "" && !c.shell {
			c.shell = true
			continue
		}
		switch {
		case ch == '\r' || ch == '\n':
			if c.pasting || c.stuck || time.Since(c.lastText) < c.burst {
				c.box = append(c.box, "")
			} else {
				c.submit()
			}
		case ch == 0x15: // Ctrl-U
			*last = ""
		case ch == 0x03: // Ctrl-C
			c.box = []string{""}
		case ch == 0x7f:
			if *last != "" {
				*last = (*last)[:len(*last)-1]
			}
		case ch >= 0x20 || ch == '\t':
			*last += string(ch)
			if !c.pasting {
				c.lastText = time.Now()
			}
		}
	}
	if string(c.esc) == "\x1b" { // Esc alone: leaves the shell mode
		c.esc = c.esc[:0]
		c.shell = false
	}
}

func (c *composer) submit() {
	text := strings.Join(c.box, "\n")
	c.box = []string{""}
	if strings.TrimSpace(text) == "" {
		return
	}
	if c.shell {
		if c.shellLog != nil {
			fmt.Fprintln(c.shellLog, strings.ReplaceAll(text, "\n", `\n`))
		}
		c.transcript = append(c.transcript, "$ "+text, "")
		return
	}
	for i, l := range strings.Split(text, "\n") {
		if i == 0 {
			c.transcript = append(c.transcript, "› "+l)
		} else {
			c.transcript = append(c.transcript, "  "+l)
		}
	}
	c.transcript = append(c.transcript, "")
	if c.log != nil {
		fmt.Fprintln(c.log, strings.ReplaceAll(text, "\n", `\n`))
	}
	c.busyUntil = time.Now().Add(c.busy)
	if c.lat != nil { // the pinger's stamp: how long the message took
		if _, stamp, ok := strings.Cut(text, "] t="); ok {
			if t, err := strconv.ParseInt(strings.TrimSpace(stamp), 10, 64); err == nil {
				fmt.Fprintln(c.lat, time.Now().UnixNano()-t)
			}
		}
	}
}

// draw repaints the screen: the transcript's tail, a blank row, the box,
// a blank row and a footer; the cursor at the end of the box.
func (c *composer) draw() {
	rows, cols := 24, 80
	if ws, err := unix.IoctlGetWinsize(1, unix.TIOCGWINSZ); err == nil {
		rows, cols = int(ws.Row), int(ws.Col)
	}
	var box []string
	lines := c.box
	if c.blind {
		lines = []string{""} // the prompt only: what is typed never shows
	}
	for i, l := range lines {
		p := "  "
		if i == 0 {
			p = "› "
			if c.shell {
				p = "! "
			}
		}
		// The box wraps its lines itself, as the CLIs do.
		l = p + l
		for len(l) > cols {
			box = append(box, l[:cols])
			l = "  " + l[cols:]
		}
		box = append(box, l)
	}
	view := max(rows-len(box)-3, 0)
	tail := c.transcript[max(len(c.transcript)-view, 0):]
	var b strings.Builder
	b.WriteString("\x1b[?2026h\x1b[H\x1b[2J")
	if c.dialog {
		no, yes := "› 1. No, exit", "  2. Yes, trust and continue"
		if c.yes {
			no, yes = "  1. No, exit", "› 2. Yes, trust and continue"
		}
		fmt.Fprintf(&b, "\x1b[?25l  Trust this folder?\r\n\r\n%s\r\n%s\r\n\r\n  enter continue\x1b[%d;1H\x1b[?2026l", no, yes, rows)
		os.Stdout.WriteString(b.String())
		return
	}
	b.WriteString("\x1b[?25h")
	if c.opencode {
		c.drawOpencode(&b, rows, tail, lines)
		os.Stdout.WriteString(b.String())
		return
	}
	for _, l := range tail {
		b.WriteString(l + "\r\n")
	}
	if time.Now().Before(c.busyUntil) {
		// The spinner shows right above the box, as the CLIs draw it.
		spinner := []string{"⠋", "⠙", "⠹", "⠸"}[c.spins%4] + " Working (esc to interrupt)"
		fmt.Fprintf(&b, "\x1b[%d;1H%s", max(rows-len(box)-2, 1), spinner)
	}
	b.WriteString("\x1b[" + fmt.Sprint(rows-len(box)-1) + ";1H")
	for i, l := range box {
		if i > 0 {
			b.WriteString("\r\n")
		}
		b.WriteString(l)
	}
	footer := "? for shortcuts"
	if c.shell {
		footer = "Shell mode"
	}
	fmt.Fprintf(&b, "\x1b7\x1b[%d;1H%s\x1b8\x1b[?2026l", rows, footer)
	os.Stdout.WriteString(b.String())
}

// drawOpencode draws the screen as opencode 1.18 does
// (testdata/screens/opencode-*): each submission in the transcript behind
// the same "┃" gutter as the input box, which is closed by a "╹▀" row
// under the agent's name; the cursor at the end of the box's text.
func (c *composer) drawOpencode(b *strings.Builder, rows int, tail, box []string) {
	if len(box) == 0 {
		box = []string{""}
	}
	var out []string
	for _, l := range tail {
		if t, ok := strings.CutPrefix(l, "› "); ok {
			out = append(out, "", "  ┃  "+t, "")
		} else {
			out = append(out, "  "+l)
		}
	}
	view := max(rows-len(box)-4, 0)
	out = out[max(len(out)-view, 0):]
	for _, l := range out {
		b.WriteString(l + "\r\n")
	}
	top := rows - len(box) - 3
	for i, l := range box {
		fmt.Fprintf(b, "\x1b[%d;1H  ┃  %s", top+i, l)
	}
	cursorRow, cursorCol := top+len(box)-1, 6+len([]rune(box[len(box)-1]))
	fmt.Fprintf(b, "\x1b[%d;1H  ┃\r\n  ┃  Build  Claude Sonnet\r\n  ╹▀▀▀▀▀▀▀▀▀▀▀▀▀▀▀▀▀▀▀▀▀▀", top+len(box))
	fmt.Fprintf(b, "\x1b[%d;%dH\x1b[?2026l", cursorRow, cursorCol)
}
