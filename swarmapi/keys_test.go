package swarmapi

import (
	"testing"
	"unicode"
)

func TestTypeableKeys(t *testing.T) {
	for _, k := range []Key{{Code: 'a', Text: "a"}, {Code: 'c', Mod: ModCtrl}, {Code: KeyUp}, {Code: KeyF12, Mod: ModShift | ModAlt},
		{Code: KeyEnter}, {Code: 'é', Text: "é"}} {
		if !k.Typeable() {
			t.Errorf("%+v is not typeable", k)
		}
	}
	for _, k := range []Key{{Code: unicode.MaxRune + 1}, {Code: KeyF12 + 1}, {Code: -1}, {Code: 'a', Mod: 1 << 6}} {
		if k.Typeable() {
			t.Errorf("%+v is typeable", k)
		}
	}
}
