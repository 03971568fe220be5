package spawner

import (
	"strings"
	"testing"

	uv "github.com/charmbracelet/ultraviolet"
)

// A key typed with Shift reaches the program as the character the person
// typed ("!", "A"), not as its unshifted key ("1", "a"), and Ctrl with a
// letter as its control character.
func TestShiftedKeysTypeWhatWasTyped(t *testing.T) {
	p := start(t, Options{Argv: []string{"cat"}}, nil)
	for _, k := range []uv.KeyPressEvent{
		{Code: '1', ShiftedCode: '!', Text: "!", Mod: uv.ModShift},
		{Code: 'a', ShiftedCode: 'A', Text: "A", Mod: uv.ModShift},
		{Code: 'b', Text: "b"},
		{Code: '\r'},
	} {
		p.Screen().SendKey(k)
	}
	eventually(t, `"!Ab" echoed by the terminal and printed again by cat`, func() bool {
		return strings.Count(p.Screen().Text(0, 1), "!Ab") == 2
	})
	// Only now: the terminal's Ctrl-C flushes output not read yet.
	p.Screen().SendKey(uv.KeyPressEvent{Code: 'c', Mod: uv.ModCtrl})
	waitDone(t, p)
}
