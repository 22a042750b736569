"""What every layer of the service knows of a call: who makes it and how it is refused.

:mod:`.caller` holds :class:`~.caller.Caller` (the seat token, API key, request id and transport a
request brings) and reads credentials the same way for both transports; :mod:`.errors` holds
:class:`~.errors.ApiError`, a refusal with its stable reason, and the one table that gives each
reason its gRPC code and HTTP status.

May import: the core modules (``hanafuda_referee.errors``) and the generated ``hanafuda.v1``
messages. Nothing of the service above it.
"""
