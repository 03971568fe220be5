// Package supervisor is swarm's runtime: it starts the agents of a config in
// PTYs, turns their terminal output into relay messages on the bus, and types
// the messages on the bus into the recipients' terminals.
//
// For every agent there are three goroutines, all owned by the Supervisor and
// ended by Shutdown:
//
//   - the lifecycle loop starts the process, waits for it, and applies the
//     restart policy (backoff from Options.Backoff doubling to 30 s; after
//     max_restarts failures in a row the agent is given up, with the
//     reason kept in its state and on the bus; only a run that lasted
//     StableRun and reached its program's prompt forgets the failures
//     before it);
//   - the output pump feeds the committed lines of the agent's screen to a
//     relay parser, stamps `from` with the agent's own name (an agent can
//     never speak as another) and publishes each command; a malformed block
//     sends the author a notice;
//   - the injector delivers the agent's pending messages, one at a time in
//     bus order, when the agent is ready: its screen model (package
//     screenmodel, shown.go) reads a prompt (or a busy turn whose queue
//     takes input), its output has been quiet for the agent's `quiet`
//     period and nobody has typed into it for UserIdle. A dialog, a shell
//     mode or an unknown screen holds messages back, and a dialog puts the
//     agent on the "needs you" list. Between messages it keeps looking at
//     the screen, for the agent's status words. A message is typed as
//     `[relay #<id> from <sender>] <body>`, then Enter, through the
//     process's single writer (submit.go); it is confirmed when it has
//     left the program's input, retried (3 attempts in all) when the
//     process died first, then failed with a notice to the author.
//
// Delivery is at least once: a message is committed to the bus before any
// attempt, and what was queued or injected but not confirmed when swarm
// stopped is delivered when it runs again. Messages to "swarm" are control
// messages (task_start, task_done, task_fail, task_create, heartbeat, and
// turn from the CLIs' hooks) and are applied by the supervisor itself.
//
// UIs observe the swarm through Subscribe: lifecycle, message, delivery,
// task, liveness and game events arrive in order and are never dropped;
// screen-changed notices are coalesced per agent.
package supervisor
