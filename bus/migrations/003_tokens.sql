-- Version 3: each agent's process holds a secret token (SWARM_TOKEN); the
-- bus keeps its SHA-256, so a swarm command is attributed to the agent
-- whose environment it runs in.
ALTER TABLE agents ADD COLUMN token_hash TEXT NOT NULL DEFAULT '';
CREATE INDEX agents_token ON agents (token_hash) WHERE token_hash != '';
