"""TLS on the listeners (docs/operations.md "TLS"), checked with real clients: Python's `ssl`, `openssl s_client`
and `websockets` over wss. TLS 1.2 and 1.3 only, forward-secret AEAD suites only, and the certificate and key
reloaded on SIGHUP without dropping a connection (a file that does not load keeps the current certificate)."""

from __future__ import annotations

import asyncio
import datetime
import ipaddress
import json
import pathlib
import shutil
import signal
import socket
import ssl
import subprocess
import time

import pytest
from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.x509.oid import NameOID
from websockets.asyncio.client import connect

from conftest import Server
from helpers import run


def _name(text: str) -> x509.Name:
    return x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, text)])


def _certificate(subject: str, key, issuer_name: x509.Name, issuer_key, ca: bool) -> x509.Certificate:
    now = datetime.datetime.now(datetime.timezone.utc)
    builder = (x509.CertificateBuilder().subject_name(_name(subject)).issuer_name(issuer_name)
               .public_key(key.public_key()).serial_number(x509.random_serial_number())
               .not_valid_before(now - datetime.timedelta(minutes=5)).not_valid_after(now + datetime.timedelta(days=1))
               .add_extension(x509.BasicConstraints(ca=ca, path_length=None), critical=True))
    if not ca:
        builder = builder.add_extension(x509.SubjectAlternativeName(
            [x509.DNSName("localhost"), x509.IPAddress(ipaddress.ip_address("127.0.0.1"))]), critical=False)
    return builder.sign(issuer_key, hashes.SHA256())


class Pki:
    """A throwaway CA and leaves; `issue(name)` writes a leaf's chain and key where the server reads them."""

    def __init__(self, folder: pathlib.Path):
        self.folder = folder
        self.ca_key = ec.generate_private_key(ec.SECP256R1())
        self.ca = _certificate("whisper test CA", self.ca_key, _name("whisper test CA"), self.ca_key, ca=True)
        self.ca_file = folder / "ca.pem"
        self.ca_file.write_bytes(self.ca.public_bytes(serialization.Encoding.PEM))
        self.cert_file, self.key_file = folder / "server.pem", folder / "server.key"

    def issue(self, subject: str) -> x509.Certificate:
        key = ec.generate_private_key(ec.SECP256R1())
        cert = _certificate(subject, key, self.ca.subject, self.ca_key, ca=False)
        self.cert_file.write_bytes(cert.public_bytes(serialization.Encoding.PEM))
        self.key_file.write_bytes(key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8,
                                                    serialization.NoEncryption()))
        return cert

    def client_context(self) -> ssl.SSLContext:
        return ssl.create_default_context(cafile=str(self.ca_file))


def handshake(port: int, context: ssl.SSLContext) -> tuple[str, str, bytes]:
    """(protocol version, cipher, DER certificate) of one handshake with the listener."""
    with socket.create_connection(("127.0.0.1", port), timeout=5) as raw:
        with context.wrap_socket(raw, server_hostname="localhost") as tls:
            return tls.version() or "", tls.cipher()[0], tls.getpeercert(binary_form=True) or b""


def serial_of(der: bytes) -> int:
    return x509.load_der_x509_certificate(der).serial_number


@pytest.fixture(scope="module")
def tls_server(server_config, tmp_path_factory):
    pki = Pki(tmp_path_factory.mktemp("tls"))
    first = pki.issue("whisper relay 1")
    server = Server(server_config["binary"], "tls", False, server_config["log_dir"], server_config["database_url"],
                    server_config["redis_url"])
    server.env.update({"WHISPER_TLS_CERT": str(pki.cert_file), "WHISPER_TLS_KEY": str(pki.key_file)})
    server._log = (open(server.log_path, "wb"), open(server.stderr_path, "wb"))
    server.proc = subprocess.Popen([str(server.binary), "serve"], env=server.env, stdin=subprocess.DEVNULL,
                                   stdout=server._log[0], stderr=server._log[1], start_new_session=True)
    deadline = time.monotonic() + 60
    while True:
        try:
            handshake(server.public_port, pki.client_context())
            break
        except OSError:
            if server.proc.poll() is not None or time.monotonic() > deadline:
                pytest.fail("TLS server did not start\n" + server.log_tail(), pytrace=False)
            time.sleep(0.1)
    try:
        yield server, pki, first
    finally:
        server.terminate()


def log_events(server: Server, event: str) -> list[dict]:
    lines = server.log_path.read_text(errors="replace").splitlines()
    return [record for record in map(json.loads, filter(None, lines)) if record.get("event") == event]


