-- Discount codes staff define (POST /api/admin/codes), kept by their
-- upper-case code. `off_json` is what the code takes off, the scope lists
-- are JSON arrays (empty: every showing, film or category).
CREATE TABLE discount_codes (
  code TEXT PRIMARY KEY,
  off_json TEXT NOT NULL,
  max_uses INTEGER,
  max_uses_per_buyer INTEGER,
  valid_from_ms INTEGER,
  valid_until_ms INTEGER,
  showings_json TEXT NOT NULL,
  films_json TEXT NOT NULL,
  categories_json TEXT NOT NULL,
  box_office_only INTEGER NOT NULL DEFAULT 0,
  paused_at_ms INTEGER,
  created_at_ms INTEGER NOT NULL
);
