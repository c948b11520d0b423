-- A finished game's analysis, kept once it is done so that a restart, or
-- a room brought back after it left memory, shows what its players saw
-- and a replay of the game carries its marks. One token per move, in
-- order, separated by single spaces: the mark ('?', '??', or '-' for
-- none), and the score after the move in centipawns from White's view.
-- NULL: not analysed.

ALTER TABLE games ADD COLUMN analysis_marks TEXT;
ALTER TABLE games ADD COLUMN analysis_evals TEXT;
