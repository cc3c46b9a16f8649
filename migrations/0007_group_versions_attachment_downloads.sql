-- Group resync (docs/protocol.md "Groups", group_get / groups_list): every group has a
-- version, 1 at creation, raised by one with every change of its members or title (decided
-- under the group's row lock by GroupRules, so it never repeats and only grows). Clients
-- compare it with the version of their copy and fetch only the groups that changed.
ALTER TABLE groups ADD COLUMN version bigint NOT NULL DEFAULT 1 CHECK (version >= 1);

-- Attachments wait for the download (contract §15, docs/operations.md "Attachments"): an
-- object referenced by a message goes once every recipient has asked for its download URL
-- (downloaded_at, set by GET /attachments/{objectKey}/download) or when the newest message
-- carrying it (created_at, recorded just after the accept) is past the retention —
-- never on delivery receipts. delivered_at is no longer read or written; it stays so that
-- nodes of the previous release keep working during a rolling upgrade. Rows recorded
-- before this migration count their retention from the migration.
ALTER TABLE attachment_recipients
    ADD COLUMN created_at    timestamptz NOT NULL DEFAULT now(),
    ADD COLUMN downloaded_at timestamptz;
