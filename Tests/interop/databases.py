"""Private PostgreSQL databases on the test cluster (role `whisper` may CREATEDB), for tests that
drop a database or fill it with generated rows without touching other tests' data."""

from __future__ import annotations

import contextlib
import secrets
import subprocess
import urllib.parse
from typing import Iterator


def with_database(url: str, name: str) -> str:
    """`url` naming database `name` instead."""
    return urllib.parse.urlunsplit(urllib.parse.urlsplit(url)._replace(path="/" + name))


def database_name(url: str) -> str:
    return urllib.parse.urlsplit(url).path.lstrip("/")


def psql(url: str, sql: str) -> str:
    out = subprocess.run(["psql", "-X", "-q", "-A", "-t", "-v", "ON_ERROR_STOP=1", "-d", url, "-c", sql],
                         capture_output=True, text=True, timeout=60, stdin=subprocess.DEVNULL)
    assert out.returncode == 0, f"psql {sql!r}: {out.stderr}"
    return out.stdout.strip()


@contextlib.contextmanager
def private_database(cluster_url: str, prefix: str) -> Iterator[str]:
    """A new empty database `<prefix>_<random>` on the cluster of `cluster_url`; dropped afterwards."""
    name = f"{prefix}_{secrets.token_hex(4)}"
    psql(cluster_url, f"CREATE DATABASE {name}")
    try:
        yield with_database(cluster_url, name)
    finally:
        psql(cluster_url, f"DROP DATABASE IF EXISTS {name} WITH (FORCE)")
