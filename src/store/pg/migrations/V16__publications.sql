-- Publishing (publishing.md): publications, one per agent, their slug
-- unique in the instance (the constraint decides two racing creations);
-- each org's publishing settings. A thread's publication is a column of
-- its row, so a publication's threads are counted (its cap, under an
-- advisory lock on the publication) and swept (its retention) by index,
-- with no counter row to keep in step.

CREATE TABLE publications (
    org_id uuid NOT NULL,
    agent_id uuid NOT NULL,
    id uuid NOT NULL UNIQUE,
    slug text NOT NULL UNIQUE,
    v smallint NOT NULL,
    body json NOT NULL,
    PRIMARY KEY (org_id, agent_id)
);

CREATE TABLE org_settings (
    org_id uuid PRIMARY KEY,
    v smallint NOT NULL,
    body json NOT NULL
);

-- Written once, with the thread (a thread's publication never changes), so
-- the appends that update a thread's counters compute nothing for it.
ALTER TABLE threads ADD COLUMN publication_id uuid;
UPDATE threads SET publication_id = (body->>'publication_id')::uuid
    WHERE body ? 'publication_id';
CREATE INDEX threads_by_publication ON threads (publication_id, created_at)
    WHERE publication_id IS NOT NULL;
