"""The whole test run: with ``HANAFUDA_REFEREE_INTERPRETED=1``, it tests the sources of the
modules an install compiles rather than their extensions (see tests/interpreted.py)."""

from __future__ import annotations

import os

from tests.interpreted import INTERPRETED, prefer_sources

if os.environ.get(INTERPRETED, "") not in ("", "0"):
    prefer_sources()
