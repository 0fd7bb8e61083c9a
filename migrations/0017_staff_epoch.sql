-- The staff sign-out epoch. Every staff session is signed with a key bound
-- to it (and to the admin token), so signing out moves it on and ends
-- every staff session at once, on every browser.
CREATE TABLE staff_epoch (
  id INTEGER PRIMARY KEY CHECK (id = 1),
  epoch INTEGER NOT NULL
);
INSERT INTO staff_epoch (id, epoch) VALUES (1, 0);
