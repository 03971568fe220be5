-- Version 4: how far each agent has read its messages through the MCP
-- inbox tool (Bus.ReadUnread): every message delivered to it with a seq up
-- to seq. A cursor is enough because a delivery is made once, when its
-- message is published, with the message's seq, and seqs only grow.
CREATE TABLE inbox_read (
	agent TEXT PRIMARY KEY,
	seq   INTEGER NOT NULL
) WITHOUT ROWID;
