#!/usr/bin/env bash
# A dump of the Whisper PostgreSQL database (docs/operations.md "Backups and restore"), run daily
# by deploy/systemd/whisper-pg-backup.timer or deploy/kubernetes/pg-backup-cronjob.yaml; can also
# be run by hand.
#
#   whisper-pg-backup.sh   pg_dump -Fc into $WHISPER_BACKUP_DIR [encrypted with age] [copied to
#                          S3], then prune old dumps
#
# Environment (the unit reads /etc/whisper-relay/env, then /etc/whisper-relay/backup.env if present):
#   WHISPER_DATABASE_URL       libpq URI of the database; unset → libpq's PG* variables
#   WHISPER_BACKUP_DIR         where dumps go (default /var/backups/whisper; created mode 0700)
#   WHISPER_BACKUP_KEEP        keep at most the newest N dumps (default 14; 0 = no count limit)
#   WHISPER_BACKUP_KEEP_DAYS   also remove dumps older than N days (default 0 = no age limit)
#   Encryption (opt-in; either or both of these turns it on):
#   WHISPER_BACKUP_AGE_RECIPIENT        an age public key (age1…, or an ssh-ed25519/ssh-rsa line)
#   WHISPER_BACKUP_AGE_RECIPIENTS_FILE  a file of such keys, one per line (age -R)
#   Off-site copy (opt-in), with the AWS CLI's own settings (AWS_ACCESS_KEY_ID,
#   AWS_SECRET_ACCESS_KEY, AWS_DEFAULT_REGION, or a profile):
#   WHISPER_BACKUP_S3_URI       s3://bucket[/prefix]: each new dump is copied to <uri>/<its name>
#   WHISPER_BACKUP_S3_ENDPOINT  an S3-compatible endpoint (MinIO, Ceph, …): aws --endpoint-url
#
# A dump is written as whisper-YYYYMMDDTHHMMSSZ.dump.partial, fsync'd, checked with
# `pg_restore --list`, renamed to whisper-YYYYMMDDTHHMMSSZ.dump (UTC) and the directory fsync'd,
# so a dump with the final name is always complete. Encrypted, pg_dump's output goes through
# `age` straight into whisper-…Z.dump.age.partial (then renamed to whisper-…Z.dump.age):
# no unencrypted byte reaches the disk; `pg_restore --list` reads a copy of the stream through a
# FIFO. Pruning looks only at names of those shapes (age is read from the name, not the mtime)
# and never removes the dump just written; the S3 copies are left to the bucket's lifecycle rules.
# Prints one line on success; on failure one line starting "whisper-pg-backup: FAILED:" on
# stderr and a non-zero exit status (a failed upload included: the local dump is kept). The
# database URL (it may hold a password) is never printed.
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
age_args=()
if [[ -n "${WHISPER_BACKUP_AGE_RECIPIENT:-}" ]]; then age_args+=(-r "$WHISPER_BACKUP_AGE_RECIPIENT"); fi
if [[ -n "${WHISPER_BACKUP_AGE_RECIPIENTS_FILE:-}" ]]; then
  [[ -r "$WHISPER_BACKUP_AGE_RECIPIENTS_FILE" ]] ||
    fail "WHISPER_BACKUP_AGE_RECIPIENTS_FILE: cannot read $WHISPER_BACKUP_AGE_RECIPIENTS_FILE"
  age_args+=(-R "$WHISPER_BACKUP_AGE_RECIPIENTS_FILE")
