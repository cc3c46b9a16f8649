"""A dropped Redis link costs clients nothing where a retry is safe (docs/operations.md "Outages"): the server's Redis
connections are killed (`CLIENT KILL TYPE normal`) three times during a burst of 500 sends with 16 in flight; the
accept script is idempotent by its (from, messageId) key, so a send whose link dropped runs once more on the next
link. Every send is accepted, none gets an error, and the recipient fetches each exactly once."""

from __future__ import annotations

import asyncio
import json
import os
import socket
import urllib.parse

from conftest import Server
from helpers import open_ws, run
from identity import Identity, login
from messaging import fetch_all, send_message

BURST = 500
WINDOW = 16
KILL_AT = (100, 250, 400)  # acks after which the server's Redis links are killed


def kill_normal_clients(redis_url: str) -> int:
    """CLIENT KILL TYPE normal on a connection of our own (SKIPME: it survives); answers how many were killed."""
    url = urllib.parse.urlparse(redis_url)
    with socket.create_connection((url.hostname or "127.0.0.1", url.port or 6379), timeout=5) as conn:
        parts = [b"CLIENT", b"KILL", b"TYPE", b"normal"]
        conn.sendall(b"*%d\r\n" % len(parts) + b"".join(b"$%d\r\n%s\r\n" % (len(p), p) for p in parts))
        reply = conn.recv(64)
    assert reply.startswith(b":"), reply
    return int(reply[1:].split(b"\r\n")[0])


def test_killing_the_servers_redis_links_mid_burst_loses_nothing_and_errors_nothing(server_config):
    server = Server(server_config["binary"], "redis-link", False, server_config["log_dir"],
                    server_config["database_url"], server_config["redis_url"])
    server.env.update({"WHISPER_REDIS_PREFIX": f"link-{os.getpid()}:", "WHISPER_RATE_SEND": "100000/10",
                       "WHISPER_RATE_SEND_IP": "100000/10"})
    server.start()
    alice, bob = Identity(), Identity()
    acked: list[str] = []
    errors: list[dict] = []
    killed: list[int] = []

    async def burst():
        async with open_ws(server.ws_url) as ws_bob:
            bob_id, _ = await login(ws_bob, bob)
        async with open_ws(server.ws_url, max_queue=None) as ws:
            alice_id, token = await login(ws, alice)
            frames = [json.dumps(send_message(alice.key, token, alice_id, bob_id)) for _ in range(BURST)]

            async def writer():
                for sent, frame in enumerate(frames):
                    while sent - len(acked) - len(errors) >= WINDOW:
                        await asyncio.sleep(0.001)
                    await ws.send(frame)

            write_task = asyncio.create_task(writer())
            while len(acked) + len(errors) < BURST:
                frame = json.loads(await asyncio.wait_for(ws.recv(), 10))
                if frame["type"] == "presence":
                    continue
                if frame["type"] == "message_accepted":
                    acked.append(frame["payload"]["messageId"])
                    if len(acked) in KILL_AT:
                        killed.append(await asyncio.to_thread(kill_normal_clients, server_config["redis_url"]))
                else:
                    errors.append(frame)
            await write_task
        return bob_id

    try:
        bob_id = run(burst(), timeout=120)
        assert len(killed) == len(KILL_AT) and all(n >= 1 for n in killed), f"links killed per round: {killed}"
        assert errors == [], f"{len(errors)} sends got an error: {errors[:3]}"
        assert len(acked) == BURST

        async def fetch():
            async with open_ws(server.ws_url) as ws:
                _, token = await login(ws, bob, bob_id)
                return await fetch_all(ws, token)

        fetched = [m["messageId"] for m in run(fetch(), timeout=60)]
        assert len(fetched) == len(set(fetched)), "a message was queued twice"
        assert set(fetched) == set(acked)
        reconnects = [line for line in server.log_path.read_text(errors="replace").splitlines() if "reconnected" in line]
        assert reconnects, "the server's Redis links never reconnected: the kills did not land\n" + server.log_tail()
    finally:
        server.kill()
