-- Square's webhooks become an inbox: a delivery is verified, stored with
-- its body and answered at once (Square wants a 2xx within 10 seconds and
-- sends again otherwise); it is then handled after the answer, and the
-- cron sweep handles any whose handling did not finish.
ALTER TABLE webhook_events ADD COLUMN body TEXT;
ALTER TABLE webhook_events ADD COLUMN handled_at_ms INTEGER;
ALTER TABLE webhook_events ADD COLUMN tries INTEGER NOT NULL DEFAULT 0;
ALTER TABLE webhook_events ADD COLUMN last_error TEXT;
-- Every event stored before this was handled before it was stored.
UPDATE webhook_events SET handled_at_ms = received_at_ms;
CREATE INDEX webhook_events_unhandled ON webhook_events (received_at_ms)
  WHERE handled_at_ms IS NULL;
