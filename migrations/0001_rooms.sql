-- bashni serve: rooms, seats, games, moves and results.
-- One schema for SQLite and PostgreSQL: only BIGINT, BOOLEAN and TEXT
-- columns; instants are Unix milliseconds (wall clock) in BIGINT; hashes
-- are hex TEXT (BLOB and BYTEA differ); ids are made by the server
-- (128 random bits as hex), so no AUTOINCREMENT/SERIAL.

CREATE TABLE rooms (
    id TEXT PRIMARY KEY,
    variant TEXT NOT NULL,                -- 'bashni' | 'lasca'
    forced_capture BOOLEAN NOT NULL,
    king_landing TEXT NOT NULL,           -- 'continue' | 'free'
    no_progress_plies BIGINT NOT NULL,    -- 0: rule off (15 moves = 30)
    max_plies BIGINT NOT NULL,            -- 0: rule off
    repetitions BIGINT NOT NULL,          -- 0: rule off (3: threefold)
    clock_base_ms BIGINT,                 -- NULL: no clock
    clock_increment_ms BIGINT NOT NULL,
    clock_moves BIGINT NOT NULL,          -- moves per period, 0: whole game
    opponent TEXT NOT NULL,               -- 'anyone' | 'link' | 'engine'
    engine_skill BIGINT,                  -- for 'engine': one of these two
    engine_elo BIGINT,
    status TEXT NOT NULL,                 -- 'open' | 'playing' | 'finished'
    created_at BIGINT NOT NULL
);

CREATE INDEX rooms_by_status ON rooms (status, opponent, created_at);

-- Seat 0 is the creator's, seat 1 the other; which one plays White is a
-- game's (a rematch swaps colours, not seats). The raw token is never
-- stored: only its SHA-256 hash, NULL for an engine seat.
CREATE TABLE seats (
    room_id TEXT NOT NULL REFERENCES rooms (id),
    seat BIGINT NOT NULL CHECK (seat IN (0, 1)),
    display_name TEXT NOT NULL,
    token_hash TEXT,
    engine BOOLEAN NOT NULL,
    joined_at BIGINT NOT NULL,
    PRIMARY KEY (room_id, seat)
);

-- One row per game in a room (1, then 2 after a rematch, ...), with the
-- clock state a restart needs: the time left after the last stored move
-- (or the start) and the wall-clock instant the side to move's turn
-- began; the server's last heartbeat bounds what it may be charged, so
-- time while the server was down is not.
CREATE TABLE games (
    room_id TEXT NOT NULL REFERENCES rooms (id),
    game_no BIGINT NOT NULL,
    white_seat BIGINT NOT NULL CHECK (white_seat IN (0, 1)),
    started_at BIGINT NOT NULL,
    white_ms BIGINT,                      -- NULL: no clock
    black_ms BIGINT,
    turn_started_at BIGINT NOT NULL,
    PRIMARY KEY (room_id, game_no)
);

-- Ply 1 is a game's first move. The primary key makes a doubled ply an
-- error rather than a second row.
CREATE TABLE moves (
    room_id TEXT NOT NULL,
    game_no BIGINT NOT NULL,
    ply BIGINT NOT NULL CHECK (ply >= 1),
    move_text TEXT NOT NULL,
    elapsed_ms BIGINT NOT NULL,           -- charged to the mover
    white_ms BIGINT,                      -- clocks after the move
    black_ms BIGINT,
    moved_at BIGINT NOT NULL,             -- when the room accepted it
    stored_at BIGINT NOT NULL,
    PRIMARY KEY (room_id, game_no, ply),
    FOREIGN KEY (room_id, game_no) REFERENCES games (room_id, game_no)
);

CREATE TABLE results (
    room_id TEXT NOT NULL,
    game_no BIGINT NOT NULL,
    result TEXT NOT NULL,                 -- '2-0' | '0-2' | '1-1'
    reason TEXT NOT NULL,
    finished_at BIGINT NOT NULL,
    PRIMARY KEY (room_id, game_no),
    FOREIGN KEY (room_id, game_no) REFERENCES games (room_id, game_no)
);

-- Each server writes its last sign of life here every few seconds.
CREATE TABLE heartbeats (
    server TEXT PRIMARY KEY,
    alive_at BIGINT NOT NULL
);
