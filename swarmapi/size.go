package swarmapi

import "fmt"

// The largest terminal an agent (or a replayed recording) may have. A
// size comes from outside — a client's window, a recording, a flag — and
// a screen's memory grows with its area: about 230 MB at this bound with
// its scrollback and alternate screen, where 65535×65535 ran a swarm out
// of memory. The UI shows a larger pane at this size.
const (
	MaxCols = 1000
	MaxRows = 500
)

// CheckSize refuses a terminal size outside 1–MaxCols columns by
// 1–MaxRows rows, saying the bound.
func CheckSize(rows, cols int) error {
	if rows < 1 || cols < 1 || rows > MaxRows || cols > MaxCols {
		return fmt.Errorf("a terminal of %d×%d: an agent's terminal has 1 to %d columns and 1 to %d rows", cols, rows, MaxCols, MaxRows)
	}
	return nil
}
