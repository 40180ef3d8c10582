-- Agents' scheduled tasks and the outbox of their message sends
-- (runners.md Scheduling, scale.md §5). A task's `shard` is its message
-- thread's: the node that owns the thread fires the task (a firing holds
-- the task's row, FOR UPDATE SKIP LOCKED) and makes its sends, so a send
-- is made on the thread's owner. Each fired slot also takes its
-- `job_runs('schedule', '{task}/{slot}')` row, so no slot fires twice.

CREATE TABLE scheduled_tasks (
    org_id uuid NOT NULL,
    agent_id uuid NOT NULL,
    id uuid NOT NULL,
    shard smallint NOT NULL CHECK (shard >= 0 AND shard < 1024),
    next_fire_at timestamptz,
    v smallint NOT NULL,
    body json NOT NULL,
    PRIMARY KEY (org_id, agent_id, id)
);
CREATE INDEX scheduled_tasks_due ON scheduled_tasks (shard, next_fire_at)
    WHERE next_fire_at IS NOT NULL;

CREATE TABLE schedule_outbox (
    schedule_id uuid NOT NULL,
    slot timestamptz NOT NULL,
    shard smallint NOT NULL CHECK (shard >= 0 AND shard < 1024),
    v smallint NOT NULL,
    body json NOT NULL,
    PRIMARY KEY (schedule_id, slot)
);
CREATE INDEX schedule_outbox_by_shard ON schedule_outbox (shard, slot);
