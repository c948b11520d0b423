-- What the two players of a room said to each other, kept before it is
-- shown, so that a restart, or a room brought back after it left memory,
-- shows the talk as the players saw it. Line 1 is the room's first; the
-- primary key makes a doubled line an error rather than a second row.

CREATE TABLE chat_lines (
    room_id TEXT NOT NULL REFERENCES rooms (id),
    line_no BIGINT NOT NULL CHECK (line_no >= 1),
    seat BIGINT NOT NULL CHECK (seat IN (0, 1)),
    text TEXT NOT NULL,
    sent_at BIGINT NOT NULL,              -- Unix milliseconds
    PRIMARY KEY (room_id, line_no)
);
