-- The seats whose rematch request was declined after a game, kept with
-- the game's offers so that a restart does not let the request be made
-- again (it may still accept the other seat's).

ALTER TABLE games ADD COLUMN rematch_declined BIGINT;   -- bit 0: seat 0, bit 1: seat 1
