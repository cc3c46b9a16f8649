"""Identity helpers for the interop tests: Ed25519 through libsodium (ctypes, the same
library the server uses, no extra package), frame builders, and JSON Schema checks of
every server frame against schemas/."""

from __future__ import annotations

import base64
import ctypes
import ctypes.util
import json
import os
import pathlib
import uuid
from typing import Any

import jsonschema
from websockets.asyncio.client import ClientConnection

from helpers import recv

REPO = pathlib.Path(__file__).resolve().parents[2]
SCHEMAS = REPO / "schemas"
FIXTURES = REPO / "Tests" / "Fixtures"

_sodium = None


def sodium() -> ctypes.CDLL:
    global _sodium
    if _sodium is None:
        lib = ctypes.CDLL(ctypes.util.find_library("sodium") or "libsodium.so.23")
        assert lib.sodium_init() >= 0, "sodium_init failed"
        _sodium = lib
    return _sodium


class SigningKey:
    """Ed25519 key pair from a 32-byte seed (crypto_sign_seed_keypair)."""

    def __init__(self, seed: bytes | None = None):
        self.seed = seed if seed is not None else os.urandom(32)
        assert len(self.seed) == 32
        pk = ctypes.create_string_buffer(32)
        self._sk = ctypes.create_string_buffer(64)
        assert sodium().crypto_sign_seed_keypair(pk, self._sk, self.seed) == 0
        self.public_key = pk.raw

    def sign(self, message: bytes) -> bytes:
        """Ed25519 with no pre-hash (crypto_sign_detached)."""
        sig = ctypes.create_string_buffer(64)
        assert sodium().crypto_sign_detached(sig, None, message, ctypes.c_ulonglong(len(message)), self._sk) == 0
        return sig.raw


def b64(data: bytes) -> str:
    return base64.b64encode(data).decode()


class Identity:
    """A phone: signing key, encryption public key, deviceId, platform."""

    def __init__(self, key: SigningKey | None = None, enc: bytes | None = None, platform: str = "ios"):
        self.key = key or SigningKey()
        self.enc = enc or os.urandom(32)
        self.device_id = str(uuid.uuid4())
        self.platform = platform

    def on_new_device(self, platform: str = "android") -> "Identity":
        return Identity(self.key, self.enc, platform)

    def begin(self, whisper_id: str | None = None, request_id: str = "b") -> dict:
        payload: dict[str, Any] = {"protocolVersion": 1, "cryptoVersion": 1, "deviceId": self.device_id,
                                   "platform": self.platform}
        if whisper_id is not None:
            payload["whisperId"] = whisper_id
        return {"type": "register_begin", "requestId": request_id, "payload": payload}

    def proof(self, challenge: dict, whisper_id: str | None = None, request_id: str = "p", **extra) -> dict:
        p = challenge["payload"]
        payload: dict[str, Any] = {
            "protocolVersion": 1, "cryptoVersion": 1, "challengeId": p["challengeId"], "deviceId": self.device_id,
            "platform": self.platform, "encPublicKey": b64(self.enc), "signPublicKey": b64(self.key.public_key),
            "signature": b64(self.key.sign(base64.b64decode(p["challenge"]))),
        }
        if whisper_id is not None:
            payload["whisperId"] = whisper_id
        payload.update(extra)
        return {"type": "register_proof", "requestId": request_id, "payload": payload}


def privileged(frame_type: str, token: str | None, request_id: str = "q", **extra) -> dict:
    payload: dict[str, Any] = {"protocolVersion": 1, "cryptoVersion": 1}
    if token is not None:
        payload["sessionToken"] = token
    payload.update(extra)
    return {"type": frame_type, "requestId": request_id, "payload": payload}


# --- schemas ---------------------------------------------------------------------------------

_validators: dict[str, jsonschema.Draft202012Validator] | None = None


def validators() -> dict[str, jsonschema.Draft202012Validator]:
    """One validator per frame type, keyed by the schema file name (`<type>.schema.json`)."""
    global _validators
    if _validators is None:
        out = {}
        for path in sorted(SCHEMAS.glob("*.schema.json")):
            schema = json.loads(path.read_text())
            jsonschema.Draft202012Validator.check_schema(schema)
            out[path.name.removesuffix(".schema.json")] = jsonschema.Draft202012Validator(schema)
        _validators = out
    return _validators


def schema_errors(frame: Any, frame_type: str | None = None) -> list[str]:
    """Validation errors of `frame` against the envelope and its type's schema."""
    v = validators()
    errors = [e.message for e in v["envelope"].iter_errors(frame)]
    name = frame_type or (frame.get("type") if isinstance(frame, dict) else None)
    if name not in v:
        return errors + [f"no schema for frame type {name!r}"]
    return errors + [e.message for e in v[name].iter_errors(frame)]


def assert_valid_server_frame(frame: dict) -> dict:
    errors = schema_errors(frame)
    assert not errors, f"server frame violates schemas/{frame.get('type')}.schema.json: {errors}\n{frame}"
    payload = frame.get("payload")
    if isinstance(payload, dict):
        for name in SECRET_FIELDS:
            if isinstance(payload.get(name), str):
                SECRETS_SEEN.add(payload[name])
    return frame


# Secrets the server handed out or the tests sent during this run: test_zz_secrets.py checks that
# no server log line contains one (docs/operations.md "Logs").
SECRET_FIELDS = ("sessionToken", "credential")
SECRETS_SEEN: set[str] = set()


async def send(ws: ClientConnection, frame: dict | str) -> dict:
    """Send a frame and return the next server frame, checked against its schema."""
    await ws.send(frame if isinstance(frame, str) else json.dumps(frame))
    return await receive(ws)


async def receive(ws: ClientConnection) -> dict:
    raw = await recv(ws)
    assert isinstance(raw, str), f"binary frame from server: {raw[:80]!r}"
    return assert_valid_server_frame(json.loads(raw))


async def login(ws: ClientConnection, ident: Identity, whisper_id: str | None = None) -> tuple[str, str]:
    challenge = await send(ws, ident.begin(whisper_id))
    assert challenge["type"] == "register_challenge", challenge
    ack = await send(ws, ident.proof(challenge, whisper_id))
    assert ack["type"] == "register_ack", ack
    return ack["payload"]["whisperId"], ack["payload"]["sessionToken"]


def code(frame: dict) -> str | None:
    return frame["payload"].get("code") if frame.get("type") == "error" else None
