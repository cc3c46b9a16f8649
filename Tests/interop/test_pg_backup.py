"""PostgreSQL backups (docs/operations.md "Backups and restore"), done once for real: an identity
registered through the server survives deploy/systemd/whisper-pg-backup.sh, a dropped database and the
documented restore (pg_restore into an empty database, `whisper-server migrate`, start) — it
logs in again with its whisperId and its keys are served. And the script's retention.

Off-site (docs/operations.md "Encrypted off-site copies"): with an age recipient and an S3 URI the
script leaves only ciphertext, locally and in LocalStack's bucket (WHISPER_TEST_S3_ENDPOINT, which
scripts/test starts); the object, downloaded and decrypted with the private key, restores. A
configured step that fails (upload, encryption) fails the run and leaves no plaintext."""

from __future__ import annotations

import json
import os
import pathlib
import secrets
import shutil
import subprocess
import sys
import urllib.request

import pytest

from conftest import REPO, Server, start_private_server
from databases import database_name, private_database, psql, with_database
from helpers import free_port, open_ws, run
from identity import Identity, b64, login

BACKUP = REPO / "deploy" / "systemd" / "whisper-pg-backup.sh"
DUMP_TIMEOUT = 120
# Where this Python's tools are (the interop venv's `aws`, from Tests/interop/requirements.txt).
VENV_BIN = str(pathlib.Path(sys.executable).parent)


def backup(database_url: str, directory: pathlib.Path, **env: str) -> subprocess.CompletedProcess:
    environ = {k: v for k, v in os.environ.items() if not k.startswith(("WHISPER_", "PG", "AWS_"))}
    environ["PATH"] = f"{VENV_BIN}:{environ.get('PATH', '')}"
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


# --- encrypted off-site copies ----------------------------------------------------------------

def needed_tool(name: str, package: str) -> str:
    """Path of `name` (on the PATH or beside this Python), or a failure naming what provides it."""
    found = shutil.which(name) or shutil.which(name, path=VENV_BIN)
    if not found:
        pytest.fail(f"{name} not found: install {package} (scripts/test does)", pytrace=False)
    return found


@pytest.fixture(scope="module")
def s3():
    """LocalStack's S3 as the AWS CLI reaches it: credentials and region in the environment (the
    CLI's own conventions), the endpoint given with --endpoint-url."""
    endpoint = os.environ.get("WHISPER_TEST_S3_ENDPOINT")
    bucket = os.environ.get("WHISPER_TEST_S3_BUCKET")
    if not endpoint or not bucket:
        pytest.skip("WHISPER_TEST_S3_ENDPOINT and WHISPER_TEST_S3_BUCKET are not set (scripts/test sets them)")
    aws = needed_tool("aws", "the PyPI package awscli (Tests/interop/requirements.txt)")
    env = {"AWS_ACCESS_KEY_ID": "test", "AWS_SECRET_ACCESS_KEY": "test", "AWS_DEFAULT_REGION": "us-east-1",
           "WHISPER_BACKUP_S3_ENDPOINT": endpoint}

    def cli(*args: str) -> subprocess.CompletedProcess:
        environ = {k: v for k, v in os.environ.items() if not k.startswith("AWS_")}
        environ.update({k: v for k, v in env.items() if k.startswith("AWS_")})
        return subprocess.run([aws, "--endpoint-url", endpoint, *args], env=environ, capture_output=True,
                              text=True, timeout=60, stdin=subprocess.DEVNULL)

    return {"bucket": bucket, "env": env, "cli": cli}


@pytest.fixture(scope="module")
def age_key(tmp_path_factory):
    """An age key pair: the recipient (public) the backup gets, the identity file restores use."""
    keygen = needed_tool("age-keygen", "the Debian package age")
    identity = tmp_path_factory.mktemp("age") / "backup.key"
    done = subprocess.run([keygen, "-o", str(identity)], capture_output=True, text=True, timeout=30)
    assert done.returncode == 0, done.stderr
    recipient = next(line.split(": ", 1)[1] for line in identity.read_text().splitlines()
                     if line.startswith("# public key: "))
    return {"recipient": recipient, "identity": identity}


@pytest.fixture(scope="module")
def source_db():
    """A database of this section's own with a marker table (no server needed: the dump is of
    whatever PostgreSQL holds)."""
    cluster = os.environ.get("WHISPER_TEST_DATABASE_URL")
    if not cluster:
        pytest.skip("WHISPER_TEST_DATABASE_URL is not set (scripts/test sets it)")
    with private_database(cluster, "whisper_offsite") as url:
        psql(url, "CREATE TABLE offsite_marker (id int PRIMARY KEY, note text NOT NULL)")
        psql(url, "INSERT INTO offsite_marker VALUES (1, 'survives the round trip'), (2, 'and this')")
        yield url


def only_ciphertext(directory: pathlib.Path) -> list[str]:
    """The names in `directory` besides the lock; asserts none holds an unencrypted archive."""
    names = sorted(p.name for p in directory.iterdir() if p.name != ".lock")
    for name in names:
        assert not (directory / name).read_bytes().startswith(b"PGDMP"), f"{name} is an unencrypted pg_dump archive"
    return names


