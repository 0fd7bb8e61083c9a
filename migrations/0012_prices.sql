-- Seats have their own prices: a showing has price categories (adult,
-- child, …, the first the default, any of them possibly free), and each
-- ticket records the category and amount it was sold at. A free order has
-- amount 0, so the checks on showings.price_amount and orders.amount
-- become ">= 0"; SQLite cannot change a check in place, so both tables are
-- rebuilt (D1 allows it with foreign keys deferred to the commit).
PRAGMA defer_foreign_keys = on;

CREATE TABLE showings_new (
  id                   TEXT PRIMARY KEY,
  title                TEXT NOT NULL,
  starts_at_ms         INTEGER NOT NULL,
  -- The default (first) category's price.
  price_amount         INTEGER NOT NULL CHECK (price_amount >= 0),
  currency             TEXT NOT NULL,
  layout_json          TEXT NOT NULL,
  seat_count           INTEGER NOT NULL CHECK (seat_count > 0),
  max_seats_per_hold   INTEGER NOT NULL,
  hold_ttl_ms          INTEGER NOT NULL,
  created_at_ms        INTEGER NOT NULL,
  door_pin_hash        TEXT,
  cancelled_at_ms      INTEGER,
  cancel_reason        TEXT,
  cancel_settled_at_ms INTEGER,
  sales_open_at_ms     INTEGER,
  sales_close_at_ms    INTEGER,
  door_close_at_ms     INTEGER,
  -- [{"id", "name", "amount"}, …]; NULL for a showing saved with one price.
  prices_json          TEXT
);
INSERT INTO showings_new (id, title, starts_at_ms, price_amount, currency, layout_json,
  seat_count, max_seats_per_hold, hold_ttl_ms, created_at_ms, door_pin_hash,
  cancelled_at_ms, cancel_reason, cancel_settled_at_ms, sales_open_at_ms,
  sales_close_at_ms, door_close_at_ms)
SELECT id, title, starts_at_ms, price_amount, currency, layout_json,
  seat_count, max_seats_per_hold, hold_ttl_ms, created_at_ms, door_pin_hash,
  cancelled_at_ms, cancel_reason, cancel_settled_at_ms, sales_open_at_ms,
  sales_close_at_ms, door_close_at_ms
FROM showings;
DROP TABLE showings;
ALTER TABLE showings_new RENAME TO showings;
CREATE INDEX showings_by_start ON showings (starts_at_ms);
CREATE INDEX showings_cancel_unsettled ON showings (cancelled_at_ms)
  WHERE cancelled_at_ms IS NOT NULL AND cancel_settled_at_ms IS NULL;

CREATE TABLE orders_new (
  id               TEXT PRIMARY KEY,
  showing_id       TEXT NOT NULL REFERENCES showings (id),
  email            TEXT NOT NULL,
  name             TEXT NOT NULL,
  amount           INTEGER NOT NULL CHECK (amount >= 0),
  currency         TEXT NOT NULL,
  -- pending | paid | declined | seat_lost | needs_attention | failed | refunded
  status           TEXT NOT NULL,
  status_detail    TEXT,
  payment_id       TEXT,
  created_at_ms    INTEGER NOT NULL,
  updated_at_ms    INTEGER NOT NULL,
  handled_at_ms    INTEGER,
  handled_note     TEXT
);
INSERT INTO orders_new (id, showing_id, email, name, amount, currency, status,
  status_detail, payment_id, created_at_ms, updated_at_ms, handled_at_ms, handled_note)
SELECT id, showing_id, email, name, amount, currency, status,
  status_detail, payment_id, created_at_ms, updated_at_ms, handled_at_ms, handled_note
FROM orders;
DROP TABLE orders;
ALTER TABLE orders_new RENAME TO orders;
CREATE INDEX orders_by_showing ON orders (showing_id, created_at_ms);
CREATE INDEX orders_by_email ON orders (email);
CREATE INDEX orders_unfinished ON orders (updated_at_ms) WHERE status = 'pending';
CREATE INDEX orders_by_payment ON orders (payment_id);

-- What each ticket was sold at; NULL for one sold before seats had their
-- own prices (each then cost an equal share of its order).
ALTER TABLE tickets ADD COLUMN price_category TEXT;
ALTER TABLE tickets ADD COLUMN price_name TEXT;
ALTER TABLE tickets ADD COLUMN price_amount INTEGER;

PRAGMA defer_foreign_keys = off;
