-- A quick game's room keeps the browser that asked for it (the hash of
-- its device id; NULL: a room from the form), so that one still waiting
-- after a restart is paired again, and never with that browser's own
-- other tab.

ALTER TABLE rooms ADD COLUMN quick_device TEXT;