def test_encrypted_dump_reaches_the_bucket_and_restores_with_the_private_key(s3, age_key, source_db, tmp_path):
    prefix = f"s3://{s3['bucket']}/pg-{secrets.token_hex(4)}"
    done = backup(source_db, tmp_path / "local", WHISPER_BACKUP_AGE_RECIPIENT=age_key["recipient"],
                  WHISPER_BACKUP_S3_URI=prefix + "/", **s3["env"])
    assert done.returncode == 0, done.stderr
    assert "age-encrypted" in done.stdout and f"copied to {prefix}/whisper-" in done.stdout, done.stdout
    assert "warning" not in done.stderr, done.stderr
    local = only_ciphertext(tmp_path / "local")
    assert len(local) == 1 and local[0].endswith(".dump.age"), local
    ciphertext = (tmp_path / "local" / local[0]).read_bytes()
    assert ciphertext.startswith(b"age-encryption.org/v1\n"), ciphertext[:40]

    # The object in the bucket, as a restore on another machine fetches it.
    listing = s3["cli"]("s3", "ls", prefix + "/")
    assert listing.returncode == 0 and local[0] in listing.stdout, listing.stdout + listing.stderr
    fetched = tmp_path / "fetched.dump.age"
    got = s3["cli"]("s3", "cp", "--only-show-errors", f"{prefix}/{local[0]}", str(fetched))
    assert got.returncode == 0, got.stderr
    assert fetched.read_bytes() == ciphertext

    # Without the private key it is nothing pg_restore reads; with it, the database comes back.
    assert subprocess.run(["pg_restore", "--list", str(fetched)], capture_output=True,
                          timeout=DUMP_TIMEOUT).returncode != 0
    plain = tmp_path / "restored.dump"
    decrypted = subprocess.run([needed_tool("age", "the Debian package age"), "--decrypt", "-i",
                                str(age_key["identity"]), "-o", str(plain), str(fetched)],
                               capture_output=True, text=True, timeout=DUMP_TIMEOUT)
    assert decrypted.returncode == 0, decrypted.stderr
    listed = subprocess.run(["pg_restore", "--list", str(plain)], capture_output=True, text=True, timeout=DUMP_TIMEOUT)
    assert listed.returncode == 0 and "offsite_marker" in listed.stdout, listed.stderr
    with private_database(os.environ["WHISPER_TEST_DATABASE_URL"], "whisper_offsite_restore") as target:
        restored = subprocess.run(["pg_restore", "--exit-on-error", "--no-owner", "--dbname", target, str(plain)],
                                  capture_output=True, text=True, timeout=DUMP_TIMEOUT, stdin=subprocess.DEVNULL)
        assert restored.returncode == 0, restored.stderr
        assert psql(target, "SELECT string_agg(note, '|' ORDER BY id) FROM offsite_marker") == \
            "survives the round trip|and this"


def test_a_failing_upload_fails_the_run_and_keeps_the_encrypted_local_dump(s3, age_key, source_db, tmp_path):
    missing = f"s3://no-such-bucket-{secrets.token_hex(4)}/pg"
    done = backup(source_db, tmp_path, WHISPER_BACKUP_AGE_RECIPIENT=age_key["recipient"],
                  WHISPER_BACKUP_S3_URI=missing, **s3["env"])
    assert done.returncode != 0, done.stdout
    assert f"whisper-pg-backup: FAILED: upload of {tmp_path}/whisper-" in done.stderr, done.stderr
    assert "the local dump is kept" in done.stderr and "NoSuchBucket" in done.stderr, done.stderr
    kept = only_ciphertext(tmp_path)
    assert len(kept) == 1 and kept[0].endswith(".dump.age"), kept

    # An endpoint nobody answers on (one attempt: the CLI's own retries would only slow the test).
    unreachable = {**s3["env"], "WHISPER_BACKUP_S3_ENDPOINT": f"http://127.0.0.1:{free_port()}", "AWS_MAX_ATTEMPTS": "1"}
    done = backup(source_db, tmp_path, WHISPER_BACKUP_AGE_RECIPIENT=age_key["recipient"],
                  WHISPER_BACKUP_S3_URI=f"s3://{s3['bucket']}/pg", **unreachable)
    assert done.returncode != 0 and "FAILED: upload of" in done.stderr, done.stderr
    assert len(only_ciphertext(tmp_path)) == 2


def test_failed_encryption_leaves_no_file_and_a_killed_runs_plaintext_is_removed(age_key, source_db, tmp_path):
    # What a run killed mid-dump would leave behind (SIGKILL skips the script's own clean-up).
    leftover = tmp_path / "whisper-20250101T000000Z.dump.partial"
    leftover.write_bytes(b"PGDMP plaintext of a killed run")
    done = backup(source_db, tmp_path, WHISPER_BACKUP_AGE_RECIPIENT="age1notakey")
    assert done.returncode != 0
    assert "whisper-pg-backup: FAILED: pg_dump | age exited" in done.stderr and "nothing written" in done.stderr, \
        done.stderr
    assert only_ciphertext(tmp_path) == []

    # Encrypted and unencrypted dumps share the retention: the newest N of either kind stay.
    (tmp_path / "whisper-20200101T000000Z.dump").write_bytes(b"fake")
    (tmp_path / "whisper-20210101T000000Z.dump.age").write_bytes(b"fake")
    done = backup(source_db, tmp_path, WHISPER_BACKUP_AGE_RECIPIENT=age_key["recipient"], WHISPER_BACKUP_KEEP="2")
    assert done.returncode == 0, done.stderr
    kept = only_ciphertext(tmp_path)
    assert len(kept) == 2 and "whisper-20210101T000000Z.dump.age" in kept, kept
    assert "removed 1 old dump(s)" in done.stdout, done.stdout


def test_an_s3_uri_that_is_not_one_fails_before_dumping(source_db, tmp_path):
    done = backup(source_db, tmp_path, WHISPER_BACKUP_S3_URI="https://bucket.example.org/pg")
    assert done.returncode != 0 and "WHISPER_BACKUP_S3_URI: expected s3://bucket[/prefix]" in done.stderr
    assert not tmp_path.exists() or [p.name for p in tmp_path.iterdir() if p.name != ".lock"] == []
