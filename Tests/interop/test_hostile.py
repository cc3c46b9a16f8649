"""Hostile clients against the real server (docs/operations.md "Hostile clients"): a client that
never reads, slowloris on HTTP and on the WebSocket handshake, 10,000 connections opened and
dropped at once, a compression bomb, deeply nested JSON, and every schema mutation of every
client frame type over one logged-in socket. Each case checks that the server keeps serving
others and bounds the server's resident memory (VmRSS) before and after; the numbers are
printed (`pytest -s`) for the operations notes."""

from __future__ import annotations

import asyncio
import copy
import json
import os
import resource
import selectors
import socket
import struct
import time
import urllib.request

import pytest

from conftest import REPO, http_status, start_private_server
from helpers import expect_close, open_ws, recv, run
from identity import code, login, schema_errors, send, Identity
from test_identity import _doc_frames

PER_IP = 50          # WHISPER_MAX_CONNECTIONS_PER_IP of the servers here
REQUEST_TIMEOUT = 2  # WHISPER_HTTP_REQUEST_TIMEOUT_SECONDS
# The request timer is checked about once a second, so a close can come up to ~1 s late.
CLOSE_BOUND = REQUEST_TIMEOUT + 2.0
MIB = 1024

UPGRADE = (b"GET /ws HTTP/1.1\r\nHost: t\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
           b"Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n\r\n")
HEALTH = b"GET /health HTTP/1.1\r\nHost: t\r\nUser-Agent: slowloris\r\nAccept: */*\r\n\r\n"


def _raise_fd_limit(wanted: int) -> None:
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if soft < wanted:
        resource.setrlimit(resource.RLIMIT_NOFILE, (min(wanted, hard), hard))


def _start(server_config, name: str, **env: str):
    # The server inherits this process's RLIMIT_NOFILE: room for the 10,000-connection case.
    _raise_fd_limit(20_000)
    return start_private_server(server_config, name, server_config["database_url"],
                                WHISPER_MAX_CONNECTIONS_PER_IP=str(PER_IP),
                                WHISPER_HTTP_REQUEST_TIMEOUT_SECONDS=str(REQUEST_TIMEOUT),
                                WHISPER_HTTP_IDLE_TIMEOUT_SECONDS="3", **env)


@pytest.fixture(scope="module")
def echo(server_config):
    server = _start(server_config, "hostile-echo", WHISPER_TEST_ECHO="1")
    yield server
    assert server.terminate() == 0, server.log_tail()


@pytest.fixture(scope="module")
def relay(server_config):
    server = _start(server_config, "hostile-relay")
    yield server
    assert server.terminate() == 0, server.log_tail()


def rss_mib(server) -> float:
    for line in open(f"/proc/{server.proc.pid}/status"):
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / MIB
    raise AssertionError("no VmRSS")


def metric(server, series: str) -> float:
    """One sample of the admin /metrics, e.g. `whisper_ws_connections` or `x_total{reason="per_ip"}`."""
    with urllib.request.urlopen(server.http_url("/metrics", admin=True), timeout=5) as resp:
        text = resp.read().decode()
    for line in text.splitlines():
        if line.startswith(series + " "):
            return float(line.split()[-1])
    raise AssertionError(f"{series} not in /metrics")


def report(case: str, **numbers) -> None:
    print(f"\n[hostile] {case}: " + ", ".join(f"{k}={v:.1f}" if isinstance(v, float) else f"{k}={v}"
                                              for k, v in numbers.items()))


def connect(server, source: str = "127.0.0.1", rcvbuf: int | None = None) -> socket.socket:
    s = socket.socket()
    if rcvbuf:
        s.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, rcvbuf)
    s.bind((source, 0))
    s.connect(("127.0.0.1", server.public_port))
    return s


def reset(s: socket.socket) -> None:
    """Drop without a FIN: RST, as a crashing or hostile client would."""
    s.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
    s.close()


def masked_text_frame(payload: bytes) -> bytes:
    # A zero masking key is a valid mask (RFC 6455 §5.3) and leaves the payload as it is.
    n = len(payload)
    if n < 126:
        header = struct.pack("!BB", 0x81, 0x80 | n)
    elif n < 65536:
        header = struct.pack("!BBH", 0x81, 0x80 | 126, n)
    else:
        header = struct.pack("!BBQ", 0x81, 0x80 | 127, n)
    return header + b"\0\0\0\0" + payload


def read_head(s: socket.socket, timeout: float = 10) -> bytes:
    s.settimeout(timeout)
    data = b""
    while b"\r\n\r\n" not in data:
        chunk = s.recv(4096)
        if not chunk:
            break
        data += chunk
    return data


async def echo_round_trip(server) -> None:
    async with open_ws(server.ws_url) as ws:
        await ws.send("still here")
        assert await recv(ws) == "still here"


