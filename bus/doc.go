// Package bus is swarm's durable message bus: one SQLite database at
// <dir>/bus.db (WAL, synchronous=NORMAL) shared by the running swarm and any
// number of CLI processes.
//
// # Messages and delivery
//
// Publish commits a message before anything tries to deliver it. Recipients
// are resolved at publish time: a registered agent, the pseudo-agents "human"
// (the inbox is the delivery: an agent's message to the person is queued,
// open, until the person answers it — any message from the person to that
// agent answers every one it sent before — or dismisses it with
// MarkConfirmed; swarm's notices to the person are confirmed at once) and
// "swarm" (queued for the supervisor), or "*" for every registered agent
// except the sender.
// An unknown recipient stores the message with a failed delivery and queues
// a notice from "swarm" to the author. Publishing the same message id again
// is a no-op that returns the stored message.
//
// Each (message, recipient) pair has a delivery that moves
//
//	queued → injected → confirmed
//	   └────────┴─────→ failed | expired (TTL)
//
// Pending returns a recipient's queued and injected messages in publish
// order, so delivery is at least once and ordered per sender → recipient:
// whatever was not confirmed when a process stopped or crashed is pending
// again when the bus is reopened. Consumers recognise duplicates by id.
//
// Message bodies over 4 KiB live in content-addressed files under
// <dir>/blobs/ and are read back transparently.
//
// # Tasks
//
// A task moves through these states:
//
//	ASSIGNED → WORKING → IN_REVIEW → APPROVED → COMPLETED
//	WORKING → CONFLICTED → IN_REVIEW | WORKING;  IN_REVIEW → WORKING (changes requested)
//	APPROVED → CONFLICTED (merge conflict);  FAILED → ASSIGNED (retry)
//	IN_REVIEW | APPROVED → CHANGES_REQUESTED (a check failed, or the reviewer
//	agent asked) → WORKING | IN_REVIEW | CONFLICTED
//	any non-final state → FAILED;  any state but COMPLETED and CANCELLED → CANCELLED
//
// Every transition is a compare-and-set in one IMMEDIATE transaction and is
// recorded as a TaskEvent. Asking for the state a task is already in is a
// no-op; any other move not in the table is refused with a *TransitionError
// naming the current state and the moves allowed from it.
//
// # Concurrency
//
// A Bus is safe for concurrent use. Writes go through a single connection
// whose transactions begin IMMEDIATE, so read-then-write transactions never
// fail with SQLITE_BUSY half-way; other processes' writers wait up to
// Options.BusyTimeout. Reads use a separate pool. Subscribe wakes at once on
// writes made through the same Bus, and soon after the file system reports
// a write by another connection or process (within Options.PollInterval
// while writes keep coming); an idle bus costs no polling.
package bus
