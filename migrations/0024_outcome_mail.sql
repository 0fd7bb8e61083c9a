-- When the buyer's checkout was answered `202 pending`: they were told to
-- wait, and may have left. An order so answered that then ends without
-- tickets (declined, seat_lost, failed) mails its buyer, queued in the
-- same batch as that outcome (or, if the outcome came first, as this
-- mark); one answered with its outcome at once mails nothing. NULL for
-- every order before this migration, and for box-office orders.
ALTER TABLE orders ADD COLUMN answered_pending_at_ms INTEGER;

-- mail_outbox.kind gains, each keyed "<kind>:<order>" (one per order):
-- declined | seat_lost | payment_cancelled; and, keyed
-- "refund_failed:<refund>" (one per refund): refund_failed | refund_rejected.
