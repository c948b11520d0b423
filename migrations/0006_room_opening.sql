-- What a room's first game starts with, kept from the room's creation so
-- that a room still waiting for its opponent comes back from a restart as
-- it was made: the creator's colour ('white' | 'black') and the start
-- position (NULL: the variant's own). Rooms made before these columns
-- come back as they did: the creator White, from the usual start.

ALTER TABLE rooms ADD COLUMN creator_colour TEXT;
ALTER TABLE rooms ADD COLUMN start_fen TEXT;
