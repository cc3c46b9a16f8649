-- Seed-only login and account deletion (docs/protocol.md "Login" and "delete_account").
--
-- 1. One identity per signing key. `register_proof` without `whisperId` logs in the identity
--    that holds the presented keys (contract §15), so a signing key must name at most one
--    identity. Servers before this migration minted a new id every time the same keys
--    registered without `whisperId`, so a database may already hold several identities
--    with one signing key. None of them is deleted or changed (each may still log in with
--    its `whisperId`, and its contacts know it by that id); instead, per signing key,
--    exactly one stays reachable by the seed alone — the one used last (latest device
--    activity, else latest creation, then the greatest id) — and the others are marked
--    `seed_recoverable = false`. The unique index covers only seed-recoverable rows, so it
--    builds on such a database, and from now on the server never creates a second
--    recoverable row for a key (a concurrent first registration with the same keys loses
--    on this index and logs into the winner's identity).
-- 2. Deleted identities. `delete_account` removes the identity's `users` row (its devices,
--    group memberships and contacts backup go with it by the existing cascades) and leaves
--    only its id here, so that the id is never minted again and can never log in again. No
--    key, token or address is kept.
-- CREATE UNIQUE INDEX (not CONCURRENTLY: the migrator runs each file in one transaction)
-- holds a lock on `users` while it builds; on a large table run this migration in a quiet
-- moment (docs/operations.md "Running").

ALTER TABLE users ADD COLUMN seed_recoverable boolean NOT NULL DEFAULT true;

WITH ranked AS (
    SELECT u.whisper_id,
           row_number() OVER (
               PARTITION BY u.sign_public_key
               ORDER BY greatest(u.created_at,
                                 (SELECT max(d.last_active_at) FROM devices d WHERE d.whisper_id = u.whisper_id)) DESC,
                        u.created_at DESC, u.whisper_id DESC) AS rank
    FROM users u)
UPDATE users SET seed_recoverable = false
FROM ranked
WHERE users.whisper_id = ranked.whisper_id AND ranked.rank > 1;

CREATE UNIQUE INDEX users_sign_public_key_recoverable_key ON users (sign_public_key) WHERE seed_recoverable;

CREATE TABLE deleted_identities (
    whisper_id  text PRIMARY KEY
                CHECK (whisper_id ~ '^WSP-[A-Z2-7]{4}-[A-Z2-7]{4}-[A-Z2-7]{4}$'),
    deleted_at  timestamptz NOT NULL DEFAULT now()
);
