-- Staff's own times for one showing, in epoch milliseconds; NULL takes
-- the default (sales open when the showing is saved and close the
-- cinema's SALES_CLOSE_MINUTES after the start; the door admits until
-- DOOR_CLOSE_MINUTES after it). The showing's object keeps the sales
-- window it decides holds with; these are what staff typed.
ALTER TABLE showings ADD COLUMN sales_open_at_ms INTEGER;
ALTER TABLE showings ADD COLUMN sales_close_at_ms INTEGER;
ALTER TABLE showings ADD COLUMN door_close_at_ms INTEGER;
