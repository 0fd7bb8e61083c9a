-- What staff did about a reconciliation's finding, as they marked it handled.
ALTER TABLE reconciliation_findings ADD COLUMN handled_note TEXT;
