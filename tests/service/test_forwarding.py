"""Whose address a request is when proxies stand between the client and the referee
(calls/forwarding.py): only a trusted proxy is believed, read from the right."""

from __future__ import annotations

import pytest

from hanafuda_referee.calls.forwarding import NO_PROXIES, TrustedProxies
from hanafuda_referee.grpc.server import caller_from_metadata

PROXIES = TrustedProxies.parse(["10.0.0.0/8", "2001:db8::/32"])


@pytest.mark.parametrize(
    ("peer", "forwarded", "client"),
    [
        # Nothing forwarded, or an untrusted peer: the peer.
        ("10.0.0.1", [], "10.0.0.1"),
        ("198.51.100.1", ["203.0.113.9"], "198.51.100.1"),
        # One trusted hop.
        ("10.0.0.1", ["203.0.113.9"], "203.0.113.9"),
        # Two trusted hops, in one header or two; the client's own entries are not believed.
        ("10.0.0.1", ["192.0.2.66, 203.0.113.9, 10.9.9.9"], "203.0.113.9"),
        ("10.0.0.1", ["192.0.2.66, 203.0.113.9", "10.9.9.9"], "203.0.113.9"),
        # IPv6, with brackets and ports as some proxies write them; IPv4 mapped into IPv6.
        ("2001:db8::5", ["[2001:db8:ffff::1]:443, 2001:db8::9"], "2001:db8:ffff::1"),
        ("::ffff:10.0.0.1", ["203.0.113.9:5555"], "203.0.113.9"),
        # Every hop trusted: the farthest one known.
        ("10.0.0.1", ["10.1.1.1, 10.2.2.2"], "10.1.1.1"),
        # A trusted proxy that could not tell (or wrote garbage) stands for its client.
        ("10.0.0.1", ["203.0.113.9, unknown"], "10.0.0.1"),
        ("10.0.0.1", ["203.0.113.9, 10.2.2.2, garbage"], "10.0.0.1"),
        ("10.0.0.1", ["garbage, 10.2.2.2"], "10.2.2.2"),
        ("10.0.0.1", [""], "10.0.0.1"),
    ],
)
def test_the_client_is_the_first_untrusted_address_from_the_right(
    peer: str, forwarded: list[str], client: str
) -> None:
    assert PROXIES.client_address(peer, forwarded) == client


def test_without_trusted_proxies_nobody_is_believed() -> None:
    assert not NO_PROXIES and PROXIES
    assert NO_PROXIES.client_address("10.0.0.1", ["203.0.113.9"]) == "10.0.0.1"
    assert TrustedProxies.parse(["", " "]) == NO_PROXIES


def test_bad_networks_are_refused() -> None:
    for bad in ("10.0.0.1/8", "proxy.example", "10.0.0.0/33"):
        with pytest.raises(ValueError, match=r"\S"):
            TrustedProxies.parse([bad])


def test_grpc_metadata_names_the_client_only_through_a_trusted_peer() -> None:
    metadata = [("x-forwarded-for", "192.0.2.66"), ("x-forwarded-for", "203.0.113.9")]
    trusted, refusal = caller_from_metadata(metadata, address="10.0.0.1", proxies=PROXIES)
    assert refusal is None and trusted.address == "203.0.113.9"
    untrusted, _ = caller_from_metadata(metadata, address="198.51.100.1", proxies=PROXIES)
    assert untrusted.address == "198.51.100.1"
    default, _ = caller_from_metadata(metadata, address="10.0.0.1")
    assert default.address == "10.0.0.1"
