"""The script that makes the README's picture of the table still makes one: a 1280×800 PNG of a
real game's table (``scripts/table_picture.py``)."""

from __future__ import annotations

import struct
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def test_the_readme_picture_script_shoots_a_real_table(tmp_path: Path) -> None:
    out = tmp_path / "table.png"
    done = subprocess.run(
        [sys.executable, str(ROOT / "scripts" / "table_picture.py"), "--out", str(out)],
        capture_output=True,
        text=True,
        timeout=240,
        check=True,
    )
    assert "after 3 moves of seat 0" in done.stdout, done.stdout + done.stderr
    data = out.read_bytes()
    assert data[:8] == b"\x89PNG\r\n\x1a\n"
    width, height = struct.unpack(">II", data[16:24])
    assert (width, height) == (1280, 800)


def test_the_readme_shows_the_picture() -> None:
    readme = (ROOT / "README.md").read_text()
    assert "](docs/images/table.png)" in readme
    assert (ROOT / "docs" / "images" / "table.png").is_file()
