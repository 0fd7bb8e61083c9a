-- The door's record, scoped by showing and never rewritten.
--
-- door_scans is keyed by showing, device and the device's scan id, so a
-- device's scan ids (and the server-drawn device ids of door sessions)
-- of one showing never meet another showing's. SQLite cannot change a
-- primary key, so the table is made again with its rows.
CREATE TABLE door_scans_by_showing (
  showing_id      TEXT NOT NULL REFERENCES showings (id),
  device          TEXT NOT NULL,
  scan_id         TEXT NOT NULL,
  -- NULL when the code named no ticket of this showing.
  ticket_id       TEXT,
  -- Within the scan's door session and the door's window, never later
  -- than when the Worker received it.
  scanned_at_ms   INTEGER NOT NULL,
  received_at_ms  INTEGER NOT NULL,
  -- What the device told the door: admitted | already_scanned | void |
  -- wrong_showing | door_closed | cancelled | invalid
  device_result   TEXT NOT NULL,
  -- 1 when the scan was made offline and sent by a sync.
  offline         INTEGER NOT NULL,
  PRIMARY KEY (showing_id, device, scan_id)
);
INSERT INTO door_scans_by_showing (showing_id, device, scan_id, ticket_id, scanned_at_ms,
  received_at_ms, device_result, offline)
  SELECT showing_id, device, scan_id, ticket_id, scanned_at_ms, received_at_ms, device_result,
    offline FROM door_scans;
DROP TABLE door_scans;
ALTER TABLE door_scans_by_showing RENAME TO door_scans;
CREATE INDEX door_scans_admissions ON door_scans (showing_id, device_result, scanned_at_ms);

-- The scan whose admission is the ticket's check-in (with checked_in_by,
-- its device). It is written once, by the first admission recorded, and
-- never overwritten: every other admission of the ticket is a conflict,
-- whichever device made it. Filled in for tickets admitted before.
ALTER TABLE tickets ADD COLUMN checked_in_scan TEXT;
UPDATE tickets SET checked_in_scan = (
  SELECT s.scan_id FROM door_scans s
  WHERE s.showing_id = tickets.showing_id AND s.ticket_id = tickets.id
    AND s.device = tickets.checked_in_by AND s.scanned_at_ms = tickets.checked_in_at_ms
    AND s.device_result = 'admitted'
  ORDER BY s.received_at_ms LIMIT 1)
WHERE checked_in_at_ms IS NOT NULL;

-- Tries at the door's guessable credentials and queries, by client
-- network (an IPv4 address or an IPv6 /64) across every showing: `pin`, a
-- door PIN typed (a right one is taken back), and `lookup`, a ticket
-- looked up by e-mail. A network with too many in the window is told to
-- wait; no other network's tries count against it. A row is added only
-- while its network is under its limit, and rows older than the window
-- are deleted as new ones come, so the table stays small.
CREATE TABLE door_tries (
  kind   TEXT NOT NULL,
  client TEXT NOT NULL,
  at_ms  INTEGER NOT NULL
);
CREATE INDEX door_tries_by_client ON door_tries (kind, client, at_ms);
CREATE INDEX door_tries_by_age ON door_tries (at_ms);
