package swarmapi

import "unicode"

// Key is one key a person pressed, to be typed into an agent's terminal
// (encoded there for the terminal's modes: application cursor keys and
// the like). Code is the key: the character it types, or one of the named
// keys below, whose codes lie above the last Unicode code point. Text is
// what it types, when it types characters ("A" for shift+a). Mod holds
// the modifiers held with it.
//
// The codes of the named keys are those of the UI's key events
// (ultraviolet's), so that the UI passes a key on unchanged; the protocol
// pins them (wire's golden file), and a test in package supervisor checks
// they still agree with ultraviolet's.
type Key struct {
	Code rune
	Text string `json:",omitempty"`
	Mod  KeyMod `json:",omitempty"`
}

// KeyMod is a set of modifier keys.
type KeyMod int

// The modifiers a terminal is told of.
const (
	ModShift KeyMod = 1 << iota
	ModAlt
	ModCtrl
	ModMeta
)

// keyNamed is the first code of a named key.
const keyNamed = unicode.MaxRune + 2

// Named keys that type no character: the keys a terminal encodes. Keys
// that are characters to a terminal have their character's code: KeyEnter
// (carriage return), KeyTab, KeyBackspace (DEL), KeyEscape, KeySpace.
const (
	KeyUp rune = keyNamed + iota
	KeyDown
	KeyRight
	KeyLeft
	_ // begin
	_ // find
	KeyInsert
	KeyDelete
	_ // select
	KeyPgUp
	KeyPgDown
	KeyHome
	KeyEnd
	KeyKpEnter
	KeyKpEqual
	KeyKpMultiply
	KeyKpPlus
	KeyKpComma
	KeyKpMinus
	KeyKpDecimal
	_ // keypad divide
	KeyKp0
	KeyKp1
	KeyKp2
	KeyKp3
	KeyKp4
	KeyKp5
	KeyKp6
	KeyKp7
	KeyKp8
	KeyKp9
	_ // keypad separator
	_ // keypad up
	_ // keypad down
	_ // keypad left
	_ // keypad right
	_ // keypad page up
	_ // keypad page down
	_ // keypad home
	_ // keypad end
	_ // keypad insert
	_ // keypad delete
	_ // keypad begin
	KeyF1
	KeyF2
	KeyF3
	KeyF4
	KeyF5
	KeyF6
	KeyF7
	KeyF8
	KeyF9
	KeyF10
	KeyF11
	KeyF12

	KeyEnter     rune = '\r'
	KeyTab       rune = '\t'
	KeyBackspace rune = 0x7f
	KeyEscape    rune = 0x1b
	KeySpace     rune = ' '
)

// KeyNames names the named keys, by code.
var KeyNames = map[rune]string{
	KeyUp: "up", KeyDown: "down", KeyRight: "right", KeyLeft: "left",
	KeyInsert: "insert", KeyDelete: "delete", KeyPgUp: "pgup", KeyPgDown: "pgdown", KeyHome: "home", KeyEnd: "end",
	KeyKpEnter: "kpenter", KeyKpEqual: "kpequal", KeyKpMultiply: "kpmul", KeyKpPlus: "kpplus", KeyKpComma: "kpcomma",
	KeyKpMinus: "kpminus", KeyKpDecimal: "kpperiod",
	KeyKp0: "kp0", KeyKp1: "kp1", KeyKp2: "kp2", KeyKp3: "kp3", KeyKp4: "kp4",
	KeyKp5: "kp5", KeyKp6: "kp6", KeyKp7: "kp7", KeyKp8: "kp8", KeyKp9: "kp9",
	KeyF1: "f1", KeyF2: "f2", KeyF3: "f3", KeyF4: "f4", KeyF5: "f5", KeyF6: "f6",
	KeyF7: "f7", KeyF8: "f8", KeyF9: "f9", KeyF10: "f10", KeyF11: "f11", KeyF12: "f12",
}

// Typeable says whether k can be typed into a terminal: its code is a
// character or a named key, and it has no modifier but those of KeyMod.
func (k Key) Typeable() bool {
	if k.Mod&^(ModShift|ModAlt|ModCtrl|ModMeta) != 0 {
		return false
	}
	if k.Code >= 0 && k.Code <= unicode.MaxRune {
		return true
	}
	_, named := KeyNames[k.Code]
	return named
}
