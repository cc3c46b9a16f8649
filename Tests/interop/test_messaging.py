"""1:1 messaging against the live server: every schema-invalid mutation of a valid client
frame (send_message, fetch_pending, delivery_receipt) gets INVALID_PAYLOAD, and the valid
frame then succeeds — so the schemas in schemas/ and the server's validators agree."""

from __future__ import annotations

from helpers import open_ws, run
from identity import Identity, login, privileged, send
from messaging import send_message
from test_identity import _check_mutations


def test_schema_invalid_messaging_frames_get_invalid_payload_and_valid_ones_succeed(relay_server):
    async def main():
        alice, bob = Identity(), Identity()
        async with open_ws(relay_server.ws_url) as ws:
            bob_id, _ = await login(ws, bob)
        async with open_ws(relay_server.ws_url) as ws:
            alice_id, token = await login(ws, alice)
            total = 0
            message = send_message(alice.key, token, alice_id, bob_id, request_id="m1")
            total += await _check_mutations(ws, message, "send_message")
            accepted = await send(ws, message)
            assert accepted["type"] == "message_accepted", accepted
            assert accepted["requestId"] == "m1"
        async with open_ws(relay_server.ws_url) as ws:
            _, token = await login(ws, bob, bob_id)
            fetch = privileged("fetch_pending", token, "f1", limit=50)
            total += await _check_mutations(ws, fetch, "fetch_pending")
            page = await send(ws, fetch)
            assert page["type"] == "pending_messages", page
            [received] = page["payload"]["messages"]
            receipt = privileged("delivery_receipt", token, "d1", messageId=received["messageId"], to=alice_id,
                                 status="delivered", timestamp=1_700_000_000_000, **{"from": bob_id})
            total += await _check_mutations(ws, receipt, "delivery_receipt")
            done = await send(ws, receipt)
            assert done["type"] == "receipt_accepted", done
            empty = await send(ws, fetch)
            assert empty["payload"]["messages"] == [], empty
        assert total > 60, total

    run(main(), timeout=90)
