"""Identity and sessions against the release binary, and the JSON Schemas in schemas/:
every server frame seen here (and, under scripts/test, in the Swift suite) validates against
its schema, and schema-invalid variants of valid client frames get INVALID_PAYLOAD."""

from __future__ import annotations

import base64
import copy
import json
import os
import pathlib
import re

import jsonschema
import pytest
from websockets.exceptions import ConnectionClosed

from helpers import open_ws, recv, run
from identity import (FIXTURES, REPO, SCHEMAS, Identity, SigningKey, b64, code, login, privileged, receive, schema_errors,
                      send, validators)

IDENTITY_FRAMES = ["register_begin", "register_challenge", "register_proof", "register_ack", "session_refresh",
                   "session_refreshed", "logout", "logged_out", "session_revoked"]


def test_every_schema_is_valid_draft_2020_12_and_identity_frames_have_one():
    names = set(validators())
    for path in SCHEMAS.glob("*.json"):
        jsonschema.Draft202012Validator.check_schema(json.loads(path.read_text()))
    assert set(IDENTITY_FRAMES) <= names, sorted(set(IDENTITY_FRAMES) - names)


def test_fixture_signature_is_libsodium_ed25519_over_the_raw_challenge():
    fixture = json.loads((FIXTURES / "ed25519-vectors.json").read_text())
    for vector in fixture["rfc8032"]:
        key = SigningKey(bytes.fromhex(vector["seed"]))
        assert key.public_key.hex() == vector["publicKey"]
        assert key.sign(bytes.fromhex(vector["message"])).hex() == vector["signature"], vector["name"]
    reg = fixture["registration"]
    key = SigningKey(bytes.fromhex(reg["seed"]))
    assert key.sign(base64.b64decode(reg["challengeBase64"])).hex() == reg["signature"]
    assert b64(key.public_key) == reg["publicKeyBase64"]


def test_login_recovery_refresh_logout_and_revocation_frames_match_the_schemas(relay_server):
    async def main():
        ident = Identity()
        async with open_ws(relay_server.ws_url) as first:
            whisper_id, token = await login(first, ident)
            # A second login of the same identity elsewhere revokes the first socket.
            async with open_ws(relay_server.ws_url) as second:
                same_id, token2 = await login(second, ident.on_new_device(), whisper_id)
                assert same_id == whisper_id
                revoked = await receive(first)
                assert revoked == {"type": "session_revoked", "payload": {"reason": "new_login"}}
                try:
                    extra = await recv(first)
                    raise AssertionError(f"expected close 4001, got {extra!r}")
                except ConnectionClosed as e:
                    assert e.rcvd is not None and e.rcvd.code == 4001, e
                assert code(await send(second, privileged("logout", token))) == "NOT_REGISTERED"
                refreshed = await send(second, privileged("session_refresh", token2, request_id="rf"))
                assert refreshed["type"] == "session_refreshed" and refreshed["requestId"] == "rf"
                token3 = refreshed["payload"]["sessionToken"]
                assert code(await send(second, privileged("session_refresh", token2))) == "NOT_REGISTERED"
                out = await send(second, privileged("logout", token3, request_id="lo"))
                assert out == {"type": "logged_out", "requestId": "lo", "payload": {}}
                assert code(await send(second, privileged("logout", token3))) == "NOT_REGISTERED"
                pong = await send(second, {"type": "ping", "payload": {}})
                assert pong["type"] == "pong"
                # Reused challenge and unknown id: AUTH_FAILED, schema-valid errors.
                challenge = await send(second, ident.begin())
                proof = ident.proof(challenge)
                assert (await send(second, proof))["type"] == "register_ack"
                assert code(await send(second, proof)) == "AUTH_FAILED"

    run(main())


# --- schema-invalid mutations ------------------------------------------------------------------

def _wrong_type(value):
    if isinstance(value, bool):
        return "true"
    if isinstance(value, int):
        return "1"
    if isinstance(value, str):
        return 12345
    return "x"


# Marker in a base64 pattern → the byte count it pins (nonce 24, key 32, signature 64).
_FIXED_BASE64_BYTES = {"]{32}$": 24, "]{42}": 32, "]{85}": 64}


def _mutations(frame: dict, schema_name: str):
    """(label, mutated frame) pairs that the schema must reject, derived from the schema."""
    payload_schema = validators()[schema_name].schema["properties"]["payload"]
    required = set(payload_schema.get("required", []))
    props = payload_schema.get("properties", {})

    def with_payload(change) -> dict:
        mutated = copy.deepcopy(frame)
        change(mutated["payload"])
        return mutated

    for key in sorted(required):
        yield f"missing {key}", with_payload(lambda p, k=key: p.pop(k))
    for key, value in frame["payload"].items():
        yield f"{key} wrong type", with_payload(lambda p, k=key, v=value: p.__setitem__(k, _wrong_type(v)))
    for key, spec in props.items():
        if spec.get("const") == 1:
            yield f"{key} = 2", with_payload(lambda p, k=key: p.__setitem__(k, 2))
        pattern = spec.get("pattern", "")
        if "A-Za-z0-9+/" in pattern:
            yield f"{key} bad base64", with_payload(lambda p, k=key: p.__setitem__(k, "!" * 44))
            # Fixed-size fields only: a variable-length one (ciphertext) has no "one byte short".
            n = next((size for marker, size in _FIXED_BASE64_BYTES.items() if marker in pattern), None)
            if n is not None:
                yield f"{key} short", with_payload(lambda p, k=key, n=n: p.__setitem__(k, b64(os.urandom(n - 1))))
                yield f"{key} long", with_payload(lambda p, k=key, n=n: p.__setitem__(k, b64(os.urandom(n + 1))))
            if n == 32:
                yield f"{key} pad bits", with_payload(lambda p, k=key: p.__setitem__(k, "A" * 42 + "B="))
        if "[0-9a-fA-F]{8}" in pattern:
            yield f"{key} not a uuid", with_payload(lambda p, k=key: p.__setitem__(k, "not-a-uuid"))
        if "enum" in spec:
            yield f"{key} outside enum", with_payload(lambda p, k=key: p.__setitem__(k, "windows"))
        if key == "whisperId" or pattern.startswith("^WSP-"):
            yield f"{key} lower case", with_payload(lambda p, k=key: p.__setitem__(k, "wsp-aaaa-aaaa-aaaa"))
            yield f"{key} bad format", with_payload(lambda p, k=key: p.__setitem__(k, "WSP-1111-1111-1111"))
        if key in ("pushToken", "voipToken"):
            yield f"{key} empty", with_payload(lambda p, k=key: p.__setitem__(k, ""))
            yield f"{key} space", with_payload(lambda p, k=key: p.__setitem__(k, "a b"))
            yield f"{key} 4097", with_payload(lambda p, k=key: p.__setitem__(k, "a" * 4097))
    yield "extra payload property", with_payload(lambda p: p.__setitem__("unexpected", 1))
    extra = copy.deepcopy(frame)
    extra["sessionId"] = "x"
    yield "extra top-level property", extra
    long_id = copy.deepcopy(frame)
    long_id["requestId"] = "r" * 129
    yield "requestId over 128", long_id


