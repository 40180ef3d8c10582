-- A multiplayer thread's participants (publishing.md). A thread is listed
-- for its creator and for each of its participants.

CREATE TABLE participants (
    thread_id uuid NOT NULL,
    user_id text NOT NULL,
    v smallint NOT NULL,
    body jsonb NOT NULL,
    PRIMARY KEY (thread_id, user_id)
);
CREATE INDEX participants_by_user ON participants (user_id, thread_id);
