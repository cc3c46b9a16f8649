"""The JSON frame layer and HTTP probes, against a server in normal mode."""

from __future__ import annotations

import json
import time
import urllib.error
import urllib.request

import pytest

from helpers import MAX_MESSAGE_BYTES, expect_close, open_ws, request, run


def _assert_pong(reply: dict, request_id: str | None) -> None:
    assert reply.get("type") == "pong", reply
    if request_id is not None:
        assert reply.get("requestId") == request_id, reply
    server_time = reply.get("payload", {}).get("serverTime")
    assert isinstance(server_time, int) and not isinstance(server_time, bool), reply
    now_ms = time.time() * 1000
    assert abs(server_time - now_ms) < 5_000, f"serverTime {server_time} vs now {now_ms:.0f}"


def _assert_invalid_payload(reply: dict, request_id: str | None = None) -> None:
    assert reply.get("type") == "error", reply
    assert isinstance(reply.get("payload"), dict), reply
    assert reply["payload"].get("code") == "INVALID_PAYLOAD", reply
    if request_id is not None:
        assert reply.get("requestId") == request_id, reply


def test_ping_frame_gets_pong_with_request_id(relay_server):
    async def main():
        async with open_ws(relay_server.ws_url) as ws:
            frame = {"type": "ping", "requestId": "r1", "payload": {}}
            _assert_pong(await request(ws, frame, match_type="pong", request_id="r1"), "r1")

    run(main())


def test_ping_frame_without_request_id(relay_server):
    async def main():
        async with open_ws(relay_server.ws_url, compression=None) as ws:
            _assert_pong(await request(ws, {"type": "ping", "payload": {}}, match_type="pong"), None)

    run(main())


@pytest.mark.parametrize("raw", [
    pytest.param("{not json", id="malformed-json"),
    pytest.param("", id="empty"),
    pytest.param("[1, 2, 3]", id="array"),
    pytest.param('"ping"', id="string"),
    pytest.param('{"payload": {}}', id="missing-type"),
    pytest.param('{"type": "ping"}', id="missing-payload"),
])
def test_bad_frame_is_invalid_payload_and_socket_stays_open(relay_server, raw):
    async def main():
        async with open_ws(relay_server.ws_url) as ws:
            _assert_invalid_payload(await request(ws, raw, match_type="error"))
            frame = {"type": "ping", "requestId": "after-error", "payload": {}}
            reply = await request(ws, frame, match_type="pong", request_id="after-error")
            _assert_pong(reply, "after-error")

    run(main())


def test_unknown_type_is_invalid_payload_with_request_id(relay_server):
    async def main():
        async with open_ws(relay_server.ws_url) as ws:
            frame = {"type": "no_such_frame_type", "requestId": "r-unknown", "payload": {}}
            reply = await request(ws, frame, match_type="error", request_id="r-unknown")
            _assert_invalid_payload(reply, "r-unknown")
            frame = {"type": "ping", "requestId": "r2", "payload": {}}
            _assert_pong(await request(ws, frame, match_type="pong", request_id="r2"), "r2")

    run(main())


def test_binary_frame_closes_1003(relay_server):
    async def main():
        async with open_ws(relay_server.ws_url) as ws:
            await expect_close(ws, 1003, b'{"type":"ping","payload":{}}')

    run(main())


def test_message_over_cap_closes_1009(relay_server):
    frame = json.dumps({"type": "ping", "payload": {"pad": "x" * MAX_MESSAGE_BYTES}})

    async def main():
        async with open_ws(relay_server.ws_url, compression=None) as ws:
            await expect_close(ws, 1009, frame)

    run(main())


def _get(url: str, timeout: float = 5.0) -> tuple[int, bytes]:
    try:
        with urllib.request.urlopen(url, timeout=timeout) as resp:
            return resp.status, resp.read()
    except urllib.error.HTTPError as e:
        return e.code, e.read()


@pytest.mark.parametrize("admin", [False, True], ids=["public", "admin"])
def test_health_is_200(relay_server, admin):
    status, _ = _get(relay_server.http_url("/health", admin=admin))
    assert status == 200


@pytest.mark.parametrize("admin", [False, True], ids=["public", "admin"])
def test_ready_is_200_json(relay_server, admin):
    # Readiness may lag /health by a moment (first PostgreSQL/Redis round trips).
    deadline = time.monotonic() + 15
    while True:
        status, body = _get(relay_server.http_url("/ready", admin=admin))
        if status == 200 or time.monotonic() > deadline:
            break
        time.sleep(0.25)
    assert status == 200, f"/ready answered {status}: {body[:500]!r}"
    json.loads(body)  # the body is JSON
