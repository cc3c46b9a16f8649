"""The ring timeout survives the death of the node that started the call (docs/protocol.md "Calls"): the caller's node
is killed with `kill -9` while the call rings; the other node's sweep ends the call once, for both parties — the callee
live, the caller (whose socket died with its node) at its next login."""

from __future__ import annotations

import asyncio
import hashlib
import json
import os
import signal
import time
import urllib.request
import uuid

from helpers import open_ws, recv, run
from identity import Identity, SigningKey, b64, login, privileged, receive, send
from messaging import now_ms
from test_presence import node, wait_for_nodes

# Shorter than the node TTL (3 s): when the timeout fires, the dead node's key still says it lives, and only its
# silent channel (a publish that reaches nobody) tells the sweep to keep the caller's call_end.
RING_TIMEOUT = 2


def call_initiate(key: SigningKey, token: str, sender: str, to: str, call_id: str) -> dict:
    timestamp, nonce, body = now_ms(), b64(os.urandom(24)), b64(os.urandom(48))
    signed = f"v1\ncall_initiate\n{call_id}\n{sender}\n{to}\n{timestamp}\n{nonce}\n{body}\n".encode()
    return privileged("call_initiate", token, "call", callId=call_id, isVideo=False, timestamp=timestamp, nonce=nonce,
                      ciphertext=body, sig=b64(key.sign(hashlib.sha256(signed).digest())), **{"from": sender, "to": to})


def timeouts_counted(server) -> float:
    with urllib.request.urlopen(server.http_url("/metrics", admin=True), timeout=5) as resp:
        for line in resp.read().decode().splitlines():
            if line.startswith('whisper_call_setup_total{result="timeout"}'):
                return float(line.split()[-1])
    return 0.0


def test_kill_9_of_the_callers_node_still_times_the_call_out_once_for_both(server_config):
    prefix = f"calls-{os.getpid()}:"
    doomed, survivor = node(server_config, "calls-doomed", prefix), node(server_config, "calls-survivor", prefix)
    for server in (doomed, survivor):
        server.env["WHISPER_CALL_RING_TIMEOUT_SECONDS"] = str(RING_TIMEOUT)
        server.start()
    wait_for_nodes(server_config["redis_url"], prefix, 2)
    alice, bob = Identity(), Identity()
    call_id = str(uuid.uuid4())

    async def scenario():
        async with open_ws(doomed.ws_url) as ws_alice, open_ws(survivor.ws_url) as ws_bob:
            alice_id, alice_token = await login(ws_alice, alice)
            bob_id, bob_token = await login(ws_bob, bob)
            await ws_alice.send(json.dumps(call_initiate(alice.key, alice_token, alice_id, bob_id, call_id)))
            offer = await receive(ws_bob)
            assert offer["type"] == "call_initiate" and offer["payload"]["callId"] == call_id, offer
            # Ringing follows the callee's confirmation (contract §15), across nodes.
            await ws_bob.send(json.dumps(privileged("call_received", bob_token, "confirm", callId=call_id)))
            confirmed = await receive(ws_bob)
            assert confirmed["type"] == "call_confirmed" and confirmed["payload"] == {"callId": call_id}, confirmed
            assert (await receive(ws_alice))["type"] == "call_ringing"
            os.kill(doomed.proc.pid, signal.SIGKILL)
            rang = time.monotonic()
            end = await asyncio.wait_for(receive(ws_bob), RING_TIMEOUT + 10)
            assert end["type"] == "call_end", end
            assert end["payload"] == {"callId": call_id, "reason": "timeout"}, end
            assert time.monotonic() - rang < RING_TIMEOUT + 5
            try:
                extra = await recv(ws_bob, 2)
            except (asyncio.TimeoutError, TimeoutError):
                extra = None
            assert extra is None, f"a second frame after the timeout: {extra}"
        # The caller's socket died with its node: its call_end waited for its next login.
        async with open_ws(survivor.ws_url) as ws_alice:
            await login(ws_alice, alice, alice_id)
            kept = await receive(ws_alice)
            assert kept["type"] == "call_end" and kept["payload"] == {"callId": call_id, "reason": "timeout"}, kept
            pong = await send(ws_alice, {"type": "ping", "payload": {}})
            assert pong["type"] == "pong", f"a second call_end for the caller: {pong}"

    try:
        run(scenario(), timeout=90)
        assert doomed.wait_exit() == -signal.SIGKILL
        assert timeouts_counted(survivor) == 1.0
    finally:
        doomed.kill()
        survivor.terminate()
