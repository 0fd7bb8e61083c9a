-- A waiting list offer's mail has no order: what it offers (the showing,
-- the entry, its seats and until when, as JSON) travels on its row.
ALTER TABLE mail_outbox ADD COLUMN detail TEXT;
