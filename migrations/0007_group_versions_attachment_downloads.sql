-- Group resync (docs/protocol.md "Groups", group_get / groups_list): every group has a
-- version, 1 at creation, raised by one with every change of its members or title (decided
-- under the group's row lock by GroupRules, so it never repeats and only grows). Clients
-- compare it with the version of their copy and fetch only the groups that changed.
ALTER TABLE groups ADD COLUMN version bigint NOT NULL DEFAULT 1 CHECK (version >= 1);
