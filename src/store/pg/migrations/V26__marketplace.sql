-- The marketplace (marketplace-channels.md §2–§5): an agent's profile
-- (keyed by the agent alone, as sled keys it: an avatar is fetched by
-- agent id without a bearer), its avatar, and `use`'s keyed answers. A
-- listed profile carries its catalogue key (newest-first milliseconds,
-- then the agent: sled's index key), which the catalogue pages in order.
CREATE TABLE marketplace_profiles (
    agent_id uuid PRIMARY KEY,
    org_id uuid NOT NULL,
    listed_key bytea UNIQUE,
    v smallint NOT NULL,
    body json NOT NULL
);

CREATE TABLE marketplace_avatars (
    agent_id uuid PRIMARY KEY,
    png bytea NOT NULL
);

CREATE TABLE keyed_adoptions (
    org_id uuid NOT NULL,
    key_hash bytea NOT NULL,
    request text NOT NULL,
    answer text NOT NULL,
    created_at timestamptz NOT NULL,
    PRIMARY KEY (org_id, key_hash)
);
