"""Messaging helpers for the interop tests: signed `send_message` frames (docs/protocol.md "Canonical signing": Ed25519
over SHA-256 of the canonical bytes), fetch_pending paging."""

from __future__ import annotations

import hashlib
import os
import time
import uuid

from identity import SECRETS_SEEN, SigningKey, b64, privileged, send


def now_ms() -> int:
    return int(time.time() * 1000)


def send_message(key: SigningKey, token: str, sender: str, to: str, request_id: str | None = None,
                 message_id: str | None = None, ciphertext: bytes | None = None) -> dict:
    message_id = message_id or str(uuid.uuid4())
    timestamp = now_ms()
    nonce = b64(os.urandom(24))
    body = b64(ciphertext if ciphertext is not None else os.urandom(64))
    SECRETS_SEEN.update((nonce, body))
    signed = f"v1\nsend_message\n{message_id}\n{sender}\n{to}\n{timestamp}\n{nonce}\n{body}\n".encode()
    sig = b64(key.sign(hashlib.sha256(signed).digest()))
    return privileged("send_message", token, request_id or message_id, messageId=message_id, **{
        "from": sender, "to": to, "msgType": "text", "timestamp": timestamp, "nonce": nonce,
        "ciphertext": body, "sig": sig})


async def fetch_all(ws, token: str, limit: int = 200) -> list[dict]:
    """Every pending message, following nextCursor."""
    messages: list[dict] = []
    cursor = None
    while True:
        extra = {"limit": limit}
        if cursor is not None:
            extra["cursor"] = cursor
        reply = await send(ws, privileged("fetch_pending", token, "fetch", **extra))
        assert reply["type"] == "pending_messages", reply
        messages += reply["payload"]["messages"]
        cursor = reply["payload"].get("nextCursor")
        if cursor is None:
            return messages
