-- Agents' memories (knowledge.md §5) and the search index's change feed
-- (scale.md §5: the local search indexes are per-node caches of rows).
--
-- A memory is one row; its owner and its normalized content are keyed
-- (16 bytes each, as sled keys them), so an owner holds a content once.
-- An org's and an owner's memories are counted under an advisory lock of
-- the org, so two writes cannot both take the last place.
CREATE TABLE memories (
    org_id uuid NOT NULL,
    agent_id uuid NOT NULL,
    id uuid NOT NULL,
    owner_key bytea NOT NULL,
    content_key bytea NOT NULL,
    created_at timestamptz NOT NULL,
    v smallint NOT NULL,
    body json NOT NULL,
    PRIMARY KEY (org_id, agent_id, id),
    UNIQUE (org_id, agent_id, owner_key, content_key)
);

-- Forgetting an owner's memories writes a marker that hides every memory
-- of theirs older than `before` at once; the purge removes them after.
-- `agent_id` ffffffff-ffff-ffff-ffff-ffffffffffff is every agent, and an
-- `owner_key` of 16 bytes 0xff every owner (sled's keys).
CREATE TABLE memory_forgets (
    org_id uuid NOT NULL,
    agent_id uuid NOT NULL,
    owner_key bytea NOT NULL,
    before uuid NOT NULL,
    v smallint NOT NULL,
    body json NOT NULL,
    PRIMARY KEY (org_id, agent_id, owner_key)
);

-- What each node's search index must apply, in order. A write takes an
-- advisory lock before its row, so rows commit in `seq` order and a node
-- reading after its last `seq` never skips one. Rows are kept a week;
-- `meta.index_changes_floor` is the last `seq` removed, and a node behind
-- it rebuilds its index from the rows. `meta.index_feed` names this
-- feed, so an index built from another database is rebuilt too.
CREATE TABLE index_changes (
    seq bigserial PRIMARY KEY,
    at timestamptz NOT NULL DEFAULT now(),
    body json NOT NULL
);
CREATE INDEX index_changes_by_time ON index_changes (at);
INSERT INTO meta (key, value) VALUES ('index_feed', gen_random_uuid()::text);
