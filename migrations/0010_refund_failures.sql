-- Refunds that did not happen: Square refused the request ('refused', with
-- its code and detail), or the refund itself ended REJECTED or FAILED. Such
-- a refund waits on the attention list until staff mark its order handled
-- or a later refund of the order goes through; asking again uses a new key.
ALTER TABLE refunds ADD COLUMN failure TEXT;
ALTER TABLE refunds ADD COLUMN handled_at_ms INTEGER;
CREATE INDEX refunds_failed ON refunds (updated_at_ms)
  WHERE status IN ('refused', 'REJECTED', 'FAILED') AND handled_at_ms IS NULL;