# --- a client that never reads ----------------------------------------------------------------

def test_client_that_never_reads_is_dropped_at_the_output_cap_while_others_are_served(echo):
    before, drops = rss_mib(echo), metric(echo, "whisper_ws_slow_consumer_disconnects_total")
    s = connect(echo, rcvbuf=4096)
    s.sendall(UPGRADE)
    assert read_head(s).startswith(b"HTTP/1.1 101"), "handshake"
    frame = masked_text_frame(b"a" * 500_000)
    s.settimeout(10)
    sent = 0
    try:
        for _ in range(200):  # 100 MB of echoes at most; the cap (8 MiB + kernel buffers) comes first
            s.sendall(frame)
            sent += len(frame)
    except (BrokenPipeError, ConnectionResetError):
        pass
    s.close()
    assert sent < 100_000_000, "never dropped"
    run(echo_round_trip(echo))
    assert metric(echo, "whisper_ws_slow_consumer_disconnects_total") == drops + 1
    after = rss_mib(echo)
    report("never-reading client", sent_mb=sent / 1e6, rss_before_mib=before, rss_after_mib=after)
    assert after - before < 64, "the dropped client's output buffer must be freed"


# --- slowloris --------------------------------------------------------------------------------

def _trickle(sockets: list[tuple[socket.socket, bytes]], deadline: float) -> list[tuple[float, bytes]]:
    """Sends one byte per socket every 0.2 s; returns (seconds until the server closed, bytes
    it sent) per socket."""
    start = time.monotonic()
    state = [[s, req, 0, None, b""] for s, req in sockets]
    for s, *_ in state:
        s.setblocking(False)
    while any(st[3] is None for st in state) and time.monotonic() - start < deadline:
        for st in state:
            s, req, pos, closed, got = st
            if closed is not None:
                continue
            try:
                while True:
                    chunk = s.recv(4096)
                    if not chunk:
                        st[3] = time.monotonic() - start
                        break
                    st[4] += chunk
            except BlockingIOError:
                pass
            except ConnectionResetError:
                st[3] = time.monotonic() - start
            if st[3] is None and pos < len(req):
                try:
                    s.send(req[pos:pos + 1])
                    st[2] += 1
                except (BrokenPipeError, ConnectionResetError):
                    st[3] = time.monotonic() - start
        time.sleep(0.2)
    for s, *_ in state:
        s.close()
    return [(st[3] if st[3] is not None else float("inf"), st[4]) for st in state]


def test_slowloris_on_http_and_the_websocket_handshake_is_cut_at_the_request_timeout_and_bounded_per_ip(echo):
    before, refused = rss_mib(echo), metric(echo, 'whisper_connections_refused_total{reason="per_ip"}')
    # One address opens more than its share: the ones past PER_IP are closed at once.
    attackers = [connect(echo, source="127.0.3.1") for _ in range(PER_IP + 10)]
    deadline = time.monotonic() + 5  # the server counts each refusal as its loop accepts it
    while metric(echo, 'whisper_connections_refused_total{reason="per_ip"}') < refused + 10 and time.monotonic() < deadline:
        time.sleep(0.05)
    assert metric(echo, 'whisper_connections_refused_total{reason="per_ip"}') == refused + 10
    # Every connection trickles a request head byte by byte: half /health, half a WebSocket upgrade.
    sockets = [(s, HEALTH if i % 2 else UPGRADE) for i, s in enumerate(attackers)]
    during = []
    results = []

    def others():
        # A well-behaved client on another address is served while the attack runs.
        for _ in range(3):
            during.append(http_status(echo.http_url("/health")))
            time.sleep(0.5)

    import threading
    t = threading.Thread(target=others)
    t.start()
    results = _trickle(sockets, deadline=CLOSE_BOUND + 5)
    t.join()
    assert during == [200, 200, 200], during
    cut_at_once = [r for r in results if r[0] < 0.5 and not r[1]]
    timed_out = [r for r in results if r[1].startswith(b"HTTP/1.1 408")]
    assert len(cut_at_once) == 10, results
    assert len(timed_out) == PER_IP, results
    slowest = max(r[0] for r in timed_out)
    fastest = min(r[0] for r in timed_out)
    assert REQUEST_TIMEOUT - 0.5 <= fastest and slowest <= CLOSE_BOUND, (fastest, slowest)
    # The address's count went back down: it may connect again.
    assert http_status(echo.http_url("/health")) == 200
    again = connect(echo, source="127.0.3.1")
    again.sendall(b"GET /health HTTP/1.1\r\nHost: t\r\nConnection: close\r\n\r\n")
    assert read_head(again).startswith(b"HTTP/1.1 200"), "the address is admitted again"
    again.close()
    after = rss_mib(echo)
    report("slowloris", held=PER_IP, refused=10, close_after_s_min=fastest, close_after_s_max=slowest,
           rss_before_mib=before, rss_after_mib=after)
    assert after - before < 32


