"""schemas/openapi.yaml against the server: the document is valid OpenAPI 3.1, it names every route
the server registers (Sources/WhisperServer/HTTP/RouteTable+Routes.swift) on the right listener,
and schemathesis drives the live server from it — positive and negative requests, with a valid
user token and admin token — checking that no undocumented status appears, that bodies, content
types and headers (429's Retry-After) match, that no request gets a 5xx, that an endpoint with
security rejects a request without credentials, and that an undeclared method gets 405.

Bounded: WHISPER_OPENAPI_EXAMPLES generated requests per operation (default 20, derandomized so
a run is repeatable), against a server of its own on a private database (the admin operations
ban and review whatever they generate)."""

from __future__ import annotations

import json
import os
import re
import time
import urllib.request

import pytest
import schemathesis
from hypothesis import HealthCheck, settings
from openapi_spec_validator import validate
from openapi_spec_validator.readers import read_from_filename
from schemathesis.checks import not_a_server_error
from schemathesis.specs.openapi.checks import (content_type_conformance, ignored_auth, response_headers_conformance,
                                               response_schema_conformance, status_code_conformance,
                                               unsupported_method)

from conftest import REPO, http_status, start_private_server
from databases import private_database
from helpers import open_ws, run
from identity import Identity, b64, login

OPENAPI = REPO / "schemas" / "openapi.yaml"
ROUTES = REPO / "Sources" / "WhisperServer" / "HTTP" / "RouteTable+Routes.swift"
EXAMPLES = int(os.environ.get("WHISPER_OPENAPI_EXAMPLES", "20"))
CHECKS = [not_a_server_error, status_code_conformance, content_type_conformance, response_schema_conformance,
          response_headers_conformance, ignored_auth, unsupported_method]


def test_openapi_document_is_valid_openapi_3_1():
    document, _ = read_from_filename(str(OPENAPI))
    validate(document)
    assert document["openapi"].startswith("3.1")


def server_routes() -> dict[str, set[tuple[str, str]]]:
    """{listener: {(METHOD, path)}} as RouteTable+Routes.swift registers them."""
    text = ROUTES.read_text()
    public, admin = text.split("static func adminRoutes", 1)
    pattern = re.compile(r'table\.add\("([A-Z]+)", "([^"]+)"')

    def routes(text: str) -> set[tuple[str, str]]:
        # `{name...}` (a parameter spanning `/`) is `{name}` in OpenAPI.
        return {(method, path.replace("...}", "}")) for method, path in pattern.findall(text)}

    return {"public": routes(public), "admin": routes(admin)}


def documented_routes() -> dict[str, set[tuple[str, str]]]:
    document, _ = read_from_filename(str(OPENAPI))
    out: dict[str, set[tuple[str, str]]] = {"public": set(), "admin": set()}
    for path, item in document["paths"].items():
        for method, operation in item.items():
            if method in ("get", "put", "post", "delete", "patch", "head", "options"):
                for listener in operation["tags"]:
                    out[listener].add((method.upper(), path))
    return out


def test_openapi_documents_every_route_of_each_listener_and_no_other():
    assert documented_routes() == server_routes()


class Api:
    """The server the schemathesis run drives, and the credentials it sends."""

    def __init__(self, server, user_token: str, other: str, banned: str):
        self.server = server
        self.user_token = user_token
        self.other = other  # a registered identity the user may report and look up
        self.banned = banned  # a registered identity under a ban

    def base_url(self, listener: str) -> str:
        return self.server.http_url("", admin=listener == "admin")

    def headers(self, operation) -> dict[str, str]:
        schemes = {name for requirement in operation.definition.raw.get("security", []) for name in requirement}
        if "adminBearer" in schemes:
            return {"Authorization": f"Bearer {self.server.admin_token}"}
        if "userBearer" in schemes:
            return {"Authorization": f"Bearer {self.user_token}"}
        return {}

    def call(self, method: str, path: str, body: dict | None = None, token: str | None = None,
             admin: bool = False) -> tuple[int, bytes]:
        req = urllib.request.Request(self.server.http_url(path, admin=admin), method=method,
                                     data=None if body is None else json.dumps(body).encode(),
                                     headers={"Authorization": f"Bearer {token or self.user_token}",
                                              "Content-Type": "application/json"})
        try:
            with urllib.request.urlopen(req, timeout=10) as resp:
                return resp.status, resp.read()
        except urllib.error.HTTPError as e:
            return e.code, e.read()


