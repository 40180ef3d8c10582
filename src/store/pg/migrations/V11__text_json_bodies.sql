-- Record bodies become `json` (checked JSON text, kept as written) where
-- no statement looks inside them: `jsonb` refuses the escape \u0000,
-- which a model's answer, a tool's output (a binary file read as text)
-- or a caller's message may carry, and which sled keeps. A turn whose
-- answer held one failed on PostgreSQL alone. `threads`, `agents`,
-- `keyed_sends` and `jobs` stay `jsonb`: statements read or change fields
-- of their bodies.

ALTER TABLE messages ALTER COLUMN body TYPE json USING body::json;
ALTER TABLE context_entries ALTER COLUMN body TYPE json USING body::json;
ALTER TABLE traces ALTER COLUMN body TYPE json USING body::json;
ALTER TABLE usage_records ALTER COLUMN body TYPE json USING body::json;
ALTER TABLE agent_configs ALTER COLUMN body TYPE json USING body::json;
ALTER TABLE orgs ALTER COLUMN body TYPE json USING body::json;
ALTER TABLE api_keys ALTER COLUMN body TYPE json USING body::json;
ALTER TABLE participants ALTER COLUMN body TYPE json USING body::json;
ALTER TABLE tools ALTER COLUMN body TYPE json USING body::json;
ALTER TABLE plans ALTER COLUMN body TYPE json USING body::json;
ALTER TABLE projects ALTER COLUMN body TYPE json USING body::json;
ALTER TABLE project_members ALTER COLUMN body TYPE json USING body::json;
