"""A small typed client of the hanafuda referee over gRPC, blocking or asyncio, on the generated
``hanafuda.v1`` stubs: create, get, move and resign with request ids and retries of
``UNAVAILABLE``; watch with resume; refusals as :class:`RefereeError` with their reason.

>>> from hanafuda_client import RefereeClient
>>> RefereeClient  # doctest: +ELLIPSIS
<class 'hanafuda_client.sync.RefereeClient'>
"""

from .aio import AsyncRefereeClient
from .errors import RefereeError
from .messages import new_request_id
from .retries import RetryPolicy
from .sync import RefereeClient

__all__ = ["AsyncRefereeClient", "RefereeClient", "RefereeError", "RetryPolicy", "new_request_id"]
