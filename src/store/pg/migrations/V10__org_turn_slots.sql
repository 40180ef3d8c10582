-- The org turn cap across nodes (scale.md §5): one row per thread whose
-- turn holds one of its org's slots, naming the node running it. A slot
-- is taken under pg_advisory_xact_lock(ORG_SLOTS_LOCK, org); the slots of
-- nodes whose registration ran out count for nothing and are cleared.

CREATE TABLE org_turn_slots (
    thread_id uuid PRIMARY KEY,
    org_id uuid NOT NULL,
    node_id uuid NOT NULL,
    taken_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX org_turn_slots_org ON org_turn_slots (org_id);
