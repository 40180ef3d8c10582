-- The org turn cap's queue across nodes (scale.md §5): one row per turn
-- waiting for one of its org's slots, in arrival order (the bigserial),
-- naming the node that runs it. Only the first row of an org may take a
-- free slot, so turns start in the order they queued whichever node runs
-- them, and a row's rank is its `queued.position`. Rows are changed
-- under the org's slot lock; those of nodes whose registration ran out
-- count for nothing and are cleared.

CREATE TABLE org_turn_waiters (
    id bigserial PRIMARY KEY,
    org_id uuid NOT NULL,
    thread_id uuid NOT NULL,
    turn bigint NOT NULL,
    node_id uuid NOT NULL,
    since timestamptz NOT NULL DEFAULT now(),
    UNIQUE (thread_id, turn)
);
CREATE INDEX org_turn_waiters_org ON org_turn_waiters (org_id, id);
