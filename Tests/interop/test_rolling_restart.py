"""Several nodes in production (docs/operations.md "Rolling restarts", "Health, readiness, metrics"): three
nodes on loopback share PostgreSQL and Redis while client pairs send continuously; every node is drained
(SIGTERM) and started again in turn, or one is killed -9. Clients reconnect to another node on a close
(honouring the 1001 reason's `retryAfterMs`), log in again, fetch_pending and dedupe by messageId. Nothing
acknowledged is lost, nothing rejected is delivered. And a node whose subscriber connection is killed goes 503
on /ready and comes back."""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import random
import signal
import subprocess
import time
import uuid
from collections import Counter
from typing import Iterator

from websockets.exceptions import ConnectionClosed

from conftest import Server, http_status
from helpers import open_ws, run
from identity import Identity, login, privileged
from messaging import now_ms, send_message
from test_presence import wait_for_nodes

PAIRS = 20
SEND_PAUSE = 0.15  # seconds between one client's sends
GRACE, WINDOW = 1, 2  # WHISPER_DRAIN_GRACE_SECONDS, WHISPER_DRAIN_WINDOW_SECONDS


@contextlib.contextmanager
def running_cluster(server_config, name: str, count: int = 3) -> Iterator[list[Server]]:
    """`count` started nodes sharing one Redis key space, each subscribed, heartbeating and ready; killed after."""
    prefix = f"{name}-{os.getpid()}:"
    nodes = []
    for index in range(count):
        server = Server(server_config["binary"], f"{name}-{index}", False, server_config["log_dir"],
                        server_config["database_url"], server_config["redis_url"])
        server.env.update({
            "WHISPER_REDIS_PREFIX": prefix, "WHISPER_NODE_HEARTBEAT_SECONDS": "1", "WHISPER_NODE_TTL_SECONDS": "3",
            "WHISPER_DRAIN_GRACE_SECONDS": str(GRACE), "WHISPER_DRAIN_WINDOW_SECONDS": str(WINDOW),
            "WHISPER_DRAIN_TIMEOUT_SECONDS": "5", "WHISPER_THREADS": "1",
            # One client IP for everything: only the per-IP limits would get in the way.
            "WHISPER_RATE_SEND_IP": "1000000/10", "WHISPER_RATE_REGISTER_IP": "100000/300",
            "WHISPER_RATE_REGISTER": "1000/300", "WHISPER_RATE_FETCH_IP": "100000/60", "WHISPER_RATE_FETCH": "1000/60",
        })
        nodes.append(server)
    try:
        for n in nodes:
            n.start()
        wait_for_nodes(server_config["redis_url"], prefix, count)
        for n in nodes:
            wait_ready(n)
        yield nodes
    finally:
        for n in nodes:
            n.kill()


def wait_ready(server: Server, within: float = 20) -> float:
    """Seconds until the admin /ready answers 200."""
    start = time.monotonic()
    while http_status(server.http_url("/ready", admin=True), timeout=1.0) != 200:
        assert time.monotonic() - start < within, f"{server.name}: /ready not 200 within {within} s\n" + server.log_tail()
        time.sleep(0.05)
    return time.monotonic() - start


