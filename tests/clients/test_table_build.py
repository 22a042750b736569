"""The browser table's committed files (``service/hanafuda_referee/http/table``) are what its
sources build: ``clients/table`` checked with ``tsc --strict`` and bundled again by its pinned
esbuild into a folder of its own, byte for byte the same as the committed files. So the package
ships a table that matches its sources, and serving it needs no Node.
"""

from __future__ import annotations

from pathlib import Path

from .npm_packages import SDK, TABLE, install, npm

COMMITTED = Path(__file__).resolve().parents[2] / "service" / "hanafuda_referee" / "http" / "table"


def test_rebuilding_the_table_changes_nothing(tmp_path: Path) -> None:
    install(SDK)  # the table is bundled from the SDK's sources and their dependencies
    install(TABLE)
    npm(TABLE, "run", "check")
    npm(TABLE, "run", "bundle", "--", "--outdir", str(tmp_path))
    built = {path.name: path.read_bytes() for path in tmp_path.iterdir()}
    committed = {path.name: path.read_bytes() for path in COMMITTED.iterdir()}
    assert sorted(built) == sorted(committed) == ["app.css", "app.js", "index.html"]
    stale = [name for name in built if built[name] != committed[name]]
    assert not stale, f"rebuild the table (cd clients/table && npm run build): {stale} differ"
