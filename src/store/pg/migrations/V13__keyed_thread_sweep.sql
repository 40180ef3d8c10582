-- The store's upkeep removes thread-creation keys past their keeping
-- (`confer_actors::idempotency::KEEP_FOR_HOURS`), found by time.

CREATE INDEX keyed_threads_by_time ON keyed_threads (created_at);
