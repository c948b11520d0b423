-- Both clocks as they stopped when a game ended (the side to move charged
-- its last turn, a clock that ran out at zero), so a finished game shows
-- the time its players really had left. NULL without a clock, and for
-- games that ended before this column: they show the clocks after their
-- last move.

ALTER TABLE results ADD COLUMN white_ms BIGINT;
ALTER TABLE results ADD COLUMN black_ms BIGINT;
