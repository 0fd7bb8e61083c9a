-- Staff sessions signed out one at a time. "Sign out" ends the session of
-- the browser it is pressed in: its nonce is kept here until the session
-- would have ended by itself (12 hours from sign-in), and every request
-- made with it is refused. Ending every session at once is still the
-- sign-out epoch's job (0017_staff_epoch.sql).
CREATE TABLE staff_signouts (
  nonce    TEXT PRIMARY KEY,
  until_ms INTEGER NOT NULL
);
CREATE INDEX staff_signouts_by_end ON staff_signouts (until_ms);
