-- Which server runs on this database: one row, taken at start in one
-- statement and renewed with every heartbeat. Two servers started at the
-- same moment both found the heartbeats stale and both ran; only one of
-- them can take this row.

CREATE TABLE server_lease (
    id INTEGER PRIMARY KEY CHECK (id = 1),
    holder TEXT NOT NULL,        -- a random id of the running process
    server TEXT NOT NULL,        -- its --server-id, to name it
    renewed_at BIGINT NOT NULL   -- Unix milliseconds
);

INSERT INTO server_lease (id, holder, server, renewed_at) VALUES (1, '', '', 0);
