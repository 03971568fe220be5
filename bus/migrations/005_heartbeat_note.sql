-- Version 5: a heartbeat says in a line why its status is what it is (the
-- agent CLI's hook: "Claude needs your permission to use Bash"), so that
-- "needs you" can name what the agent waits for.
ALTER TABLE heartbeats ADD COLUMN note TEXT NOT NULL DEFAULT '';
