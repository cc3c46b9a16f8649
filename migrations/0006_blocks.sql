-- Blocking (docs/protocol.md "Blocking"): one row per identity a user blocks. This table is the
-- source of truth; Redis `blocked:{blocker}` is a copy that the message, call, typing and
-- presence scripts check, rewritten from here at every login of the blocker. Both ids are
-- registered identities (a block of an unknown id is refused with NOT_FOUND); the primary key
-- serves a blocker's list and makes a repeated block a no-op. The cap per blocker
-- (`WHISPER_MAX_BLOCKS_PER_USER`) is checked by the server under the blocker's users row lock.
CREATE TABLE blocks (
    blocker_id  text NOT NULL REFERENCES users (whisper_id) ON DELETE CASCADE,
    blocked_id  text NOT NULL REFERENCES users (whisper_id) ON DELETE CASCADE,
    created_at  timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (blocker_id, blocked_id),
    CHECK (blocker_id <> blocked_id)
);
-- "Who blocks this identity": the cascade when a user row goes, and a moderator's question.
CREATE INDEX blocks_blocked_id_idx ON blocks (blocked_id);
