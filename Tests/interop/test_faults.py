"""Fault injection under a send load (docs/operations.md "Outages"): the server's Redis link cut, stalled past the
command timeout and slowed through faultproxy.FaultProxy; Redis and PostgreSQL restarted mid-burst.

Each case: a sender keeps WINDOW `send_message`s in flight to an offline recipient while the fault happens; one send
in REJECT_EVERY carries a bad signature. Afterwards the sends that got an error are retried with the same messageId
(an INTERNAL_ERROR is "outcome unknown": the command may still have run), then the recipient fetches. Checked:
- every send got an answer (never silence), an error within ERROR_BOUND_S of the send;
- everything acknowledged (first try or retry) is fetched exactly once, nothing else is, no bad-signature send is;
- /ready went 503 during a Redis or PostgreSQL outage and is 200 afterwards;
- the server's RSS afterwards is within RSS_SLACK_KB of its baseline (taken after a warm-up burst)."""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import pathlib
import re
import shutil
import subprocess
import tempfile
import threading
import time
import urllib.request
import uuid
from dataclasses import dataclass, field

from conftest import REPO, Server, http_status
from faultproxy import FaultProxy
from helpers import open_ws, run
from identity import Identity, b64, login
from messaging import fetch_all, send_message

SERVICES = REPO / "scripts" / "services"
WINDOW = 16
REJECT_EVERY = 40
COMMAND_TIMEOUT_S = 5.0  # RedisConfiguration.commandTimeoutMillis
ERROR_BOUND_S = 7.0  # a send during an outage gets its error within this (command timeout + slack)
RSS_SLACK_KB = 16 * 1024


@dataclass
class Load:
    """The outcome of one burst, by messageId."""
    sent_at: dict[str, float] = field(default_factory=dict)
    acked: list[str] = field(default_factory=list)
    errors: dict[str, tuple[str, float]] = field(default_factory=dict)  # id → (code, seconds to the error)
    bad: set[str] = field(default_factory=set)  # sent with a bad signature
    retried: list[str] = field(default_factory=list)

    def summary(self) -> str:
        latencies = [t for _, t in self.errors.values()]
        codes = sorted({c for c, _ in self.errors.values()})
        return (f"sent {len(self.sent_at)}, accepted {len(self.acked)}, errored {len(self.errors)} {codes}"
                + (f" (error latency max {max(latencies):.2f}s)" if latencies else "")
                + f", bad-signature {len(self.bad)}, retried-and-accepted {len(self.retried)}")


class ReadyPoller:
    """GET /ready every 100 ms on a thread; `statuses` is every answer (None: no answer)."""

    def __init__(self, server: Server):
        self.server = server
        self.statuses: list[int | None] = []
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._poll, daemon=True)

    def __enter__(self) -> "ReadyPoller":
        self._thread.start()
        return self

    def __exit__(self, *exc) -> None:
        self._stop.set()
        self._thread.join(5)

    def _poll(self) -> None:
        while not self._stop.is_set():
            self.statuses.append(http_status(self.server.http_url("/ready"), timeout=COMMAND_TIMEOUT_S + 1))
            self._stop.wait(0.1)


