"""Who a client is (PLAY.md, "Limits"): the one name every per-client limit counts by.

Only what the referee has verified names a client:

* with API keys configured, the key the request carries, checked against each configured key in
  constant time: the client is a digest of that key (the key itself never reaches the store or
  a log). A request without a valid key is then named by its address, and may not create games;
* otherwise, and for a request without a valid key, the client's network address (its peer's,
  or behind trusted proxies the one they forwarded: :mod:`hanafuda_referee.calls.forwarding`),
  an IPv6 address counted by its network (a /64 by default: one host or home gets a whole /64
  and could otherwise draw a fresh address, hence a fresh client, for every request). An
  IPv4-mapped IPv6 address (``::ffff:192.0.2.7``, what a dual-stack socket reports for an IPv4
  peer) counts as its IPv4 address.

A header the referee does not check (an ``x-api-key`` when no key is configured, an
``X-Forwarded-For`` from an untrusted peer) never names a client.

>>> identity = ClientIdentity.of(["k1", "k2"])
>>> identity.client_of(Caller(api_key="k2", address="192.0.2.7")).startswith("key:")
True
>>> identity.client_of(Caller(api_key="guess", address="192.0.2.7"))
'addr:192.0.2.7'
>>> ClientIdentity.of([]).client_of(Caller(api_key="anything", address="2001:db8:1:2:3::9"))
'addr:2001:db8:1:2::/64'
"""

from __future__ import annotations

import hashlib
import hmac
import ipaddress
from collections.abc import Iterable
from dataclasses import dataclass

from hanafuda_referee.calls.caller import Caller

__all__ = ["DEFAULT_IPV6_PREFIX", "ClientIdentity", "address_group"]

#: The IPv6 network one client is counted by, unless configured otherwise.
DEFAULT_IPV6_PREFIX = 64


def address_group(address: str, ipv6_prefix: int = DEFAULT_IPV6_PREFIX) -> str:
    """The name of the client at ``address``: an IPv4 address as it is, an IPv6 address by its
    network of ``ipv6_prefix`` bits (128: the address itself), an IPv4-mapped one as IPv4;
    anything else (a Unix socket's empty address) as it is, or ``unknown``.

    >>> address_group("192.0.2.7"), address_group("::ffff:192.0.2.7")
    ('192.0.2.7', '192.0.2.7')
    >>> address_group("2001:db8::1"), address_group("2001:db8::1", 48)
    ('2001:db8::/64', '2001:db8::/48')
    >>> address_group("2001:db8::1", 128), address_group("")
    ('2001:db8::1', 'unknown')
    """
    try:
        parsed = ipaddress.ip_address(address)
    except ValueError:
        return address or "unknown"
    if isinstance(parsed, ipaddress.IPv6Address):
        mapped = parsed.ipv4_mapped
        if mapped is not None:
            return str(mapped)
        if ipv6_prefix < 128:
            return str(ipaddress.IPv6Network((parsed, ipv6_prefix), strict=False))
    return str(parsed)


def _digest(key: str) -> str:
    return hashlib.sha256(b"client-key|" + key.encode()).hexdigest()[:32]


@dataclass(frozen=True, slots=True)
class ClientIdentity:
    """How this server names its clients: the digests of its API keys (none: keys are not
    checked, and creation needs none) and the IPv6 prefix length an address counts by."""

    #: (key bytes, digest) of each configured key.
    keys: tuple[tuple[bytes, str], ...] = ()
    ipv6_prefix: int = DEFAULT_IPV6_PREFIX

    def __post_init__(self) -> None:
        if not 1 <= self.ipv6_prefix <= 128:
            raise ValueError(f"an IPv6 client prefix is 1 to 128 bits, not {self.ipv6_prefix}")

    @classmethod
    def of(cls, api_keys: Iterable[str], ipv6_prefix: int = DEFAULT_IPV6_PREFIX) -> ClientIdentity:
        """The identity of a server with ``api_keys`` (empty ones are dropped)."""
        keys = tuple((key.encode(), _digest(key)) for key in api_keys if key)
        return cls(keys, ipv6_prefix)

    @property
    def requires_key(self) -> bool:
        """Whether API keys are configured: creation then needs one of them."""
        return bool(self.keys)

    def __repr__(self) -> str:
        # The keys are secrets: a repr may end up in a log or a traceback.
        return f"ClientIdentity(keys={len(self.keys)}, ipv6_prefix={self.ipv6_prefix})"

    def verified_key(self, caller: Caller) -> str | None:
        """The digest of the configured key ``caller`` sent, None when it sent none of them.
        Every configured key is compared, each in constant time, whichever matches: the time
        taken tells nothing of which key, or which part of one, was right."""
        sent = caller.api_key
        if not sent or not self.keys:
            return None
        offered = sent.encode()
        found = None
        for key, digest in self.keys:
            if hmac.compare_digest(offered, key):
                found = digest
        return found

    def client_of(self, caller: Caller) -> str:
        """The name of ``caller``'s client for every per-client limit: ``key:<digest>`` for a
        verified API key, else ``addr:<address or IPv6 network>``. Short, and free of secrets:
        it names store keys."""
        digest = self.verified_key(caller)
        if digest is not None:
            return "key:" + digest
        return "addr:" + address_group(caller.address, self.ipv6_prefix)


#: No API key checked, IPv6 by its /64: the default.
ANONYMOUS = ClientIdentity()
