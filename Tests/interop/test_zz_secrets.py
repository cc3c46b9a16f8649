"""Secrets never reach a log (docs/operations.md "Logs": tokens, keys, plaintext and ciphertext are never logged, sizes
only). Named to run last: it sweeps every server log of this interop run — every file under the log folder, every
`<name>.stdout.log` / `.stderr.log` a `Server` wrote — for
- the exact secrets of the run: each Server's admin token and secret-named settings (TURN/S3 secrets, passwords), the
  session tokens and TURN credentials the server handed out, the ciphertexts and nonces the tests sent;
- secret shapes: a 44-character base64 value (a session token, a key) as a JSON value, base64 longer than 40
  characters (ciphertext, nonces, signatures), PEM blocks and private keys."""

from __future__ import annotations

import os
import re
import urllib.parse

import pytest

from conftest import SERVERS
from identity import SECRETS_SEEN

SECRET_NAME = re.compile(r"(SECRET|PASSWORD|PASSWD|TOKEN|PRIVATE|ACCESS_KEY|API_KEY|_KEY$)")
SHAPES = {
    "a 44-character base64 JSON value (session token or key)": re.compile(r'"[A-Za-z0-9+/]{43}="'),
    "base64 longer than 40 characters (ciphertext, nonce, signature)": re.compile(r"[A-Za-z0-9+/]{40,}={0,2}"),
    "a PEM block": re.compile(r"-----BEGIN [A-Z ]+-----"),
    "a private key": re.compile(r"PRIVATE KEY"),
}
HEX = re.compile(r"[0-9a-f]+")
BASE64_RUN = re.compile(r"[A-Za-z0-9+/]{8,}={0,2}")


def configured_secrets() -> set[str]:
    """Secret-named settings of the environment and of every Server of the run, and passwords inside URLs."""
    found: set[str] = set()
    for env in [dict(os.environ)] + [server.env for server in SERVERS]:
        for name, value in env.items():
            # A key *file's* path (WHISPER_TLS_KEY, WHISPER_APNS_KEY_FILE) is not a secret; its contents are.
            if SECRET_NAME.search(name) and len(value) >= 8 and not value.startswith("/"):
                found.add(value)
            if "://" in value:
                password = urllib.parse.urlsplit(value).password
                if password and len(password) >= 6:
                    found.add(password)
    return found | {server.admin_token for server in SERVERS}


def shape_findings(line: str) -> list[str]:
    out = []
    for label, pattern in SHAPES.items():
        for match in pattern.finditer(line):
            text = match.group(0).strip('"')
            # Hex digests (session hashes, correlation ids) are not base64 secrets.
            if HEX.fullmatch(text):
                continue
            out.append(f"{label}: {text[:16]}…")
    return out


def test_no_server_log_line_holds_a_secret(server_config):
    log_dir = server_config["log_dir"]
    files = sorted(p for p in log_dir.rglob("*") if p.is_file())
    if not files:
        pytest.skip(f"no server logs in {log_dir}")
    # The few configured secrets are looked for anywhere in a line; the many tokens, ciphertexts and nonces of the run
    # (all base64) as whole base64 runs, by set membership — a substring scan of each would take minutes.
    configured = {s for s in configured_secrets() if len(s) >= 8}
    seen = {s for s in SECRETS_SEEN if len(s) >= 8}
    findings: list[str] = []
    lines = 0
    for path in files:
        with open(path, errors="replace") as f:
            for number, line in enumerate(f, 1):
                lines += 1
                hits = [f"a configured secret ({s[:4]}…)" for s in configured if s in line]
                hits += [f"a secret of this run ({m[:6]}…)" for m in BASE64_RUN.findall(line) if m in seen]
                hits += shape_findings(line)
                findings += [f"{path.name}:{number}: {hit}" for hit in hits]
    print(f"\nsecrets sweep: {len(files)} files, {lines} lines, {len(configured)} configured and {len(seen)} issued/sent secrets, {len(findings)} findings")
    assert not findings, "secrets in server logs:\n" + "\n".join(findings[:40])
