-- Whisper relay schema, version 1: the tables of contract §11 and spec §12.2 / §14.4.
-- Applied by the Migrator inside one transaction together with its schema_migrations row.
-- Times are timestamptz (UTC on the wire as epoch ms). Ids are stored in canonical form:
-- Whisper IDs upper case (WSP-XXXX-XXXX-XXXX, RFC 4648 Base32), UUIDs as uuid.

CREATE TABLE users (
    whisper_id      text PRIMARY KEY
                    CHECK (whisper_id ~ '^WSP-[A-Z2-7]{4}-[A-Z2-7]{4}-[A-Z2-7]{4}$'),
    enc_public_key  bytea NOT NULL CHECK (octet_length(enc_public_key) = 32),   -- X25519
    sign_public_key bytea NOT NULL CHECK (octet_length(sign_public_key) = 32),  -- Ed25519
    created_at      timestamptz NOT NULL DEFAULT now(),
    updated_at      timestamptz NOT NULL DEFAULT now()
);

-- Single active device per identity is enforced by sessions in Redis; this table keeps each
-- install's platform and push tokens. A device id belongs to one identity at a time, but a
-- recovered identity may reuse an install, hence the composite key.
CREATE TABLE devices (
    whisper_id      text NOT NULL REFERENCES users (whisper_id) ON DELETE CASCADE,
    device_id       uuid NOT NULL,
    platform        text NOT NULL CHECK (platform IN ('ios', 'android')),
    push_token      text,
    voip_token      text,
    created_at      timestamptz NOT NULL DEFAULT now(),
    last_active_at  timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (whisper_id, device_id)
);
CREATE INDEX devices_device_id_idx ON devices (device_id);

CREATE TABLE groups (
    group_id    text PRIMARY KEY CHECK (group_id ~ '^grp-[0-9a-fA-F-]{36}$'),
    title       text NOT NULL,
    owner_id    text NOT NULL REFERENCES users (whisper_id),
    created_at  timestamptz NOT NULL DEFAULT now(),
    updated_at  timestamptz NOT NULL DEFAULT now()
);

CREATE TABLE group_members (
    group_id    text NOT NULL REFERENCES groups (group_id) ON DELETE CASCADE,
    whisper_id  text NOT NULL REFERENCES users (whisper_id) ON DELETE CASCADE,
    role        text NOT NULL DEFAULT 'member' CHECK (role IN ('owner', 'admin', 'member')),
    joined_at   timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (group_id, whisper_id)
);
-- "Which groups is this user in" (fan-out, membership checks from the user side).
CREATE INDEX group_members_whisper_id_idx ON group_members (whisper_id);

-- No foreign key to users: an admin may ban an id before (or after) it registers.
CREATE TABLE bans (
    whisper_id  text PRIMARY KEY,
    reason      text NOT NULL,
    created_at  timestamptz NOT NULL DEFAULT now(),
    until       timestamptz,                 -- NULL = permanent
    created_by  text NOT NULL
);

-- Reports outlive the accounts they mention, so no foreign keys here either.
CREATE TABLE reports (
    id           bigserial PRIMARY KEY,
    reporter_id  text NOT NULL,
    whisper_id   text NOT NULL,
    reason       text NOT NULL CHECK (reason IN ('spam', 'abuse', 'impersonation', 'other')),
    details      text,
    message_id   text,
    status       text NOT NULL DEFAULT 'open' CHECK (status IN ('open', 'reviewed')),
    created_at   timestamptz NOT NULL DEFAULT now(),
    reviewed_at  timestamptz,
    action       text CHECK (action IN ('dismiss', 'ban')),
    note         text,
    CHECK ((status = 'open') = (reviewed_at IS NULL))
);
-- Admin listing: GET /admin/reports?status=…&cursor=<id>.
CREATE INDEX reports_status_id_idx ON reports (status, id);
CREATE INDEX reports_whisper_id_idx ON reports (whisper_id);

CREATE TABLE audit_events (
    id          bigserial PRIMARY KEY,
    actor       text NOT NULL,
    action      text NOT NULL,
    target      text,
    details     jsonb NOT NULL DEFAULT '{}'::jsonb,
    created_at  timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX audit_events_created_at_idx ON audit_events (created_at);

-- objectKey = att/YYYY/MM/<uuid>.bin. A row exists from presign on; deleted_at marks an
-- object the GC removed from the store (the row may be purged afterwards).
CREATE TABLE attachments (
    object_key    text PRIMARY KEY,
    uploader_id   text NOT NULL,
    content_type  text NOT NULL,
    size_bytes    bigint NOT NULL CHECK (size_bytes > 0),
    created_at    timestamptz NOT NULL DEFAULT now(),
    expires_at    timestamptz NOT NULL,
    deleted_at    timestamptz
);
CREATE INDEX attachments_uploader_id_idx ON attachments (uploader_id);
-- GC scans live objects by age.
CREATE INDEX attachments_live_created_at_idx ON attachments (created_at) WHERE deleted_at IS NULL;

-- Who may download an object: recipients of a message that carried its objectKey.
CREATE TABLE attachment_recipients (
    object_key    text NOT NULL REFERENCES attachments (object_key) ON DELETE CASCADE,
    recipient_id  text NOT NULL,
    message_id    text NOT NULL,
    delivered_at  timestamptz,
    PRIMARY KEY (object_key, recipient_id, message_id)
);
CREATE INDEX attachment_recipients_recipient_idx ON attachment_recipients (recipient_id, object_key);

-- Spec §14.4: zero-knowledge contacts backup, one blob per identity.
CREATE TABLE contact_backups (
    whisper_id      text PRIMARY KEY REFERENCES users (whisper_id) ON DELETE CASCADE,
    nonce_b64       text NOT NULL,
    ciphertext_b64  text NOT NULL,
    size_bytes      integer NOT NULL CHECK (size_bytes >= 0),
    updated_at      timestamptz NOT NULL DEFAULT now()
);
