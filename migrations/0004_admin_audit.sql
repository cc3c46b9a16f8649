-- Admin API (docs/protocol.md "Admin API", docs/operations.md "Audit events"): every admin
-- action writes an audit_events row in the same transaction as the change; this records
-- the client address it came from (the admin listener's peer, IPv4 or IPv6 text). The
-- listing pages newest first by id, which the primary key serves.
ALTER TABLE audit_events ADD COLUMN client_address text;
