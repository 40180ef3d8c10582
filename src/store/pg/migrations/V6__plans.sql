-- Plans with their todos (plans.md): one row per plan, so every change
-- is one row update; a thread's plans newest first by (thread, created).

CREATE TABLE plans (
    org_id uuid NOT NULL,
    id uuid NOT NULL,
    thread_id uuid NOT NULL,
    created_at timestamptz NOT NULL,
    version bigint NOT NULL,
    v smallint NOT NULL,
    body jsonb NOT NULL,
    PRIMARY KEY (org_id, id)
);
CREATE INDEX plans_by_thread ON plans (thread_id, created_at, id);
