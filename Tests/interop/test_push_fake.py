"""The push provider fake (push_fake.py) against its own HTTP/2 client (httpx) and JWTs made here: what it accepts,
what it refuses and records, and each device-token prefix — so that test_push.py's verdicts on the server can be
trusted. Needs no server, database or Redis."""

from __future__ import annotations

import json
import ssl
import time
import uuid

import httpx
import pytest
from cryptography.hazmat.primitives import hashes
from cryptography.hazmat.primitives.asymmetric import ec, rsa

from push_fake import (APNS_WAKE_BODY, FCM_PROJECT, FCM_SCOPE, PushFake, apns_jwt, b64url, device_token,
                       oauth_assertion, sign_jws)

FCM_SEND = f"/v1/projects/{FCM_PROJECT}/messages:send"
JWT_GRANT = "urn:ietf:params:oauth:grant-type:jwt-bearer"


@pytest.fixture(scope="module")
def fake(push_fake: PushFake):
    return push_fake


@pytest.fixture(scope="module")
def h2(fake: PushFake):
    with fake.client() as client:
        yield client


def jwt(fake: PushFake, **kwargs) -> str:
    return apns_jwt(fake.apns_key, fake.APNS_KEY_ID, fake.APNS_TEAM_ID, **kwargs)


def wake_headers(fake: PushFake, token: str | None = None, **changes) -> dict[str, str]:
    headers = {"authorization": f"bearer {token or jwt(fake)}", "apns-topic": fake.APNS_TOPIC,
               "apns-push-type": "alert", "apns-priority": "10", "apns-expiration": str(int(time.time()) + 3600),
               "apns-collapse-id": "wake"}
    headers.update(changes)
    return {k: v for k, v in headers.items() if v is not None}


def voip_headers(fake: PushFake, **changes) -> dict[str, str]:
    return wake_headers(fake, **{"apns-topic": fake.APNS_TOPIC + ".voip", "apns-push-type": "voip",
                                 "apns-expiration": "0", "apns-collapse-id": None, **changes})


def apns_post(h2: httpx.Client, device: str, headers: dict[str, str], body: dict | bytes = APNS_WAKE_BODY):
    content = body if isinstance(body, bytes) else json.dumps(body).encode()
    resp = h2.post(f"/3/device/{device}", headers=headers, content=content)
    assert resp.http_version == "HTTP/2", resp.http_version
    return resp


def last(fake: PushFake, token: str | None = None) -> dict:
    records = fake.requests(token=token)
    assert records, "nothing recorded"
    return records[-1]


def access_token(fake: PushFake, h2: httpx.Client) -> str:
    resp = h2.post("/token", data={"grant_type": JWT_GRANT, "assertion": oauth_assertion(fake.fcm_key, fake.account)})
    assert resp.status_code == 200, resp.text
    body = resp.json()
    assert body["token_type"] == "Bearer" and body["expires_in"] == 3600, body
    return body["access_token"]


def fcm_post(h2: httpx.Client, bearer: str, device: str, data: dict | None = None, ttl: str = "3600s",
             message: dict | None = None):
    message = message or {"token": device, "android": {"priority": "high", "ttl": ttl},
                          "data": data or {"type": "wake"}}
    return h2.post(FCM_SEND, headers={"authorization": f"Bearer {bearer}"}, json={"message": message})


# --- APNs ---------------------------------------------------------------------------------------------------------

def test_apns_wake_up_and_voip_push_with_a_good_jwt_are_accepted_and_recorded(fake, h2):
    device = device_token("ok-")
    resp = apns_post(h2, device, wake_headers(fake))
    assert resp.status_code == 200 and resp.headers.get("apns-id"), (resp.status_code, resp.text)
    record = last(fake, device)
    assert record["provider"] == "apns" and record["kind"] == "wake" and record["errors"] == [], record
    assert record["version"] == "2" and record["status"] == 200 and record["path"] == f"/3/device/{device}"
    assert record["headers"]["apns-collapse-id"] == "wake" and json.loads(record["body"]) == APNS_WAKE_BODY
    call_id = str(uuid.uuid4())
    resp = apns_post(h2, device, voip_headers(fake), {"aps": {}, "callId": call_id})
    assert resp.status_code == 200, resp.text
    record = last(fake, device)
    assert record["kind"] == "call" and record["errors"] == [] and call_id in record["body"], record


