-- Offers pending in a game (a draw, a takeback, a rematch) are kept, so a
-- restart brings them back. They hold only at the ply they were made at:
-- any move clears them, so a restart ignores offers whose ply is not the
-- game's last.

ALTER TABLE games ADD COLUMN offers_ply BIGINT;       -- NULL: none pending
ALTER TABLE games ADD COLUMN draw_offer TEXT;         -- 'white' | 'black'
ALTER TABLE games ADD COLUMN takeback_by TEXT;        -- 'white' | 'black'
ALTER TABLE games ADD COLUMN rematch_seats BIGINT;    -- bit 0: seat 0, bit 1: seat 1
