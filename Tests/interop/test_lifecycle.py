"""Process lifecycle: SIGTERM drains and exits 0 (docs/operations.md "Shutdown"); logs are JSON lines (docs/operations.md "Logs")."""

from __future__ import annotations

import asyncio
import json
import signal

from helpers import open_ws, request, run


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
