-- Tax: each ticket's tax within its price and the rate it was taxed at
-- (NULL for a ticket sold before tax), and on the order what the receipt
-- calls the tax and whether its prices include it (1) or had it added (0).
ALTER TABLE tickets ADD COLUMN price_tax INTEGER;
ALTER TABLE tickets ADD COLUMN price_tax_rate_bps INTEGER;
ALTER TABLE orders ADD COLUMN tax_name TEXT NOT NULL DEFAULT '';
ALTER TABLE orders ADD COLUMN tax_inclusive INTEGER NOT NULL DEFAULT 1;
