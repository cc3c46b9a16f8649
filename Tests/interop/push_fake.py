"""Local HTTP/2 + TLS fakes of the push providers (APNs and FCM HTTP v1 with its OAuth token endpoint) for the push
tests: one ASGI app, served by `hypercorn` over TLS with ALPN h2 on a loopback port, that verifies every request
against the wire contract (docs/protocol.md "Push wake-ups" and issue #12), records it, and answers by the device
token's prefix.

Verified: HTTP/2 (anything else is recorded and refused with 505), the APNs provider JWT (ES256 with the fixture's .p8
key, `kid`, `iss`, `iat` within an hour), the APNs headers and the exact body of a wake-up or a VoIP push, the FCM OAuth
assertion (RS256 with the service account's key, `iss`, `scope`, `aud`, `iat`, `exp`), the FCM access token (issued
here, not revoked) and the exact data-only message. A request that fails a check is answered as the provider would
(403 InvalidProviderToken, 400 BadRequest / INVALID_ARGUMENT, 401 UNAUTHENTICATED, 400 invalid_grant) and the reasons
are recorded in its `errors`.

Answers of a request that passes, by token prefix (both providers):
  ok-       success
  gone-     APNs 410 Unregistered; FCM 404 NOT_FOUND / UNREGISTERED
  bad-      APNs 400 BadDeviceToken; FCM 400 INVALID_ARGUMENT
  busy-     the first request for the token 429 with `retry-after: 1`, later ones success
  fail-     always 500
  flaky-    the first 4 requests for the token 500 (one push given up after its attempts), later ones success
  stall-    held 30 s, then success
  expired-  APNs: the first request 403 ExpiredProviderToken, then success only with a JWT other than the refused one;
            FCM: the first request revokes its access token and gets 401, later ones succeed with a fresh token

Control endpoints: `GET /_fake/requests` (the records, oldest first), `DELETE /_fake/requests` (forget them).
A record: {"provider": "apns"|"fcm"|"oauth"|"other", "path", "token", "kind": "wake"|"call"|None, "version",
"headers" (lower-case names), "body" (raw text), "status" (None while held), "errors", "response" (raw text), "at",
"answeredAt"} — times are Unix seconds of this machine's clock.

`PushFake` makes the key material (a throwaway CA and a leaf for 127.0.0.1/localhost, an unrelated second CA, the APNs
.p8 key, the FCM service account) in a folder, runs hypercorn as a subprocess on a free port, and reads the records.
"""

from __future__ import annotations

import asyncio
import base64
import datetime
import ipaddress
import json
import os
import pathlib
import re
import secrets
import signal
import ssl
import subprocess
import sys
import time
import urllib.parse
import uuid
from typing import Any, Callable

from cryptography import x509
from cryptography.exceptions import InvalidSignature
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec, padding, rsa
from cryptography.hazmat.primitives.asymmetric.utils import decode_dss_signature, encode_dss_signature
from cryptography.x509.oid import ExtendedKeyUsageOID, NameOID

HERE = pathlib.Path(__file__).resolve().parent
FCM_PROJECT = "whisper-test"
FCM_SCOPE = "https://www.googleapis.com/auth/firebase.messaging"
FCM_CLIENT_EMAIL = "push@whisper-test.iam.gserviceaccount.com"
FCM_ERROR_TYPE = "type.googleapis.com/google.firebase.fcm.v1.FcmError"
APNS_WAKE_BODY = {"aps": {"alert": {"loc-key": "WHISPER_WAKE"}, "mutable-content": 1, "sound": "default"}}
STALL_SECONDS = 30.0
FLAKY_FAILURES = 4
JWT_SKEW_SECONDS = 3600
PREFIXES = ("ok-", "gone-", "bad-", "busy-", "fail-", "flaky-", "stall-", "expired-")


# --- JWS (RFC 7515 compact form) ------------------------------------------------------------------------------------

def b64url(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()


def b64url_decode(text: str) -> bytes:
    """Unpadded base64url (RFC 7515 §2); anything else raises ValueError."""
    if not re.fullmatch(r"[A-Za-z0-9_-]*", text) or len(text) % 4 == 1:
        raise ValueError("not unpadded base64url")
    return base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))


def _strict_json(raw: bytes | str) -> Any:
    """JSON with duplicate object keys refused (a fake that took the last one would hide a bug)."""
    def pairs(items):
        keys = [k for k, _ in items]
        if len(keys) != len(set(keys)):
            raise ValueError(f"duplicate keys in {keys}")
        return dict(items)
    return json.loads(raw, object_pairs_hook=pairs)


