-- What each side asked lately in a game, kept beside the offers pending
-- so that a restart lets no question through again: the ply of each
-- side's last draw offer (a side offers once in ten moves), and the sides
-- whose takeback was declined at the offers' ply (asked again only once a
-- move is played).

ALTER TABLE games ADD COLUMN white_draw_ply BIGINT;     -- NULL: no offer yet
ALTER TABLE games ADD COLUMN black_draw_ply BIGINT;
ALTER TABLE games ADD COLUMN takeback_declined BIGINT;  -- bit 0: White, bit 1: Black
