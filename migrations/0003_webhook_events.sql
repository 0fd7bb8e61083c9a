-- Square webhook deliveries already handled, by event id: Square delivers
-- the same event more than once, and a repeat must change nothing.
CREATE TABLE webhook_events (
  event_id     TEXT PRIMARY KEY,
  type         TEXT NOT NULL,
  received_at_ms INTEGER NOT NULL
);
