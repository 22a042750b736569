"""The browser table's files served at ``/``: content types, revalidation, the
Content-Security-Policy, and the setting that turns them off."""

from __future__ import annotations

from types import SimpleNamespace

import pytest
from litestar import Litestar
from litestar.testing import TestClient

from hanafuda_referee.config import parse
from hanafuda_referee.http.app import create_app
from hanafuda_referee.http.page import CONTENT_SECURITY_POLICY

from .fakes import FakeReferee

FILES = {
    "/": "text/html; charset=utf-8",
    "/app.js": "text/javascript; charset=utf-8",
    "/app.css": "text/css; charset=utf-8",
}


@pytest.mark.parametrize(("path", "media_type"), FILES.items())
def test_each_file_is_served_with_its_type_and_the_policy(
    client: TestClient[Litestar], path: str, media_type: str
) -> None:
    response = client.get(path)
    assert response.status_code == 200
    assert response.headers["content-type"] == media_type
    assert response.headers["cache-control"] == "no-cache"
    assert response.headers["x-content-type-options"] == "nosniff"
    assert response.headers["referrer-policy"] == "no-referrer"
    assert response.headers["content-security-policy"] == CONTENT_SECURITY_POLICY
    assert response.content


def test_the_policy_allows_this_origin_only_and_nothing_inline() -> None:
    directives = dict([*part.split(" ", 1), ""][:2] for part in CONTENT_SECURITY_POLICY.split("; "))
    assert directives["default-src"] == "'self'"
    assert directives["connect-src"] == "'self'"
    assert directives["script-src"] == directives["style-src"] == "'self'"
    assert "unsafe" not in CONTENT_SECURITY_POLICY
    assert directives["frame-ancestors"] == "'none'"


def test_the_page_holds_no_inline_script_or_style(client: TestClient[Litestar]) -> None:
    page = client.get("/").text
    assert '<script type="module" src="app.js"></script>' in page
    assert "<style" not in page and " style=" not in page
    assert page.count("<script") == 1


def test_an_unchanged_file_is_revalidated_with_its_etag(client: TestClient[Litestar]) -> None:
    first = client.get("/app.js")
    etag = first.headers["etag"]
    again = client.get("/app.js", headers={"if-none-match": etag})
    assert (again.status_code, again.content) == (304, b"")
    assert client.get("/app.js", headers={"if-none-match": '"other"'}).status_code == 200


@pytest.mark.parametrize(("argv", "env"), [(["--no-table"], {}), ([], {"HANAFUDA_TABLE": "0"})])
def test_the_table_can_be_turned_off(argv: list[str], env: dict[str, str]) -> None:
    config = parse(argv, env)
    assert config.table is False
    with TestClient[Litestar](create_app(FakeReferee(), config)) as client:
        for path in FILES:
            assert client.get(path).status_code == 404
        assert client.get("/healthz").status_code == 200


def test_the_table_is_on_by_default() -> None:
    assert parse([], {}).table is True
    with TestClient[Litestar](create_app(FakeReferee(), SimpleNamespace())) as client:
        assert client.get("/").status_code == 200
