-- Wrong admin tokens, door tokens and staff sign-ins, by client network
-- (an IPv4 address or an IPv6 /64), so that guessing them is throttled:
-- a client with too many recent wrong ones is told to wait, whatever it
-- sends next. Rows older than the window are deleted as new ones come.
CREATE TABLE credential_failures (
  client TEXT NOT NULL,
  at_ms INTEGER NOT NULL
);
CREATE INDEX credential_failures_by_client ON credential_failures (client, at_ms);
CREATE INDEX credential_failures_by_age ON credential_failures (at_ms);
