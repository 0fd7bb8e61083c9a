-- A showing staff expect a rush for has a waiting room: buyers queue, and
-- hold seats once admitted, `admit_per_minute` of them a minute from the
-- sales opening. NULL: no waiting room.
ALTER TABLE showings ADD COLUMN admit_per_minute INTEGER;