def sign_jws(header: dict, claims: dict, sign: Callable[[bytes], bytes]) -> str:
    signing_input = b64url(json.dumps(header, separators=(",", ":")).encode()) + "." + \
        b64url(json.dumps(claims, separators=(",", ":")).encode())
    return signing_input + "." + b64url(sign(signing_input.encode()))


def es256_sign(key: ec.EllipticCurvePrivateKey) -> Callable[[bytes], bytes]:
    """JWS ES256: the raw 64-byte r||s, not DER (RFC 7518 §3.4)."""
    def sign(data: bytes) -> bytes:
        r, s = decode_dss_signature(key.sign(data, ec.ECDSA(hashes.SHA256())))
        return r.to_bytes(32, "big") + s.to_bytes(32, "big")
    return sign


def rs256_sign(key: rsa.RSAPrivateKey) -> Callable[[bytes], bytes]:
    return lambda data: key.sign(data, padding.PKCS1v15(), hashes.SHA256())


def apns_jwt(key: ec.EllipticCurvePrivateKey, key_id: str, team_id: str, iat: int | None = None,
             header: dict | None = None, claims: dict | None = None) -> str:
    """An APNs provider token; `header`/`claims` replace the standard ones (for tests of refusals)."""
    return sign_jws(header if header is not None else {"alg": "ES256", "kid": key_id},
                    claims if claims is not None else {"iss": team_id, "iat": iat if iat is not None else int(time.time())},
                    es256_sign(key))


def oauth_assertion(key: rsa.RSAPrivateKey, account: dict, iat: int | None = None, header: dict | None = None,
                    claims: dict | None = None) -> str:
    """The RS256 JWT a service account trades for an access token (Google's jwt-bearer grant)."""
    iat = iat if iat is not None else int(time.time())
    return sign_jws(header if header is not None else {"alg": "RS256", "typ": "JWT", "kid": account["private_key_id"]},
                    claims if claims is not None else {"iss": account["client_email"], "scope": FCM_SCOPE,
                                                       "aud": account["token_uri"], "iat": iat, "exp": iat + 3600},
                    rs256_sign(key))


def _jws_parts(token: str, errors: list[str]) -> tuple[dict, dict, bytes, bytes] | None:
    parts = token.split(".")
    if len(parts) != 3:
        errors.append(f"JWT has {len(parts)} parts, expected 3")
        return None
    try:
        header, claims = _strict_json(b64url_decode(parts[0])), _strict_json(b64url_decode(parts[1]))
        signature = b64url_decode(parts[2])
    except ValueError as e:
        errors.append(f"JWT is not base64url JSON: {e}")
        return None
    if not isinstance(header, dict) or not isinstance(claims, dict):
        errors.append("JWT header or claims is not a JSON object")
        return None
    return header, claims, signature, (parts[0] + "." + parts[1]).encode()


def _check_iat(claims: dict, now: float, errors: list[str]) -> None:
    iat = claims.get("iat")
    if type(iat) is not int:
        errors.append(f"iat {iat!r} is not an integer")
    elif abs(iat - now) > JWT_SKEW_SECONDS:
        errors.append(f"iat {iat} is {iat - now:+.0f} s from now")


def verify_apns_jwt(token: str, public_key: ec.EllipticCurvePublicKey, key_id: str, team_id: str,
                    now: float) -> list[str]:
    errors: list[str] = []
    parts = _jws_parts(token, errors)
    if parts is None:
        return errors
    header, claims, signature, signing_input = parts
    if set(header) - {"typ"} != {"alg", "kid"} or header.get("typ", "JWT") != "JWT":
        errors.append(f"JWT header {header} is not {{alg, kid[, typ:JWT]}}")
    if header.get("alg") != "ES256":
        errors.append(f"JWT alg {header.get('alg')!r}, expected ES256")
    if header.get("kid") != key_id:
        errors.append(f"JWT kid {header.get('kid')!r}, expected {key_id!r}")
    if set(claims) != {"iss", "iat"}:
        errors.append(f"JWT claims {sorted(claims)}, expected ['iat', 'iss']")
    if claims.get("iss") != team_id:
        errors.append(f"JWT iss {claims.get('iss')!r}, expected {team_id!r}")
    _check_iat(claims, now, errors)
    if len(signature) != 64:
        errors.append(f"ES256 signature is {len(signature)} bytes, expected raw r||s of 64")
    else:
        der = encode_dss_signature(int.from_bytes(signature[:32], "big"), int.from_bytes(signature[32:], "big"))
        try:
            public_key.verify(der, signing_input, ec.ECDSA(hashes.SHA256()))
        except InvalidSignature:
            errors.append("ES256 signature does not verify with the .p8 key")
    return errors