def rss_kb(server: Server) -> int:
    assert server.proc is not None
    for line in pathlib.Path(f"/proc/{server.proc.pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1])
    raise AssertionError("no VmRSS")


def wait_ready(server: Server, timeout: float = 30) -> None:
    deadline = time.monotonic() + timeout
    while http_status(server.http_url("/ready"), timeout=2) != 200:
        assert time.monotonic() < deadline, f"/ready not 200 within {timeout}s\n" + server.log_tail()
        time.sleep(0.1)


def start_server(server_config, name: str, redis_url: str | None = None, database_url: str | None = None) -> Server:
    server = Server(server_config["binary"], name, False, server_config["log_dir"],
                    database_url or server_config["database_url"], redis_url or server_config["redis_url"])
    server.env.update({"WHISPER_REDIS_PREFIX": f"{name}-{os.getpid()}:", "WHISPER_RATE_SEND": "100000/10",
                       "WHISPER_RATE_SEND_IP": "100000/10", "WHISPER_RATE_REGISTER": "100000/10",
                       "WHISPER_RATE_REGISTER_IP": "100000/10", "WHISPER_RATE_FETCH": "100000/10",
                       "WHISPER_RATE_FETCH_IP": "100000/10"})
    server.start()
    wait_ready(server)  # migrations run after /health answers (a fresh PostgreSQL has none yet)
    return server


def services(*args: str) -> str:
    done = subprocess.run([str(SERVICES), *args], capture_output=True, text=True, timeout=90, stdin=subprocess.DEVNULL)
    assert done.returncode == 0, f"scripts/services {' '.join(args)}: {done.stderr[-2000:]}"
    return done.stdout.strip()


class Pair:
    """A sender and an offline recipient, registered once; `burst` loads the server, `check` verifies delivery."""

    def __init__(self, server: Server):
        self.server = server
        self.alice, self.bob = Identity(), Identity()
        self.alice_id = self.bob_id = ""
        self.delivered: set[str] = set()  # fetched by earlier checks (fetch_pending does not remove)
        self.last_delivered = 0

    async def register(self) -> None:
        async with open_ws(self.server.ws_url) as ws:
            self.bob_id, _ = await login(ws, self.bob)
        async with open_ws(self.server.ws_url) as ws:
            self.alice_id, _ = await login(ws, self.alice)

    async def burst(self, count: int, fault=None, fault_at: int = 0, pace: float = 0.0) -> Load:
        """`count` sends, WINDOW in flight; `fault(load)` (a coroutine function) starts after `fault_at` acks and the
        burst ends once every send is answered and the fault is over. `pace`: seconds at least between sends."""
        load = Load()
        fault_task: asyncio.Task | None = None
        async with open_ws(self.server.ws_url, max_queue=None) as ws:
            _, token = await login(ws, self.alice, self.alice_id)
            frames = []
            for i in range(count):
                frame = send_message(self.alice.key, token, self.alice_id, self.bob_id)
                if i % REJECT_EVERY == REJECT_EVERY - 1:
                    frame["payload"]["sig"] = b64(os.urandom(64))  # well-formed, wrong
                frames.append(frame)

            async def writer():
                for i, frame in enumerate(frames):
                    while i - len(load.acked) - len(load.errors) >= WINDOW:
                        await asyncio.sleep(0.001)
                    mid = frame["payload"]["messageId"]
                    load.sent_at[mid] = time.monotonic()
                    if i % REJECT_EVERY == REJECT_EVERY - 1:
                        load.bad.add(mid)
                    await ws.send(json.dumps(frame))
                    if pace:
                        await asyncio.sleep(pace)

            write_task = asyncio.create_task(writer())
            while len(load.acked) + len(load.errors) < count:
                # Never silence: each answer comes within the error bound of the oldest send in flight.
                frame = json.loads(await asyncio.wait_for(ws.recv(), ERROR_BOUND_S + 3))
                if frame["type"] == "presence":
                    continue
                mid = frame.get("requestId")
                if frame["type"] == "message_accepted":
                    load.acked.append(frame["payload"]["messageId"])
                else:
                    assert frame["type"] == "error", frame
                    load.errors[mid] = (frame["payload"]["code"], time.monotonic() - load.sent_at[mid])
                if fault is not None and fault_task is None and len(load.acked) >= fault_at:
                    fault_task = asyncio.create_task(fault(load))
            await write_task
            if fault_task is not None:
                await fault_task
        assert fault is None or fault_task is not None, "the fault never started"
        return load

    async def retry_errors(self, load: Load) -> None:
        """Sends every errored (well-signed) messageId again, the same id, as a client's outbox would."""
        retry = [mid for mid in load.errors if mid not in load.bad]
        if not retry:
            return
        async with open_ws(self.server.ws_url) as ws:
            _, token = await login(ws, self.alice, self.alice_id)
            for mid in retry:
                await ws.send(json.dumps(send_message(self.alice.key, token, self.alice_id, self.bob_id, message_id=mid)))
            while len(load.retried) < len(retry):
                frame = json.loads(await asyncio.wait_for(ws.recv(), 10))
                if frame["type"] == "presence":
                    continue
                assert frame["type"] == "message_accepted", f"a retry after recovery failed: {frame}"
                load.retried.append(frame["payload"]["messageId"])

    async def check(self, load: Load) -> None:
        await self.retry_errors(load)
        async with open_ws(self.server.ws_url) as ws:
            _, token = await login(ws, self.bob, self.bob_id)
            fetched = [m["messageId"] for m in await fetch_all(ws, token)]
        assert len(fetched) == len(set(fetched)), "a message was queued twice"
        new = set(fetched) - self.delivered
        self.delivered |= new
        self.last_delivered = len(new)
        accepted = set(load.acked) | set(load.retried)
        assert not accepted - new, f"{len(accepted - new)} acknowledged messages lost ({load.summary()})"
        assert not new & load.bad, "a message with a bad signature was delivered"
        assert not new - accepted, f"{len(new - accepted)} messages delivered that were never acknowledged"
        assert not set(load.acked) & load.bad


def metric(server: Server, name: str) -> float:
    """One unlabelled sample of the admin /metrics."""
    with urllib.request.urlopen(server.http_url("/metrics", admin=True), timeout=5) as resp:
        text = resp.read().decode()
    found = re.search(rf"^{name} (\S+)$", text, re.M)
    assert found, f"{name} not in /metrics"
    return float(found.group(1))


def faulted(server_config, name: str, count: int, fault, fault_at: int, redis_url: str | None = None,
            database_url: str | None = None, expect_not_ready: bool = True, prepare=None, pace: float = 0.0,
            reconnects: str | None = None):
    """Runs one case on a server of its own; answers the load. `reconnects`: a counter (e.g.
    `whisper_redis_reconnects_total`) that must be 0 before the fault and have moved after it."""
    server = start_server(server_config, name, redis_url, database_url)
    try:
        pair = Pair(server)
        run(pair.register())
        run(pair.check(run(pair.burst(100))))  # warm-up: buffers, scripts cached, connections open
        baseline = rss_kb(server)
        if reconnects is not None:
            assert metric(server, reconnects) == 0, f"{reconnects} before the fault"
        if prepare is not None:
            prepare(server)
        with ReadyPoller(server) as ready:
            load = run(pair.burst(count, fault, fault_at, pace), timeout=90)
            wait_ready(server)
        run(pair.check(load), timeout=60)
        after = rss_kb(server)
        print(f"\n{name}: {load.summary()}; delivered {pair.last_delivered}; "
              f"/ready seen {sorted(set(ready.statuses), key=str)}; RSS {baseline} kB → {after} kB")
        if expect_not_ready:
            assert 503 in ready.statuses, f"/ready never reported the outage: {sorted(set(ready.statuses), key=str)}"
        assert ready.statuses[-1] == 200 or http_status(server.http_url("/ready")) == 200
        assert after <= baseline + RSS_SLACK_KB, f"RSS {baseline} kB before, {after} kB after"
        if reconnects is not None:
            assert metric(server, reconnects) >= 1, f"{reconnects} did not count the fault's reconnects"
        assert all(t <= ERROR_BOUND_S for _, t in load.errors.values()), load.summary()
        return load
    finally:
        server.kill()


def redis_port(url: str) -> int:
    return int(url.rsplit(":", 1)[1].split("/")[0])


def test_redis_link_cut_mid_burst_loses_nothing(server_config):
    proxy = FaultProxy("127.0.0.1", redis_port(server_config["redis_url"])).start()
    cuts: list[int] = []

    async def fault(load: Load):
        for _ in range(3):
            cuts.append(await asyncio.to_thread(proxy.cut))
            await asyncio.sleep(0.3)

    try:
        # Paced, so that the three cuts (0.6 s) land mid-burst however fast the server is.
        load = faulted(server_config, "fault-cut", 400, fault, 100, f"redis://127.0.0.1:{proxy.port}/0",
                       expect_not_ready=False, pace=0.003)
    finally:
        proxy.close()
    assert all(n >= 2 for n in cuts), f"sockets reset per cut: {cuts}"
    # The accept script is retried once on the next link (docs/operations.md "Outages"): no error reaches the client.
    assert not load.errors.keys() - load.bad, load.summary()


def test_redis_stalled_past_the_command_timeout_errors_then_recovers(server_config):
    proxy = FaultProxy("127.0.0.1", redis_port(server_config["redis_url"])).start()

    async def fault(load: Load):
        await asyncio.to_thread(proxy.stall)
        await asyncio.sleep(COMMAND_TIMEOUT_S + 2)
        await asyncio.to_thread(proxy.resume)

    try:
        load = faulted(server_config, "fault-stall", 300, fault, 50, f"redis://127.0.0.1:{proxy.port}/0")
    finally:
        proxy.close()
    stalled = [mid for mid in load.errors if mid not in load.bad]
    assert stalled, "no send failed during the stall"
    assert {load.errors[mid][0] for mid in stalled} == {"INTERNAL_ERROR"}, load.summary()
    assert len(load.acked) > 100, "sends did not succeed after the resume"


def test_redis_slowed_accepts_everything(server_config):
    proxy = FaultProxy("127.0.0.1", redis_port(server_config["redis_url"])).start()

    async def fault(load: Load):
        await asyncio.to_thread(proxy.slow, 0.05)

    try:
        load = faulted(server_config, "fault-slow", 200, fault, 0, f"redis://127.0.0.1:{proxy.port}/0",
                       expect_not_ready=False)
    finally:
        proxy.close()
    assert not load.errors.keys() - load.bad, load.summary()


def test_redis_restarted_mid_burst_errors_then_recovers(server_config, tmp_path):
    port = services("free-port")
    url = services("redis", "start", str(tmp_path / "redis"), port)

    async def fault(load: Load):
        await asyncio.to_thread(services, "redis", "stop", str(tmp_path / "redis"))
        await asyncio.sleep(1.5)
        await asyncio.to_thread(services, "redis", "start", str(tmp_path / "redis"), port)

    try:
        load = faulted(server_config, "fault-redis-restart", 400, fault, 100, url, pace=0.005,
                       reconnects="whisper_redis_reconnects_total")
    finally:
        with contextlib.suppress(AssertionError):
            services("redis", "stop", str(tmp_path / "redis"))
    outage = {c for mid, (c, _) in load.errors.items() if mid not in load.bad}
    assert outage == {"INTERNAL_ERROR"}, f"sends during the outage: {load.summary()}"


def test_postgres_restarted_mid_burst_logins_error_then_succeed_sends_unaffected(server_config):
    # The postgres OS user must reach the data folder: pytest's tmp_path is private to root.
    base = tempfile.mkdtemp(prefix="whisper-faults-pg-", dir="/tmp")
    os.chmod(base, 0o755)
    pg_dir = os.path.join(base, "pg")
    port = services("free-port")
    url = services("pg", "start", pg_dir, port)
    logins: dict[str, list] = {"ok": [], "error": []}
    codes: set[str] = set()

    async def login_once(server: Server) -> None:
        ident = Identity()
        begun = time.monotonic()
        try:
            async with open_ws(server.ws_url) as ws:
                await login(ws, ident)
            logins["ok"].append(time.monotonic() - begun)
        except AssertionError as e:
            logins["error"].append(time.monotonic() - begun)
            codes.update(re.findall(r"'code': '([A-Z_]+)'", str(e)))

    box: dict[str, Server] = {}
    sends_during_outage: list[int] = []

    async def fault(load: Load):
        server = box["server"]
        await asyncio.to_thread(services, "pg", "stop", pg_dir)
        acked_at_stop = len(load.acked)
        for _ in range(5):
            await login_once(server)
            await asyncio.sleep(0.2)
        assert logins["error"], "logins succeeded while PostgreSQL was down"
        sends_during_outage.append(len(load.acked) - acked_at_stop)
        await asyncio.to_thread(services, "pg", "start", pg_dir, port)
        deadline = time.monotonic() + 20
        while len(logins["ok"]) == 0 and time.monotonic() < deadline:
            await login_once(server)
            await asyncio.sleep(0.2)

    try:
        load = faulted(server_config, "fault-pg-restart", 600, fault, 20, database_url=url, pace=0.005,
                       prepare=lambda s: box.update(server=s), reconnects="whisper_postgres_reconnects_total")
    finally:
        with contextlib.suppress(AssertionError):
            services("pg", "stop", pg_dir)
        shutil.rmtree(base, ignore_errors=True)
    print(f"logins during the restart: {len(logins['error'])} errors "
          f"(max {max(logins['error'], default=0):.2f}s; {codes}), {sends_during_outage[0]} sends accepted meanwhile, then {len(logins['ok'])} ok")
    assert sends_during_outage[0] >= 20, f"only {sends_during_outage[0]} sends overlapped the outage"
    assert logins["ok"], "no login succeeded after PostgreSQL came back"
    assert max(logins["error"]) <= ERROR_BOUND_S
    # Messaging lives in Redis: a PostgreSQL outage costs sends nothing.
    assert not load.errors.keys() - load.bad, load.summary()


def pg_port(url: str) -> int:
    return int(url.split("@", 1)[1].split("/")[0].rsplit(":", 1)[1])


def proxied_pg_url(url: str, port: int) -> str:
    head, tail = url.split("@", 1)
    host_port, rest = tail.split("/", 1)
    return f"{head}@127.0.0.1:{port}/{rest}"


def pg_link_case(server_config, name: str, action, duration: float, expect_not_ready: bool = False):
    """PostgreSQL through the fault proxy: `action(proxy)` during a paced send burst while logins (each one
    PostgreSQL statement) run every 0.2 s; the proxy heals after `duration` s. Answers (load, logins, codes)."""
    proxy = FaultProxy("127.0.0.1", pg_port(server_config["database_url"])).start()
    logins: dict[str, list[float]] = {"ok": [], "error": [], "ok_during": []}
    codes: set[str] = set()
    box: dict[str, Server] = {}

    async def login_once(server: Server, during: bool) -> None:
        begun = time.monotonic()
        try:
            async with open_ws(server.ws_url) as ws:
                await asyncio.wait_for(login(ws, Identity()), ERROR_BOUND_S + duration + 5)
            logins["ok_during" if during else "ok"].append(time.monotonic() - begun)
        except AssertionError as e:
            logins["error"].append(time.monotonic() - begun)
            codes.update(re.findall(r"'code': '([A-Z_]+)'", str(e)))

    async def fault(load: Load):
        server = box["server"]
        await asyncio.to_thread(action, proxy)
        end = time.monotonic() + duration
        tries = [asyncio.create_task(login_once(server, True))]
        while time.monotonic() < end:
            await asyncio.sleep(0.5)
            tries.append(asyncio.create_task(login_once(server, True)))
        await asyncio.to_thread(proxy.resume)
        await asyncio.gather(*tries)
        deadline = time.monotonic() + 20
        while not logins["ok"] and time.monotonic() < deadline:
            await login_once(server, False)
            await asyncio.sleep(0.2)

    try:
        load = faulted(server_config, name, 500, fault, 20, database_url=proxied_pg_url(server_config["database_url"],
                                                                                          proxy.port),
                       expect_not_ready=expect_not_ready, pace=0.006, prepare=lambda s: box.update(server=s))
    finally:
        proxy.close()
    print(f"{name}: logins during the fault: {len(logins['error'])} errors {sorted(codes)} "
          f"(max {max(logins['error'], default=0):.2f}s), {len(logins['ok_during'])} ok "
          f"(max {max(logins['ok_during'], default=0):.2f}s); after: {len(logins['ok'])} ok")
    assert logins["ok"], "no login succeeded after the PostgreSQL link healed"
    # Messaging lives in Redis: PostgreSQL faults cost sends nothing.
    assert not load.errors.keys() - load.bad, load.summary()
    return load, logins, codes


def test_postgres_link_cut_mid_burst_logins_recover_sends_unaffected(server_config):
    cuts: list[int] = []

    def cut_repeatedly(proxy: FaultProxy) -> None:
        for _ in range(3):
            cuts.append(proxy.cut())
            time.sleep(0.3)

    _, logins, _ = pg_link_case(server_config, "fault-pg-cut", cut_repeatedly, 1.0)
    assert sum(cuts) >= 1, f"no PostgreSQL connection was open to cut: {cuts}"
    assert all(t <= ERROR_BOUND_S for t in logins["error"]), logins


def test_postgres_link_stalled_logins_answer_within_the_stall_and_bound(server_config):
    stall_s = 6.0
    _, logins, _ = pg_link_case(server_config, "fault-pg-stall", lambda proxy: proxy.stall(), stall_s,
                                expect_not_ready=True)
    answered = logins["error"] + logins["ok_during"]
    assert answered, "no login was tried during the stall"
    # A statement on a stalled link cannot be answered before the link heals or libpq gives up:
    # every login still gets an answer (an error or success), never later than the stall plus the bound.
    assert max(answered) <= stall_s + ERROR_BOUND_S, logins


def test_postgres_link_slowed_logins_succeed(server_config):
    _, logins, _ = pg_link_case(server_config, "fault-pg-slow", lambda proxy: proxy.slow(0.05), 2.0)
    assert not logins["error"], logins
    assert logins["ok_during"], logins
