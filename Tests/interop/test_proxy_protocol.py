"""A real HAProxy in front of a relay with PROXY protocol v2 (docs/operations.md "Behind a load
balancer"): `send-proxy-v2` on the traffic, LOCAL headers on HAProxy's own `/ready` checks. The
relay trusts only 127.0.0.9 (where HAProxy connects from; 127.0.0.1, where the harness checks
`/health` from, stays a direct client) and holds each client address to one
connection, so it must count clients by the address in the header: two clients at 127.0.0.2
and 127.0.0.3 get through HAProxy, a second socket from 127.0.0.2 does not."""

from __future__ import annotations

import shutil
import socket
import subprocess
import time
import urllib.request

import pytest

from conftest import start_private_server
from helpers import free_port

UPGRADE = (b"GET /ws HTTP/1.1\r\nHost: t\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
           b"Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n\r\n")


def metrics(server) -> dict[str, float]:
    with urllib.request.urlopen(server.http_url("/metrics", admin=True), timeout=5) as resp:
        text = resp.read().decode()
    samples = {}
    for line in text.splitlines():
        if line and not line.startswith("#"):
            name, _, value = line.rpartition(" ")
            samples[name] = float(value)
    return samples


def haproxy_stat(stats_socket: str, server: str) -> str:
    """The `status` column of `show stat` for `server` (UP, DOWN, …); "" while HAProxy starts."""
    data = b""
    try:
        with socket.socket(socket.AF_UNIX) as s:
            s.settimeout(5)
            s.connect(stats_socket)
            s.sendall(b"show stat\n")
            while chunk := s.recv(65536):
                data += chunk
    except OSError:
        return ""
    if not data:
        return ""
    lines = data.decode().splitlines()
    header = lines[0].lstrip("# ").split(",")
    for line in lines[1:]:
        row = dict(zip(header, line.split(",")))
        if row.get("svname") == server:
            return row.get("status", "")
    return ""


def upgrade_through(port: int, source: str) -> tuple[socket.socket, bytes]:
    """Connects from `source` to HAProxy, asks for a WebSocket upgrade; returns the socket and
    the response's first line (b"" if the connection closed without one)."""
    s = socket.socket()
    s.settimeout(5)
    s.bind((source, 0))
    s.connect(("127.0.0.1", port))
    s.sendall(UPGRADE)
    data = b""
    try:
        while b"\r\n" not in data:
            chunk = s.recv(4096)
            if not chunk:
                break
            data += chunk
    except ConnectionResetError:
        pass
    return s, data.split(b"\r\n", 1)[0]


@pytest.fixture(scope="module")
def proxied(server_config, tmp_path_factory):
    binary = shutil.which("haproxy") or "/usr/sbin/haproxy"
    if not shutil.which(binary):
        pytest.fail("haproxy is not installed (scripts/lib/packages.sh installs it)", pytrace=False)
    relay = start_private_server(server_config, "proxy-relay", server_config["database_url"],
                                 WHISPER_PROXY_PROTOCOL="1", WHISPER_PROXY_PROTOCOL_SOURCES="127.0.0.9/32",
                                 WHISPER_MAX_CONNECTIONS_PER_IP="1")
    folder = tmp_path_factory.mktemp("haproxy")
    port = free_port()
    stats = str(folder / "stats.sock")
    config = folder / "haproxy.cfg"
    config.write_text(f"""
global
    stats socket {stats} mode 600 level admin
defaults
    mode tcp
    timeout connect 2s
    timeout client 30s
    timeout server 30s
frontend public
    bind 127.0.0.1:{port}
    default_backend relays
backend relays
    option httpchk GET /ready
    server relay1 127.0.0.1:{relay.public_port} source 127.0.0.9 send-proxy-v2 check inter 200ms fall 2 rise 1
""")
    log = open(folder / "haproxy.log", "wb")
    proc = subprocess.Popen([binary, "-db", "-f", str(config)], stdin=subprocess.DEVNULL,
                            stdout=log, stderr=subprocess.STDOUT, start_new_session=True)
    try:
        yield relay, port, stats, folder / "haproxy.log"
    finally:
        proc.terminate()
        proc.wait(10)
        log.close()
        assert relay.terminate() == 0, relay.log_tail()


def test_haproxy_health_checks_and_client_addresses_reach_the_relay(proxied):
    relay, port, stats, haproxy_log = proxied
    # HAProxy's checks carry a LOCAL header: the relay answers them, so the server is UP.
    deadline = time.monotonic() + 10
    while haproxy_stat(stats, "relay1") != "UP":
        assert time.monotonic() < deadline, (f"relay1 is {haproxy_stat(stats, 'relay1')!r}\n"
                                             f"{haproxy_log.read_text(errors='replace')}\n{relay.log_tail()}")
        time.sleep(0.1)
    time.sleep(0.5)  # a few more checks
    before = metrics(relay)
    assert before['whisper_http_requests_total{listener="public",status="200"}'] >= 1, "the checks reached /ready"

    first, line = upgrade_through(port, "127.0.0.2")
    assert line == b"HTTP/1.1 101 Switching Protocols", line
    # Another client behind the same HAProxy address is another address for the relay.
    second, line = upgrade_through(port, "127.0.0.3")
    assert line == b"HTTP/1.1 101 Switching Protocols", line
    # 127.0.0.2 already holds its one connection: the relay closes this one at once.
    third, line = upgrade_through(port, "127.0.0.2")
    assert line == b"", line

    after = metrics(relay)
    refused = 'whisper_connections_refused_total{reason="%s"}'
    assert after[refused % "per_ip"] == before[refused % "per_ip"] + 1
    for reason in ("proxy_header_invalid", "proxy_header_too_long", "proxy_header_truncated",
                   "proxy_header_timeout"):
        assert after[refused % reason] == 0, (reason, relay.log_tail())
    assert haproxy_stat(stats, "relay1") == "UP"
    for s in (first, second, third):
        s.close()
