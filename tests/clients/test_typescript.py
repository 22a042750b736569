"""The TypeScript SDK (``clients/typescript``): installed from its lock file, compiled with
``tsc --strict`` and tested by its own Node tests (``node --test``), which start real referee
processes with this interpreter and play whole games over HTTP and gRPC through the SDK.

Needs Node 20+ and npm (and the npm registry the first time, for ``npm ci``); the Node output is
the failure message.
"""

from __future__ import annotations

import os
import sys

from .npm_packages import SDK, install, npm


def test_typescript_sdk_builds_and_passes_its_tests() -> None:
    install(SDK)
    npm(SDK, "run", "build")
    # The referees the Node tests start run on this interpreter (and its environment, so the
    # same `hanafuda_referee`).
    npm(SDK, "test", env={**os.environ, "HANAFUDA_PYTHON": sys.executable})
