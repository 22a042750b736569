"""Creation request ids (PLAY.md): a ``CreateGame`` retried with the same request id, by the same
client, answers its first outcome — the same game and the same seat tokens — instead of
creating another game.

The answer holds the seats' tokens, which the store otherwise keeps only as hashes. So what is
kept for a retry is sealed with the request id: the store holds it under a digest of the client
and the request id, its tokens encrypted with a keystream derived from both (SHAKE-256). Reading
the store alone gives no token; a client needs its own request id, and must be the same client
(the same API key, else the same address), to get them back. A request id is then a secret of
its client's for as long as the retry window lasts (the answer time-to-live): make it
unguessable, a UUID for instance. This namespace is not a limit: a key nobody checked only
narrows it, and counts for nothing else (see :mod:`.identity`).

>>> from hanafuda_referee.calls.caller import Caller
>>> caller = Caller(address="192.0.2.7")
>>> record = seal(caller, "d2c8e1f0", b"fp", "game-1", ["tok-a", "tok-b"])
>>> unseal(caller, "d2c8e1f0", record)
(b'fp', 'game-1', ['tok-a', 'tok-b'])
>>> unseal(Caller(address="192.0.2.8"), "d2c8e1f0", record)[2] == ["tok-a", "tok-b"]
False
"""

from __future__ import annotations

import hashlib

from hanafuda.v1 import service_pb2

from hanafuda_referee.calls.caller import Caller
from hanafuda_referee.errors import Reason, RulesError
from hanafuda_referee.varint import Reader, Writer

__all__ = ["creation_key", "fingerprint", "seal", "unseal"]

_FORMAT = 1


def _client(caller: Caller) -> bytes:
    """The namespace of ``caller``'s creation request ids: a digest of the API key it sent, else
    its exact address (spelled as the creation buckets once were: kept records stay valid)."""
    if caller.api_key:
        return b"create:key:" + hashlib.sha256(caller.api_key.encode()).hexdigest()[:32].encode()
    return b"create:addr:" + (caller.address or "unknown").encode()


def creation_key(caller: Caller, request_id: str) -> str:
    """The store key of ``caller``'s creation with ``request_id``: a digest, so that neither the
    API key nor the request id reaches the store."""
    digest = hashlib.sha256(b"creation|" + _client(caller) + b"|" + request_id.encode())
    return "creation:" + digest.hexdigest()[:40]


def fingerprint(request: service_pb2.CreateGameRequest) -> bytes:
    """A digest of what a creation asks for, its request id aside: a retry must ask the same."""
    copy = service_pb2.CreateGameRequest()
    copy.CopyFrom(request)
    copy.ClearField("request_id")
    return hashlib.sha256(copy.SerializeToString(deterministic=True)).digest()[:16]


def _keystream(caller: Caller, request_id: str, size: int) -> bytes:
    seed = b"tokens|" + _client(caller) + b"|" + request_id.encode()
    return hashlib.shake_256(seed).digest(size)


def seal(caller: Caller, request_id: str, digest: bytes, game_id: str, tokens: list[str]) -> bytes:
    """What the store keeps of a creation for its retries."""
    plain = "\n".join(tokens).encode()
    sealed = bytes(
        a ^ b for a, b in zip(plain, _keystream(caller, request_id, len(plain)), strict=True)
    )
    w = Writer()
    w.uint(_FORMAT)
    w.small_ints(list(digest))
    w.text(game_id)
    w.small_ints(list(sealed))
    return w.getvalue()


def unseal(caller: Caller, request_id: str, record: bytes) -> tuple[bytes, str, list[str]]:
    """The request's fingerprint, the game id and the tokens :func:`seal` kept (tokens come
    out wrong for another client or request id, but the key they are kept under already
    differs then)."""
    r = Reader(record)
    if r.uint() != _FORMAT:
        raise RulesError(Reason.BAD_ENCODING, "unknown creation record format")
    digest = bytes(r.small_ints())
    game_id = r.text()
    sealed = bytes(r.small_ints())
    r.done()
    plain = bytes(
        a ^ b for a, b in zip(sealed, _keystream(caller, request_id, len(sealed)), strict=True)
    )
    return digest, game_id, plain.decode(errors="replace").split("\n")
