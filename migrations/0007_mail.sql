-- The mail outbox: one row per message, written in the same batch as what
-- it reports (an order paid, a refund applied), so no paid order can miss
-- its tickets mail and no failed send can change an order. A sender drains
-- it; the cron sweep takes what is left.
CREATE TABLE mail_outbox (
  -- Deterministic where the message is one of a kind ("tickets:<order>",
  -- "refund:<refund>", "digest:<hour>"), so writing it twice queues it once.
  id              TEXT PRIMARY KEY,
  -- tickets | refund | lookup | digest
  kind            TEXT NOT NULL,
  order_id        TEXT REFERENCES orders (id),
  -- The refund a refund mail reports.
  refund_id       TEXT,
  to_addr         TEXT NOT NULL,
  -- queued | sending | sent | failed
  status          TEXT NOT NULL,
  tries           INTEGER NOT NULL DEFAULT 0,
  last_error      TEXT,
  next_try_at_ms  INTEGER NOT NULL,
  claimed_at_ms   INTEGER,
  sent_at_ms      INTEGER,
  message_id      TEXT,
  -- Staff dismissed a failed message from the attention list.
  handled_at_ms   INTEGER,
  created_at_ms   INTEGER NOT NULL,
  updated_at_ms   INTEGER NOT NULL
);
CREATE INDEX mail_due ON mail_outbox (next_try_at_ms) WHERE status IN ('queued', 'sending');
CREATE INDEX mail_by_order ON mail_outbox (order_id, created_at_ms);
CREATE INDEX mail_by_recipient ON mail_outbox (to_addr, kind, created_at_ms);
CREATE INDEX mail_failed ON mail_outbox (updated_at_ms) WHERE status = 'failed' AND handled_at_ms IS NULL;

-- Order-link requests by client (an IPv4 address or an IPv6 /64), kept an
-- hour, so one client cannot use the lookup to flood inboxes or to probe
-- which addresses bought.
CREATE TABLE lookup_requests (
  client  TEXT NOT NULL,
  at_ms   INTEGER NOT NULL
);
CREATE INDEX lookup_requests_by_client ON lookup_requests (client, at_ms);
