"""Small helpers shared by the interop tests (websockets >= 14, asyncio API)."""

from __future__ import annotations

import asyncio
import json
import socket
from typing import Any, Awaitable, TypeVar

from websockets.asyncio.client import ClientConnection, connect
from websockets.exceptions import ConnectionClosed

T = TypeVar("T")

# Contract §1: MAX_WS_FRAME_BYTES. A larger message closes the socket with 1009.
MAX_MESSAGE_BYTES = 512_000
TEST_TIMEOUT = 30.0
RECV_TIMEOUT = 10.0


def free_port() -> int:
    return free_ports(1)[0]


def free_ports(count: int) -> list[int]:
    """`count` distinct free ports: every socket stays bound until all were chosen."""
    sockets = [socket.socket() for _ in range(count)]
    try:
        for s in sockets:
            s.bind(("127.0.0.1", 0))
        return [s.getsockname()[1] for s in sockets]
    finally:
        for s in sockets:
            s.close()


def run(coro: Awaitable[T], timeout: float = TEST_TIMEOUT) -> T:
    """Run one test's coroutine on a fresh event loop, bounded in time."""
    return asyncio.run(asyncio.wait_for(coro, timeout))


def open_ws(url: str, compression: str | None = "deflate", **kwargs: Any):
    """connect() with a receive limit large enough for the cap tests."""
    kwargs.setdefault("max_size", 4 * MAX_MESSAGE_BYTES)
    kwargs.setdefault("open_timeout", 10)
    kwargs.setdefault("close_timeout", 5)
    return connect(url, compression=compression, **kwargs)


async def recv(ws: ClientConnection, timeout: float = RECV_TIMEOUT):
    return await asyncio.wait_for(ws.recv(), timeout)


async def expect_close(ws: ClientConnection, code: int, sent: Any = None,
                       timeout: float = RECV_TIMEOUT) -> None:
    """Send `sent` (if given), then expect the server to close with `code`.

    The server may close while the message is still being written, so a ConnectionClosed from
    send() counts the same as one from recv().
    """
    closed: ConnectionClosed | None = None
    try:
        if sent is not None:
            if isinstance(sent, tuple):
                await ws.send(sent[0], **sent[1])
            else:
                await ws.send(sent)
        while True:
            msg = await asyncio.wait_for(ws.recv(), timeout)
            # Nothing should come back; show what did if the server answers instead of closing.
            raise AssertionError(f"expected close {code}, got a message: {str(msg)[:200]!r}")
    except ConnectionClosed as e:
        closed = e
    assert closed.rcvd is not None, f"expected close {code}, connection dropped without a close frame"
    assert closed.rcvd.code == code, f"expected close {code}, got {closed.rcvd.code} {closed.rcvd.reason!r}"


async def request(ws: ClientConnection, frame: dict | str, *, match_type: str | None = None,
                  request_id: str | None = None, max_frames: int = 20) -> dict:
    """Send a frame (dict → JSON) and return the first reply frame that matches.

    A reply matches when it carries `request_id` (if given) and has type `match_type`, "error",
    or any type (if neither is given). Unrelated frames the server pushes are skipped.
    """
    await ws.send(frame if isinstance(frame, str) else json.dumps(frame))
    for _ in range(max_frames):
        raw = await recv(ws)
        assert isinstance(raw, str), f"server sent a binary frame: {raw[:100]!r}"
        reply = json.loads(raw)
        assert isinstance(reply, dict), f"server frame is not an object: {raw[:200]}"
        if request_id is not None and reply.get("requestId") != request_id:
            continue
        if match_type is not None and reply.get("type") not in (match_type, "error"):
            continue
        return reply
    raise AssertionError(f"no matching reply within {max_frames} frames")
