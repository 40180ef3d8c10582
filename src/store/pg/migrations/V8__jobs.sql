-- Stored jobs (scale.md §5): a node claims the due jobs of its shards with
-- FOR UPDATE SKIP LOCKED, holding each until `claimed_until`; a claim that
-- runs out (its node died) is claimed again. One pending job per (kind,
-- slot), and `job_runs` keeps a slot from running under two jobs.

CREATE TABLE jobs (
    id uuid PRIMARY KEY,
    kind text NOT NULL,
    shard smallint NOT NULL CHECK (shard >= 0 AND shard < 1024),
    slot text NOT NULL,
    due_at timestamptz NOT NULL,
    claimed_by uuid,
    claimed_until timestamptz,
    attempts integer NOT NULL DEFAULT 0,
    body jsonb NOT NULL,
    UNIQUE (kind, slot)
);
CREATE INDEX jobs_due ON jobs (shard, due_at);

CREATE TABLE job_runs (
    kind text NOT NULL,
    slot text NOT NULL,
    job_id uuid NOT NULL,
    node_id uuid NOT NULL,
    started_at timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (kind, slot)
);

-- A deleted thread until its purge job has removed its history.
CREATE TABLE deleted_threads (
    thread_id uuid PRIMARY KEY,
    org_id uuid NOT NULL,
    agent_id uuid NOT NULL,
    created_at timestamptz NOT NULL,
    deleted_at timestamptz NOT NULL
);

-- A thread's delegated children, found when it is purged.
CREATE INDEX threads_by_parent ON threads (org_id, ((body -> 'delegation' ->> 'parent_thread_id')))
    WHERE body ? 'delegation';

-- A thread creation's Idempotency-Key (its hash with the org and caller),
-- kept 24 hours: a repeat answers the thread it created.
CREATE TABLE keyed_threads (
    org_id uuid NOT NULL,
    key_hash bytea NOT NULL,
    request text NOT NULL,
    thread_id uuid NOT NULL,
    created_at timestamptz NOT NULL,
    PRIMARY KEY (org_id, key_hash)
);
