-- Knowledge embeddings (knowledge.md §3): each org's embedding server
-- (its API key sealed in the body), and the vectors of chunks. A vector
-- belongs to its chunk: the chunk's purge removes it. A chunk is pending
-- while it has no vector of its org's current model and dimensions.
CREATE TABLE embedding_configs (
    org_id uuid PRIMARY KEY,
    v smallint NOT NULL,
    body json NOT NULL
);

CREATE TABLE chunk_vectors (
    doc_id uuid NOT NULL,
    generation bigint NOT NULL,
    n integer NOT NULL,
    model text NOT NULL,
    components bytea NOT NULL,
    PRIMARY KEY (doc_id, generation, n),
    FOREIGN KEY (doc_id, generation, n) REFERENCES chunks ON DELETE CASCADE
);
