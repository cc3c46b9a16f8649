"""The 1:1 messaging schemas without a server: they are valid, their examples and the fixture
vector validate, the vector's signature verifies with libsodium, the schema-derived mutations
that test_identity sends to a live server are all schema-invalid, and the schemas draw every
size line where the Swift validator (WhisperProtocol) draws it, at N and N+1."""

from __future__ import annotations

import base64
import copy
import ctypes
import hashlib
import json

import jsonschema
import pytest

from identity import FIXTURES, REPO, SCHEMAS, b64, schema_errors, sodium, validators
from test_identity import _doc_frames, _mutations

CLIENT_FRAMES = ["send_message", "fetch_pending", "delivery_receipt"]
SERVER_FRAMES = ["message_accepted", "message_received", "pending_messages", "receipt_accepted", "message_delivered"]
MESSAGING_FRAMES = CLIENT_FRAMES + SERVER_FRAMES
COMMON = ("protocolVersion", "cryptoVersion", "sessionToken")


def _schema(name: str) -> dict:
    return json.loads((SCHEMAS / f"{name}.schema.json").read_text())


def _example(name: str, index: int = 0) -> dict:
    return copy.deepcopy(_schema(name)["examples"][index])


def _vector() -> dict:
    return json.loads((FIXTURES / "send-message-vector.json").read_text())


@pytest.mark.parametrize("name", MESSAGING_FRAMES)
def test_messaging_schema_is_draft_2020_12_closed_and_its_examples_validate(name):
    schema = _schema(name)
    jsonschema.Draft202012Validator.check_schema(schema)
    assert schema["properties"]["type"] == {"const": name}
    assert schema["additionalProperties"] is False and schema["properties"]["payload"]["additionalProperties"] is False
    assert ("requestId" in schema["properties"]) == (name not in ("message_received", "message_delivered"))
    assert schema["examples"], f"{name} has no examples"
    for example in schema["examples"]:
        assert not schema_errors(example, name), (name, schema_errors(example, name))


def test_protocol_doc_shows_every_messaging_frame():
    types = {frame["type"] for frame in _doc_frames((REPO / "docs" / "protocol.md").read_text())}
    assert set(MESSAGING_FRAMES) <= types, sorted(set(MESSAGING_FRAMES) - types)


def test_fixture_vector_is_a_valid_frame_whose_signature_verifies():
    vector = _vector()
    frame = json.loads(vector["frame"])
    assert not schema_errors(frame, "send_message")
    p = frame["payload"]
    # Canonical bytes rebuilt independently of the Swift code (docs/protocol.md "Canonical signing").
    signed = "".join(f"{part}\n" for part in ("v1", "send_message", p["messageId"], p["from"], p["to"], p["timestamp"],
                                             p["nonce"], p["ciphertext"])).encode()
    assert signed == vector["signedBytes"].encode()
    digest = hashlib.sha256(signed).digest()
    assert digest.hex() == vector["signedBytesSHA256"]
    sig = base64.b64decode(p["sig"], validate=True)
    assert b64(sig) == vector["signatureBase64"]
    key = base64.b64decode(vector["signPublicKeyBase64"])
    verify = sodium().crypto_sign_verify_detached
    assert verify(sig, digest, ctypes.c_ulonglong(len(digest)), key) == 0
    tampered = hashlib.sha256(signed.replace(b"WSP-HESP", b"WSP-HESQ")).digest()
    assert verify(sig, tampered, ctypes.c_ulonglong(len(tampered)), key) != 0
    # The delivery payload is the payload minus the session members, in the same order.
    delivered = json.loads(vector["deliveryPayload"])
    assert list(delivered.items()) == [(k, v) for k, v in p.items() if k not in COMMON]
    assert not schema_errors({"type": "message_received", "payload": delivered}, "message_received")


@pytest.mark.parametrize("name,index", [("send_message", 0), ("send_message", 1), ("fetch_pending", 0),
                                        ("fetch_pending", 1), ("delivery_receipt", 0)])
def test_every_schema_derived_mutation_of_a_client_example_is_schema_invalid(name, index):
    frame = _example(name, index)
    labels = []
    for label, mutated in _mutations(frame, name):
        assert schema_errors(mutated, name), f"{name}: mutation '{label}' is schema-valid"
        labels.append(label)
    assert "missing sessionToken" in labels and "extra payload property" in labels
    if name == "send_message":
        assert {"nonce short", "sig long", "from lower case", "to bad format", "msgType outside enum"} <= set(labels)


# --- N and N+1, the same lines as the Swift tests ---------------------------------------------------

def _b64(n: int) -> str:
    return b64(bytes([7]) * n)


def _set(frame: dict, path: str, value) -> dict:
    frame = copy.deepcopy(frame)
    *parents, last = path.split(".")
    target = frame["payload"]
    for part in parents:
        target = target[part]
    if value is _DELETE:
        del target[last]
    else:
        target[last] = value
    return frame


_DELETE = object()
TEXT = ("send_message", 0)
IMAGE = ("send_message", 1)
WID = "WSP-ABCD-EFGH-IJ54"