# --- 10,000 connections opened and dropped at once ------------------------------------------

def test_ten_thousand_websockets_opened_and_dropped_at_once_leave_the_server_as_it_was(echo):
    total = 10_000
    _raise_fd_limit(total + 1_000)
    if resource.getrlimit(resource.RLIMIT_NOFILE)[0] < total + 500:
        pytest.skip("RLIMIT_NOFILE too low for 10,000 sockets")
    assert metric(echo, "whisper_ws_connections") == 0
    before = rss_mib(echo)
    t0 = time.monotonic()
    sockets: list[socket.socket] = []
    sel = selectors.DefaultSelector()
    # From 200 loopback addresses, PER_IP each: the per-IP limit admits exactly this many.
    for batch in range(0, total, 1_000):
        opened = []
        for i in range(batch, batch + 1_000):
            s = connect(echo, source=f"127.0.4.{i // PER_IP + 1}" if i // PER_IP < 254
                        else f"127.0.5.{i // PER_IP - 253}")
            s.sendall(UPGRADE)
            s.setblocking(False)
            opened.append(s)
        pending = {s.fileno(): [s, b""] for s in opened}
        for s in opened:
            sel.register(s, selectors.EVENT_READ)
        deadline = time.monotonic() + 30
        while pending and time.monotonic() < deadline:
            for key, _ in sel.select(timeout=1):
                entry = pending.get(key.fd)
                if entry is None:
                    continue
                chunk = entry[0].recv(4096)
                entry[1] += chunk
                if b"\r\n\r\n" in entry[1] or not chunk:
                    assert entry[1].startswith(b"HTTP/1.1 101"), entry[1][:100]
                    sel.unregister(entry[0])
                    del pending[key.fd]
        assert not pending, f"{len(pending)} handshakes unanswered"
        sockets.extend(opened)
    opened_in = time.monotonic() - t0
    assert metric(echo, "whisper_ws_connections") == total
    # /metrics counts the open descriptors by reading /proc/self/fd: with 10,000 sockets that
    # directory once crashed the collector (a dirent read past its record), so scrape it often.
    for _ in range(20):
        assert metric(echo, "process_open_fds") >= total
    peak = rss_mib(echo)
    run(echo_round_trip(echo))
    for s in sockets:
        reset(s)
    sel.close()
    t1 = time.monotonic()
    while metric(echo, "whisper_ws_connections") != 0 and time.monotonic() - t1 < 20:
        time.sleep(0.2)
    closed_in = time.monotonic() - t1
    assert metric(echo, "whisper_ws_connections") == 0
    assert http_status(echo.http_url("/health")) == 200
    run(echo_round_trip(echo))
    after = rss_mib(echo)
    report("10k connections", opened_s=opened_in, all_closed_s=closed_in, rss_before_mib=before,
           rss_peak_mib=peak, rss_after_mib=after)
    # Freed memory may stay in the allocator's arenas; it must not grow with the connections gone.
    assert after <= peak + 4
    assert after - before < max(64.0, 0.5 * (peak - before)), (before, peak, after)


# --- frames: compression bomb, oversize, nesting ---------------------------------------------

def test_compression_bomb_closes_1009_without_inflating_it_and_others_are_served(echo):
    before = rss_mib(echo)

    async def main():
        async with open_ws(echo.ws_url, compression="deflate") as ws:
            # 64 MB of one byte deflates to ~64 KB on the wire; the cap is 512,000 inflated bytes.
            await expect_close(ws, 1009, "a" * 64_000_000)
        await echo_round_trip(echo)

    run(main(), timeout=60)
    after = rss_mib(echo)
    report("compression bomb (64 MB inflated)", rss_before_mib=before, rss_after_mib=after)
    assert after - before < 16, "the bomb was inflated past the cap"


def test_deeply_nested_json_gets_invalid_payload_and_the_socket_keeps_working(relay):
    before = rss_mib(relay)

    async def main():
        async with open_ws(relay.ws_url) as ws:
            for depth in (33, 1_000, 200_000):  # 200,000 levels = 400 KB, under the message cap
                nested = '{"type":"ping","requestId":"n","payload":{"x":' + "[" * depth + "]" * depth + "}}"
                reply = await send(ws, nested)
                assert code(reply) == "INVALID_PAYLOAD", (depth, reply)
            assert (await send(ws, {"type": "ping", "requestId": "p", "payload": {}}))["type"] == "pong"

    run(main())
    after = rss_mib(relay)
    report("nested JSON", rss_before_mib=before, rss_after_mib=after)
    assert after - before < 16


# --- schema mutation of every client frame ----------------------------------------------------

