-- The card an order was paid with, as Square's payment shows it (brand and
-- last four digits), for the buyer's receipt. Filled from the payment's
-- webhook; NULL for box-office and free orders, and until it comes.
ALTER TABLE orders ADD COLUMN card_brand TEXT;
ALTER TABLE orders ADD COLUMN card_last4 TEXT;