def wait_for_event(server: Server, event: str, count: int, timeout: float = 10) -> None:
    deadline = time.monotonic() + timeout
    while len(log_events(server, event)) < count:
        assert time.monotonic() < deadline, f"no {event} in the log\n" + server.log_tail()
        time.sleep(0.05)


def test_tls12_and_tls13_handshake_with_forward_secret_aead_suites(tls_server):
    server, pki, first = tls_server
    version, cipher, der = handshake(server.public_port, pki.client_context())
    assert version == "TLSv1.3"
    assert serial_of(der) == first.serial_number
    tls12 = pki.client_context()
    tls12.maximum_version = ssl.TLSVersion.TLSv1_2
    version, cipher, _ = handshake(server.admin_port, tls12)
    assert version == "TLSv1.2"
    assert cipher.startswith("ECDHE-") and ("GCM" in cipher or "CHACHA20" in cipher), cipher


def test_tls11_and_weak_tls12_suites_are_refused_by_the_server(tls_server):
    server, pki, _ = tls_server
    old = pki.client_context()
    old.set_ciphers("DEFAULT:@SECLEVEL=0")  # so that this client offers TLS 1.0/1.1 at all
    old.minimum_version, old.maximum_version = ssl.TLSVersion.TLSv1, ssl.TLSVersion.TLSv1_1
    with pytest.raises(ssl.SSLError) as refused:
        handshake(server.public_port, old)
    # The server's alert, not a client-side refusal to try.
    assert "ALERT_PROTOCOL_VERSION" in str(refused.value).upper(), refused.value
    weak = pki.client_context()
    weak.maximum_version = ssl.TLSVersion.TLSv1_2
    weak.set_ciphers("AES128-SHA:AES256-SHA256:@SECLEVEL=0")  # RSA key exchange, CBC: no forward secrecy
    with pytest.raises(ssl.SSLError) as refused:
        handshake(server.public_port, weak)
    assert "ALERT_HANDSHAKE_FAILURE" in str(refused.value).upper(), refused.value


def test_openssl_s_client_verifies_the_chain(tls_server):
    server, pki, _ = tls_server
    openssl = shutil.which("openssl")
    assert openssl, "openssl (Debian package openssl) is needed"
    result = subprocess.run([openssl, "s_client", "-connect", f"127.0.0.1:{server.public_port}", "-CAfile",
                             str(pki.ca_file), "-verify_return_error", "-brief"],
                            input=b"", capture_output=True, timeout=15)
    output = (result.stdout + result.stderr).decode(errors="replace")
    assert result.returncode == 0, output
    assert "Verification: OK" in output, output


def test_sighup_reloads_the_certificate_without_dropping_a_wss_connection(tls_server):
    server, pki, first = tls_server

    async def body():
        async with connect(f"wss://localhost:{server.public_port}/ws", ssl=pki.client_context()) as ws:
            await ws.send(json.dumps({"type": "ping", "requestId": "before", "payload": {}}))
            assert json.loads(await ws.recv())["type"] == "pong"
            second = pki.issue("whisper relay 2")
            reloads = len(log_events(server, "tls_reloaded"))
            server.proc.send_signal(signal.SIGHUP)
            await asyncio.to_thread(wait_for_event, server, "tls_reloaded", reloads + 1)
            # New connections get the new certificate …
            _, _, der = handshake(server.public_port, pki.client_context())
            assert serial_of(der) == second.serial_number != first.serial_number
            # … and the open one is still served.
            await ws.send(json.dumps({"type": "ping", "requestId": "after", "payload": {}}))
            pong = json.loads(await ws.recv())
            assert (pong["type"], pong["requestId"]) == ("pong", "after")

            # A key file that does not load keeps the current certificate.
            pki.key_file.write_text("not a key\n")
            failures = len(log_events(server, "tls_reload_failed"))
            server.proc.send_signal(signal.SIGHUP)
            await asyncio.to_thread(wait_for_event, server, "tls_reload_failed", failures + 1)
            _, _, der = handshake(server.public_port, pki.client_context())
            assert serial_of(der) == second.serial_number
            await ws.send(json.dumps({"type": "ping", "requestId": "still", "payload": {}}))
            assert json.loads(await ws.recv())["requestId"] == "still"

    run(body(), timeout=30)
    assert server.proc.poll() is None, "the server died on SIGHUP\n" + server.log_tail()