@pytest.mark.parametrize("name,token", [
    ("another key", lambda f: apns_jwt(ec.generate_private_key(ec.SECP256R1()), f.APNS_KEY_ID, f.APNS_TEAM_ID)),
    ("wrong kid", lambda f: apns_jwt(f.apns_key, "OTHERKEYID", f.APNS_TEAM_ID)),
    ("wrong team", lambda f: apns_jwt(f.apns_key, f.APNS_KEY_ID, "OTHERTEAM0")),
    ("iat two hours old", lambda f: jwt(f, iat=int(time.time()) - 7200)),
    ("iat a string", lambda f: jwt(f, claims={"iss": f.APNS_TEAM_ID, "iat": str(int(time.time()))})),
    ("alg ES384", lambda f: jwt(f, header={"alg": "ES384", "kid": f.APNS_KEY_ID})),
    ("extra claim", lambda f: jwt(f, claims={"iss": f.APNS_TEAM_ID, "iat": int(time.time()), "exp": 1})),
    ("DER signature", lambda f: sign_jws({"alg": "ES256", "kid": f.APNS_KEY_ID},
                                         {"iss": f.APNS_TEAM_ID, "iat": int(time.time())},
                                         lambda d: f.apns_key.sign(d, ec.ECDSA(hashes.SHA256())))),
    ("padded base64", lambda f: jwt(f) + "=="),
    ("not a JWT", lambda f: "abc.def"),
])
def test_apns_bad_jwt_gets_403_invalid_provider_token(fake, h2, name, token):
    device = device_token("ok-")
    resp = apns_post(h2, device, wake_headers(fake, token(fake)))
    assert resp.status_code == 403 and resp.json() == {"reason": "InvalidProviderToken"}, (name, resp.text)
    assert last(fake, device)["errors"], name


def test_apns_missing_authorization_gets_403(fake, h2):
    device = device_token("ok-")
    resp = apns_post(h2, device, wake_headers(fake, authorization=None))
    assert resp.status_code == 403 and last(fake, device)["errors"]


@pytest.mark.parametrize("name,headers,body", [
    ("wrong topic", {"apns-topic": "app.other"}, APNS_WAKE_BODY),
    ("missing collapse id", {"apns-collapse-id": None}, APNS_WAKE_BODY),
    ("priority 5", {"apns-priority": "5"}, APNS_WAKE_BODY),
    ("expiration in the past", {"apns-expiration": str(int(time.time()) - 10)}, APNS_WAKE_BODY),
    ("background push type", {"apns-push-type": "background"}, APNS_WAKE_BODY),
    ("unexpected key", {}, {**APNS_WAKE_BODY, "from": "WSP-AAAA-BBBB-CCCC"}),
    ("true for 1", {}, {"aps": {"alert": {"loc-key": "WHISPER_WAKE"}, "mutable-content": True, "sound": "default"}}),
    ("content-available", {}, {"aps": {"content-available": 1}}),
    ("not JSON", {}, b"{nope"),
    ("duplicate key", {}, b'{"aps":{},"aps":{"alert":{"loc-key":"WHISPER_WAKE"},"mutable-content":1,"sound":"default"}}'),
])
def test_apns_wake_up_header_or_body_mismatch_gets_400_bad_request(fake, h2, name, headers, body):
    device = device_token("ok-")
    resp = apns_post(h2, device, wake_headers(fake, **headers), body)
    assert resp.status_code == 400 and resp.json() == {"reason": "BadRequest"}, (name, resp.text)
    assert last(fake, device)["errors"], name


@pytest.mark.parametrize("name,headers,body", [
    ("topic without .voip", {"apns-topic": PushFake.APNS_TOPIC}, None),
    ("expiration not 0", {"apns-expiration": str(int(time.time()) + 60)}, None),
    ("caller id in the body", {}, {"aps": {}, "callId": "X", "caller": "WSP-AAAA-BBBB-CCCC"}),
    ("callId not a uuid", {}, {"aps": {}, "callId": "call-1"}),
])
def test_apns_voip_mismatch_gets_400(fake, h2, name, headers, body):
    device = device_token("ok-")
    call_body = body if body is not None else {"aps": {}, "callId": str(uuid.uuid4())}
    if call_body.get("callId") == "X":
        call_body["callId"] = str(uuid.uuid4())
    resp = apns_post(h2, device, voip_headers(fake, **headers), call_body)
    assert resp.status_code == 400, (name, resp.text)
    assert last(fake, device)["errors"], name


