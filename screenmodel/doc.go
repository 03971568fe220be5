// Package screenmodel is what swarm knows of each kind of program's
// screen (Claude Code, Codex, Gemini CLI, opencode, aider, crush, a shell,
// a line reader, an editor or viewer): from the rows a program shows, what
// it is showing — its prompt, a busy turn, a dialog, its own shell mode, or
// something unknown — and where on its screen its input area, gutters and
// borders are. It is data per kind, with the version of the program each
// fact was seen in, kept beside the recordings it was learnt from; it reads
// text only and imports no package of this project.
package screenmodel