CASES = [
    # (example, path, value, schema-valid?)
    (TEXT, "ciphertext", _b64(8016), True),
    (TEXT, "ciphertext", _b64(8017), False),
    (TEXT, "msgType", "system", True),
    (IMAGE, "ciphertext", _b64(8017), True),
    (TEXT, "ciphertext", "", False),
    (TEXT, "ciphertext", "AAECAwQFBgcICQoLDA0ODw", False),
    (TEXT, "ciphertext", "AB==", False),                # non-zero pad bits
    (TEXT, "nonce", _b64(23), False),
    (TEXT, "nonce", _b64(25), False),
    (TEXT, "sig", _b64(63), False),
    (TEXT, "sig", _b64(65), False),
    (TEXT, "messageId", "3B241101-E2BB-4255-8CAF-4136C566A962", True),
    (TEXT, "timestamp", 0, True),
    (TEXT, "timestamp", -1, False),
    (TEXT, "timestamp", 9223372036854775808, False),
    (TEXT, "timestamp", 1.5, False),
    (TEXT, "replyTo", None, True),
    (TEXT, "replyTo", "x", False),
    (TEXT, "reactions", None, True),
    (TEXT, "attachment", None, True),
    (TEXT, "reactions", {f"r{i}": [] for i in range(32)}, True),
    (TEXT, "reactions", {f"r{i}": [] for i in range(33)}, False),
    (TEXT, "reactions", {"k" * 64: [WID]}, True),
    (TEXT, "reactions", {"k" * 65: [WID]}, False),
    (TEXT, "reactions", {"": [WID]}, False),
    (TEXT, "reactions", {"👍": [WID] * 256}, True),
    (TEXT, "reactions", {"👍": [WID] * 257}, False),
    (TEXT, "reactions", {"👍": ["wsp-abcd-efgh-ij54"]}, False),
    (TEXT, "reactions", {"👍": WID}, False),
    (IMAGE, "attachment.objectKey", "k" * 512, True),
    (IMAGE, "attachment.objectKey", "k" * 513, False),
    (IMAGE, "attachment.objectKey", "", False),
    (IMAGE, "attachment.contentType", "image/" + "p" * 249, True),
    (IMAGE, "attachment.contentType", "image/" + "p" * 250, False),
    (IMAGE, "attachment.ciphertextSize", 15_000_000, True),
    (IMAGE, "attachment.ciphertextSize", 15_000_001, False),
    (IMAGE, "attachment.ciphertextSize", 0, False),
    (IMAGE, "attachment.extra", 1, False),
    (IMAGE, "attachment.fileKeyBox", _DELETE, False),
    (IMAGE, "attachment.fileNonce", _b64(23), False),
    (IMAGE, "attachment.fileKeyBox.nonce", _b64(25), False),
    (IMAGE, "attachment.fileKeyBox.extra", "x", False),
    (IMAGE, "attachment.fileKeyBox.ciphertext", _b64(1), True),
    (IMAGE, "attachment.fileKeyBox.ciphertext", _b64(2), True),
    (IMAGE, "attachment.fileKeyBox.ciphertext", _b64(254), True),
    (IMAGE, "attachment.fileKeyBox.ciphertext", _b64(255), True),
    (IMAGE, "attachment.fileKeyBox.ciphertext", _b64(256), True),
    (IMAGE, "attachment.fileKeyBox.ciphertext", _b64(257), False),
    (IMAGE, "attachment.fileKeyBox.ciphertext", _b64(258), False),
    (IMAGE, "attachment.fileKeyBox.ciphertext", "", False),
    (("fetch_pending", 1), "limit", 1, True),
    (("fetch_pending", 1), "limit", 200, True),
    (("fetch_pending", 1), "limit", 0, False),
    (("fetch_pending", 1), "limit", 201, False),
    (("fetch_pending", 1), "limit", None, True),
    (("fetch_pending", 1), "cursor", None, True),
    (("fetch_pending", 1), "cursor", "18446744073709551615-0", True),
    (("fetch_pending", 1), "cursor", "", False),
    (("fetch_pending", 1), "cursor", "1-", False),
    (("fetch_pending", 1), "cursor", "+1-2", False),
    (("fetch_pending", 1), "cursor", "000000000000000000001-0", False),
    (("delivery_receipt", 0), "status", "read", True),
    (("delivery_receipt", 0), "status", "seen", False),
    (("delivery_receipt", 0), "timestamp", -1, False),
]


@pytest.mark.parametrize("example,path,value,valid", CASES,
                         ids=[f"{e[0]}:{p}={'<del>' if v is _DELETE else repr(v)[:24]}" for e, p, v, _ in CASES])
def test_schema_limits_match_the_swift_validator(example, path, value, valid):
    name, index = example
    frame = _set(_example(name, index), path, value)
    errors = schema_errors(frame, name)
    assert (not errors) == valid, errors


@pytest.mark.parametrize("content_type,cap", [("image/png", 15_000_000), ("audio/aac", 25_000_000),
                                              ("application/pdf", 50_000_000), ("IMAGE/PNG", 50_000_000)])
def test_attachment_cap_follows_the_content_type_at_n_and_n_plus_one(content_type, cap):
    frame = _set(_example(*IMAGE), "attachment.contentType", content_type)
    assert not schema_errors(_set(frame, "attachment.ciphertextSize", cap), "send_message")
    assert schema_errors(_set(frame, "attachment.ciphertextSize", cap + 1), "send_message")


def test_pending_messages_items_are_message_received_payloads():
    page = _example("pending_messages")
    assert not schema_errors(page)
    page["payload"]["messages"][0]["sessionToken"] = "x"
    assert schema_errors(page)
    page = _example("pending_messages")
    page["payload"]["messages"] = [page["payload"]["messages"][0]] * 201
    assert schema_errors(page)
    page = _example("pending_messages")
    page["payload"]["nextCursor"] = None
    assert schema_errors(page), "nextCursor is omitted, never null"
    assert set(validators()) >= set(MESSAGING_FRAMES)
