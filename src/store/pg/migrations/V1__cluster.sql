-- The cluster's own tables (scale.md §1, §3): the settings every node
-- shares, the live nodes, and who owns each of the 1,024 shards.

CREATE TABLE meta (
    key text PRIMARY KEY,
    value text NOT NULL,
    updated_at timestamptz NOT NULL DEFAULT now()
);

-- A fresh id at each start; a node is live while expires_at > now()
-- (PostgreSQL's clock only).
CREATE TABLE nodes (
    id uuid PRIMARY KEY,
    name text NOT NULL,
    url text NOT NULL,
    started_at timestamptz NOT NULL DEFAULT now(),
    heartbeat_at timestamptz NOT NULL,
    expires_at timestamptz NOT NULL,
    draining boolean NOT NULL DEFAULT false
);
CREATE INDEX nodes_by_name ON nodes (name);

-- Every change of owner (a claim or a release) moves the epoch, which a
-- turn's writes carry and check (fencing). `since` is when the owner last
-- changed: a shard free for 3 s is orphaned and any node may claim it.
CREATE TABLE shard_leases (
    shard smallint PRIMARY KEY CHECK (shard >= 0 AND shard < 1024),
    node_id uuid,
    epoch bigint NOT NULL DEFAULT 0,
    since timestamptz NOT NULL DEFAULT now()
);
INSERT INTO shard_leases (shard) SELECT generate_series(0, 1023);
