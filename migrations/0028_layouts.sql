-- Layouts are immutable and versioned: a version names one layout for
-- ever (`GET /api/layouts/{version}` is cached for a year), and a showing
-- names the version it sells. A version is `l` and 24 hex characters of
-- the SHA-256 of the layout's JSON, so saving the same layout twice keeps
-- one row; the layouts of showings saved before versions keep theirs as
-- `legacy-<showing id>`, frozen as they are now.
CREATE TABLE layouts (
  version       TEXT PRIMARY KEY,
  layout_json   TEXT NOT NULL,
  created_at_ms INTEGER NOT NULL
);

ALTER TABLE showings ADD COLUMN layout_version TEXT;

INSERT INTO layouts (version, layout_json, created_at_ms)
SELECT 'legacy-' || id, layout_json, created_at_ms FROM showings;

UPDATE showings SET layout_version = 'legacy-' || id;
