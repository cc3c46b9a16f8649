"""Nothing acknowledged is lost (docs/protocol.md "Messaging (1:1)"): `kill -9` of the server in the middle of a send
burst, then a restart — every `message_accepted` id is fetched afterwards, exactly once."""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import signal

from websockets.exceptions import ConnectionClosed

from conftest import Server
from helpers import open_ws, run
from identity import Identity, login
from messaging import fetch_all, send_message

BURST = 3000
WINDOW = 64


def test_kill_9_mid_burst_loses_no_acknowledged_message(server_config):
    server = Server(server_config["binary"], "kill-9", False, server_config["log_dir"],
                    server_config["database_url"], server_config["redis_url"])
    # A private key space, and limits that let the burst through.
    server.env.update({"WHISPER_REDIS_PREFIX": f"kill9-{os.getpid()}:", "WHISPER_RATE_SEND": "100000/10",
                       "WHISPER_RATE_SEND_IP": "100000/10"})
    server.start()
    alice, bob = Identity(), Identity()
    acked: list[str] = []

    async def burst():
        async with open_ws(server.ws_url) as ws_bob:
            bob_id, _ = await login(ws_bob, bob)
        async with open_ws(server.ws_url, max_queue=None) as ws:
            alice_id, token = await login(ws, alice)
            frames = [json.dumps(send_message(alice.key, token, alice_id, bob_id)) for _ in range(BURST)]

            async def writer():
                # At most WINDOW sends in flight, like a phone's outbox: the kill after
                # BURST // 5 acks then always lands mid-burst, however fast the server is
                # next to this client (an unbounded burst let a starved client read all
                # 3,000 acks from its own queue before it got to send the signal).
                try:
                    for sent, frame in enumerate(frames):
                        while sent - len(acked) >= WINDOW:
                            await asyncio.sleep(0.001)
                        await ws.send(frame)
                except ConnectionClosed:
                    pass

            write_task = asyncio.create_task(writer())
            try:
                while True:
                    frame = json.loads(await asyncio.wait_for(ws.recv(), 10))
                    if frame["type"] == "presence":
                        continue  # bob's offline, once his grace period is over: not part of this test
                    assert frame["type"] == "message_accepted", frame
                    acked.append(frame["payload"]["messageId"])
                    if len(acked) == BURST // 5:
                        os.kill(server.proc.pid, signal.SIGKILL)
            except ConnectionClosed:
                pass
            # The writer may be waiting for acks that will never come (a full window when
            # the server died): stop it rather than wait for it.
            write_task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await write_task
        return bob_id

    try:
        bob_id = run(burst(), timeout=120)
        assert server.wait_exit() == -signal.SIGKILL
        assert BURST // 5 <= len(acked) < BURST, "the kill did not land mid-burst"
        server.start()

        async def fetch():
            async with open_ws(server.ws_url) as ws:
                _, token = await login(ws, bob, bob_id)
                return await fetch_all(ws, token)

        fetched = [m["messageId"] for m in run(fetch(), timeout=60)]
        assert len(fetched) == len(set(fetched)), "a message was queued twice"
        missing = set(acked) - set(fetched)
        assert not missing, f"{len(missing)} of {len(acked)} acknowledged messages lost"
        # Order is preserved too: the acknowledged ones come back in the order they were acked.
        positions = {mid: i for i, mid in enumerate(fetched)}
        assert [positions[m] for m in acked] == sorted(positions[m] for m in acked)
    finally:
        server.kill()
