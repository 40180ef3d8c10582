-- The store's upkeep (operations.md) finds what it removes by time: traces
-- past their retention, job slots run long ago.

CREATE INDEX traces_by_time ON traces (started_at);
CREATE INDEX job_runs_by_time ON job_runs (started_at);
