-- Showings: what is on, when, at what price, in which layout. The seats'
-- live state is not here: each showing's Showtime Durable Object owns it.
CREATE TABLE showings (
  id                 TEXT PRIMARY KEY,
  title              TEXT NOT NULL,
  starts_at_ms       INTEGER NOT NULL,
  price_amount       INTEGER NOT NULL CHECK (price_amount > 0),
  currency           TEXT NOT NULL,
  layout_json        TEXT NOT NULL,
  seat_count         INTEGER NOT NULL CHECK (seat_count > 0),
  max_seats_per_hold INTEGER NOT NULL,
  hold_ttl_ms        INTEGER NOT NULL,
  created_at_ms      INTEGER NOT NULL
);

CREATE INDEX showings_by_start ON showings (starts_at_ms);
