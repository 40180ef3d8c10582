-- Analytics' per-day aggregates (observability.md "Analytics"), keyed as
-- sled keys them (`store::keys::trace_day_key`, `user_trace_day_key`), so
-- a range of days is a range of keys. A trace counts in them once folded:
-- the sweep folds the traces of past days (`folded` set in the same
-- transaction), a read folds the rest as it reads, in one snapshot; a
-- trace is deleted by its retention only once folded.

CREATE TABLE trace_days (
    key bytea PRIMARY KEY,
    body bytea NOT NULL
);

ALTER TABLE traces ADD COLUMN folded boolean NOT NULL DEFAULT false;
CREATE INDEX traces_unfolded ON traces (org_id, started_at) WHERE NOT folded;
