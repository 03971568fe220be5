package spawner

import (
	"strings"

	uv "github.com/charmbracelet/ultraviolet"
)

// Hyperlinks (OSC 8) a program prints reach the person's terminal, where
// a click opens them, only when they are plainly what they say: a web
// address (http, https), a file (file://) or a mail address (mailto:),
// every byte of it printable ASCII (no blank, no control character:
// nothing that could end the sequence swarm writes and start another), at
// most maxLinkLen bytes, with parameters (an id) of letters, digits and
// -_.=: only. Any other link is dropped: its text is shown, not the link.
// A terminal shows a link's address on hover, as it does for any program.

// maxLinkLen bounds a hyperlink's address.
const maxLinkLen = 2048

// linkShown says whether l may be shown (see above).
func linkShown(l uv.Link) bool {
	if len(l.URL) > maxLinkLen {
		return false
	}
	scheme, _, ok := strings.Cut(l.URL, ":")
	switch strings.ToLower(scheme) {
	case "http", "https", "file", "mailto":
	default:
		return false
	}
	for i := 0; i < len(l.URL); i++ {
		if c := l.URL[i]; c <= ' ' || c > '~' {
			return false
		}
	}
	for i := 0; i < len(l.Params); i++ {
		c := l.Params[i]
		if !('a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || strings.IndexByte("-_.=:", c) >= 0) {
			return false
		}
	}
	return ok
}