def verify_oauth_assertion(token: str, public_key: rsa.RSAPublicKey, account: dict, now: float) -> list[str]:
    errors: list[str] = []
    parts = _jws_parts(token, errors)
    if parts is None:
        return errors
    header, claims, signature, signing_input = parts
    expected_header = {"alg": "RS256", "typ": "JWT", "kid": account["private_key_id"]}
    if header != expected_header:
        errors.append(f"assertion header {header}, expected {expected_header}")
    if set(claims) != {"iss", "scope", "aud", "iat", "exp"}:
        errors.append(f"assertion claims {sorted(claims)}, expected ['aud', 'exp', 'iat', 'iss', 'scope']")
    for name, want in (("iss", account["client_email"]), ("scope", FCM_SCOPE), ("aud", account["token_uri"])):
        if claims.get(name) != want:
            errors.append(f"assertion {name} {claims.get(name)!r}, expected {want!r}")
    _check_iat(claims, now, errors)
    if type(claims.get("iat")) is int and claims.get("exp") != claims["iat"] + 3600:
        errors.append(f"assertion exp {claims.get('exp')!r}, expected iat + 3600")
    try:
        public_key.verify(signature, signing_input, padding.PKCS1v15(), hashes.SHA256())
    except InvalidSignature:
        errors.append("RS256 signature does not verify with the service account's key")
    return errors


# --- checks of the push requests ------------------------------------------------------------------------------------

def same_json(a: Any, b: Any) -> bool:
    """Equal as JSON values, types included (1 is not true, 1.0 is not 1)."""
    if type(a) is not type(b):
        return False
    if isinstance(a, dict):
        return a.keys() == b.keys() and all(same_json(a[k], b[k]) for k in a)
    if isinstance(a, list):
        return len(a) == len(b) and all(same_json(x, y) for x, y in zip(a, b))
    return a == b


def is_uuid(value: Any) -> bool:
    if not isinstance(value, str):
        return False
    try:
        return str(uuid.UUID(value)) == value.lower()
    except ValueError:
        return False


def _json_body(body: bytes, errors: list[str]) -> Any:
    try:
        return _strict_json(body.decode("utf-8"))
    except (UnicodeDecodeError, ValueError) as e:
        errors.append(f"body is not JSON: {e}")
        return None


def check_apns_push(cfg: dict, headers: dict[str, str], body: bytes, now: float) -> tuple[str | None, list[str]]:
    """(kind, errors) of an APNs push's headers and body (the JWT is checked apart)."""
    errors: list[str] = []
    push_type = headers.get("apns-push-type")
    kind = {"alert": "wake", "voip": "call"}.get(push_type or "")
    if kind is None:
        errors.append(f"apns-push-type {push_type!r}, expected alert or voip")
    if headers.get("apns-priority") != "10":
        errors.append(f"apns-priority {headers.get('apns-priority')!r}, expected '10'")
    if len(body) > (5120 if kind == "call" else 4096):
        errors.append(f"body of {len(body)} bytes is over the APNs limit")
    data = _json_body(body, errors)
    if kind == "wake":
        if headers.get("apns-topic") != cfg["apns_topic"]:
            errors.append(f"apns-topic {headers.get('apns-topic')!r}, expected {cfg['apns_topic']!r}")
        expiration = headers.get("apns-expiration", "")
        if not re.fullmatch(r"[0-9]{1,12}", expiration) or int(expiration) <= now:
            errors.append(f"apns-expiration {expiration!r} is not Unix seconds in the future")
        if headers.get("apns-collapse-id") != "wake":
            errors.append(f"apns-collapse-id {headers.get('apns-collapse-id')!r}, expected 'wake'")
        if data is not None and not same_json(data, APNS_WAKE_BODY):
            errors.append(f"wake-up body {data}, expected exactly {APNS_WAKE_BODY}")
    elif kind == "call":
        if headers.get("apns-topic") != cfg["apns_topic"] + ".voip":
            errors.append(f"apns-topic {headers.get('apns-topic')!r}, expected {cfg['apns_topic'] + '.voip'!r}")
        if headers.get("apns-expiration") != "0":
            errors.append(f"apns-expiration {headers.get('apns-expiration')!r}, expected '0' for a call")
        if data is not None and not (isinstance(data, dict) and set(data) == {"aps", "callId"}
                                     and same_json(data["aps"], {}) and is_uuid(data["callId"])):
            errors.append(f"VoIP body {data}, expected exactly {{\"aps\":{{}},\"callId\":<uuid>}}")
    return kind, errors


