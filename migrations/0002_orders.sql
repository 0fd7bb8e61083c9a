-- Orders, tickets and each order's audit trail. The Showtime object owns
-- the seats; D1 is the record of who bought what.
CREATE TABLE orders (
  id               TEXT PRIMARY KEY,
  showing_id       TEXT NOT NULL REFERENCES showings (id),
  email            TEXT NOT NULL,
  name             TEXT NOT NULL,
  amount           INTEGER NOT NULL CHECK (amount > 0),
  currency         TEXT NOT NULL,
  -- pending | paid | declined | seat_lost | needs_attention | failed | refunded
  status           TEXT NOT NULL,
  status_detail    TEXT,
  payment_id       TEXT,
  created_at_ms    INTEGER NOT NULL,
  updated_at_ms    INTEGER NOT NULL
);

CREATE INDEX orders_by_showing ON orders (showing_id, created_at_ms);
CREATE INDEX orders_by_email ON orders (email);
CREATE INDEX orders_unfinished ON orders (updated_at_ms) WHERE status = 'pending';

CREATE TABLE tickets (
  -- "<order id>-<n>": deterministic, so writing an order twice writes
  -- its tickets once.
  id               TEXT PRIMARY KEY,
  order_id         TEXT NOT NULL REFERENCES orders (id),
  showing_id       TEXT NOT NULL REFERENCES showings (id),
  seat             TEXT NOT NULL,
  -- pending (paying) | valid | void
  status           TEXT NOT NULL,
  checked_in_at_ms INTEGER,
  checked_in_by    TEXT,
  voided_at_ms     INTEGER,
  created_at_ms    INTEGER NOT NULL
);

-- The last line of defence: one live ticket per seat per showing, whatever
-- a race or a bug elsewhere does.
CREATE UNIQUE INDEX tickets_one_live_per_seat ON tickets (showing_id, seat)
  WHERE status <> 'void';
CREATE INDEX tickets_by_order ON tickets (order_id);

-- Every state change of an order, with the Square ids and statuses seen.
-- Never card data.
CREATE TABLE order_events (
  id          INTEGER PRIMARY KEY AUTOINCREMENT,
  order_id    TEXT NOT NULL REFERENCES orders (id),
  at_ms       INTEGER NOT NULL,
  from_state  TEXT,
  to_state    TEXT NOT NULL,
  detail      TEXT
);
CREATE INDEX order_events_by_order ON order_events (order_id, id);
