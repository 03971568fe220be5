// Package swarmapi is what a running swarm and its clients share: the
// types that cross between the runtime (package supervisor) and the
// terminal UI, the socket's server and its clients, the MCP server and
// the command line — events, agents' snapshots and their turns, screens,
// keys, what waits for the person — and the rules clients apply to them
// (the "needs you" list, an event in words, an agent's terminal size).
//
// It holds data and pure functions only: no process, no file, no
// goroutine. A client links it, not the runtime: the UI shows a swarm in
// its own process or in another one (package server's Remote) through
// these types alone. On the socket they travel as package wire's
// protocol carries them; a change of their shape is a change of that
// protocol (wire's golden file of the payload shapes says so).
package swarmapi