async def _check_mutations(ws, frame: dict, schema_name: str) -> int:
    assert not schema_errors(frame, schema_name), schema_errors(frame, schema_name)
    count = 0
    for label, mutated in _mutations(frame, schema_name):
        assert schema_errors(mutated, schema_name), f"{schema_name}: mutation '{label}' is schema-valid"
        reply = await send(ws, mutated)
        # Contract §3: a privileged frame without a session token is NOT_REGISTERED.
        expected = "NOT_REGISTERED" if label == "missing sessionToken" else "INVALID_PAYLOAD"
        assert code(reply) == expected, f"{schema_name}: '{label}' got {reply}"
        if "requestId" in mutated and len(mutated["requestId"]) <= 128:
            assert reply.get("requestId") == mutated["requestId"], f"{label}: {reply}"
        count += 1
    return count


def test_schema_invalid_client_frames_get_invalid_payload_and_valid_ones_succeed(relay_server):
    async def main():
        ident = Identity()
        async with open_ws(relay_server.ws_url) as ws:
            total = 0
            begin = ident.begin()
            total += await _check_mutations(ws, begin, "register_begin")
            challenge = await send(ws, begin)
            assert challenge["type"] == "register_challenge", challenge
            proof = ident.proof(challenge, pushToken="apns-" + "0" * 64, voipToken="voip-1")
            total += await _check_mutations(ws, proof, "register_proof")
            # Nothing above consumed the challenge: the valid proof still succeeds.
            ack = await send(ws, proof)
            assert ack["type"] == "register_ack", ack
            token = ack["payload"]["sessionToken"]
            for frame_type in ("session_refresh", "logout"):
                total += await _check_mutations(ws, privileged(frame_type, token), frame_type)
            refreshed = await send(ws, privileged("session_refresh", token))
            assert refreshed["type"] == "session_refreshed", refreshed
            out = await send(ws, privileged("logout", refreshed["payload"]["sessionToken"]))
            assert out["type"] == "logged_out", out
            assert total > 60, total

    run(main(), timeout=60)


def test_frames_logged_by_the_swift_suite_match_the_schemas():
    """scripts/test sets WHISPER_TEST_FRAME_LOG for `swift test`: every JSON frame the Swift
    integration tests received from the server is validated here."""
    path = os.environ.get("WHISPER_TEST_FRAME_LOG")
    if not path or not pathlib.Path(path).is_file():
        pytest.skip("no Swift frame log (run through scripts/test)")
    seen: dict[str, int] = {}
    for number, line in enumerate(pathlib.Path(path).read_text().splitlines(), 1):
        frame = json.loads(line)
        errors = schema_errors(frame)
        assert not errors, f"{path}:{number}: {errors}\n{line[:500]}"
        seen[frame["type"]] = seen.get(frame["type"], 0) + 1
    for frame_type in ("register_challenge", "register_ack", "session_refreshed", "logged_out", "session_revoked",
                       "error", "pong", "message_accepted", "message_received", "pending_messages",
                       "receipt_accepted", "message_delivered"):
        assert seen.get(frame_type), f"the Swift suite produced no {frame_type} frame: {seen}"


def _doc_frames(text: str):
    """Every JSON object with a `type` in the ```json blocks of a markdown file."""
    decoder = json.JSONDecoder()
    for block in re.findall(r"```json\n(.*?)```", text, re.S):
        i = 0
        while i < len(block):
            if block[i].isspace():
                i += 1
                continue
            try:
                value, i = decoder.raw_decode(block, i)
            except json.JSONDecodeError:
                i = block.find("\n", i) + 1 or len(block)
                continue
            if isinstance(value, dict) and "type" in value:
                yield value


def test_protocol_doc_examples_match_the_schemas():
    # The generic envelope example ({"type": "string", …}) has no schema of its own.
    frames = [f for f in _doc_frames((REPO / "docs" / "protocol.md").read_text()) if f["type"] != "string"]
    types = {frame["type"] for frame in frames}
    assert set(IDENTITY_FRAMES) <= types, sorted(set(IDENTITY_FRAMES) - types)
    for frame in frames:
        assert not schema_errors(frame), f"docs/protocol.md example {frame['type']}: {schema_errors(frame)}"
