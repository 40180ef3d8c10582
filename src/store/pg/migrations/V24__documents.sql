-- Knowledge documents (knowledge.md §1–2) and the files the other kinds
-- keep (scale.md §5: `blobs`, chunks of at most 1 MiB, since a job may
-- run on any node).
--
-- A document is one row; its scope is keyed by the 17 bytes sled keys it
-- by, and a scope holds a content once (a second upload answers the
-- first). Its ingestion job is a `jobs` row of kind `ingest_document`.
CREATE TABLE documents (
    org_id uuid NOT NULL,
    id uuid NOT NULL,
    scope_key bytea NOT NULL,
    sha256 text NOT NULL,
    v smallint NOT NULL,
    body json NOT NULL,
    PRIMARY KEY (org_id, id),
    UNIQUE (org_id, scope_key, sha256)
);
CREATE INDEX documents_by_scope ON documents (org_id, scope_key, id);

-- A document's chunks by generation: only the document's
-- `searchable_generation` counts; the others wait for their purge.
CREATE TABLE chunks (
    doc_id uuid NOT NULL,
    generation bigint NOT NULL,
    n integer NOT NULL,
    v smallint NOT NULL,
    body json NOT NULL,
    PRIMARY KEY (doc_id, generation, n)
);

-- What a delete or a replaced generation leaves to purge: the chunks of
-- `generation` (-1: every generation, then the file `sha256` once no
-- document uses it).
CREATE TABLE knowledge_purges (
    doc_id uuid NOT NULL,
    generation bigint NOT NULL,
    org_id uuid NOT NULL,
    sha256 text,
    PRIMARY KEY (doc_id, generation)
);

-- Stored files: `name` is the kind's own (`knowledge/{sha256}`), its
-- bytes in parts `n` = 0, 1, … of at most 1 MiB each. `blob_refs`
-- counts what uses a file; the last release removes its parts.
CREATE TABLE blobs (
    org_id uuid NOT NULL,
    name text NOT NULL,
    n integer NOT NULL,
    data bytea NOT NULL,
    PRIMARY KEY (org_id, name, n)
);
CREATE TABLE blob_refs (
    org_id uuid NOT NULL,
    name text NOT NULL,
    size bigint NOT NULL,
    refs bigint NOT NULL CHECK (refs > 0),
    PRIMARY KEY (org_id, name)
);
