-- The ladder of rivals: a game may start from its own position (a
-- handicap), and a run (the games of one climb, all in one room) is kept
-- with its score, so the best per player and device can be shown.

-- NULL: the variant's start position.
ALTER TABLE games ADD COLUMN start_fen TEXT;

CREATE TABLE ladder_runs (
    id TEXT PRIMARY KEY,
    room_id TEXT NOT NULL REFERENCES rooms (id),
    variant TEXT NOT NULL,
    player_name TEXT NOT NULL,
    device_hash TEXT NOT NULL,            -- SHA-256 of the browser's device id
    seed BIGINT NOT NULL,                 -- the rivals' random moves come from it
    wins BIGINT NOT NULL,
    think_ms BIGINT NOT NULL,             -- the player's thinking in won games
    score BIGINT NOT NULL,
    status TEXT NOT NULL,                 -- 'playing' | 'lost' | 'drawn' | 'complete'
    created_at BIGINT NOT NULL,
    updated_at BIGINT NOT NULL
);

CREATE INDEX ladder_runs_by_score ON ladder_runs (variant, score);
CREATE INDEX ladder_runs_by_room ON ladder_runs (room_id);
