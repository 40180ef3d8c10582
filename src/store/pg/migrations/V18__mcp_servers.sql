-- MCP servers (tools.md §6, §8): a server's record (its credentials and
-- client secret sealed), its slug unique in the org, its attachments to
-- agents, and the OAuth registration and tokens kept for it. `epoch`
-- mirrors the record's `oauth_epoch`: a token or registration is stored
-- only while the server row, held FOR SHARE, still has the epoch it was
-- made for, and a change that moves the server's tokens holds the row
-- FOR UPDATE, bumps the epoch and deletes them in one transaction.

CREATE TABLE mcp_servers (
    org_id uuid NOT NULL,
    id uuid NOT NULL UNIQUE,
    slug text NOT NULL,
    epoch bigint NOT NULL,
    v smallint NOT NULL,
    body json NOT NULL,
    PRIMARY KEY (org_id, id),
    UNIQUE (org_id, slug)
);

CREATE TABLE mcp_attachments (
    org_id uuid NOT NULL,
    agent_id uuid NOT NULL,
    server_id uuid NOT NULL,
    attached_at timestamptz NOT NULL,
    v smallint NOT NULL,
    body json NOT NULL,
    PRIMARY KEY (org_id, agent_id, server_id)
);
CREATE INDEX mcp_attachments_by_server ON mcp_attachments (server_id);

CREATE TABLE oauth_registrations (
    org_id uuid NOT NULL,
    server_id uuid NOT NULL,
    v smallint NOT NULL,
    body json NOT NULL,
    PRIMARY KEY (org_id, server_id)
);

CREATE TABLE oauth_tokens (
    org_id uuid NOT NULL,
    server_id uuid NOT NULL,
    owner bytea NOT NULL,
    updated_at timestamptz NOT NULL,
    v smallint NOT NULL,
    body json NOT NULL,
    PRIMARY KEY (org_id, server_id, owner)
);
