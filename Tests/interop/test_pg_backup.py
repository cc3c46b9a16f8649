"""PostgreSQL backups (docs/operations.md "Backups and restore"), done once for real: an identity
registered through the server survives deploy/systemd/whisper-pg-backup.sh, a dropped database and the
documented restore (pg_restore into an empty database, `whisper-server migrate`, start) — it
logs in again with its whisperId and its keys are served. And the script's retention."""

from __future__ import annotations

import json
import os
import pathlib
import subprocess
import urllib.request

import pytest

from conftest import REPO, Server, start_private_server
from databases import database_name, private_database, psql
from helpers import open_ws, run
from identity import Identity, b64, login

BACKUP = REPO / "deploy" / "systemd" / "whisper-pg-backup.sh"
DUMP_TIMEOUT = 120


def backup(database_url: str, directory: pathlib.Path, **env: str) -> subprocess.CompletedProcess:
    environ = {k: v for k, v in os.environ.items() if not k.startswith(("WHISPER_", "PG"))}
    environ.update({"WHISPER_DATABASE_URL": database_url, "WHISPER_BACKUP_DIR": str(directory), **env})
    return subprocess.run([str(BACKUP)], env=environ, capture_output=True, text=True, timeout=DUMP_TIMEOUT,
                          stdin=subprocess.DEVNULL)


def dumps(directory: pathlib.Path) -> list[str]:
    return sorted(p.name for p in directory.glob("whisper-*.dump"))


@pytest.fixture(scope="module")
def private_db(server_config):
    """A database of this module's own, so dropping it touches no other test's data."""
    with private_database(server_config["database_url"], "whisper_backup") as url:
        yield url


def get_keys(server: Server, token: str, whisper_id: str) -> dict:
    req = urllib.request.Request(server.http_url(f"/users/{whisper_id}/keys"),
                                 headers={"Authorization": f"Bearer {token}"})
    with urllib.request.urlopen(req, timeout=10) as resp:
        assert resp.status == 200
        return json.loads(resp.read())


def test_backup_dropped_database_restore_identity_logs_in_again(server_config, private_db, tmp_path):
    ident = Identity()

    async def register(server: Server, whisper_id: str | None = None) -> tuple[str, str]:
        async with open_ws(server.ws_url) as ws:
            return await login(ws, ident.on_new_device() if whisper_id else ident, whisper_id)

    before = start_private_server(server_config, "pg-backup-before", private_db)
    try:
        whisper_id, token = run(register(before))
        assert get_keys(before, token, whisper_id)["signPublicKey"] == b64(ident.key.public_key)
    finally:
        assert before.terminate() == 0, before.log_tail()

    done = backup(private_db, tmp_path)
    assert done.returncode == 0, done.stderr
    assert len(dumps(tmp_path)) == 1 and "wrote " in done.stdout, done.stdout
    dump = tmp_path / dumps(tmp_path)[0]

    # Disaster: the database is gone. Recreate it empty, as the restore steps say.
    admin_url = server_config["database_url"]
    name = database_name(private_db)
    psql(admin_url, f"DROP DATABASE {name} WITH (FORCE)")
    psql(admin_url, f"CREATE DATABASE {name}")
    assert psql(private_db, "SELECT count(*) FROM pg_tables WHERE schemaname = 'public'") == "0"

    restored = subprocess.run(["pg_restore", "--exit-on-error", "--no-owner", "--dbname", private_db, str(dump)],
                              capture_output=True, text=True, timeout=DUMP_TIMEOUT, stdin=subprocess.DEVNULL)
    assert restored.returncode == 0, restored.stderr
    env = {k: v for k, v in os.environ.items() if k != "WHISPER_MIGRATE_ON_START"}
    env["WHISPER_DATABASE_URL"] = private_db
    migrated = subprocess.run([str(server_config["binary"]), "migrate"], env=env, capture_output=True, text=True,
                              timeout=60, stdin=subprocess.DEVNULL)
    assert migrated.returncode == 0, migrated.stderr

    # The schema comes from the restore and `migrate` alone, and Redis is a fresh key space: the
    # identity lives in PostgreSQL only.
    after = start_private_server(server_config, "pg-backup-after", private_db, WHISPER_MIGRATE_ON_START="0")
    try:
        again, new_token = run(register(after, whisper_id))
        assert again == whisper_id
        keys = get_keys(after, new_token, whisper_id)
        assert keys == {"whisperId": whisper_id, "encPublicKey": b64(ident.enc),
                        "signPublicKey": b64(ident.key.public_key), "status": "active"}
    finally:
        assert after.terminate() == 0, after.log_tail()


def test_backup_retention_keeps_newest_n_and_drops_older_than_n_days(private_db, tmp_path):
    old = ["whisper-20200101T000000Z.dump", "whisper-20240301T120000Z.dump", "whisper-20991231T000000Z.dump"]
    for name in old:
        (tmp_path / name).write_bytes(b"fake")
    (tmp_path / "whisper-notes.txt").write_text("not a dump: never pruned")

    # By count: the newest 2 stay (the 2099 fake sorts newest, then today's real dump).
    done = backup(private_db, tmp_path, WHISPER_BACKUP_KEEP="2")
    assert done.returncode == 0, done.stderr
    kept = dumps(tmp_path)
    assert len(kept) == 2 and "whisper-20991231T000000Z.dump" in kept, kept
    assert "removed 2 old dump(s)" in done.stdout, done.stdout
    today = next(n for n in kept if n != "whisper-20991231T000000Z.dump")

    # By age: a 2024 dump is older than 30 days, today's and the 2099 one are not; no count limit.
    (tmp_path / "whisper-20240301T120000Z.dump").write_bytes(b"fake")
    done = backup(private_db, tmp_path, WHISPER_BACKUP_KEEP="0", WHISPER_BACKUP_KEEP_DAYS="30")
    assert done.returncode == 0, done.stderr
    assert "whisper-20240301T120000Z.dump" not in dumps(tmp_path)
    assert today in dumps(tmp_path) and len(dumps(tmp_path)) == 3, dumps(tmp_path)
    assert (tmp_path / "whisper-notes.txt").exists()
    assert not list(tmp_path.glob("*.partial"))


def test_backup_fails_with_one_clear_line_and_writes_nothing_when_postgres_is_unreachable(tmp_path):
    done = backup("postgresql://whisper@127.0.0.1:1/whisper", tmp_path)
    assert done.returncode != 0
    assert "whisper-pg-backup: FAILED: pg_dump exited" in done.stderr, done.stderr
    assert [p.name for p in tmp_path.iterdir() if p.name != ".lock"] == []

    bad = backup("postgresql://whisper@127.0.0.1:1/whisper", tmp_path, WHISPER_BACKUP_KEEP="x")
    assert bad.returncode != 0 and "WHISPER_BACKUP_KEEP: expected a non-negative integer" in bad.stderr
