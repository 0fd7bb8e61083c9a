-- Whether the showing's object has been told its sales window. A showing
-- saved before objects kept one (every row here now) sells until its
-- object is told: the cron sweep re-saves each such showing yet to end,
-- once. Showings saved from now on are told as they are saved.
ALTER TABLE showings ADD COLUMN windows_sent INTEGER NOT NULL DEFAULT 0;
