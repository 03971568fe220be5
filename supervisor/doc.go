// Package supervisor is swarm's runtime: it starts the agents of a config in
// PTYs, turns their terminal output into relay messages on the bus, and types
// the messages on the bus into the recipients' terminals.
//
// For every agent there are three goroutines, all owned by the Supervisor and
// ended by Shutdown:
//
//   - the lifecycle loop starts the process, waits for it, and applies the
//     restart policy (backoff from Options.Backoff doubling to 30 s; after
//     max_restarts quick failures in a row the agent is given up, with the
//     reason kept in its state and on the bus);
//   - the output pump feeds the committed lines of the agent's screen to a
//     relay parser, stamps `from` with the agent's own name (an agent can
//     never speak as another) and publishes each command; a malformed block
//     sends the author a notice;
//   - the injector delivers the agent's pending messages, one at a time in
//     bus order, when the agent is ready: its output has been quiet for the
//     agent's `quiet` period and nobody has typed into it for UserIdle.
//     A message is typed as one line `[relay #<id> from <sender>] <body>`
//     followed by a carriage return, through the process's single writer.
//     It is confirmed when the id marker shows on the recipient's screen,
//     retried (3 attempts in all) otherwise, then failed with a notice to
//     the author.
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
