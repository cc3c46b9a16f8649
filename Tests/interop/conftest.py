"""Fixtures that run the real `whisper-server` binary for the interop tests.

Environment:
  WHISPER_SERVER_BIN         server binary (default: <repo>/.build/debug/whisper-server)
  WHISPER_TEST_DATABASE_URL  PostgreSQL URL for the server (tests are skipped without it)
  WHISPER_TEST_REDIS_URL     Redis URL for the server (tests are skipped without it)
  WHISPER_INTEROP_LOG_DIR    where server logs go (default: pytest's temporary folder)

Each server gets free loopback ports for its public and admin listeners and
WHISPER_MIGRATE_ON_START=1. `echo_server` runs with WHISPER_TEST_ECHO=1, `relay_server` without.
"""

from __future__ import annotations

import os
import pathlib
import secrets
import signal
import subprocess
import time
import urllib.error
import urllib.request

import pytest

from helpers import free_ports

REPO = pathlib.Path(__file__).resolve().parents[2]
START_TIMEOUT = float(os.environ.get("WHISPER_INTEROP_START_TIMEOUT", "60"))
STOP_TIMEOUT = 30.0
SERVERS: list["Server"] = []


class Server:
    """One `whisper-server serve` process on private loopback ports."""

    def __init__(self, binary: pathlib.Path, name: str, echo: bool, log_dir: pathlib.Path,
                 database_url: str, redis_url: str):
        self.binary = binary
        self.name = name
        self.echo = echo
        # Two ports at once: one after the other, the kernel may hand out the same one twice.
        self.public_port, self.admin_port = free_ports(2)
        self.log_path = log_dir / f"{name}.stdout.log"  # JSON log lines (docs/operations.md "Logs")
        self.stderr_path = log_dir / f"{name}.stderr.log"
        self.admin_token = secrets.token_hex(16)
        self.env = dict(os.environ)
        for key in ("WHISPER_TEST_ECHO", "WHISPER_DATABASE_URL", "WHISPER_REDIS_URL"):
            self.env.pop(key, None)
        self.env.update({
            "WHISPER_PUBLIC_ADDR": f"127.0.0.1:{self.public_port}",
            "WHISPER_ADMIN_ADDR": f"127.0.0.1:{self.admin_port}",
            "WHISPER_DATABASE_URL": database_url,
            "WHISPER_REDIS_URL": redis_url,
            "WHISPER_MIGRATE_ON_START": "1",
            "WHISPER_ADMIN_TOKEN": self.admin_token,
            # SIGTERM closes at once unless a test asks for a grace or a window (test_rolling_restart.py).
            "WHISPER_DRAIN_GRACE_SECONDS": "0",
            "WHISPER_DRAIN_WINDOW_SECONDS": "0",
        })
        if echo:
            self.env["WHISPER_TEST_ECHO"] = "1"
        self.proc: subprocess.Popen | None = None
        self._log = None
        SERVERS.append(self)  # test_zz_secrets.py sweeps their logs for their secrets

    @property
    def ws_url(self) -> str:
        return f"ws://127.0.0.1:{self.public_port}/ws"

    def http_url(self, path: str, admin: bool = False) -> str:
        port = self.admin_port if admin else self.public_port
        return f"http://127.0.0.1:{port}{path}"

    def log_tail(self, lines: int = 40) -> str:
        out = []
        for path in (self.log_path, self.stderr_path):
            try:
                text = path.read_text(errors="replace").splitlines()
            except OSError:
                out.append(f"(no log at {path})")
                continue
            if text:
                out.append(f"--- last {lines} lines of {path} ---")
                out.extend(text[-lines:])
        return "\n".join(out)

    def start(self) -> None:
        self._log = (open(self.log_path, "wb"), open(self.stderr_path, "wb"))
        self.proc = subprocess.Popen(
            [str(self.binary), "serve"], env=self.env, stdin=subprocess.DEVNULL,
            stdout=self._log[0], stderr=self._log[1], start_new_session=True)
        deadline = time.monotonic() + START_TIMEOUT
        while True:
            code = self.proc.poll()
            if code is not None:
                self._close_log()
                pytest.fail(f"{self.name}: whisper-server exited with {code} during start-up\n"
                            + self.log_tail(), pytrace=False)
            if http_status(self.http_url("/health"), timeout=1.0) == 200:
                return
            if time.monotonic() > deadline:
                self.kill()
                pytest.fail(f"{self.name}: GET /health did not answer 200 within "
                            f"{START_TIMEOUT:.0f}s\n" + self.log_tail(), pytrace=False)
            time.sleep(0.1)

    def terminate(self, timeout: float = STOP_TIMEOUT) -> int:
        """SIGTERM, then wait; returns the exit code (a server that hangs is killed: -9)."""
        assert self.proc is not None
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
            try:
                self.proc.wait(timeout)
            except subprocess.TimeoutExpired:
                self.kill()
                self._close_log()
                return -signal.SIGKILL
        self._close_log()
        return self.proc.returncode

    def wait_exit(self, timeout: float = STOP_TIMEOUT) -> int:
        """Wait (no signal) for the process to exit; returns its exit code (-9 if killed)."""
        assert self.proc is not None
        try:
            self.proc.wait(timeout)
        except subprocess.TimeoutExpired:
            self.kill()
            return -signal.SIGKILL
        self._close_log()
        return self.proc.returncode

    def kill(self) -> None:
        if self.proc is not None and self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait(10)
        self._close_log()

    def _close_log(self) -> None:
        if self._log is not None:
            for f in self._log:
                f.close()
            self._log = None