def check_fcm_message(headers: dict[str, str], body: bytes) -> tuple[str | None, str | None, list[str]]:
    """(kind, device token, errors) of an FCM v1 send's content type and body (the access token is checked apart)."""
    errors: list[str] = []
    if headers.get("content-type", "").split(";")[0].strip().lower() != "application/json":
        errors.append(f"content-type {headers.get('content-type')!r}, expected application/json")
    data = _json_body(body, errors)
    if data is None:
        return None, None, errors
    message = data.get("message") if isinstance(data, dict) else None
    if not isinstance(data, dict) or set(data) != {"message"} or not isinstance(message, dict):
        errors.append(f"body {data} is not {{\"message\": {{…}}}}")
        return None, None, errors
    token = message.get("token")
    if set(message) != {"token", "android", "data"}:
        errors.append(f"message keys {sorted(message)}, expected ['android', 'data', 'token'] (data-only)")
    if not isinstance(token, str) or not token:
        errors.append(f"message.token {token!r} is not a non-empty string")
        token = None
    android, payload = message.get("android"), message.get("data")
    kind = None
    if isinstance(payload, dict) and same_json(payload, {"type": "wake"}):
        kind = "wake"
    elif isinstance(payload, dict) and set(payload) == {"type", "callId"} and payload["type"] == "call" \
            and is_uuid(payload["callId"]):
        kind = "call"
    else:
        errors.append(f"message.data {payload!r}, expected {{type: wake}} or {{type: call, callId: <uuid>}}")
    if not isinstance(android, dict) or set(android) != {"priority", "ttl"} or android.get("priority") != "high":
        errors.append(f"message.android {android!r}, expected {{priority: high, ttl}}")
    elif kind == "call" and android.get("ttl") != "60s":
        errors.append(f"message.android.ttl {android.get('ttl')!r}, expected '60s' for a call")
    elif not isinstance(android.get("ttl"), str) or not re.fullmatch(r"[1-9][0-9]*s", android["ttl"]):
        errors.append(f"message.android.ttl {android.get('ttl')!r} is not a positive '<N>s'")
    return kind, token, errors


def fcm_error(code: int, status: str, message: str, error_code: str | None = None) -> dict:
    error: dict[str, Any] = {"code": code, "message": message, "status": status}
    if error_code is not None:
        error["details"] = [{"@type": FCM_ERROR_TYPE, "errorCode": error_code}]
    return {"error": error}


# --- the ASGI app ---------------------------------------------------------------------------------------------------

class Answer:
    def __init__(self, status: int, body: Any = None, headers: dict[str, str] | None = None):
        self.status = status
        self.body = b"" if body is None else json.dumps(body).encode()
        self.headers = headers or {}


