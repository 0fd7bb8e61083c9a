-- Refunds, whether staff asked for them here or in the Square Dashboard.
-- A refund started here is stored, with the tickets it covers, before
-- Square is asked, so its webhook can always be matched to its tickets.
CREATE TABLE refunds (
  -- The idempotency key of a refund started here; "square:<refund id>" for
  -- one first seen in a webhook.
  id                TEXT PRIMARY KEY,
  square_refund_id  TEXT UNIQUE,
  order_id          TEXT NOT NULL REFERENCES orders (id),
  -- JSON list of ticket ids; NULL while a partial Dashboard refund waits
  -- for staff to say which tickets it covers.
  ticket_ids        TEXT,
  amount            INTEGER NOT NULL,
  -- requested | PENDING | COMPLETED | REJECTED | FAILED
  status            TEXT NOT NULL,
  applied_at_ms     INTEGER,
  created_at_ms     INTEGER NOT NULL,
  updated_at_ms     INTEGER NOT NULL
);
CREATE INDEX refunds_by_order ON refunds (order_id);
CREATE INDEX refunds_unsettled ON refunds (updated_at_ms) WHERE applied_at_ms IS NULL;
CREATE INDEX orders_by_payment ON orders (payment_id);
