"""A reader of ``.dockerignore`` files, with Docker's matching rules.

Those rules differ from ``.gitignore``'s: a pattern is matched against the whole path from the
context's root (``*.pyc`` matches ``a.pyc`` but not ``pkg/a.pyc``; ``**/*.pyc`` matches both),
``*`` and ``?`` stop at ``/``, ``**`` spans any number of directories, a pattern that matches a
directory matches everything below it, ``!`` lets back in what an earlier pattern left out, and the
last pattern that matches a path decides.
"""

from __future__ import annotations

import posixpath
import re
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

__all__ = ["IgnoreRules"]


@dataclass(frozen=True, slots=True)
class _Rule:
    text: str
    exception: bool
    pattern: re.Pattern[str]


def _translate(pattern: str) -> re.Pattern[str]:
    parts: list[str] = []
    position = 0
    while position < len(pattern):
        char = pattern[position]
        position += 1
        if char == "*":
            if pattern.startswith("*", position):
                position += 1
                if pattern.startswith("/", position):
                    position += 1
                parts.append(".*" if position == len(pattern) else "(?:.*/)?")
            else:
                parts.append("[^/]*")
        elif char == "?":
            parts.append("[^/]")
        elif char == "[":
            end = pattern.find("]", position)
            if end < 0:
                raise ValueError(f"unclosed [ in {pattern!r}")
            parts.append("[" + pattern[position:end] + "]")
            position = end + 1
        elif char == "\\" and position < len(pattern):
            parts.append(re.escape(pattern[position]))
            position += 1
        else:
            parts.append(re.escape(char))
    return re.compile("^" + "".join(parts) + "$")


class IgnoreRules:
    """The patterns of one ``.dockerignore``; :meth:`excludes` tells whether a path is left out
    of the build context."""

    def __init__(self, text: str) -> None:
        self._rules: list[_Rule] = []
        for line in text.splitlines():
            line = line.strip()
            if not line or line.startswith("#"):
                continue
            exception = line.startswith("!")
            pattern = posixpath.normpath(line[1:].strip() if exception else line).lstrip("/")
            self._rules.append(_Rule(line, exception, _translate(pattern)))

    @classmethod
    def read(cls, path: Path) -> IgnoreRules:
        return cls(path.read_text() if path.exists() else "")

    def excludes(self, path: str) -> bool:
        """Whether ``path`` (relative to the context's root, ``/``-separated) is left out."""
        path = posixpath.normpath(path).lstrip("/")
        parts = path.split("/")
        candidates = ["/".join(parts[: n + 1]) for n in range(len(parts))]
        excluded = False
        for rule in self._rules:
            # An exception only matters for a path left out so far, a pattern for one kept.
            if rule.exception != excluded:
                continue
            if any(rule.pattern.match(candidate) for candidate in candidates):
                excluded = not rule.exception
        return excluded

    def files(self, root: Path, source: str) -> Iterator[Path]:
        """The files under ``root / source`` (a file or a directory) that reach the context."""
        start = root / source
        found = [start] if start.is_file() else sorted(start.rglob("*"))
        for path in found:
            if path.is_file() and not self.excludes(path.relative_to(root).as_posix()):
                yield path
