"""The HTTP/JSON transport: a Litestar app whose routes come from the proto contract.

:mod:`.app` builds the app over a :class:`~hanafuda_referee.hosting.referee.Referee`;
:mod:`.routes` reads each method's ``google.api.http`` rule and binds requests onto messages;
:mod:`.errors` writes refusals as AIP-193 bodies; :mod:`.openapi` generates the OpenAPI document
from the descriptors; :mod:`.protocol` is uvicorn's httptools protocol with the limits the
service needs (one write per response, a bounded request head and arrival time).

May import: :mod:`hanafuda_referee.hosting` and everything it may. Never the gRPC transport.
"""
