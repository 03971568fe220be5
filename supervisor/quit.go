package supervisor

import (
	"context"
	"time"

	"swarm/spawner"
)

// Before swarm stops a program (swarm stop, x, R, a move to a worktree),
// it types what a person types to leave it, and gives it quitGrace to go:
// an editor then closes its files as it would for the person — vim
// removes its swap file, which SIGTERM leaves behind — and a viewer puts
// the terminal back. What does not go in time is stopped as before
// (SIGTERM, SIGKILL after the stop grace).
//
// The keys never save anything and never throw anything away. For vim,
// escape first ends insert mode or a half-typed command line (the text
// typed stays in the buffer, as a change); `:bufdo preserve` writes every
// buffer's text into its swap file, where `vim -r` recovers it (vim
// deletes the swap file when it then quits cleanly); `:qa` quits, or
// refuses while a buffer has unsaved changes (E37) — and then the stop
// that follows cannot lose them, even if a second signal cuts vim's own
// preserving short. `:wqa` would quit too, but would write files the
// person never chose to save. Programs not listed get SIGTERM only.
var quitKeys = map[string]string{
	"vim": vimQuit, "vi": vimQuit, "nvim": vimQuit, "view": vimQuit,
	"hx": "\x1b:quit-all\r", "helix": "\x1b:quit-all\r",
	"less": "q", "more": "q", "most": "q", "man": "q",
	"htop": "q", "top": "q", "btop": "q", "tig": "Q", "lazygit": "q",
}

// vimQuit is how vim (and vi, nvim) is asked to quit: see quitKeys.
const vimQuit = "\x1b\x1b:set hidden | silent! bufdo preserve\r:qa\r"

// quitGrace is how long a program has to quit after its quit keys: vim
// quits at once; one that refuses (unsaved changes) is then stopped.
const quitGrace = 3 * time.Second

// askToQuit types the quit keys of the program argv runs, if it has any,
// and waits up to quitGrace for it to exit.
func askToQuit(proc *spawner.Process, argv []string) {
	keys, ok := quitKeys[programOf(argv)]
	if !ok {
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), quitGrace)
	defer cancel()
	if proc.WriteContext(ctx, []byte(keys)) != nil {
		return
	}
	select {
	case <-proc.Exited():
	case <-ctx.Done():
	}
}