@pytest.fixture(scope="module")
def api(server_config):
    """A server of its own with some state for the GET routes to list: a contacts backup, an
    open and a reviewed report, a ban, and so audit events. BACKUP is raised so that the
    backup routes answer more than 429; REPORT keeps its default, so 429 shows up too (the
    explicit test that files a report is written, so runs, before the generated ones)."""
    with private_database(server_config["database_url"], "whisper_openapi") as database_url:
        # The LocalStack S3 of scripts/test, so the attachment routes answer for real.
        s3 = {"WHISPER_S3_ENDPOINT": os.environ["WHISPER_TEST_S3_ENDPOINT"], "WHISPER_S3_BUCKET":
              os.environ["WHISPER_TEST_S3_BUCKET"], "WHISPER_S3_ACCESS_KEY": "test", "WHISPER_S3_SECRET_KEY": "test",
              "WHISPER_S3_REGION": "us-east-1", "WHISPER_S3_PATH_STYLE": "1"} \
            if os.environ.get("WHISPER_TEST_S3_ENDPOINT") else {}
        server = start_private_server(server_config, "openapi", database_url, WHISPER_RATE_BACKUP="1000/3600",
                                      WHISPER_RATE_BACKUP_IP="1000/3600", **s3)
        try:
            # /ready is 503 until the node's first heartbeat and readiness canary are through: the
            # generated GET /ready must meet a node that finished starting.
            deadline = time.monotonic() + 15
            while http_status(server.http_url("/ready"), timeout=5) != 200:
                assert time.monotonic() < deadline, "/ready not 200 within 15 s\n" + server.log_tail()
                time.sleep(0.1)
            async def register() -> list[tuple[str, str]]:
                out = []
                for ident in (Identity(), Identity(), Identity()):
                    async with open_ws(server.ws_url) as ws:
                        out.append(await login(ws, ident))
                return out

            (me, token), (other, _), (third, _) = run(register())
            api = Api(server, token, other, third)
            backup = {"nonce": b64(bytes(24)), "ciphertext": b64(b"contacts"), "cryptoVersion": 1,
                      "protocolVersion": 1}
            assert api.call("PUT", "/backup/contacts", backup)[0] == 200
            for reported in (third, third):
                status, body = api.call("POST", "/reports", {"whisperId": reported, "reason": "spam"})
                assert status == 201, body
            report_id = json.loads(body)["id"]
            status, body = api.call("POST", f"/admin/reports/{report_id}/review", {"action": "dismiss"},
                                    token=server.admin_token, admin=True)
            assert status == 200, body
            status, body = api.call("POST", "/admin/ban", {"whisperId": third, "reason": "spam"},
                                    token=server.admin_token, admin=True)
            assert status == 200, body
            yield api
        finally:
            code = server.terminate()
        assert code == 0, server.log_tail()


# The document is static, so it is loaded at import; each call names its listener's base URL.
schema = schemathesis.openapi.from_path(OPENAPI)


def test_openapi_answers_about_registered_identities_match_the_document(api):
    """What generated ids cannot reach (they are never registered): a key lookup that finds
    the identity (active or banned), and a report that is filed."""
    keys = schema["/users/{whisperId}/keys"]["GET"]
    cases = [(keys.Case(path_parameters={"whisperId": api.other}), 200),
             (keys.Case(path_parameters={"whisperId": api.banned}), 200),
             (schema["/reports"]["POST"].Case(body={"whisperId": api.other, "reason": "other"}), 201)]
    for case, expected in cases:
        response = case.call_and_validate(base_url=api.base_url("public"), headers=api.headers(case.operation),
                                          checks=CHECKS, timeout=10)
        assert response.status_code == expected, response.text


@schema.parametrize()
@settings(max_examples=EXAMPLES, deadline=None, database=None, derandomize=True,
          suppress_health_check=list(HealthCheck))
def test_openapi_every_response_of_the_live_server_is_documented(case, api):
    for listener in case.operation.tags or ():
        case.call_and_validate(base_url=api.base_url(listener), headers=api.headers(case.operation),
                               checks=CHECKS, timeout=10)
