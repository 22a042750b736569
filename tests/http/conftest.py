"""Fixtures of the HTTP transport's tests: an app over the fake referee, and its client."""

from __future__ import annotations

from collections.abc import Iterator
from types import SimpleNamespace

import pytest
from litestar import Litestar
from litestar.testing import TestClient

from hanafuda_referee.http.app import create_app

from .fakes import FakeReferee


@pytest.fixture
def referee() -> FakeReferee:
    return FakeReferee()


@pytest.fixture
def client(referee: FakeReferee) -> Iterator[TestClient[Litestar]]:
    config = SimpleNamespace(max_request_bytes=1024, cors_origins=["https://play.example"])
    with TestClient(create_app(referee, config), raise_server_exceptions=False) as test_client:
        yield test_client
