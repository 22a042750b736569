"""TLS on both ports of a real process, with certificates this test makes: HTTPS and gRPC over
TLS serve the API, plain text is refused on both, and with a client CA a gRPC client must show
a certificate that CA signed (mutual TLS)."""

from __future__ import annotations

import datetime
import ipaddress
import ssl
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import grpc
import httpx
import pytest
from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.x509.oid import NameOID
from hanafuda.v1 import rules_pb2, service_pb2, service_pb2_grpc

from hanafuda_referee.config import Config

from .processes import RefereeProcess

REQUEST = service_pb2.CreateGameRequest(kind=rules_pb2.GAME_KIND_KOI_KOI, players=["ann", "bob"])


@dataclass(frozen=True)
class Issued:
    """A certificate and its key, as PEM bytes."""

    certificate: bytes
    key: bytes


def _issue(name: str, issuer: Issued | None, *, ca: bool = False, server: bool = False) -> Issued:
    """A certificate for ``name``, signed by ``issuer`` (itself when None), valid for a day."""
    key = ec.generate_private_key(ec.SECP256R1())
    subject = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, name)])
    if issuer is None:
        signer, issuer_name = key, subject
    else:
        loaded = serialization.load_pem_private_key(issuer.key, password=None)
        assert isinstance(loaded, ec.EllipticCurvePrivateKey)
        signer = loaded
        issuer_name = x509.load_pem_x509_certificate(issuer.certificate).subject
    now = datetime.datetime.now(datetime.UTC)
    builder = (
        x509.CertificateBuilder()
        .subject_name(subject)
        .issuer_name(issuer_name)
        .public_key(key.public_key())
        .serial_number(x509.random_serial_number())
        .not_valid_before(now - datetime.timedelta(minutes=5))
        .not_valid_after(now + datetime.timedelta(days=1))
        .add_extension(x509.BasicConstraints(ca=ca, path_length=None), critical=True)
    )
    if server:
        builder = builder.add_extension(
            x509.SubjectAlternativeName(
                [x509.DNSName("localhost"), x509.IPAddress(ipaddress.ip_address("127.0.0.1"))]
            ),
            critical=False,
        )
    certificate = builder.sign(signer, hashes.SHA256())
    return Issued(
        certificate.public_bytes(serialization.Encoding.PEM),
        key.private_bytes(
            serialization.Encoding.PEM,
            serialization.PrivateFormat.PKCS8,
            serialization.NoEncryption(),
        ),
    )


@dataclass(frozen=True)
class Pki:
    ca: Issued
    server: Issued
    client: Issued
    stranger: Issued  # signed by another CA


@pytest.fixture(scope="module")
def pki() -> Pki:
    ca = _issue("test CA", None, ca=True)
    other = _issue("another CA", None, ca=True)
    return Pki(
        ca=ca,
        server=_issue("localhost", ca, server=True),
        client=_issue("a client", ca),
        stranger=_issue("a stranger", other),
    )


def _write(directory: Path, name: str, content: bytes) -> str:
    path = directory / name
    path.write_bytes(content)
    return str(path)


@pytest.fixture(scope="module")
def tls_referee(tmp_path_factory: pytest.TempPathFactory, pki: Pki) -> Iterator[RefereeProcess]:
    directory = tmp_path_factory.mktemp("tls")
    env = {
        "HANAFUDA_TLS_CERT": _write(directory, "server.pem", pki.server.certificate),
        "HANAFUDA_TLS_KEY": _write(directory, "server.key", pki.server.key),
        "HANAFUDA_TLS_CLIENT_CA": _write(directory, "ca.pem", pki.ca.certificate),
    }
    trust = ssl.create_default_context(cadata=pki.ca.certificate.decode())
    with RefereeProcess(directory, env=env, name="tls", tls=trust) as process:
        yield process


def _https(process: RefereeProcess) -> httpx.Client:
    assert process.tls is not None
    return httpx.Client(base_url=process.http_url, verify=process.tls)


def _grpc_channel(process: RefereeProcess, pki: Pki, client: Issued | None) -> grpc.Channel:
    credentials = grpc.ssl_channel_credentials(
        root_certificates=pki.ca.certificate,
        private_key=None if client is None else client.key,
        certificate_chain=None if client is None else client.certificate,
    )
    return grpc.secure_channel(process.grpc_target, credentials)


def test_https_serves_the_api_and_plain_http_is_refused(tls_referee: RefereeProcess) -> None:
    with _https(tls_referee) as client:
        assert client.get("/healthz").status_code == 200
        created = client.post(
            "/v1/games", json={"kind": "GAME_KIND_KOI_KOI", "players": ["a", "b"]}
        )
        assert created.status_code == 200
        assert len(created.json()["playerTokens"]) == 2
    with pytest.raises(httpx.HTTPError):
        httpx.get(f"http://127.0.0.1:{tls_referee.http_port}/healthz", timeout=5)


def test_grpc_over_mutual_tls(tls_referee: RefereeProcess, pki: Pki) -> None:
    with _grpc_channel(tls_referee, pki, pki.client) as channel:
        answer = service_pb2_grpc.RefereeServiceStub(channel).CreateGame(REQUEST, timeout=10)
        assert len(answer.player_tokens) == 2
    # Without a certificate, or with one another CA signed, no call gets through.
    for client in (None, pki.stranger):
        with (
            _grpc_channel(tls_referee, pki, client) as channel,
            pytest.raises(grpc.RpcError) as raised,
        ):
            service_pb2_grpc.RefereeServiceStub(channel).CreateGame(REQUEST, timeout=5)
        assert raised.value.code() == grpc.StatusCode.UNAVAILABLE
    # Plain text is refused too.
    with grpc.insecure_channel(tls_referee.grpc_target) as channel, pytest.raises(grpc.RpcError):
        service_pb2_grpc.RefereeServiceStub(channel).CreateGame(REQUEST, timeout=5)


def test_a_tls_file_that_cannot_be_read_stops_the_start(tmp_path: Path, pki: Pki) -> None:
    env = {
        "HANAFUDA_TLS_CERT": _write(tmp_path, "server.pem", pki.server.certificate),
        "HANAFUDA_TLS_KEY": str(tmp_path / "missing.key"),
    }
    process = RefereeProcess(tmp_path, env=env, name="no-key")
    assert process.exit_status_at_start() == 1
    assert "cannot read the TLS files" in process.log_text()


@pytest.mark.parametrize(
    "env",
    [
        {"HANAFUDA_TLS_CERT": "server.pem"},
        {"HANAFUDA_TLS_KEY": "server.key"},
        {"HANAFUDA_TLS_CLIENT_CA": "ca.pem"},
    ],
)
def test_tls_settings_that_cannot_work_are_refused(env: dict[str, str]) -> None:
    with pytest.raises(ValueError, match="TLS"):
        Config.load(None, env)
