-- Skills (agent-extras.md §1): a skill's record (its git token sealed),
-- its name unique in the org, its files, and its attachments to agents
-- and runners (an owner is either, by id). The org's skills and an
-- owner's attachments are counted under an advisory lock, so their caps
-- are exact across nodes.

CREATE TABLE skills (
    org_id uuid NOT NULL,
    id uuid NOT NULL UNIQUE,
    name text NOT NULL,
    v smallint NOT NULL,
    body json NOT NULL,
    PRIMARY KEY (org_id, id),
    UNIQUE (org_id, name)
);

CREATE TABLE skill_files (
    skill_id uuid NOT NULL,
    path text NOT NULL,
    bytes bytea NOT NULL,
    PRIMARY KEY (skill_id, path)
);

CREATE TABLE skill_attachments (
    owner_id uuid NOT NULL,
    skill_id uuid NOT NULL,
    v smallint NOT NULL,
    body json NOT NULL,
    PRIMARY KEY (owner_id, skill_id)
);
CREATE INDEX skill_attachments_by_skill ON skill_attachments (skill_id);
