"""The client's address behind trusted proxies: who a request comes from when a load balancer
stands between the client and the referee.

Behind a proxy every request comes from the proxy's address, and the per-client limits (the
creation rate, the watchers per client) would then count every client as one. A proxy the
operator trusts (``--trusted-proxy``) says who its client was in ``X-Forwarded-For`` (an HTTP
header, or gRPC metadata of the same name); nobody else is believed, since any client can send
that header.

The list is read from its right end, where the nearest proxy appended its own peer: each
address that is a trusted proxy passes the question to the one before it, and the first address
that is not a trusted proxy is the client. A request from an untrusted peer keeps its peer's
address, whatever it says.
"""

from __future__ import annotations

import ipaddress
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

__all__ = ["NO_PROXIES", "TrustedProxies"]

_Network = ipaddress.IPv4Network | ipaddress.IPv6Network


@dataclass(frozen=True, slots=True)
class TrustedProxies:
    """The networks whose peers are believed about their clients (none: nobody is).

    >>> proxies = TrustedProxies.parse(["10.0.0.0/8", "192.0.2.1"])
    >>> proxies.client_address("10.1.2.3", ["203.0.113.9"])
    '203.0.113.9'
    >>> proxies.client_address("198.51.100.4", ["203.0.113.9"])  # not a proxy: not believed
    '198.51.100.4'
    >>> proxies.client_address("10.1.2.3", ["1.1.1.1, 203.0.113.9", "192.0.2.1"])
    '203.0.113.9'
    >>> TrustedProxies().client_address("10.1.2.3", ["203.0.113.9"])
    '10.1.2.3'
    """

    networks: tuple[_Network, ...] = ()

    @classmethod
    def parse(cls, entries: Iterable[str]) -> TrustedProxies:
        """Addresses and networks in CIDR notation (``10.0.0.0/8``, ``::1``); a bad one raises
        ValueError.

        >>> TrustedProxies.parse(["10.0.0.7/8"])
        Traceback (most recent call last):
        ...
        ValueError: 10.0.0.7/8 has host bits set
        """
        return cls(tuple(ipaddress.ip_network(entry.strip()) for entry in entries if entry.strip()))

    def __bool__(self) -> bool:
        return bool(self.networks)

    def trusts(self, address: str) -> bool:
        """Whether ``address`` is one of the trusted proxies (an address that does not parse is
        not)."""
        try:
            parsed = ipaddress.ip_address(address)
        except ValueError:
            return False
        if isinstance(parsed, ipaddress.IPv6Address) and parsed.ipv4_mapped is not None:
            parsed = parsed.ipv4_mapped
        return any(parsed in network for network in self.networks)

    def client_address(self, peer: str, forwarded_for: Sequence[str]) -> str:
        """The client of a request from ``peer`` that came with the ``X-Forwarded-For`` values
        ``forwarded_for`` (each a comma-separated list, in the order received).

        An entry that is not an address ends the walk at the proxy that wrote it: its client is
        unknown, and the proxy stands for it.

        >>> proxies = TrustedProxies.parse(["10.0.0.0/8"])
        >>> proxies.client_address("10.0.0.1", ["unknown"]), proxies.client_address("10.0.0.1", [])
        ('10.0.0.1', '10.0.0.1')
        >>> proxies.client_address("10.0.0.1", ["[2001:db8::1]:4711, 10.0.0.2"])
        '2001:db8::1'
        """
        client = peer
        if not self.networks or not self.trusts(peer):
            return client
        entries = [entry.strip() for value in forwarded_for for entry in value.split(",")]
        for entry in reversed(entries):
            address = _address_of(entry)
            if address is None:
                return client
            client = address
            if not self.trusts(address):
                return client
        return client


def _address_of(entry: str) -> str | None:
    """The address of one ``X-Forwarded-For`` entry (a bare address, ``[v6]:port`` or
    ``v4:port`` as some proxies write them), None when it is not one.

    >>> _address_of("203.0.113.9:1234"), _address_of("[::1]:80"), _address_of("::1")
    ('203.0.113.9', '::1', '::1')
    >>> _address_of("unknown") is None
    True
    """
    candidate = entry
    if candidate.startswith("["):
        candidate = candidate[1:].partition("]")[0]
    elif candidate.count(":") == 1:
        candidate = candidate.partition(":")[0]
    try:
        return str(ipaddress.ip_address(candidate))
    except ValueError:
        return None


#: Nobody is believed: every request is its peer's (the default).
NO_PROXIES = TrustedProxies()
