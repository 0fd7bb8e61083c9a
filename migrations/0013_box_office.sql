-- Where an order was made: 'online' (paid through Square, or free), or at
-- the box office: 'cash', 'card_at_desk' (the cinema's own terminal,
-- recorded, not charged here) or 'comp' (given free, with its reason).
-- A box-office order may have no e-mail (''): nothing is mailed then.
ALTER TABLE orders ADD COLUMN channel TEXT NOT NULL DEFAULT 'online';
ALTER TABLE orders ADD COLUMN comp_reason TEXT;
