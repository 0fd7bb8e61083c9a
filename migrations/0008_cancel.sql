-- A showing staff cancelled: when, and the reason buyers are told. Its
-- paid orders are refunded and their buyers mailed; it stays listed,
-- marked cancelled, until it would have started.
ALTER TABLE showings ADD COLUMN cancelled_at_ms INTEGER;
ALTER TABLE showings ADD COLUMN cancel_reason TEXT;
-- Set once a cancelled showing has no paid or pending order left: the
-- sweep stops looking at it.
ALTER TABLE showings ADD COLUMN cancel_settled_at_ms INTEGER;
CREATE INDEX showings_cancel_unsettled ON showings (cancelled_at_ms)
  WHERE cancelled_at_ms IS NOT NULL AND cancel_settled_at_ms IS NULL;
-- mail_outbox.kind gains 'cancelled': "cancelled:<order>", one per order.
