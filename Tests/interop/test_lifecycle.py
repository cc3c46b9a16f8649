"""Process lifecycle: SIGTERM drains and exits 0 (docs/operations.md "Shutdown"); logs are JSON lines (docs/operations.md "Logs")."""

from __future__ import annotations

import asyncio
import json
import signal

from conftest import start_private_server
from databases import private_database
from helpers import open_ws, request, run
from identity import Identity, login


def test_sigterm_closes_clients_1001_and_exits_0(fresh_server):
    async def main():
        async with open_ws(fresh_server.ws_url) as ws:
            frame = {"type": "ping", "requestId": "before-term", "payload": {}}
            await request(ws, frame, match_type="pong", request_id="before-term")
            fresh_server.proc.send_signal(signal.SIGTERM)
            try:
                await asyncio.wait_for(ws.wait_closed(), 20)
            except asyncio.TimeoutError:
                raise AssertionError("the server did not close the WebSocket within 20s of SIGTERM")
            return ws.close_code

    close_code = run(main(), timeout=40)
    exit_code = fresh_server.wait_exit()  # signalled once already: only wait
    assert exit_code == 0, f"exit code {exit_code} after SIGTERM\n" + fresh_server.log_tail()
    assert close_code == 1001, f"clients got close {close_code}, expected 1001 (going away)"


def test_logs_are_json_lines_with_listening_events(fresh_server):
    exit_code = fresh_server.terminate()
    assert exit_code == 0, f"exit code {exit_code} after SIGTERM\n" + fresh_server.log_tail()
    listening = {}
    for n, line in enumerate(fresh_server.log_path.read_text(errors="replace").splitlines(), 1):
        if not line.strip():
            continue
        try:
            record = json.loads(line)
        except ValueError:
            raise AssertionError(f"log line {n} is not JSON: {line[:300]}")
        assert isinstance(record, dict), f"log line {n} is not a JSON object: {line[:300]}"
        if record.get("event") == "listening":
            listening[record.get("listener")] = record.get("port")
    assert listening.get("public") == fresh_server.public_port, listening
    assert listening.get("admin") == fresh_server.admin_port, listening


def test_migrate_on_start_migrates_before_listening_on_an_empty_database(server_config):
    """WHISPER_MIGRATE_ON_START: the first client, served as soon as /health answers, finds the schema (it got
    INTERNAL_ERROR "relation does not exist" when the server listened before migrating)."""
    with private_database(server_config["database_url"], "whisper_lifecycle") as database_url:
        server = start_private_server(server_config, "migrate-first", database_url)
        try:
            async def register():
                async with open_ws(server.ws_url) as ws:
                    return await login(ws, Identity())

            whisper_id, _ = run(register())
            assert whisper_id.startswith("WSP-")
        finally:
            assert server.terminate() == 0, server.log_tail()
    events = [json.loads(line).get("event") for line in server.log_path.read_text().splitlines() if line.strip()]
    assert "migrated" in events and "listening" in events, events
    assert events.index("migrated") < events.index("listening"), events