def http_status(url: str, timeout: float = 5.0) -> int | None:
    try:
        with urllib.request.urlopen(url, timeout=timeout) as resp:
            return resp.status
    except urllib.error.HTTPError as e:
        return e.code
    except (OSError, ValueError):
        return None


@pytest.fixture(scope="session")
def server_config(tmp_path_factory):
    db = os.environ.get("WHISPER_TEST_DATABASE_URL")
    redis = os.environ.get("WHISPER_TEST_REDIS_URL")
    if not db or not redis:
        pytest.skip("WHISPER_TEST_DATABASE_URL and WHISPER_TEST_REDIS_URL are not set "
                    "(scripts/test sets them)")
    binary = pathlib.Path(os.environ.get("WHISPER_SERVER_BIN",
                                         REPO / ".build" / "debug" / "whisper-server"))
    if not binary.is_file() or not os.access(binary, os.X_OK):
        pytest.fail(f"server binary {binary} not found or not executable "
                    "(run `swift build`, or set WHISPER_SERVER_BIN)", pytrace=False)
    log_dir = os.environ.get("WHISPER_INTEROP_LOG_DIR")
    log_dir = pathlib.Path(log_dir) if log_dir else tmp_path_factory.mktemp("server-logs")
    log_dir.mkdir(parents=True, exist_ok=True)
    return {"binary": binary, "log_dir": log_dir, "database_url": db, "redis_url": redis}


def _make(server_config, name: str, echo: bool) -> Server:
    return Server(server_config["binary"], name, echo, server_config["log_dir"],
                  server_config["database_url"], server_config["redis_url"])


def start_private_server(server_config, name: str, database_url: str, **env: str) -> Server:
    """A started server (normal mode) on `database_url` with a Redis key space of its own and
    `env` added; the caller stops it."""
    server = Server(server_config["binary"], name, False, server_config["log_dir"], database_url,
                    server_config["redis_url"])
    server.env["WHISPER_REDIS_PREFIX"] = f"{name}-{os.getpid()}:"
    server.env.update(env)
    server.start()
    return server


def _session_server(server_config, name: str, echo: bool):
    server = _make(server_config, name, echo)
    server.start()
    yield server
    code = server.terminate()
    if code != 0:
        pytest.fail(f"{name}: whisper-server exited with {code} on SIGTERM (expected 0)\n"
                    + server.log_tail(), pytrace=False)


@pytest.fixture(scope="session")
def echo_server(server_config):
    """A server in WHISPER_TEST_ECHO=1 mode: /ws echoes text messages."""
    yield from _session_server(server_config, "echo-server", echo=True)


@pytest.fixture(scope="session")
def relay_server(server_config):
    """A server running the JSON frame layer."""
    yield from _session_server(server_config, "relay-server", echo=False)


@pytest.fixture
def fresh_server(server_config, request):
    """A server of this test's own (normal mode), for tests that stop it."""
    server = _make(server_config, f"fresh-{request.node.name}", echo=False)
    server.start()
    yield server
    server.kill()


@pytest.fixture(scope="module")
def push_fake(tmp_path_factory):
    """The APNs/FCM fake (push_fake.py) over HTTP/2 + TLS on a free port, one per test module."""
    from push_fake import PushFake

    log_dir = os.environ.get("WHISPER_INTEROP_LOG_DIR")
    fake = PushFake(tmp_path_factory.mktemp("push-fake"), pathlib.Path(log_dir) if log_dir else None)
    fake.start()
    yield fake
    fake.stop()
