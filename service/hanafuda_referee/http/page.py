"""The browser table's static files, served at ``/`` by the HTTP transport.

The files (``index.html``, ``app.js``, ``app.css``) are built from ``clients/table`` by esbuild
and committed in this package's ``table/`` folder, so serving them needs no Node. They are read
once, when the app is built, and served from memory with:

- their content type (``text/html``, ``text/javascript``, ``text/css``, all UTF-8);
- ``Cache-Control: no-cache`` and an ``ETag`` (the names carry no hash, so a browser revalidates
  and gets ``304 Not Modified`` while the file is unchanged);
- a strict ``Content-Security-Policy``: scripts, styles and requests from this origin only, no
  inline script or style, no framing; the page's one network peer is the referee itself
  (``connect-src 'self'``);
- ``Referrer-Policy: no-referrer`` and ``X-Content-Type-Options: nosniff``.

A seat's token travels in the page URL's fragment, which browsers never send: no request for
these files carries one.

>>> sorted(path for path, _ in table_files())
['/', '/app.css', '/app.js']
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterator
from dataclasses import dataclass
from importlib import resources
from typing import Any

from litestar import Request, Response, get
from litestar.handlers import HTTPRouteHandler

__all__ = ["CONTENT_SECURITY_POLICY", "TableFile", "table_files", "table_handlers"]

#: The policy every file of the table is served with.
CONTENT_SECURITY_POLICY = (
    "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; "
    "connect-src 'self'; object-src 'none'; base-uri 'none'; form-action 'self'; "
    "frame-ancestors 'none'"
)

# URL path -> (file in the package's table/ folder, media type; Litestar adds
# `; charset=utf-8` to a text type).
_FILES = {
    "/": ("index.html", "text/html"),
    "/app.js": ("app.js", "text/javascript"),
    "/app.css": ("app.css", "text/css"),
}


@dataclass(frozen=True, slots=True)
class TableFile:
    """One file, as served."""

    content: bytes
    media_type: str
    etag: str


def table_files() -> Iterator[tuple[str, TableFile]]:
    """Each URL path with its file, read from the package."""
    folder = resources.files("hanafuda_referee.http").joinpath("table")
    for path, (name, media_type) in _FILES.items():
        content = folder.joinpath(name).read_bytes()
        etag = '"' + hashlib.sha256(content).hexdigest()[:32] + '"'
        yield path, TableFile(content, media_type, etag)


def _headers(file: TableFile) -> dict[str, str]:
    return {
        "cache-control": "no-cache",
        "etag": file.etag,
        "content-security-policy": CONTENT_SECURITY_POLICY,
        "referrer-policy": "no-referrer",
        "x-content-type-options": "nosniff",
    }


def _handler(path: str, file: TableFile) -> HTTPRouteHandler:
    async def serve(request: Request[Any, Any, Any]) -> Response[bytes]:
        if file.etag in request.headers.get("if-none-match", ""):
            return Response(content=b"", status_code=304, headers=_headers(file))
        return Response(
            content=file.content,
            media_type=file.media_type,
            status_code=200,
            headers=_headers(file),
        )

    name = "table:" + (path.strip("/") or "index")
    serve.__name__ = serve.__qualname__ = name.replace(":", "_").replace(".", "_")
    return get(path, name=name, include_in_schema=False)(serve)


def table_handlers() -> list[HTTPRouteHandler]:
    """The routes of the table's files."""
    return [_handler(path, file) for path, file in table_files()]
