-- Version 6: checks on task branches, the merge queue and a reviewer agent.

-- One row per command of a task's latest run of each kind: run is
-- 'branch' (the task's branch in review) or 'merge' (the merge queue's
-- combination of the branch with its base); commit_id is the commit the
-- command ran on. A new run of a kind replaces its rows.
CREATE TABLE checks (
	task_id    TEXT NOT NULL REFERENCES tasks(id),
	run        TEXT NOT NULL,
	n          INTEGER NOT NULL,
	cmd        TEXT NOT NULL,
	commit_id  TEXT NOT NULL,
	state      TEXT NOT NULL,
	started_ms INTEGER NOT NULL DEFAULT 0,
	ended_ms   INTEGER NOT NULL DEFAULT 0,
	exit_code  INTEGER NOT NULL DEFAULT 0,
	log        TEXT NOT NULL DEFAULT '',
	tail       TEXT NOT NULL DEFAULT '',
	PRIMARY KEY (task_id, run, n)
) WITHOUT ROWID;

-- The merge queue, in order of n. An entry stays, phase 'done' with its
-- outcome in why, until the task is queued again.
CREATE TABLE merge_queue (
	n          INTEGER PRIMARY KEY,
	task_id    TEXT NOT NULL UNIQUE REFERENCES tasks(id),
	queued_by  TEXT NOT NULL,
	queued_ms  INTEGER NOT NULL,
	phase      TEXT NOT NULL,
	phase_ms   INTEGER NOT NULL,
	why        TEXT NOT NULL DEFAULT '',
	merged     INTEGER NOT NULL DEFAULT 0,
	old_commit TEXT NOT NULL DEFAULT '',
	new_commit TEXT NOT NULL DEFAULT ''
);

-- A reviewer agent's verdicts, oldest first.
CREATE TABLE reviews (
	n         INTEGER PRIMARY KEY,
	task_id   TEXT NOT NULL REFERENCES tasks(id),
	reviewer  TEXT NOT NULL,
	verdict   TEXT NOT NULL,
	note      TEXT NOT NULL DEFAULT '',
	commit_id TEXT NOT NULL DEFAULT '',
	ts_ms     INTEGER NOT NULL
);
CREATE INDEX reviews_task ON reviews(task_id, n);

-- The [checks] of the swarm that started last on this bus, as JSON: what
-- the command line applies when no swarm runs. No row: no checks.
CREATE TABLE check_policy (
	id     INTEGER PRIMARY KEY CHECK (id = 1),
	policy TEXT NOT NULL
);