class FakeProviders:
    """APNs, FCM and its OAuth endpoint on one origin. Single-threaded (one asyncio loop), so no locks."""

    def __init__(self, cfg: dict):
        self.cfg = cfg
        self.apns_key = serialization.load_pem_public_key(cfg["apns_public_key"].encode())
        self.fcm_key = serialization.load_pem_public_key(cfg["fcm_public_key"].encode())
        self.account = cfg["account"]
        self.records: list[dict] = []
        self.issued: set[str] = set()
        self.revoked: set[str] = set()
        self.busy_seen: set[tuple[str, str]] = set()
        self.flaky_seen: dict[tuple[str, str], int] = {}
        self.expired_refused: dict[tuple[str, str], str] = {}
        self.fcm_sent = 0

    async def __call__(self, scope, receive, send):
        if scope["type"] == "lifespan":
            while True:
                message = await receive()
                if message["type"] == "lifespan.startup":
                    await send({"type": "lifespan.startup.complete"})
                elif message["type"] == "lifespan.shutdown":
                    await send({"type": "lifespan.shutdown.complete"})
                    return
        if scope["type"] != "http":
            return
        body = b""
        while True:
            message = await receive()
            if message["type"] == "http.disconnect":
                return
            body += message.get("body", b"")
            if not message.get("more_body"):
                break
        answer = await self.handle(scope, body)
        await send({"type": "http.response.start", "status": answer.status,
                    "headers": [(k.encode(), v.encode()) for k, v in
                                {"content-type": "application/json", **answer.headers}.items()]})
        await send({"type": "http.response.body", "body": answer.body})

    async def handle(self, scope, body: bytes) -> Answer:
        path, method = scope["path"], scope["method"]
        if path == "/_fake/requests":
            if method == "DELETE":
                self.records.clear()
                return Answer(200, {"cleared": True})
            return Answer(200, self.records)
        headers: dict[str, str] = {}
        duplicates = []
        for name, value in scope["headers"]:
            key = name.decode("latin-1").lower()
            if key in headers:
                duplicates.append(f"header {key} sent more than once")
                headers[key] += ", " + value.decode("latin-1")
            else:
                headers[key] = value.decode("latin-1")
        provider = "apns" if path.startswith("/3/device/") else "oauth" if path == "/token" else \
            "fcm" if path.startswith("/v1/") else "other"
        record: dict[str, Any] = {
            "provider": provider, "path": path, "token": None, "kind": None, "version": scope["http_version"],
            "method": method, "headers": headers, "body": body.decode("utf-8", "replace"), "status": None,
            "errors": list(duplicates), "response": None, "at": time.time(), "answeredAt": None}
        self.records.append(record)
        if provider == "apns":
            record["token"] = path.removeprefix("/3/device/")
        if scope["http_version"] != "2":
            record["errors"].append(f"HTTP/{scope['http_version']}, expected HTTP/2")
            answer = Answer(505, {"reason": "HTTPVersionNotSupported"})
        elif method != "POST":
            record["errors"].append(f"method {method}, expected POST")
            answer = Answer(405, {"reason": "MethodNotAllowed"})
        elif provider == "apns":
            answer = await self.apns(record, path.removeprefix("/3/device/"), headers, body)
        elif provider == "oauth":
            answer = self.oauth(record, headers, body)
        elif provider == "fcm":
            answer = await self.fcm(record, path, headers, body)
        else:
            record["errors"].append(f"unknown path {path}")
            answer = Answer(404, {"reason": "NotFound"})
        record["status"] = answer.status
        record["response"] = answer.body.decode()
        record["answeredAt"] = time.time()
        return answer

    async def apns(self, record: dict, token: str, headers: dict[str, str], body: bytes) -> Answer:
        now = time.time()
        record["token"] = token
        if not re.fullmatch(r"[!-~]+", token) or "/" in token:
            record["errors"].append(f"device token {token!r} is not printable ASCII")
        kind, errors = check_apns_push(self.cfg, headers, body, now)
        record["kind"] = kind
        record["errors"] += errors
        auth = headers.get("authorization", "")
        scheme, _, jwt = auth.partition(" ")
        if scheme.lower() != "bearer" or not jwt:
            auth_errors = [f"authorization {auth[:20]!r} is not 'bearer <JWT>'"]
        else:
            auth_errors = verify_apns_jwt(jwt, self.apns_key, self.cfg["apns_key_id"], self.cfg["apns_team_id"], now)
        record["errors"] += auth_errors
        if auth_errors:
            return Answer(403, {"reason": "InvalidProviderToken"})
        if record["errors"]:
            return Answer(400, {"reason": "BadRequest"})
        success = Answer(200, None, {"apns-id": str(uuid.uuid4()).upper()})
        behaviour = await self.behaviour("apns", token, jwt)
        return {
            "ok": success,
            "gone": Answer(410, {"reason": "Unregistered", "timestamp": int(now * 1000)}),
            "bad": Answer(400, {"reason": "BadDeviceToken"}),
            "busy": Answer(429, {"reason": "TooManyRequests"}, {"retry-after": "1"}),
            "fail": Answer(500, {"reason": "InternalServerError"}),
            "expired": Answer(403, {"reason": "ExpiredProviderToken"}),
        }[behaviour]

    def oauth(self, record: dict, headers: dict[str, str], body: bytes) -> Answer:
        errors = record["errors"]
        if headers.get("content-type", "").split(";")[0].strip().lower() != "application/x-www-form-urlencoded":
            errors.append(f"content-type {headers.get('content-type')!r}, expected application/x-www-form-urlencoded")
        try:
            form = urllib.parse.parse_qs(body.decode("ascii"), keep_blank_values=True, strict_parsing=True)
        except (UnicodeDecodeError, ValueError) as e:
            errors.append(f"body is not a form: {e}")
            form = {}
        if sorted(form) != ["assertion", "grant_type"] or any(len(v) != 1 for v in form.values()):
            errors.append(f"form fields {sorted(form)}, expected exactly grant_type and assertion once each")
        if form.get("grant_type") != ["urn:ietf:params:oauth:grant-type:jwt-bearer"]:
            errors.append(f"grant_type {form.get('grant_type')!r}, expected the jwt-bearer grant")
        assertion = (form.get("assertion") or [""])[0]
        errors += verify_oauth_assertion(assertion, self.fcm_key, self.account, time.time())
        if errors:
            return Answer(400, {"error": "invalid_grant", "error_description": "; ".join(errors)[:500]})
        access_token = "ya29.fake-" + secrets.token_urlsafe(24)
        self.issued.add(access_token)
        return Answer(200, {"access_token": access_token, "expires_in": 3600, "token_type": "Bearer"})

    async def fcm(self, record: dict, path: str, headers: dict[str, str], body: bytes) -> Answer:
        kind, token, errors = check_fcm_message(headers, body)
        record.update(kind=kind, token=token)
        record["errors"] += errors
        auth = headers.get("authorization", "")
        scheme, _, access_token = auth.partition(" ")
        if scheme.lower() != "bearer" or access_token not in self.issued or access_token in self.revoked:
            record["errors"].append("access token not issued here, or revoked" if scheme.lower() == "bearer"
                                    else f"authorization {auth[:20]!r} is not 'Bearer <token>'")
            return Answer(401, fcm_error(401, "UNAUTHENTICATED", "Request had invalid authentication credentials."))
        if path != f"/v1/projects/{FCM_PROJECT}/messages:send":
            record["errors"].append(f"path {path}, expected /v1/projects/{FCM_PROJECT}/messages:send")
            return Answer(404, fcm_error(404, "NOT_FOUND", "Requested entity was not found."))
        if record["errors"]:
            return Answer(400, fcm_error(400, "INVALID_ARGUMENT", "; ".join(record["errors"])[:500]))
        behaviour = await self.behaviour("fcm", token or "", access_token)
        if behaviour == "ok":
            self.fcm_sent += 1
            return Answer(200, {"name": f"projects/{FCM_PROJECT}/messages/{self.fcm_sent}"})
        if behaviour == "expired":
            self.revoked.add(access_token)
            return Answer(401, fcm_error(401, "UNAUTHENTICATED", "Request had invalid authentication credentials."))
        return {
            "gone": Answer(404, fcm_error(404, "NOT_FOUND", "Requested entity was not found.", "UNREGISTERED")),
            "bad": Answer(400, fcm_error(400, "INVALID_ARGUMENT", "The registration token is not valid.",
                                         "INVALID_ARGUMENT")),
            "busy": Answer(429, fcm_error(429, "RESOURCE_EXHAUSTED", "Quota exceeded.", "QUOTA_EXCEEDED"),
                           {"retry-after": "1"}),
            "fail": Answer(500, fcm_error(500, "INTERNAL", "Internal error.", "INTERNAL")),
        }[behaviour]

    async def behaviour(self, provider: str, token: str, credential: str) -> str:
        """What a verified request for `token` gets: ok, gone, bad, busy, fail or expired (stall- waits, then ok; flaky-
        fails, then ok)."""
        prefix = next((p for p in PREFIXES if token.startswith(p)), "ok-")[:-1]
        key = (provider, token)
        if prefix == "busy":
            if key in self.busy_seen:
                return "ok"
            self.busy_seen.add(key)
        elif prefix == "flaky":
            self.flaky_seen[key] = self.flaky_seen.get(key, 0) + 1
            return "fail" if self.flaky_seen[key] <= FLAKY_FAILURES else "ok"
        elif prefix == "stall":
            await asyncio.sleep(STALL_SECONDS)
            return "ok"
        elif prefix == "expired":
            refused = self.expired_refused.get(key)
            if refused is None:
                self.expired_refused[key] = credential
            elif provider == "fcm" or credential != refused:
                return "ok"  # FCM: a revoked access token never gets this far
        return prefix


