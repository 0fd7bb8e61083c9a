-- Which discount code an order's hold had, and what it took off each
-- ticket (before tax, in minor units), for the reports' uses and amount
-- per code.
ALTER TABLE orders ADD COLUMN discount_code TEXT;
ALTER TABLE tickets ADD COLUMN price_discount INTEGER;
CREATE INDEX orders_by_discount_code ON orders (discount_code) WHERE discount_code IS NOT NULL;
