-- Films and screens, which showings refer to: a film's title, runtime,
-- certificate, synopsis and poster; a screen's saved seat layout (rows,
-- aisles, house seats, wheelchair spaces). A showing keeps its own copy of
-- its title and layout: editing a film or a screen changes the showings
-- that have sold nothing, never one that has.
CREATE TABLE films (
  id               TEXT PRIMARY KEY,
  title            TEXT NOT NULL,
  runtime_minutes  INTEGER,
  certificate      TEXT,
  synopsis         TEXT,
  poster_url       TEXT,
  created_at_ms    INTEGER NOT NULL,
  updated_at_ms    INTEGER NOT NULL
);
CREATE TABLE screens (
  id               TEXT PRIMARY KEY,
  name             TEXT NOT NULL,
  layout_json      TEXT NOT NULL,
  created_at_ms    INTEGER NOT NULL,
  updated_at_ms    INTEGER NOT NULL
);
ALTER TABLE showings ADD COLUMN film_id TEXT REFERENCES films (id);
ALTER TABLE showings ADD COLUMN screen_id TEXT REFERENCES screens (id);
CREATE INDEX showings_by_film ON showings (film_id);
CREATE INDEX showings_by_screen ON showings (screen_id);
