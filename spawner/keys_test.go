package spawner

import (
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
		{Code: 'c', Mod: uv.ModCtrl},
	} {
		p.Screen().SendKey(k)
	}
	eventually(t, `"!Ab" echoed back by cat, which Ctrl-C then ends`, func() bool {
		select {
		case <-p.Done():
			return p.Screen().Contains("!Ab")
		default:
			return false
		}
	})
}
