-- Managed OAuth flows waiting for their callback (tools.md §8, scale.md
-- §5): kept here since a user's browser may come back to any node. A
-- flow is found by a digest of its state or of its single-use ticket
-- (neither is kept in the clear) and sealed whole; it is used once, by
-- the transaction that deletes it, and dropped past its 10 minutes.

CREATE TABLE oauth_flows (
    state_hash bytea PRIMARY KEY,
    ticket_hash bytea UNIQUE,
    org_id uuid NOT NULL,
    owner bytea NOT NULL,
    created_at timestamptz NOT NULL DEFAULT now(),
    sealed text NOT NULL
);
CREATE INDEX oauth_flows_by_owner ON oauth_flows (org_id, owner, created_at);
CREATE INDEX oauth_flows_by_age ON oauth_flows (created_at);
