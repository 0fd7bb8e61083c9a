-- Exchanges: a buyer moves tickets to another showing of the same film.
--
-- The new order says which order it was exchanged from and how much of
-- that order's payment pays for it (`credit`, minor units); it is charged
-- only `amount - credit` through Square, or nothing.
ALTER TABLE orders ADD COLUMN credit INTEGER NOT NULL DEFAULT 0;
ALTER TABLE orders ADD COLUMN exchanged_from TEXT REFERENCES orders (id);
CREATE INDEX orders_exchanged_from ON orders (exchanged_from) WHERE exchanged_from IS NOT NULL;

-- Which payment a refund draws on: NULL for its order's own payment, the
-- earlier order's for money an exchanged order was credited with.
ALTER TABLE refunds ADD COLUMN payment_id TEXT;
-- A row that moves an old order's tickets, and their worth, to the order
-- it was exchanged for: never sent to Square. It stays "requested" until
-- that order is paid (then COMPLETED) or has failed (then superseded). No
-- foreign key: the row is written before that order is.
ALTER TABLE refunds ADD COLUMN exchange_to TEXT;
CREATE INDEX refunds_by_payment ON refunds (payment_id) WHERE payment_id IS NOT NULL;
CREATE INDEX refunds_by_exchange ON refunds (exchange_to) WHERE exchange_to IS NOT NULL;
