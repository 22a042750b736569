"""Who a client is (PLAY.md, "Limits"): a verified API key, else the address, an IPv6 address by
its network (configurable), an IPv4-mapped one as IPv4; an unchecked header names nobody."""

from __future__ import annotations

import re

import pytest

from hanafuda_referee.calls.caller import Caller
from hanafuda_referee.config import Config
from hanafuda_referee.hosting.identity import ClientIdentity, address_group


@pytest.mark.parametrize(
    ("address", "prefix", "group"),
    [
        ("192.0.2.7", 64, "192.0.2.7"),
        ("::ffff:192.0.2.7", 64, "192.0.2.7"),
        ("::ffff:192.0.2.7", 128, "192.0.2.7"),
        ("2001:db8:1:2:aaaa:bbbb:cccc:dddd", 64, "2001:db8:1:2::/64"),
        ("2001:db8:1:2::1", 64, "2001:db8:1:2::/64"),
        ("2001:db8:1:3::1", 64, "2001:db8:1:3::/64"),
        ("2001:db8:1:2::1", 56, "2001:db8:1::/56"),
        ("2001:db8:1:ff::1", 56, "2001:db8:1::/56"),
        ("2001:db8:1:2::1", 48, "2001:db8:1::/48"),
        ("2001:db8:1:2::1", 128, "2001:db8:1:2::1"),
        ("2001:DB8:0:0::1", 128, "2001:db8::1"),
        ("::1", 64, "::/64"),
        ("", 64, "unknown"),
        ("not-an-address", 64, "not-an-address"),
    ],
)
def test_addresses_are_grouped(address: str, prefix: int, group: str) -> None:
    assert address_group(address, prefix) == group


def test_every_address_of_one_64_is_one_client_and_the_next_64_another() -> None:
    identity = ClientIdentity.of([])
    clients = {identity.client_of(Caller(address=f"2001:db8:0:1::{n:x}")) for n in range(1, 500)}
    assert clients == {"addr:2001:db8:0:1::/64"}
    assert identity.client_of(Caller(address="2001:db8:0:2::1")) != clients.pop()
    wider = ClientIdentity.of([], ipv6_prefix=48)
    assert wider.client_of(Caller(address="2001:db8:0:1::1")) == wider.client_of(
        Caller(address="2001:db8:0:ffff::1")
    )


def test_without_keys_configured_a_key_names_nobody() -> None:
    identity = ClientIdentity.of([])
    assert not identity.requires_key
    names = {identity.client_of(Caller(api_key=f"k{n}", address="192.0.2.7")) for n in range(9)}
    assert names == {"addr:192.0.2.7"}
    assert identity.verified_key(Caller(api_key="k1")) is None


def test_with_keys_configured_only_a_configured_key_names_a_client() -> None:
    identity = ClientIdentity.of(["first-key", "", "second-key"])
    assert identity.requires_key
    assert len(identity.keys) == 2
    one = identity.client_of(Caller(api_key="first-key", address="192.0.2.7"))
    assert one == identity.client_of(Caller(api_key="first-key", address="198.51.100.1"))
    # A digest: the key never reaches the store or a log.
    assert re.fullmatch(r"key:[0-9a-f]{32}", one)
    assert "first-key" not in repr(identity)
    two = identity.client_of(Caller(api_key="second-key", address="192.0.2.7"))
    assert two != one and two.startswith("key:")
    for wrong in ("first-ke", "first-key ", "FIRST-KEY", "", None):
        caller = Caller(api_key=wrong, address="192.0.2.7")
        assert identity.verified_key(caller) is None
        assert identity.client_of(caller) == "addr:192.0.2.7"


def test_the_settings() -> None:
    config = Config.load(None, {})
    assert (config.ipv6_client_prefix, config.api_keys) == (64, ())
    config = Config.load(None, {"HANAFUDA_IPV6_CLIENT_PREFIX": "56", "HANAFUDA_API_KEY": "a, b,,c"})
    assert (config.ipv6_client_prefix, config.api_keys) == (56, ("a", "b", "c"))
    assert "a, b" not in repr(config)
    for bad in ("0", "129"):
        with pytest.raises(ValueError, match="IPv6 client prefix"):
            Config.load(None, {"HANAFUDA_IPV6_CLIENT_PREFIX": bad})
    with pytest.raises(ValueError, match="IPv6 client prefix"):
        ClientIdentity.of([], ipv6_prefix=0)
