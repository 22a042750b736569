"""Observability: one canonical log line and the metrics of every request, on both transports.

:mod:`.logs` opens a request's record (:func:`~.logs.observe`), lets the layers below annotate it
and writes it as one structured line; :mod:`.metrics` holds the Prometheus metrics.

May import: :mod:`hanafuda_referee.calls` (who called, how a refusal reads). Nothing above it.
"""
