-- Organizations and API keys (scale.md §2). A key is found by the SHA-256
-- of its secret; its last use is a column of its own, so a touch never
-- rewrites the record (nor brings back a deleted one).

CREATE TABLE orgs (
    id uuid PRIMARY KEY,
    name text NOT NULL,
    created_at timestamptz NOT NULL,
    v smallint NOT NULL,
    body jsonb NOT NULL
);

CREATE TABLE api_keys (
    id uuid PRIMARY KEY,
    org_id uuid NOT NULL,
    secret_sha256 bytea NOT NULL UNIQUE,
    created_at timestamptz NOT NULL,
    last_used_at timestamptz,
    v smallint NOT NULL,
    body jsonb NOT NULL
);
CREATE INDEX api_keys_by_org ON api_keys (org_id, created_at);
