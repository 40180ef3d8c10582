-- Org tools (tools.md §1): a name is unique in its org, the signing
-- secret sealed in the record. `cache_versions` (scale.md §5) is bumped by
-- every write to an org's cached data, so each node drops its stale copy
-- within the second.

CREATE TABLE tools (
    org_id uuid NOT NULL,
    id uuid NOT NULL,
    name text NOT NULL,
    created_at timestamptz NOT NULL,
    v smallint NOT NULL,
    body jsonb NOT NULL,
    PRIMARY KEY (org_id, id),
    UNIQUE (org_id, name)
);

CREATE TABLE cache_versions (
    org_id uuid NOT NULL,
    kind text NOT NULL,
    version bigint NOT NULL DEFAULT 1,
    changed_at timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (org_id, kind)
);
CREATE INDEX cache_versions_changed ON cache_versions (changed_at);