CLIENT_FRAMES = ["ping", "register_begin", "register_proof", "session_refresh", "logout", "update_tokens",
                 "send_message", "fetch_pending", "delivery_receipt", "group_create", "group_update",
                 "group_get", "groups_list", "group_send_message", "typing", "call_initiate", "call_answer", "call_ice_candidate",
                 "call_end", "call_received", "get_turn_credentials", "block", "unblock", "blocks_list",
                 # last: an accepted mutation would end the session, and every later frame would say so
                 "delete_account"]
UNPRIVILEGED = {"ping", "register_begin", "register_proof"}
OVERSIZE = "A" * 100_000  # past every string limit (the largest, a call signal, is 87,384 base64 characters)


def _client_examples() -> dict[str, dict]:
    """One valid client frame per type: docs/protocol.md first, then the schemas' examples."""
    candidates = list(_doc_frames((REPO / "docs" / "protocol.md").read_text()))
    for name in CLIENT_FRAMES:
        candidates += json.loads((REPO / "schemas" / f"{name}.schema.json").read_text()).get("examples", [])
    examples: dict[str, dict] = {}
    for frame in candidates:
        name = frame.get("type")
        if name not in CLIENT_FRAMES or name in examples:
            continue
        if (name in UNPRIVILEGED) == ("sessionToken" not in frame.get("payload", {})) and not schema_errors(frame, name):
            examples[name] = frame
    assert sorted(examples) == sorted(CLIENT_FRAMES), sorted(set(CLIENT_FRAMES) - set(examples))
    return examples


def _wrong(value):
    if isinstance(value, bool) or isinstance(value, (int, float)):
        return "1"
    if isinstance(value, str):
        return 1
    if isinstance(value, list):
        return {}
    return []


def _mutations(payload: dict, path: tuple = ()):
    """(path, kind, change) for each member of `payload` and of the objects inside it."""
    for key, value in payload.items():
        here = path + (key,)
        for kind, new in (("removed", None), ("wrong type", _wrong(value)), ("null", None),
                          ("oversize string", OVERSIZE), ("empty string", "")):
            yield here, kind, new
        if isinstance(value, dict):
            yield from _mutations(value, here)
    yield path + ("unexpectedMember",), "extra member", 1


def _apply(frame: dict, path: tuple, kind: str, new) -> dict:
    mutated = copy.deepcopy(frame)
    target = mutated["payload"]
    for key in path[:-1]:
        target = target[key]
    if kind == "removed":
        del target[path[-1]]
    else:
        target[path[-1]] = new
    return mutated


def _expected(path: tuple, kind: str) -> str:
    # docs/protocol.md "Privileged frames": an absent, null or malformed token is NOT_REGISTERED,
    # a token that is not a string is a schema violation.
    if path == ("sessionToken",) and kind != "wrong type":
        return "NOT_REGISTERED"
    return "INVALID_PAYLOAD"


def test_every_mutation_of_every_client_frame_gets_its_error_code_on_one_socket(relay):
    examples = _client_examples()
    before = rss_mib(relay)
    tally: dict[str, int] = {}
    skipped: list[str] = []

    async def main():
        ident = Identity()
        async with open_ws(relay.ws_url) as ws:
            _, token = await login(ws, ident)
            for name in CLIENT_FRAMES:
                frame = copy.deepcopy(examples[name])
                if "sessionToken" in frame["payload"]:
                    frame["payload"]["sessionToken"] = token
                for path, kind, new in _mutations(frame["payload"]):
                    mutated = _apply(frame, path, kind, new)
                    label = f"{name}.{'.'.join(path)} {kind}"
                    expected = _expected(path, kind)
                    if expected == "INVALID_PAYLOAD" and not schema_errors(mutated, name):
                        skipped.append(label)  # the schema allows it (an optional member, a null default)
                        continue
                    reply = await send(ws, mutated)
                    assert code(reply) == expected, f"{label}: {reply}"
                    tally[expected] = tally.get(expected, 0) + 1
                pong = await send(ws, {"type": "ping", "requestId": f"after-{name}", "payload": {}})
                assert pong["type"] == "pong", (name, pong)
            # The session survived it all.
            page = await send(ws, {"type": "fetch_pending", "requestId": "f", "payload": {
                "protocolVersion": 1, "cryptoVersion": 1, "sessionToken": token}})
            assert page["type"] == "pending_messages", page

    t0 = time.monotonic()
    run(main(), timeout=60)
    elapsed = time.monotonic() - t0
    after = rss_mib(relay)
    report("schema mutations", sent=sum(tally.values()), **tally, schema_valid_skipped=len(skipped),
           seconds=elapsed, rss_before_mib=before, rss_after_mib=after)
    print("[hostile] skipped (schema-valid):", ", ".join(skipped))
    assert sum(tally.values()) > 500, tally
    assert elapsed < 30
    assert after - before < 32
