"""RFC 6455 / RFC 7692 behaviour of /ws, against a server in echo mode (WHISPER_TEST_ECHO=1)."""

from __future__ import annotations

import asyncio
import random
import string

import pytest

from helpers import MAX_MESSAGE_BYTES, expect_close, open_ws, recv, run

COMPRESSION = [pytest.param("deflate", id="deflate"), pytest.param(None, id="uncompressed")]


def _text(n: int, seed: int = 7) -> str:
    """n ASCII characters that deflate only moderately (not one repeated byte)."""
    rnd = random.Random(seed)
    return "".join(rnd.choices(string.ascii_letters + string.digits + " ", k=n))


@pytest.mark.parametrize("compression", COMPRESSION)
def test_text_round_trip(echo_server, compression):
    messages = ["hello", "", "héllo wörld — κόσμε — 你好 — 🐳🎉", '{"type":"ping","payload":{}}',
                _text(70_000)]

    async def main():
        async with open_ws(echo_server.ws_url, compression) as ws:
            for msg in messages:
                await ws.send(msg)
                assert await recv(ws) == msg

    run(main())


@pytest.mark.parametrize("compression", COMPRESSION)
def test_extension_negotiation_visible(echo_server, compression):
    async def main():
        async with open_ws(echo_server.ws_url, compression) as ws:
            header = ws.response.headers.get("Sec-WebSocket-Extensions")
            if compression == "deflate":
                assert header is not None and "permessage-deflate" in header, header
            else:
                assert header is None, f"extension accepted though none was offered: {header}"
            await ws.send("after negotiation")
            assert await recv(ws) == "after negotiation"

    run(main())


@pytest.mark.parametrize("compression", COMPRESSION)
def test_fragmented_message_is_reassembled(echo_server, compression):
    parts = ["frag", "mented ", "mess", "age ✓ ", _text(5_000)]

    async def fragments():
        for part in parts:
            yield part
            await asyncio.sleep(0.01)

    async def main():
        async with open_ws(echo_server.ws_url, compression) as ws:
            await ws.send(fragments())
            assert await recv(ws) == "".join(parts)
            await ws.send("single frame after a fragmented one")
            assert await recv(ws) == "single frame after a fragmented one"

    run(main())


@pytest.mark.parametrize("compression", COMPRESSION)
def test_message_at_cap_round_trips(echo_server, compression):
    msg = _text(MAX_MESSAGE_BYTES)
    assert len(msg.encode()) == MAX_MESSAGE_BYTES

    async def main():
        async with open_ws(echo_server.ws_url, compression) as ws:
            await ws.send(msg)
            assert await recv(ws, timeout=20) == msg

    run(main())


@pytest.mark.parametrize("compression", COMPRESSION)
def test_message_over_cap_closes_1009(echo_server, compression):
    msg = _text(MAX_MESSAGE_BYTES + 1)

    async def main():
        async with open_ws(echo_server.ws_url, compression) as ws:
            await expect_close(ws, 1009, msg)

    run(main())


def test_cap_counts_utf8_bytes_not_characters(echo_server):
    # 170,667 three-byte characters = 512,001 bytes but fewer characters than the cap.
    msg = "€" * ((MAX_MESSAGE_BYTES + 1 + 2) // 3)
    assert len(msg.encode()) == MAX_MESSAGE_BYTES + 1

    async def main():
        async with open_ws(echo_server.ws_url, None) as ws:
            await expect_close(ws, 1009, msg)

    run(main())


def test_fragmented_message_over_cap_closes_1009(echo_server):
    chunk = _text(100_000)

    async def fragments():
        for _ in range(6):  # 600,000 bytes in six frames, each below the cap
            yield chunk

    async def main():
        async with open_ws(echo_server.ws_url, None) as ws:
            await expect_close(ws, 1009, fragments())

    run(main())


@pytest.mark.parametrize("compression", COMPRESSION)
def test_ping_gets_pong(echo_server, compression):
    async def main():
        async with open_ws(echo_server.ws_url, compression) as ws:
            waiter = await ws.ping(b"are you there")
            latency = await asyncio.wait_for(waiter, 5)
            assert latency >= 0
            await ws.send("still open")
            assert await recv(ws) == "still open"

    run(main())


@pytest.mark.parametrize("compression", COMPRESSION)
def test_client_close_1000_is_answered_with_1000(echo_server, compression):
    async def main():
        async with open_ws(echo_server.ws_url, compression) as ws:
            await ws.send("bye")
            assert await recv(ws) == "bye"
            await ws.close(1000, "done")
            assert ws.close_code == 1000, f"server answered close with {ws.close_code}"

    run(main())


@pytest.mark.parametrize("compression", COMPRESSION)
def test_binary_message_is_echoed_in_echo_mode(echo_server, compression):
    # Echo mode (test only) accepts binary so Autobahn's binary cases can run; the protocol
    # server closes binary with 1003 (test_relay.py).
    async def main():
        async with open_ws(echo_server.ws_url, compression) as ws:
            await ws.send(b"\x00\x01\x02 binary data frame")
            assert await recv(ws) == b"\x00\x01\x02 binary data frame"

    run(main())


@pytest.mark.parametrize("compression", COMPRESSION)
def test_invalid_utf8_closes_1007(echo_server, compression):
    # "κόσμε" followed by an encoded UTF-16 surrogate (ED A0 80), which is not valid UTF-8.
    payload = b"\xce\xba\xe1\xbd\xb9\xcf\x83\xce\xbc\xce\xb5\xed\xa0\x80edited"

    async def main():
        async with open_ws(echo_server.ws_url, compression) as ws:
            # text=True sends the bytes as a Text frame without validating them.
            await expect_close(ws, 1007, (payload, {"text": True}))

    run(main())
