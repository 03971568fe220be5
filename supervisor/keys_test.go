package supervisor

import (
	"testing"

	uv "github.com/charmbracelet/ultraviolet"

	"swarm/swarmapi"
)

// The UI passes its key events' codes and modifiers on as swarmapi's, and
// SendKey hands them to the emulator as they come: they must be the same
// numbers. A bump of ultraviolet that renumbers its keys fails here
// (swarmapi's stay: they are the protocol's).
func TestSwarmsKeysAreTheEmulators(t *testing.T) {
	pairs := map[string][2]rune{
		"up": {swarmapi.KeyUp, uv.KeyUp}, "down": {swarmapi.KeyDown, uv.KeyDown},
		"right": {swarmapi.KeyRight, uv.KeyRight}, "left": {swarmapi.KeyLeft, uv.KeyLeft},
		"insert": {swarmapi.KeyInsert, uv.KeyInsert}, "delete": {swarmapi.KeyDelete, uv.KeyDelete},
		"pgup": {swarmapi.KeyPgUp, uv.KeyPgUp}, "pgdown": {swarmapi.KeyPgDown, uv.KeyPgDown},
		"home": {swarmapi.KeyHome, uv.KeyHome}, "end": {swarmapi.KeyEnd, uv.KeyEnd},
		"kpenter": {swarmapi.KeyKpEnter, uv.KeyKpEnter}, "kpequal": {swarmapi.KeyKpEqual, uv.KeyKpEqual},
		"kpmul": {swarmapi.KeyKpMultiply, uv.KeyKpMultiply}, "kpplus": {swarmapi.KeyKpPlus, uv.KeyKpPlus},
		"kpcomma": {swarmapi.KeyKpComma, uv.KeyKpComma}, "kpminus": {swarmapi.KeyKpMinus, uv.KeyKpMinus},
		"kpperiod": {swarmapi.KeyKpDecimal, uv.KeyKpDecimal},
		"kp0":      {swarmapi.KeyKp0, uv.KeyKp0}, "kp1": {swarmapi.KeyKp1, uv.KeyKp1}, "kp2": {swarmapi.KeyKp2, uv.KeyKp2},
		"kp3": {swarmapi.KeyKp3, uv.KeyKp3}, "kp4": {swarmapi.KeyKp4, uv.KeyKp4}, "kp5": {swarmapi.KeyKp5, uv.KeyKp5},
		"kp6": {swarmapi.KeyKp6, uv.KeyKp6}, "kp7": {swarmapi.KeyKp7, uv.KeyKp7}, "kp8": {swarmapi.KeyKp8, uv.KeyKp8},
		"kp9": {swarmapi.KeyKp9, uv.KeyKp9},
		"f1":  {swarmapi.KeyF1, uv.KeyF1}, "f2": {swarmapi.KeyF2, uv.KeyF2}, "f3": {swarmapi.KeyF3, uv.KeyF3},
		"f4": {swarmapi.KeyF4, uv.KeyF4}, "f5": {swarmapi.KeyF5, uv.KeyF5}, "f6": {swarmapi.KeyF6, uv.KeyF6},
		"f7": {swarmapi.KeyF7, uv.KeyF7}, "f8": {swarmapi.KeyF8, uv.KeyF8}, "f9": {swarmapi.KeyF9, uv.KeyF9},
		"f10": {swarmapi.KeyF10, uv.KeyF10}, "f11": {swarmapi.KeyF11, uv.KeyF11}, "f12": {swarmapi.KeyF12, uv.KeyF12},
		"enter": {swarmapi.KeyEnter, uv.KeyEnter}, "tab": {swarmapi.KeyTab, uv.KeyTab},
		"backspace": {swarmapi.KeyBackspace, uv.KeyBackspace}, "escape": {swarmapi.KeyEscape, uv.KeyEscape},
		"space": {swarmapi.KeySpace, uv.KeySpace},
	}
	for name, p := range pairs {
		if p[0] != p[1] {
			t.Errorf("key %s: swarm's code %#x, the emulator's %#x", name, p[0], p[1])
		}
		if n, named := swarmapi.KeyNames[p[0]]; named && n != name {
			t.Errorf("key %#x is named %q, want %q", p[0], n, name)
		}
	}
	if len(swarmapi.KeyNames)+5 != len(pairs) {
		t.Errorf("swarmapi names %d keys, this test checks %d of them", len(swarmapi.KeyNames), len(pairs)-5)
	}
	for _, m := range [][2]int{{int(swarmapi.ModShift), int(uv.ModShift)}, {int(swarmapi.ModAlt), int(uv.ModAlt)},
		{int(swarmapi.ModCtrl), int(uv.ModCtrl)}, {int(swarmapi.ModMeta), int(uv.ModMeta)}} {
		if m[0] != m[1] {
			t.Errorf("modifier: swarm's %#x, the emulator's %#x", m[0], m[1])
		}
	}
}
