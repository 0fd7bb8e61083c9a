-- Every admission a door device made, online or offline, and every scan a
-- device queued while offline, as the device sent it: the device's own id
-- for the scan makes a repeated sync write nothing twice. The ticket's
-- check-in (tickets.checked_in_at_ms, checked_in_by) is the earliest
-- admission; any other admission of the same ticket is a conflict staff
-- are shown (two devices admitted it offline, or it was refunded while a
-- device was offline).
CREATE TABLE door_scans (
  device          TEXT NOT NULL,
  scan_id         TEXT NOT NULL,
  showing_id      TEXT NOT NULL REFERENCES showings (id),
  -- NULL when the code named no ticket of this showing.
  ticket_id       TEXT,
  -- The device's clock, never later than when the Worker received it.
  scanned_at_ms   INTEGER NOT NULL,
  received_at_ms  INTEGER NOT NULL,
  -- What the device told the door: admitted | already_scanned | void |
  -- wrong_showing | invalid
  device_result   TEXT NOT NULL,
  -- 1 when the scan was made offline and sent by a sync.
  offline         INTEGER NOT NULL,
  PRIMARY KEY (device, scan_id)
);
CREATE INDEX door_scans_admissions ON door_scans (showing_id, device_result, scanned_at_ms);
