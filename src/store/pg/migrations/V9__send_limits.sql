-- Per-minute send limits, exact across nodes (scale.md §5): one GCRA row
-- per (org, subject). `tat` is the theoretical arrival time: a send is
-- admitted while pushing it on by one emission interval keeps it within
-- the minute's burst of now.

CREATE TABLE send_limits (
    org_id uuid NOT NULL,
    subject text NOT NULL,
    tat timestamptz NOT NULL,
    PRIMARY KEY (org_id, subject)
);