fi
((${#age_args[@]} == 0)) || command -v age >/dev/null ||
  fail "age not found (install it: apt-get install age), needed by WHISPER_BACKUP_AGE_RECIPIENT(S_FILE)"
s3_uri=${WHISPER_BACKUP_S3_URI:-}
s3_uri=${s3_uri%/}
if [[ -n "$s3_uri" ]]; then
  [[ "$s3_uri" =~ ^s3://[^/]+ ]] || fail "WHISPER_BACKUP_S3_URI: expected s3://bucket[/prefix], got \"$s3_uri\""
  command -v aws >/dev/null || fail "aws not found (install the AWS CLI), needed by WHISPER_BACKUP_S3_URI"
fi

mkdir -p "$dir" || fail "cannot create $dir"
# One run at a time: a slow dump and a manual run must not prune each other's files.
exec 9>"$dir/.lock"
flock -n 9 || fail "another backup is running in $dir"

# What a run killed mid-dump (SIGKILL, power loss) left: never a complete dump.
find "$dir" -maxdepth 1 \( -name 'whisper-*.partial' -o -name '.verify-*.fifo' \) -delete ||
  fail "cannot remove the leftovers of an earlier run in $dir"

# Names have a one-second resolution: a second run within the same second waits for the next.
while stamp=$(date -u +%Y%m%dT%H%M%SZ) && [[ -e "$dir/whisper-$stamp.dump" || -e "$dir/whisper-$stamp.dump.age" ]]; do
  sleep 0.2
done
final="$dir/whisper-$stamp.dump"
encrypted=""
if ((${#age_args[@]} > 0)); then
  final+=".age"
  encrypted=", age-encrypted"
fi
partial="$final.partial"
fifo="$dir/.verify-$stamp.fifo"
trap 'rm -f "$partial" "$fifo"' EXIT

dump_args=(--format=custom)
if [[ -n "${WHISPER_DATABASE_URL:-}" ]]; then dump_args+=(--dbname="$WHISPER_DATABASE_URL"); fi
if ((${#age_args[@]} == 0)); then
  pg_dump "${dump_args[@]}" --file="$partial" || fail "pg_dump exited with status $? (its message is above); nothing written"
  sync "$partial" || fail "fsync of $partial failed"
  pg_restore --list "$partial" >/dev/null || fail "the new dump is not a readable archive (pg_restore --list)"
else
  # pg_dump | tee (a copy to pg_restore --list through the FIFO) | age: the archive is checked
  # without being stored. tee -p ignores the FIFO's reader leaving once it has read the list.
  # (pg_restore reads the FIFO as its stdin: given a file name it reopens the file after
  # reading its header, which a FIFO cannot replay.)
  mkfifo -m 0600 "$fifo" || fail "cannot create $fifo"
  pg_restore --list <"$fifo" >/dev/null &
  verify=$!
  status=0
  pg_dump "${dump_args[@]}" | tee -p "$fifo" | age "${age_args[@]}" >"$partial" || status=$?
  verified=0
  wait "$verify" || verified=$?
  ((status == 0)) || fail "pg_dump | age exited with status $status (the message is above); nothing written"
  ((verified == 0)) || fail "the new dump is not a readable archive (pg_restore --list); nothing written"
  sync "$partial" || fail "fsync of $partial failed"
fi
mv "$partial" "$final" || fail "cannot rename $partial"
sync "$dir" || fail "fsync of $dir failed"
rm -f "$fifo"
trap - EXIT

# Off-site: the file as it is on disk (encrypted when encryption is on). A failure stops the run
# here, before pruning: the local dumps stay, the unit turns failed.
uploaded=""
if [[ -n "$s3_uri" ]]; then
  [[ -n "$encrypted" ]] || printf '%s: warning: copying an unencrypted dump to %s (set WHISPER_BACKUP_AGE_RECIPIENT)\n' \
    "$PROG" "$s3_uri" >&2
  aws_args=(s3 cp --only-show-errors "$final" "$s3_uri/${final##*/}")
  if [[ -n "${WHISPER_BACKUP_S3_ENDPOINT:-}" ]]; then aws_args=(--endpoint-url "$WHISPER_BACKUP_S3_ENDPOINT" "${aws_args[@]}"); fi
  status=0
  aws "${aws_args[@]}" </dev/null || status=$?
  ((status == 0)) || fail "upload of $final to $s3_uri failed (aws exited with status $status, its message is above); the local dump is kept"
  uploaded="; copied to $s3_uri/${final##*/}"
fi

# Prune: names sort by time, so the newest are last; the cut-off is compared as a string of the
# same shape.
cutoff=""
if ((keep_days > 0)); then cutoff=$(date -u -d "@$(($(date -u +%s) - keep_days * 86400))" +%Y%m%dT%H%M%SZ); fi
mapfile -t dumps < <(find "$dir" -maxdepth 1 -type f -regextype posix-extended \
  -regex '.*/whisper-[0-9]{8}T[0-9]{6}Z\.dump(\.age)?' -printf '%f\n' | sort -r)
removed=0
for i in "${!dumps[@]}"; do
  name=${dumps[$i]}
  [[ "$dir/$name" == "$final" ]] && continue
  stamp_of=${name#whisper-}
  stamp_of=${stamp_of%%.*}
  if { ((keep > 0)) && ((i >= keep)); } || [[ -n "$cutoff" && "$stamp_of" < "$cutoff" ]]; then
    rm -f "$dir/$name" || fail "cannot remove old dump $dir/$name"
    removed=$((removed + 1))
  fi
done
((removed == 0)) || sync "$dir" || fail "fsync of $dir failed after pruning"

printf '%s: wrote %s (%s bytes%s)%s; removed %d old dump(s); %d kept\n' "$PROG" "$final" \
  "$(stat -c %s "$final")" "$encrypted" "$uploaded" "$removed" "$((${#dumps[@]} - removed))"
