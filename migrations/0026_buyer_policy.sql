-- What buyers of one showing may change themselves (refunds::Policy as
-- JSON: {"cancel": {"until_minutes_before", "fee"} | null, "exchange":
-- {"until_minutes_before"} | null}); NULL takes the cinema's default
-- (CANCEL_UNTIL_MINUTES, CANCEL_FEE, EXCHANGE_UNTIL_MINUTES).
ALTER TABLE showings ADD COLUMN buyer_policy TEXT;
