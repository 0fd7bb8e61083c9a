-- The reconciliation of a showing: each run (by the cron before the
-- showing, or by staff), and each difference it found between the
-- showing's object, D1 and Square, with what each side said. A finding
-- is kept once per showing, kind and subject (a seat or a payment), so a
-- later run that finds it again changes nothing; `fixed_at_ms` says it
-- was repaired automatically, `handled_at_ms` that staff dealt with it.
CREATE TABLE reconciliations (
  id            TEXT PRIMARY KEY,
  showing_id    TEXT NOT NULL REFERENCES showings (id),
  trigger       TEXT NOT NULL,   -- cron | staff
  at_ms         INTEGER NOT NULL,
  findings      INTEGER NOT NULL,
  fixed         INTEGER NOT NULL
);
CREATE INDEX reconciliations_by_showing ON reconciliations (showing_id, at_ms);

CREATE TABLE reconciliation_findings (
  showing_id     TEXT NOT NULL REFERENCES showings (id),
  kind           TEXT NOT NULL,
  subject        TEXT NOT NULL,
  order_id       TEXT,
  payment_id     TEXT,
  object_says    TEXT NOT NULL,
  d1_says        TEXT NOT NULL,
  square_says    TEXT NOT NULL,
  fix            TEXT,            -- the repair, as JSON, when one was provable
  fixed_at_ms    INTEGER,
  fix_error      TEXT,
  found_at_ms    INTEGER NOT NULL,
  handled_at_ms  INTEGER,
  PRIMARY KEY (showing_id, kind, subject)
);
CREATE INDEX reconciliation_findings_open ON reconciliation_findings (found_at_ms)
  WHERE fixed_at_ms IS NULL AND handled_at_ms IS NULL;

-- Sales by day read orders by when they were made, across showings.
CREATE INDEX orders_by_made ON orders (created_at_ms);
