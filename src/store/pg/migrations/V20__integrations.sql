-- Database integrations (tools.md §7): an integration's record (its
-- connection string sealed), its slug unique in the org, and its
-- attachments to agents (the tables each agent is offered).

CREATE TABLE integrations (
    org_id uuid NOT NULL,
    id uuid NOT NULL UNIQUE,
    slug text NOT NULL,
    v smallint NOT NULL,
    body json NOT NULL,
    PRIMARY KEY (org_id, id),
    UNIQUE (org_id, slug)
);

CREATE TABLE integration_attachments (
    org_id uuid NOT NULL,
    agent_id uuid NOT NULL,
    integration_id uuid NOT NULL,
    attached_at timestamptz NOT NULL,
    v smallint NOT NULL,
    body json NOT NULL,
    PRIMARY KEY (org_id, agent_id, integration_id)
);
CREATE INDEX integration_attachments_by_integration ON integration_attachments (integration_id);