def _app_from_env() -> FakeProviders | None:
    path = os.environ.get("PUSH_FAKE_CONFIG")
    return FakeProviders(json.loads(pathlib.Path(path).read_text())) if path else None


app = _app_from_env()  # hypercorn push_fake:app


# --- key material ---------------------------------------------------------------------------------------------------

def _pem_key(key) -> bytes:
    return key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8,
                             serialization.NoEncryption())


def _pem_public(key) -> str:
    return key.public_key().public_bytes(serialization.Encoding.PEM,
                                         serialization.PublicFormat.SubjectPublicKeyInfo).decode()


def make_ca(name: str) -> tuple[ec.EllipticCurvePrivateKey, x509.Certificate]:
    key = ec.generate_private_key(ec.SECP256R1())
    subject = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, name)])
    now = datetime.datetime.now(datetime.timezone.utc)
    cert = (x509.CertificateBuilder().subject_name(subject).issuer_name(subject).public_key(key.public_key())
            .serial_number(x509.random_serial_number())
            .not_valid_before(now - datetime.timedelta(hours=1)).not_valid_after(now + datetime.timedelta(days=2))
            .add_extension(x509.BasicConstraints(ca=True, path_length=0), critical=True)
            .add_extension(x509.KeyUsage(digital_signature=False, content_commitment=False, key_encipherment=False,
                                         data_encipherment=False, key_agreement=False, key_cert_sign=True,
                                         crl_sign=True, encipher_only=False, decipher_only=False), critical=True)
            .add_extension(x509.SubjectKeyIdentifier.from_public_key(key.public_key()), critical=False)
            .sign(key, hashes.SHA256()))
    return key, cert


