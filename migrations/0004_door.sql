-- The door PIN staff type to scan tickets for one showing, as SHA-256 of
-- the showing id and the PIN; NULL until the admin sets one.
ALTER TABLE showings ADD COLUMN door_pin_hash TEXT;
