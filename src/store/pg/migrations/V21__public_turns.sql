-- A publication's running turns across nodes (publishing.md limits,
-- scale.md §5): one row per turn admitted and not done, naming the node
-- running it and the tokens reserved against the day's budget. Rows are
-- counted under pg_advisory_xact_lock(PUBLIC_TURNS_LOCK, publication); a
-- node whose registration ran out holds none.

CREATE TABLE public_turns (
    id uuid PRIMARY KEY,
    publication_id uuid NOT NULL,
    node_id uuid NOT NULL,
    tokens bigint NOT NULL,
    taken_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX public_turns_by_publication ON public_turns (publication_id);
