-- Staff can mark an order on the attention list as handled (a buyer
-- written to, a seat given back by hand), with a note; it then leaves the
-- list, and its history keeps who said what.
ALTER TABLE orders ADD COLUMN handled_at_ms INTEGER;
ALTER TABLE orders ADD COLUMN handled_note TEXT;
