#!/usr/bin/env bash
# A dump of the Whisper PostgreSQL database (docs/operations.md "Backups and restore"), run daily
# by deploy/systemd/whisper-pg-backup.timer; can also be run by hand.
#
#   whisper-pg-backup.sh         pg_dump -Fc into $WHISPER_BACKUP_DIR, then prune old dumps
#
# Environment (the unit reads /etc/whisper-relay/env, then /etc/whisper-relay/backup.env if present):
#   WHISPER_DATABASE_URL       libpq URI of the database; unset → libpq's PG* variables
#   WHISPER_BACKUP_DIR         where dumps go (default /var/backups/whisper; created mode 0700)
#   WHISPER_BACKUP_KEEP        keep at most the newest N dumps (default 14; 0 = no count limit)
#   WHISPER_BACKUP_KEEP_DAYS   also remove dumps older than N days (default 0 = no age limit)
#
# A dump is written as whisper-YYYYMMDDTHHMMSSZ.dump.partial, fsync'd, checked with
# `pg_restore --list`, renamed to whisper-YYYYMMDDTHHMMSSZ.dump (UTC) and the directory fsync'd,
# so a dump with the final name is always complete. Pruning looks only at names of that shape
# (age is read from the name, not the mtime) and never removes the dump just written.
# Prints one line on success; on failure one line starting "whisper-pg-backup: FAILED:" on
# stderr and a non-zero exit status. The database URL (it may hold a password) is never printed.
set -euo pipefail
umask 077

readonly PROG=whisper-pg-backup
dir=${WHISPER_BACKUP_DIR:-/var/backups/whisper}
keep=${WHISPER_BACKUP_KEEP:-14}
keep_days=${WHISPER_BACKUP_KEEP_DAYS:-0}

fail() {
  printf '%s: FAILED: %s\n' "$PROG" "$*" >&2
  exit 1
}

[[ "$keep" =~ ^[0-9]+$ ]] || fail "WHISPER_BACKUP_KEEP: expected a non-negative integer, got \"$keep\""
[[ "$keep_days" =~ ^[0-9]+$ ]] || fail "WHISPER_BACKUP_KEEP_DAYS: expected a non-negative integer, got \"$keep_days\""
command -v pg_dump >/dev/null || fail "pg_dump not found (install the PostgreSQL client, same major version as the server or newer)"

mkdir -p "$dir" || fail "cannot create $dir"
# One run at a time: a slow dump and a manual run must not prune each other's files.
exec 9>"$dir/.lock"
flock -n 9 || fail "another backup is running in $dir"

# Names have a one-second resolution: a second run within the same second waits for the next.
while stamp=$(date -u +%Y%m%dT%H%M%SZ) && [[ -e "$dir/whisper-$stamp.dump" ]]; do sleep 0.2; done
final="$dir/whisper-$stamp.dump"
partial="$final.partial"
trap 'rm -f "$partial"' EXIT

dump_args=(--format=custom --file="$partial")
if [[ -n "${WHISPER_DATABASE_URL:-}" ]]; then dump_args+=(--dbname="$WHISPER_DATABASE_URL"); fi
pg_dump "${dump_args[@]}" || fail "pg_dump exited with status $? (its message is above); nothing written"
sync "$partial" || fail "fsync of $partial failed"
pg_restore --list "$partial" >/dev/null || fail "the new dump is not a readable archive (pg_restore --list)"
mv "$partial" "$final" || fail "cannot rename $partial"
sync "$dir" || fail "fsync of $dir failed"
trap - EXIT

# Prune: names sort by time, so the newest are last; the cut-off is compared as a string of the
# same shape.
cutoff=""
if ((keep_days > 0)); then cutoff=$(date -u -d "@$(($(date -u +%s) - keep_days * 86400))" +%Y%m%dT%H%M%SZ); fi
mapfile -t dumps < <(find "$dir" -maxdepth 1 -type f -regextype posix-extended \
  -regex '.*/whisper-[0-9]{8}T[0-9]{6}Z\.dump' -printf '%f\n' | sort -r)
removed=0
for i in "${!dumps[@]}"; do
  name=${dumps[$i]}
  [[ "$dir/$name" == "$final" ]] && continue
  stamp_of=${name#whisper-}
  stamp_of=${stamp_of%.dump}
  if { ((keep > 0)) && ((i >= keep)); } || [[ -n "$cutoff" && "$stamp_of" < "$cutoff" ]]; then
    rm -f "$dir/$name" || fail "cannot remove old dump $dir/$name"
    removed=$((removed + 1))
  fi
done
((removed == 0)) || sync "$dir" || fail "fsync of $dir failed after pruning"

printf '%s: wrote %s (%s bytes); removed %d old dump(s); %d kept\n' "$PROG" "$final" \
  "$(stat -c %s "$final")" "$removed" "$((${#dumps[@]} - removed))"
