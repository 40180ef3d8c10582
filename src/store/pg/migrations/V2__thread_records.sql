-- The records a turn reads and writes (scale.md §2): agents and their
-- configurations, threads with their shard and counters, the listed
-- messages and the model's context, the turns, keyed sends, usage records, the
-- publications' day budgets and the traces. A record is the codec's JSON
-- (`body`, written by version `v`), sealed fields still sealed; the
-- columns are its keys and what an index or a query needs.

CREATE TABLE agents (
    org_id uuid NOT NULL,
    id uuid NOT NULL,
    created_at timestamptz NOT NULL,
    v smallint NOT NULL,
    body jsonb NOT NULL,
    PRIMARY KEY (org_id, id)
);
CREATE INDEX agents_by_time ON agents (org_id, created_at, id);

-- One row per (agent, kind): the sled key's kind byte (`keys::ConfigKind`).
CREATE TABLE agent_configs (
    org_id uuid NOT NULL,
    agent_id uuid NOT NULL,
    kind smallint NOT NULL,
    v smallint NOT NULL,
    body jsonb NOT NULL,
    PRIMARY KEY (org_id, agent_id, kind)
);

-- `last_seq`, `last_context_seq` and `last_turn` are sled's counter trees:
-- an append updates them on the thread's row, which also serializes the
-- appends of one thread. `created_at` is unique within the org. A thread
-- some other work made (a run's, a delegate's, a code session's) is not
-- `listed` under its agent.
CREATE TABLE threads (
    org_id uuid NOT NULL,
    id uuid NOT NULL UNIQUE,
    agent_id uuid NOT NULL,
    created_at timestamptz NOT NULL,
    created_by text NOT NULL,
    listed boolean NOT NULL,
    shard smallint NOT NULL CHECK (shard >= 0 AND shard < 1024),
    last_seq bigint NOT NULL DEFAULT 0,
    last_context_seq bigint NOT NULL DEFAULT 0,
    last_turn bigint NOT NULL DEFAULT 0,
    v smallint NOT NULL,
    body jsonb NOT NULL,
    PRIMARY KEY (org_id, id)
);
CREATE UNIQUE INDEX threads_created ON threads (org_id, created_at);
CREATE INDEX threads_by_agent ON threads (org_id, agent_id, created_at) WHERE listed;
CREATE INDEX threads_by_creator ON threads (org_id, agent_id, created_by, created_at);

CREATE TABLE messages (
    thread_id uuid NOT NULL,
    seq bigint NOT NULL,
    v smallint NOT NULL,
    body jsonb NOT NULL,
    PRIMARY KEY (thread_id, seq)
);

CREATE TABLE context_entries (
    thread_id uuid NOT NULL,
    seq bigint NOT NULL,
    role text NOT NULL,
    v smallint NOT NULL,
    body jsonb NOT NULL,
    PRIMARY KEY (thread_id, seq)
);
-- Where a send's rules start reading: the thread's last assistant entry.
CREATE INDEX context_assistant ON context_entries (thread_id, seq) WHERE role = 'assistant';

-- One row per turn a node started (scale.md §3.5): `running` from its
-- first write, `done` or `failed` from its last. A node that takes over a
-- dead node's shard fails its running turns (`NODE_FAILED`), so a reader
-- reattaching elsewhere learns how the turn ended.
CREATE TABLE turns (
    thread_id uuid NOT NULL,
    turn bigint NOT NULL,
    shard smallint NOT NULL,
    node_id uuid NOT NULL,
    trace_id uuid,
    status text NOT NULL CHECK (status IN ('running', 'done', 'failed')),
    last_frame bigint,
    code text,
    started_at timestamptz NOT NULL DEFAULT now(),
    ended_at timestamptz,
    PRIMARY KEY (thread_id, turn)
);
CREATE INDEX turns_running ON turns (shard) WHERE status = 'running';

CREATE TABLE keyed_sends (
    thread_id uuid NOT NULL,
    key_hash bytea NOT NULL,
    created_at timestamptz NOT NULL,
    v smallint NOT NULL,
    body jsonb NOT NULL,
    PRIMARY KEY (thread_id, key_hash)
);

CREATE TABLE usage_records (
    org_id uuid NOT NULL,
    id uuid NOT NULL,
    created_at timestamptz NOT NULL,
    agent_id uuid NOT NULL,
    thread_id uuid,
    message_id uuid,
    publication_id uuid,
    v smallint NOT NULL,
    body jsonb NOT NULL,
    PRIMARY KEY (org_id, id)
);
CREATE UNIQUE INDEX usage_created ON usage_records (org_id, created_at);
CREATE INDEX usage_by_thread ON usage_records (org_id, thread_id, created_at)
    WHERE thread_id IS NOT NULL;
CREATE INDEX usage_by_agent ON usage_records (org_id, agent_id, created_at);

-- Tokens of a publication's visitors' calls per day (days since 1970).
CREATE TABLE publication_days (
    publication_id uuid NOT NULL,
    day integer NOT NULL,
    tokens bigint NOT NULL,
    PRIMARY KEY (publication_id, day)
);

-- Partitioned by day; until the maintenance job makes a day's partition,
-- a trace lands in the default one.
CREATE TABLE traces (
    id uuid NOT NULL,
    started_at timestamptz NOT NULL,
    org_id uuid NOT NULL,
    agent_id uuid NOT NULL,
    thread_id uuid NOT NULL,
    v smallint NOT NULL,
    body jsonb NOT NULL,
    PRIMARY KEY (id, started_at)
) PARTITION BY RANGE (started_at);
CREATE TABLE traces_default PARTITION OF traces DEFAULT;
CREATE INDEX traces_by_org ON traces (org_id, started_at);
CREATE INDEX traces_by_thread ON traces (thread_id, started_at);