def test_apns_token_prefixes_answer_as_the_provider_would(fake, h2):
    headers = wake_headers(fake)
    gone = apns_post(h2, device_token("gone-"), headers)
    assert gone.status_code == 410 and gone.json()["reason"] == "Unregistered"
    assert isinstance(gone.json()["timestamp"], int)
    bad = apns_post(h2, device_token("bad-"), headers)
    assert bad.status_code == 400 and bad.json() == {"reason": "BadDeviceToken"}
    busy = device_token("busy-")
    first, second = apns_post(h2, busy, headers), apns_post(h2, busy, headers)
    assert first.status_code == 429 and first.headers["retry-after"] == "1"
    assert first.json() == {"reason": "TooManyRequests"}
    assert second.status_code == 200
    fail = device_token("fail-")
    for _ in range(2):
        resp = apns_post(h2, fail, headers)
        assert resp.status_code == 500 and resp.json() == {"reason": "InternalServerError"}
    assert all(r["errors"] == [] for r in fake.requests(provider="apns", token=fail))


def test_apns_expired_token_succeeds_only_with_a_new_jwt(fake, h2):
    device = device_token("expired-")
    refused = jwt(fake, iat=int(time.time()) - 60)
    for _ in range(2):
        resp = apns_post(h2, device, wake_headers(fake, refused))
        assert resp.status_code == 403 and resp.json() == {"reason": "ExpiredProviderToken"}, resp.text
    assert apns_post(h2, device, wake_headers(fake, jwt(fake))).status_code == 200


@pytest.fixture
def quick(fake: PushFake):
    with fake.client(timeout=0.5) as client:
        yield client


def test_stall_prefix_holds_the_request(fake, quick):
    device = device_token("stall-")
    started = time.monotonic()
    with pytest.raises(httpx.TimeoutException):
        quick.post(f"/3/device/{device}", headers=wake_headers(fake), content=json.dumps(APNS_WAKE_BODY).encode())
    assert time.monotonic() - started < 2
    record = last(fake, device)
    assert record["status"] is None and record["errors"] == [], record


# --- FCM ----------------------------------------------------------------------------------------------------------

def test_oauth_good_assertion_gets_a_token_that_sends(fake, h2):
    bearer = access_token(fake, h2)
    oauth = fake.requests(provider="oauth")[-1]
    assert oauth["status"] == 200 and oauth["errors"] == [] and bearer in oauth["response"]
    device = device_token("ok-")
    resp = fcm_post(h2, bearer, device)
    assert resp.status_code == 200 and resp.json()["name"].startswith(f"projects/{FCM_PROJECT}/messages/"), resp.text
    record = last(fake, device)
    assert record["provider"] == "fcm" and record["kind"] == "wake" and record["errors"] == [], record
    call = fcm_post(h2, bearer, device, {"type": "call", "callId": str(uuid.uuid4())}, ttl="60s")
    assert call.status_code == 200 and last(fake, device)["kind"] == "call"


@pytest.mark.parametrize("name,assertion", [
    ("another key", lambda f: oauth_assertion(rsa.generate_private_key(public_exponent=65537, key_size=2048), f.account)),
    ("wrong aud", lambda f: oauth_assertion(f.fcm_key, {**f.account, "token_uri": "https://oauth2.googleapis.com/token"})),
    ("wrong kid", lambda f: oauth_assertion(f.fcm_key, {**f.account, "private_key_id": "00"})),
    ("wrong scope", lambda f: oauth_assertion(f.fcm_key, f.account, claims={
        "iss": f.account["client_email"], "scope": "https://www.googleapis.com/auth/cloud-platform",
        "aud": f.account["token_uri"], "iat": int(time.time()), "exp": int(time.time()) + 3600})),
    ("exp two hours on", lambda f: oauth_assertion(f.fcm_key, f.account, claims={
        "iss": f.account["client_email"], "scope": FCM_SCOPE, "aud": f.account["token_uri"],
        "iat": int(time.time()), "exp": int(time.time()) + 7200})),
    ("iat in two hours", lambda f: oauth_assertion(f.fcm_key, f.account, iat=int(time.time()) + 7200)),
    ("HS256 header", lambda f: oauth_assertion(f.fcm_key, f.account, header={
        "alg": "HS256", "typ": "JWT", "kid": f.account["private_key_id"]})),
])
def test_oauth_bad_assertion_gets_invalid_grant(fake, h2, name, assertion):
    resp = h2.post("/token", data={"grant_type": JWT_GRANT, "assertion": assertion(fake)})
    assert resp.status_code == 400 and resp.json()["error"] == "invalid_grant", (name, resp.text)
    assert fake.requests(provider="oauth")[-1]["errors"], name


def test_oauth_wrong_grant_or_content_type_is_refused(fake, h2):
    good = oauth_assertion(fake.fcm_key, fake.account)
    resp = h2.post("/token", data={"grant_type": "client_credentials", "assertion": good})
    assert resp.status_code == 400
    resp = h2.post("/token", json={"grant_type": JWT_GRANT, "assertion": good})
    assert resp.status_code == 400 and fake.requests(provider="oauth")[-1]["errors"]