class Client:
    """One phone: sends to its partner (one message outstanding at a time, retried with the same messageId after a
    reconnect), receipts what it gets, reconnects to another node whenever its socket closes."""

    def __init__(self, name: str):
        self.name = name
        self.ident = Identity()
        self.whisper_id: str | None = None
        self.partner: Client | None = None
        self.accepted: set[str] = set()
        self.rejected: dict[str, str] = {}
        self.received: Counter[str] = Counter()
        self.closes: Counter[int | None] = Counter()
        self.reconnects = 0
        self.sent = 0
        # The message sent and not yet answered: after a reconnect it is sent again, same messageId.
        self.outstanding: str | None = None

    async def register(self, url: str) -> None:
        async with open_ws(url) as ws:
            self.whisper_id, _ = await login(ws, self.ident)

    async def run(self, urls: dict[int, str], stop: asyncio.Event) -> None:
        node = None
        while True:  # after `stop` too: the last session's final fetch_pending must happen
            choices = [i for i in urls if i != node] or list(urls)
            node = random.choice(choices)
            try:
                async with open_ws(urls[node]) as ws:
                    _, token = await login(ws, self.ident, self.whisper_id)
                    await self.session(ws, token, stop)
                    await ws.close()
                    return
            except ConnectionClosed as closed:
                self.closes[closed.rcvd.code if closed.rcvd else None] += 1
                await asyncio.sleep(self.retry_after(closed))
            except OSError:
                # The node went away between the choice and the login: pick another.
                await asyncio.sleep(0.1)
            self.reconnects += 1

    @staticmethod
    def retry_after(closed: ConnectionClosed) -> float:
        if closed.rcvd is None or closed.rcvd.code != 1001:
            return 0.05
        hint = json.loads(closed.rcvd.reason)
        assert hint["reason"] == "server_restarting"
        return hint["retryAfterMs"] / 1000

    async def session(self, ws, token: str, stop: asyncio.Event) -> None:
        replies: dict[str, asyncio.Future] = {}

        async def request(frame: dict) -> dict:
            future = asyncio.get_running_loop().create_future()
            replies[frame["requestId"]] = future
            await ws.send(json.dumps(frame))
            await asyncio.wait({future, reader}, timeout=10, return_when=asyncio.FIRST_COMPLETED)
            if not future.done():
                assert reader.done(), f"{self.name}: no reply to {frame['type']} within 10 s"
                await ws.recv()  # raises the ConnectionClosed (with the close frame, if any)
            return future.result()

        async def receipt(message: dict) -> None:
            frame = privileged("delivery_receipt", token, f"d-{uuid.uuid4()}", messageId=message["messageId"],
                               **{"from": self.whisper_id, "to": message["from"]}, status="delivered",
                               timestamp=now_ms())
            try:
                await ws.send(json.dumps(frame))
            except ConnectionClosed:
                pass  # not receipted: it comes again from fetch_pending (a raw duplicate)

        def got(message: dict) -> None:
            self.received[message["messageId"]] += 1
            asyncio.ensure_future(receipt(message))

        async def read() -> None:
            async for raw in ws:  # ends at the close (1000/1001), raises at a drop
                frame = json.loads(raw)
                if frame["type"] == "message_received":
                    got(frame["payload"])
                elif (future := replies.pop(frame.get("requestId") or "", None)) is not None and not future.done():
                    future.set_result(frame)

        reader = asyncio.ensure_future(read())
        try:
            cursor = None
            while True:
                extra = {"limit": 200} if cursor is None else {"limit": 200, "cursor": cursor}
                page = await request(privileged("fetch_pending", token, f"f-{uuid.uuid4()}", **extra))
                assert page["type"] == "pending_messages", page
                for message in page["payload"]["messages"]:
                    got(message)
                if (cursor := page["payload"].get("nextCursor")) is None:
                    break
            while not stop.is_set():
                message_id = self.outstanding or str(uuid.uuid4())
                self.outstanding = message_id
                self.sent += 1
                reply = await request(send_message(self.ident.key, token, self.whisper_id, self.partner.whisper_id,
                                                   request_id=message_id, message_id=message_id))
                if reply["type"] == "message_accepted":
                    self.accepted.add(message_id)
                else:
                    self.rejected[message_id] = reply["payload"].get("code", "?")
                self.outstanding = None
                await asyncio.sleep(SEND_PAUSE)
            await asyncio.sleep(1.5)  # the last live deliveries
            page = await request(privileged("fetch_pending", token, f"f-{uuid.uuid4()}", limit=200))
            for message in page["payload"]["messages"]:
                got(message)
            await asyncio.sleep(0.2)  # the receipts
        finally:
            if not reader.done():
                reader.cancel()


def pairs() -> list[Client]:
    clients = [Client(f"c{i}") for i in range(2 * PAIRS)]
    for a, b in zip(clients[::2], clients[1::2]):
        a.partner, b.partner = b, a
    return clients


async def drive(nodes: list[Server], disrupt) -> list[Client]:
    """Registers the clients, lets them send while `disrupt(urls)` runs (in a thread), stops them, checks."""
    urls = {i: n.ws_url for i, n in enumerate(nodes)}
    clients = pairs()
    await asyncio.gather(*(c.register(urls[i % len(urls)]) for i, c in enumerate(clients)))
    stop = asyncio.Event()
    tasks = [asyncio.ensure_future(c.run(urls, stop)) for c in clients]
    await asyncio.sleep(1.5)
    await asyncio.to_thread(disrupt, urls)
    await asyncio.sleep(1.5)
    stop.set()
    await asyncio.gather(*tasks)
    return clients


def check(clients: list[Client], label: str) -> dict:
    accepted = {m for c in clients for m in c.accepted}
    rejected = {m for c in clients for m in c.rejected}
    for c in clients:
        lost = c.partner.accepted - set(c.received)
        assert not lost, f"{label}: {len(lost)} accepted messages to {c.name} never arrived"
        assert not (set(c.received) & set(c.partner.rejected)), f"{label}: a rejected message was delivered"
        unknown = set(c.received) - {m for m in c.partner.accepted} - {m for m in c.partner.rejected}
        # A message sent but never acknowledged may still arrive (its accept was lost): it is the one retried.
        assert len(unknown) <= 1, f"{label}: {c.name} got {len(unknown)} messages its partner never had accepted"
    stats = {
        "send_attempts": sum(c.sent for c in clients), "accepted": len(accepted), "rejected": len(rejected),
        "delivered_unique": sum(len(c.received) for c in clients),
        "raw_duplicates": sum(n - 1 for c in clients for n in c.received.values()),
        "reconnects": sum(c.reconnects for c in clients),
        "closes": dict(sum((c.closes for c in clients), Counter())),
    }
    print(f"\n{label}: {stats}")
    assert stats["rejected"] == 0, f"{label}: rejections under load: {[c.rejected for c in clients if c.rejected]}"
    assert stats["accepted"] > 0
    return stats


