package spawner

import "strings"

const (
	pasteStart = "\x1b[200~"
	pasteEnd   = "\x1b[201~"
)

// PasteBytes returns text as a bracketed paste: ESC[200~ text ESC[201~.
// An end marker inside text is removed, so the paste cannot end early and
// turn the rest into keystrokes.
func PasteBytes(text string) []byte {
	for strings.Contains(text, pasteEnd) {
		text = strings.ReplaceAll(text, pasteEnd, "")
	}
	return []byte(pasteStart + text + pasteEnd)
}
