-- A report that names a message is `verified` when the server could confirm, at report time,
-- that the reported identity really sent that message to the reporter (from the message's
-- idempotency record, kept for the pending TTL). Moderators can tell a fabricated report
-- from a real one; the column never says anything about the content, which the server
-- cannot read.
ALTER TABLE reports ADD COLUMN verified boolean NOT NULL DEFAULT false;
