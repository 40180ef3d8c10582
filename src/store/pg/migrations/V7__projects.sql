-- Projects and their members (agent-extras.md §5). A slug is unique in
-- its org, `created_at` too (the listing's cursor). Threads and agents
-- name their project in a column, so a project's threads are one index
-- range and a project's delete detaches them in its own transaction.

CREATE TABLE projects (
    org_id uuid NOT NULL,
    id uuid NOT NULL,
    slug text,
    created_at timestamptz NOT NULL,
    v smallint NOT NULL,
    body jsonb NOT NULL,
    PRIMARY KEY (org_id, id)
);
CREATE UNIQUE INDEX projects_slug ON projects (org_id, slug) WHERE slug IS NOT NULL;
CREATE UNIQUE INDEX projects_created ON projects (org_id, created_at);

CREATE TABLE project_members (
    org_id uuid NOT NULL,
    project_id uuid NOT NULL,
    user_id text NOT NULL,
    v smallint NOT NULL,
    body jsonb NOT NULL,
    PRIMARY KEY (project_id, user_id)
);
CREATE INDEX project_members_by_user ON project_members (org_id, user_id, project_id);

ALTER TABLE threads ADD COLUMN project_id uuid;
CREATE INDEX threads_by_project ON threads (org_id, project_id, created_at)
    WHERE project_id IS NOT NULL;

ALTER TABLE agents ADD COLUMN project_id uuid;
CREATE INDEX agents_by_project ON agents (org_id, project_id) WHERE project_id IS NOT NULL;
