"""The gRPC transport: ``hanafuda.v1.RefereeService`` on a ``grpc.aio`` server, with health
checking and reflection on the same port (:mod:`.server`).

May import: :mod:`hanafuda_referee.hosting` and everything it may. Never the HTTP transport.
"""