def make_leaf(ca_key, ca_cert: x509.Certificate) -> tuple[ec.EllipticCurvePrivateKey, x509.Certificate]:
    key = ec.generate_private_key(ec.SECP256R1())
    now = datetime.datetime.now(datetime.timezone.utc)
    cert = (x509.CertificateBuilder()
            .subject_name(x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, "push fake")]))
            .issuer_name(ca_cert.subject).public_key(key.public_key()).serial_number(x509.random_serial_number())
            .not_valid_before(now - datetime.timedelta(hours=1)).not_valid_after(now + datetime.timedelta(days=1))
            .add_extension(x509.SubjectAlternativeName([x509.IPAddress(ipaddress.ip_address("127.0.0.1")),
                                                        x509.DNSName("localhost")]), critical=False)
            .add_extension(x509.BasicConstraints(ca=False, path_length=None), critical=True)
            .add_extension(x509.KeyUsage(digital_signature=True, content_commitment=False, key_encipherment=False,
                                         data_encipherment=False, key_agreement=False, key_cert_sign=False,
                                         crl_sign=False, encipher_only=False, decipher_only=False), critical=True)
            .add_extension(x509.ExtendedKeyUsage([ExtendedKeyUsageOID.SERVER_AUTH]), critical=False)
            .add_extension(x509.SubjectKeyIdentifier.from_public_key(key.public_key()), critical=False)
            .add_extension(x509.AuthorityKeyIdentifier.from_issuer_public_key(ca_key.public_key()), critical=False)
            .sign(ca_key, hashes.SHA256()))
    return key, cert


# --- the controller -------------------------------------------------------------------------------------------------