def test_rolling_restart_under_load_loses_nothing_and_every_client_reconnects(server_config):
    with running_cluster(server_config, "rolling") as nodes:
        def restart_each(urls: dict[int, str]) -> None:
            for index, n in enumerate(nodes):
                del urls[index]  # the load balancer takes it out (its /ready is 503 within the grace)
                n.proc.send_signal(signal.SIGTERM)
                deadline = time.monotonic() + GRACE
                while time.monotonic() < deadline:
                    if http_status(n.http_url("/ready", admin=True), timeout=1.0) == 503:
                        break
                    time.sleep(0.05)
                else:
                    raise AssertionError(f"{n.name}: /ready not 503 within the {GRACE} s grace")
                code = n.wait_exit(GRACE + WINDOW + 10)
                assert code == 0, f"{n.name} exited {code} after SIGTERM\n" + n.log_tail()
                n.start()
                wait_ready(n)
                urls[index] = n.ws_url

        clients = run(drive(nodes, restart_each), timeout=80)
        check(clients, "rolling restart")
        # Every node was drained once, so every client's socket was closed (1001) at least once.
        assert all(c.reconnects >= 1 and c.closes[1001] >= 1 for c in clients), \
            [(c.name, c.reconnects, dict(c.closes)) for c in clients]


def test_kill_9_of_one_node_under_load_loses_no_accepted_message(server_config):
    with running_cluster(server_config, "killed") as nodes:
        def kill_one(urls: dict[int, str]) -> None:
            del urls[0]
            nodes[0].proc.send_signal(signal.SIGKILL)
            nodes[0].wait_exit(10)
            time.sleep(2)

        clients = run(drive(nodes, kill_one), timeout=60)
        check(clients, "kill -9")
        # Clients of the killed node saw their socket drop without a close frame and came back elsewhere.
        dropped = [c for c in clients if c.closes[None] + c.closes[1006] >= 1]
        assert dropped, "no client was on the killed node"
        assert all(c.reconnects >= 1 for c in dropped)


def subscriber_ids(redis_url: str, pid: int) -> list[str]:
    """CLIENT LIST ids of `pid`'s Redis connections that hold subscriptions."""
    ports = set()
    out = subprocess.run(["ss", "-tnpH", "state", "established"], capture_output=True, text=True, check=True).stdout
    for line in out.splitlines():
        if f"pid={pid}," in line:
            ports.add(line.split()[2].rsplit(":", 1)[1])
    listing = subprocess.run(["redis-cli", "-u", redis_url, "CLIENT", "LIST"], capture_output=True, text=True,
                             check=True).stdout
    ids = []
    for line in listing.splitlines():
        fields = dict(f.split("=", 1) for f in line.split() if "=" in f)
        if fields.get("addr", "").rsplit(":", 1)[-1] in ports and int(fields.get("sub", "0")) > 0:
            ids.append(fields["id"])
    return ids


def test_ready_goes_503_when_the_subscription_is_lost_and_recovers(server_config):
    with running_cluster(server_config, "wedged", count=1) as (node,):
        redis_url = server_config["redis_url"]
        assert subscriber_ids(redis_url, node.proc.pid), "the node's subscriber was not found"
        start, went_503, last_kill = time.monotonic(), None, 0.0
        # Kill the subscriber's connection again whenever it is back (it reconnects within 50 ms – 2 s), until
        # /ready has been 503 for a while.
        while time.monotonic() - start < 6 and (went_503 is None or time.monotonic() - start < went_503 + 1):
            for client_id in subscriber_ids(redis_url, node.proc.pid):
                subprocess.run(["redis-cli", "-u", redis_url, "CLIENT", "KILL", "ID", client_id],
                               capture_output=True, check=True)
                last_kill = time.monotonic()
            if went_503 is None and http_status(node.http_url("/ready", admin=True), timeout=2.0) == 503:
                went_503 = time.monotonic() - start
            time.sleep(0.02)
        # The subscriber reconnects within 50 ms, so a probe must land in the gap after a kill; on a
        # loaded CI machine each round of redis-cli and ss calls takes hundreds of ms (3.05 s once).
        assert went_503 is not None and went_503 < 5, f"/ready did not go 503 within 5 s ({went_503})"
        wait_ready(node, within=6)
        since_kill = time.monotonic() - last_kill
        print(f"\nlost subscription: /ready 503 after {went_503:.2f} s; 200 again {since_kill:.2f} s after the last kill")
