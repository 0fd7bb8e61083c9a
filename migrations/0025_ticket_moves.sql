-- Staff move a sold ticket to another seat of its showing. The ticket
-- moved becomes void (it admits no one and no longer holds its seat in
-- tickets_one_live_per_seat) and names the ticket that replaced it; the
-- replacement, a new row live on the new seat, names the one it replaced.
-- The door answers the old code "moved", naming the new seat.
ALTER TABLE tickets ADD COLUMN moved_to TEXT;
ALTER TABLE tickets ADD COLUMN moved_from TEXT;

-- The ticket a message is about: a moved ticket's replacement, for the
-- mail that sends it (kind `moved`, keyed "moved:<new ticket id>").
ALTER TABLE mail_outbox ADD COLUMN ticket_id TEXT;
