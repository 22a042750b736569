"""The whole test run: with ``HANAFUDA_REFEREE_INTERPRETED=1``, it tests the sources of the
modules an install compiles rather than their extensions (see tests/interpreted.py)."""

from __future__ import annotations

from tests.interpreted import INTERPRETED, env_flag, prefer_sources

if env_flag(INTERPRETED):
    prefer_sources()