def test_fcm_needs_an_access_token_issued_by_the_fake(fake, h2):
    device = device_token("ok-")
    for bearer in ("ya29.made-up", ""):
        resp = fcm_post(h2, bearer, device)
        assert resp.status_code == 401 and resp.json()["error"]["status"] == "UNAUTHENTICATED", resp.text


@pytest.mark.parametrize("name,message", [
    ("notification key", lambda d: {"token": d, "android": {"priority": "high", "ttl": "60s"},
                                    "data": {"type": "wake"}, "notification": {"title": "hi"}}),
    ("message id in data", lambda d: {"token": d, "android": {"priority": "high", "ttl": "60s"},
                                      "data": {"type": "wake", "messageId": str(uuid.uuid4())}}),
    ("normal priority", lambda d: {"token": d, "android": {"priority": "normal", "ttl": "60s"},
                                   "data": {"type": "wake"}}),
    ("ttl not seconds", lambda d: {"token": d, "android": {"priority": "high", "ttl": 60}, "data": {"type": "wake"}}),
    ("call ttl 3600s", lambda d: {"token": d, "android": {"priority": "high", "ttl": "3600s"},
                                  "data": {"type": "call", "callId": str(uuid.uuid4())}}),
    ("caller in call data", lambda d: {"token": d, "android": {"priority": "high", "ttl": "60s"},
                                       "data": {"type": "call", "callId": str(uuid.uuid4()), "from": "WSP"}}),
])
def test_fcm_body_mismatch_gets_400_invalid_argument(fake, h2, name, message):
    bearer = access_token(fake, h2)
    device = device_token("ok-")
    resp = fcm_post(h2, bearer, device, message=message(device))
    assert resp.status_code == 400 and resp.json()["error"]["status"] == "INVALID_ARGUMENT", (name, resp.text)
    assert last(fake, device)["errors"], name


def test_fcm_token_prefixes_answer_as_the_provider_would(fake, h2):
    bearer = access_token(fake, h2)

    def error_code(resp):
        return resp.json()["error"]["details"][0]["errorCode"]

    gone = fcm_post(h2, bearer, device_token("gone-"))
    assert gone.status_code == 404 and gone.json()["error"]["status"] == "NOT_FOUND"
    assert error_code(gone) == "UNREGISTERED"
    bad = fcm_post(h2, bearer, device_token("bad-"))
    assert bad.status_code == 400 and error_code(bad) == "INVALID_ARGUMENT"
    busy = device_token("busy-")
    first, second = fcm_post(h2, bearer, busy), fcm_post(h2, bearer, busy)
    assert first.status_code == 429 and first.headers["retry-after"] == "1"
    assert first.json()["error"]["status"] == "RESOURCE_EXHAUSTED" and error_code(first) == "QUOTA_EXCEEDED"
    assert second.status_code == 200
    fail = fcm_post(h2, bearer, device_token("fail-"))
    assert fail.status_code == 500 and fail.json()["error"]["status"] == "INTERNAL"


def test_fcm_expired_revokes_the_access_token_until_a_new_one_is_fetched(fake, h2):
    bearer = access_token(fake, h2)
    device = device_token("expired-")
    assert fcm_post(h2, bearer, device).status_code == 401
    assert fcm_post(h2, bearer, device).status_code == 401, "the revoked token still works"
    assert fcm_post(h2, bearer, device_token("ok-")).status_code == 401, "the revoked token works for others"
    assert fcm_post(h2, access_token(fake, h2), device).status_code == 200


# --- transport and control ----------------------------------------------------------------------------------------

def test_http_1_1_is_refused_and_recorded(fake):
    device = device_token("ok-")
    with fake.client(http2=False) as h1:
        resp = h1.post(f"/3/device/{device}", headers=wake_headers(fake), content=json.dumps(APNS_WAKE_BODY).encode())
    assert resp.http_version == "HTTP/1.1"
    assert resp.status_code == 505, resp.text
    record = last(fake, device)
    assert record["version"] == "1.1" and record["errors"], record


def test_a_client_trusting_only_the_unrelated_ca_refuses_the_fake(fake):
    with fake.client(ca_file=fake.other_ca_file) as client:
        with pytest.raises(httpx.ConnectError) as info:
            client.get("/_fake/requests")
    assert isinstance(info.value.__context__, ssl.SSLCertVerificationError) or "CERTIFICATE_VERIFY_FAILED" in str(info.value)


def test_delete_clears_the_records(fake, h2):
    apns_post(h2, device_token("ok-"), wake_headers(fake))
    assert fake.requests()
    fake.clear()
    assert fake.requests() == []


def test_b64url_has_no_padding():
    assert b64url(b"\xff\xfe") == "__4"
