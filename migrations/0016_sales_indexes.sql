-- Counting a showing's tickets by status (the door's running count, the
-- admin totals and listing) reads only that showing's rows: without this
-- index each count read the whole tickets table, which on D1's Free plan
-- spends the day's reads within hours of one admin page polling.
-- tests/migrations.rs plans every query against the migrated schema and
-- fails on a whole read of tickets, orders or order_events.
CREATE INDEX tickets_by_showing_status ON tickets (showing_id, status);
-- The attention list and the sweep read orders by status and age.
CREATE INDEX orders_by_status ON orders (status, updated_at_ms);
-- Order links are looked up by e-mail in any case.
CREATE INDEX orders_by_email_nocase ON orders (email COLLATE NOCASE);
