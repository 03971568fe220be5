-- Version 2: agents that take no messages (editors, monitors, servers):
-- broadcasts skip them and a message addressed to one fails at once.
ALTER TABLE agents ADD COLUMN no_messages INTEGER NOT NULL DEFAULT 0;
