"""What a refused or failed call raises: :class:`RefereeError`, with the reason the referee gave.

The referee puts a ``google.rpc.Status`` in every refusal's trailing metadata (gRPC's rich status)
whose details hold one ``google.rpc.ErrorInfo``: its ``reason`` is the name of a
``hanafuda.v1.Reason`` without the ``REASON_`` prefix, its ``metadata`` what the refusal is about.
A ``RATE_LIMITED`` or ``STORE_FULL`` refusal adds a ``google.rpc.RetryInfo`` with the delay to wait.
"""

from __future__ import annotations

from collections.abc import Mapping

import grpc
from google.rpc import error_details_pb2  # type: ignore[import-untyped]
from grpc_status import rpc_status  # type: ignore[import-untyped]
from hanafuda.v1 import errors_pb2

__all__ = ["RefereeError", "error_of"]

#: The ErrorInfo domain of the referee's own refusals.
DOMAIN = "hanafuda-referee"


class RefereeError(Exception):
    """A call the referee refused, or that failed on the way (then ``reason`` is empty).

    ``code`` is the gRPC status code, ``reason`` the ``ErrorInfo`` reason as sent
    (``"NOT_YOUR_TURN"``; the reasons a newer referee adds arrive here too), ``metadata`` its
    metadata, ``message`` the human-readable sentence (not to be parsed) and ``retry_after`` the
    seconds a ``RetryInfo`` asks to wait (None without one).

    >>> error = RefereeError(grpc.StatusCode.FAILED_PRECONDITION, "NOT_YOUR_TURN", "not yet")
    >>> error.known_reason == errors_pb2.REASON_NOT_YOUR_TURN
    True
    >>> str(error)
    'FAILED_PRECONDITION NOT_YOUR_TURN: not yet'
    """

    def __init__(
        self,
        code: grpc.StatusCode,
        reason: str,
        message: str,
        *,
        domain: str = DOMAIN,
        metadata: Mapping[str, str] | None = None,
        retry_after: float | None = None,
    ) -> None:
        super().__init__(
            f"{code.name} {reason}: {message}" if reason else f"{code.name}: {message}"
        )
        self.code = code
        self.reason = reason
        self.message = message
        self.domain = domain
        self.metadata: dict[str, str] = dict(metadata or {})
        self.retry_after = retry_after

    @property
    def known_reason(self) -> errors_pb2.Reason.ValueType:
        """The reason as a ``hanafuda.v1.Reason`` value; ``REASON_UNSPECIFIED`` when there is none
        or it is one this client does not know (tell those apart by :attr:`code`)."""
        name = f"REASON_{self.reason}"
        if self.reason and name in errors_pb2.Reason.keys():  # noqa: SIM118 - not a dict
            return errors_pb2.Reason.Value(name)
        return errors_pb2.REASON_UNSPECIFIED


def error_of(error: grpc.RpcError) -> RefereeError:
    """The :class:`RefereeError` of a failed call (``grpc.RpcError`` of a sync or an async call):
    its status code, and what the rich status details say, when there are any."""
    code = error.code()
    message = error.details() or ""
    status = rpc_status.from_call(error)
    reason, domain, metadata, retry_after = "", "", {}, None
    for detail in status.details if status is not None else ():
        info = error_details_pb2.ErrorInfo()
        retry = error_details_pb2.RetryInfo()
        if detail.Unpack(info):
            reason, domain, metadata = info.reason, info.domain, dict(info.metadata)
        elif detail.Unpack(retry):
            retry_after = retry.retry_delay.ToTimedelta().total_seconds()
    return RefereeError(
        code, reason, message, domain=domain, metadata=metadata, retry_after=retry_after
    )