class PushFake:
    """Key material in `folder`, hypercorn serving FakeProviders on a free loopback port, and the records."""

    APNS_KEY_ID = "ABC123DEFG"
    APNS_TEAM_ID = "DEF123GHIJ"
    APNS_TOPIC = "app.whisper.test"

    def __init__(self, folder: pathlib.Path, log_dir: pathlib.Path | None = None):
        from helpers import free_port
        self.folder = folder
        folder.mkdir(parents=True, exist_ok=True)
        self.log_path = (log_dir or folder) / f"push-fake-{os.getpid()}-{secrets.token_hex(3)}.log"
        self.port = free_port()
        self.origin = f"https://127.0.0.1:{self.port}"
        ca_key, ca_cert = make_ca("Whisper push fake test CA")
        leaf_key, leaf_cert = make_leaf(ca_key, ca_cert)
        _, other_ca = make_ca("Unrelated test CA")
        self.ca_file = self._write("ca.pem", ca_cert.public_bytes(serialization.Encoding.PEM))
        self.other_ca_file = self._write("other-ca.pem", other_ca.public_bytes(serialization.Encoding.PEM))
        self.cert_file = self._write("leaf.pem", leaf_cert.public_bytes(serialization.Encoding.PEM))
        self.key_file = self._write("leaf.key", _pem_key(leaf_key))
        self.apns_key = ec.generate_private_key(ec.SECP256R1())
        self.apns_key_file = self._write(f"AuthKey_{self.APNS_KEY_ID}.p8", _pem_key(self.apns_key))
        self.fcm_key = rsa.generate_private_key(public_exponent=65537, key_size=2048)
        self.account = {
            "type": "service_account", "project_id": FCM_PROJECT, "private_key_id": secrets.token_hex(20),
            "private_key": _pem_key(self.fcm_key).decode(), "client_email": FCM_CLIENT_EMAIL,
            "token_uri": f"{self.origin}/token"}
        self.account_file = self._write("service-account.json", json.dumps(self.account, indent=2).encode())
        self.config_file = self._write("fake-config.json", json.dumps({
            "apns_public_key": _pem_public(self.apns_key), "apns_key_id": self.APNS_KEY_ID,
            "apns_team_id": self.APNS_TEAM_ID, "apns_topic": self.APNS_TOPIC,
            "fcm_public_key": _pem_public(self.fcm_key),
            "account": {k: self.account[k] for k in ("private_key_id", "client_email", "token_uri")}}).encode())
        self.proc: subprocess.Popen | None = None
        self._client = None

    def _write(self, name: str, data: bytes) -> pathlib.Path:
        path = self.folder / name
        path.write_bytes(data)
        return path

    def server_env(self, coalesce_seconds: int = 3) -> dict[str, str]:
        """The server's push settings pointing at this fake."""
        return {
            "WHISPER_APNS_KEY_FILE": str(self.apns_key_file), "WHISPER_APNS_KEY_ID": self.APNS_KEY_ID,
            "WHISPER_APNS_TEAM_ID": self.APNS_TEAM_ID, "WHISPER_APNS_TOPIC": self.APNS_TOPIC,
            "WHISPER_APNS_ENDPOINT": self.origin, "WHISPER_FCM_CREDENTIALS_FILE": str(self.account_file),
            "WHISPER_FCM_ENDPOINT": self.origin, "WHISPER_PUSH_CA_FILE": str(self.ca_file),
            "WHISPER_PUSH_COALESCE_SECONDS": str(coalesce_seconds)}

    def ssl_context(self, ca_file: pathlib.Path | None = None) -> ssl.SSLContext:
        return ssl.create_default_context(cafile=str(ca_file or self.ca_file))

    def client(self, http2: bool = True, ca_file: pathlib.Path | None = None, timeout: float = 5.0):
        import httpx
        return httpx.Client(http2=http2, verify=self.ssl_context(ca_file), timeout=timeout, base_url=self.origin)

    def start(self, timeout: float = 20.0) -> None:
        env = dict(os.environ, PUSH_FAKE_CONFIG=str(self.config_file))
        env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(HERE), env.get("PYTHONPATH")]))
        self._log = open(self.log_path, "wb")
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "hypercorn", "--certfile", str(self.cert_file), "--keyfile", str(self.key_file),
             "--bind", f"127.0.0.1:{self.port}", "--graceful-timeout", "0",
             # hypercorn closes idle connections after 5 s by default; the providers keep theirs for long, and a
             # GOAWAY racing a new request would add retries to tests that measure timing.
             "--keep-alive", "300", "push_fake:app"],
            cwd=HERE, env=env, stdin=subprocess.DEVNULL, stdout=self._log, stderr=subprocess.STDOUT,
            start_new_session=True)
        self._client = self.client()
        deadline = time.monotonic() + timeout
        while True:
            if self.proc.poll() is not None:
                raise RuntimeError(f"hypercorn exited with {self.proc.returncode}: {self.log_tail()}")
            try:
                if self._client.get("/_fake/requests", timeout=1.0).status_code == 200:
                    return
            except Exception:  # not listening yet
                pass
            if time.monotonic() > deadline:
                self.stop()
                raise RuntimeError(f"the push fake did not answer within {timeout} s: {self.log_tail()}")
            time.sleep(0.05)

    def log_tail(self, lines: int = 30) -> str:
        try:
            return "\n".join(self.log_path.read_text(errors="replace").splitlines()[-lines:])
        except OSError:
            return "(no log)"

    def stop(self) -> None:
        if self._client is not None:
            self._client.close()
            self._client = None
        if self.proc is not None and self.proc.poll() is None:
            os.killpg(self.proc.pid, signal.SIGTERM)
            try:
                self.proc.wait(3)
            except subprocess.TimeoutExpired:
                os.killpg(self.proc.pid, signal.SIGKILL)
                self.proc.wait(5)
        if getattr(self, "_log", None) is not None:
            self._log.close()
            self._log = None

    # --- records ---

    def requests(self, provider: str | None = None, token: str | None = None) -> list[dict]:
        assert self._client is not None, "the push fake is not running"
        resp = self._client.get("/_fake/requests")
        resp.raise_for_status()
        return [r for r in resp.json() if (provider is None or r["provider"] == provider)
                and (token is None or r["token"] == token)]

    def clear(self) -> None:
        assert self._client is not None, "the push fake is not running"
        self._client.delete("/_fake/requests").raise_for_status()

    def wait_for(self, predicate: Callable[[list[dict]], Any], timeout: float, provider: str | None = None,
                 token: str | None = None, what: str = "the expected requests") -> Any:
        """Poll the records (filtered) until `predicate(records)` is truthy; returns its value."""
        deadline = time.monotonic() + timeout
        while True:
            records = self.requests(provider, token)
            value = predicate(records)
            if value:
                return value
            if time.monotonic() > deadline:
                raise AssertionError(f"{what} did not reach the push fake within {timeout} s; "
                                     f"records for {provider or 'any provider'} {token or ''}: "
                                     f"{json.dumps(records, indent=1)[:3000]}")
            time.sleep(0.05)

    async def await_for(self, predicate: Callable[[list[dict]], Any], timeout: float, **kwargs) -> Any:
        """wait_for off the event loop (the websockets of the test keep running)."""
        return await asyncio.to_thread(self.wait_for, predicate, timeout, **kwargs)

    async def arequests(self, provider: str | None = None, token: str | None = None) -> list[dict]:
        return await asyncio.to_thread(self.requests, provider, token)


def device_token(prefix: str) -> str:
    """A fresh device token with the prefix that picks the fake's answer (`ok-`, `gone-`, …)."""
    assert prefix in PREFIXES, prefix
    return prefix + secrets.token_hex(16)
