-- Version 1: the whole bus. Times are Unix milliseconds; states are stored as
-- their lowercase/uppercase names so the file reads well in the sqlite3 shell.

CREATE TABLE agents (
	name       TEXT PRIMARY KEY,
	cmd        TEXT NOT NULL DEFAULT '',
	state      TEXT NOT NULL DEFAULT '',
	reason     TEXT NOT NULL DEFAULT '',
	pid        INTEGER NOT NULL DEFAULT 0,
	restarts   INTEGER NOT NULL DEFAULT 0,
	started_ms INTEGER NOT NULL DEFAULT 0,
	updated_ms INTEGER NOT NULL
) WITHOUT ROWID;

-- seq is the log order, assigned as MAX(seq)+1 under the write lock.
-- Messages are never deleted, so a seq is never reused (the JSONL export
-- relies on that).
CREATE TABLE messages (
	seq            INTEGER PRIMARY KEY,
	id             TEXT NOT NULL UNIQUE,
	short          TEXT NOT NULL,
	ts_ms          INTEGER NOT NULL,
	from_name      TEXT NOT NULL,
	to_name        TEXT NOT NULL,
	topic          TEXT NOT NULL DEFAULT '',
	kind           TEXT NOT NULL,
	body           TEXT NOT NULL,
	data           TEXT,
	correlation_id TEXT NOT NULL DEFAULT '',
	in_reply_to    TEXT NOT NULL DEFAULT '',
	priority       INTEGER NOT NULL DEFAULT 0,
	ttl_ms         INTEGER NOT NULL DEFAULT 0,
	payload_ref    TEXT NOT NULL DEFAULT '',
	log_only       INTEGER NOT NULL DEFAULT 0
);
-- short (the last 8 hex digits of id, which are random in a UUIDv7) has no
-- index on purpose: inserts into an index on random keys dirty one page
-- each and cut batched publishing to a third. Looking up a short id scans.
CREATE INDEX messages_from ON messages(from_name, seq);

-- open is 1 while the delivery is queued or injected, 0 once it is final.
-- The one secondary index, (recipient, open, seq), serves both a
-- recipient's next pending messages (open = 1, in seq order, however many
-- delivered messages there are) and its inbox (both values of open).
-- Every index costs a page write per commit, so there is only one.
CREATE TABLE deliveries (
	seq        INTEGER NOT NULL REFERENCES messages(seq),
	recipient  TEXT NOT NULL,
	state      TEXT NOT NULL,
	open       INTEGER NOT NULL,
	attempts   INTEGER NOT NULL DEFAULT 0,
	updated_ms INTEGER NOT NULL,
	error      TEXT NOT NULL DEFAULT '',
	PRIMARY KEY (seq, recipient)
) WITHOUT ROWID;
CREATE INDEX deliveries_mailbox ON deliveries(recipient, open, seq);

CREATE TABLE heartbeats (
	agent    TEXT PRIMARY KEY,
	status   TEXT NOT NULL,
	progress REAL NOT NULL DEFAULT 0,
	task     TEXT NOT NULL DEFAULT '',
	ts_ms    INTEGER NOT NULL
) WITHOUT ROWID;

-- n keeps creation order; id is the short id users type.
CREATE TABLE tasks (
	n           INTEGER PRIMARY KEY,
	id          TEXT NOT NULL UNIQUE,
	title       TEXT NOT NULL,
	description TEXT NOT NULL DEFAULT '',
	assignee    TEXT NOT NULL,
	created_by  TEXT NOT NULL,
	state       TEXT NOT NULL,
	created_ms  INTEGER NOT NULL,
	updated_ms  INTEGER NOT NULL,
	branch      TEXT NOT NULL DEFAULT '',
	worktree    TEXT NOT NULL DEFAULT '',
	base        TEXT NOT NULL DEFAULT ''
);
CREATE INDEX tasks_assignee ON tasks(assignee, state);

CREATE TABLE task_events (
	n          INTEGER PRIMARY KEY,
	task_id    TEXT NOT NULL REFERENCES tasks(id),
	from_state TEXT NOT NULL,
	to_state   TEXT NOT NULL,
	actor      TEXT NOT NULL,
	note       TEXT NOT NULL DEFAULT '',
	ts_ms      INTEGER NOT NULL
);
CREATE INDEX task_events_task ON task_events(task_id, n);

CREATE TABLE task_claims (
	key            TEXT PRIMARY KEY,
	owner          TEXT NOT NULL,
	lease_until_ms INTEGER NOT NULL
) WITHOUT ROWID;
