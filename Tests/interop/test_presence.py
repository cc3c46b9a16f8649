"""Presence when a node dies outright (docs/protocol.md "Presence"): `kill -9` of the node holding a user's socket,
and the user's direct peer on another node hears `offline` once the node's liveness key has expired — no socket was
closed, no offline script ran. (Graceful cases are in PresenceTests.swift.)"""

from __future__ import annotations

import asyncio
import os
import signal
import subprocess
import time

from conftest import Server
from helpers import open_ws, recv, run
from identity import Identity, login, receive, send
from messaging import send_message

NODE_TTL = 3


def node(server_config, name: str, prefix: str) -> Server:
    server = Server(server_config["binary"], name, False, server_config["log_dir"],
                    server_config["database_url"], server_config["redis_url"])
    server.env.update({"WHISPER_REDIS_PREFIX": prefix, "WHISPER_NODE_HEARTBEAT_SECONDS": "1",
                       "WHISPER_NODE_TTL_SECONDS": str(NODE_TTL), "WHISPER_PRESENCE_MIN_INTERVAL_MS": "1000"})
    return server


def wait_for_nodes(redis_url: str, prefix: str, count: int, within: float = 15) -> None:
    """Until `count` nodes listen on the revocation channel (so each also hears its deliveries) and have written
    their node key (until then other nodes take their routes for dead ones)."""
    def redis(*args: str) -> list[str]:
        return subprocess.run(["redis-cli", "-u", redis_url, *args], capture_output=True, text=True,
                              check=True).stdout.split()

    deadline = time.monotonic() + within
    while True:
        subscribed = redis("PUBSUB", "NUMSUB", prefix + "session-revocations")
        if len(subscribed) == 2 and int(subscribed[1]) >= count and len(redis("KEYS", prefix + "node:*")) >= count:
            return
        assert time.monotonic() < deadline, f"{count} nodes of {prefix} did not subscribe within {within} s"
        time.sleep(0.05)


def test_kill_9_of_a_users_node_announces_it_offline_to_peers_on_other_nodes(server_config):
    prefix = f"presence-{os.getpid()}:"
    doomed, survivor = node(server_config, "presence-doomed", prefix), node(server_config, "presence-survivor", prefix)
    doomed.start()
    survivor.start()
    wait_for_nodes(server_config["redis_url"], prefix, 2)
    alice, bob = Identity(), Identity()

    async def scenario():
        async with open_ws(doomed.ws_url) as ws_alice, open_ws(survivor.ws_url) as ws_bob:
            alice_id, alice_token = await login(ws_alice, alice)
            bob_id, _ = await login(ws_bob, bob)
            accepted = await send(ws_alice, send_message(alice.key, alice_token, alice_id, bob_id))
            assert accepted["type"] == "message_accepted", accepted
            assert (await receive(ws_bob))["type"] == "message_received"
            os.kill(doomed.proc.pid, signal.SIGKILL)
            killed = time.monotonic()
            frame = await asyncio.wait_for(receive(ws_bob), 15)
            elapsed = time.monotonic() - killed
            assert frame["type"] == "presence", frame
            assert frame["payload"]["whisperId"] == alice_id
            assert frame["payload"]["status"] == "offline"
            # node TTL + a heartbeat + a sweep + the 1 s minimum interval, with slack for a loaded machine.
            assert elapsed < NODE_TTL + 5, f"offline after {elapsed:.1f} s"
            # Exactly once: nothing else follows.
            try:
                extra = await recv(ws_bob, 2.5)
            except (asyncio.TimeoutError, TimeoutError):
                extra = None
            assert extra is None, extra

    try:
        run(scenario(), timeout=60)
        assert doomed.wait_exit() == -signal.SIGKILL
    finally:
        doomed.kill()
        survivor.terminate()
