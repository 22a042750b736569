"""Readers for the compose files and the load balancer's configuration, enough for the checks in
this package: Compose's variable interpolation, and HAProxy's sections and directives.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml  # type: ignore[import-untyped]

__all__ = ["HAProxyConfig", "Section", "interpolate", "load_compose"]

_VARIABLE = re.compile(
    r"\$(?:(?P<escaped>\$)|\{(?P<braced>\w+)(?:(?P<operator>:?[-?])(?P<argument>[^}]*))?\}"
    r"|(?P<bare>\w+))"
)


def interpolate(text: str, env: Mapping[str, str]) -> str:
    """``text`` with Compose's variables replaced from ``env``: ``$NAME``, ``${NAME}``,
    ``${NAME:-default}`` (``-``: only when unset), ``${NAME:?message}`` (``?``: only when unset),
    which raises ``ValueError`` with the message, and ``$$`` for ``$``.

    >>> interpolate("redis://:${PASSWORD:?set it}@redis $$HOME", {"PASSWORD": "pw"})
    'redis://:pw@redis $HOME'
    """

    def replace(found: re.Match[str]) -> str:
        if found["escaped"]:
            return "$"
        name = found["braced"] or found["bare"]
        operator, argument = found["operator"], found["argument"]
        value = env.get(name)
        missing = value is None or (value == "" and operator is not None and ":" in operator)
        if operator and operator.endswith("?") and missing:
            raise ValueError(f"{name}: {argument}")
        if operator and operator.endswith("-") and missing:
            return str(argument)
        return value or ""

    return _VARIABLE.sub(replace, text)


def _interpolated(value: Any, env: Mapping[str, str]) -> Any:
    if isinstance(value, str):
        return interpolate(value, env)
    if isinstance(value, list):
        return [_interpolated(item, env) for item in value]
    if isinstance(value, dict):
        return {key: _interpolated(item, env) for key, item in value.items()}
    return value


def load_compose(path: Path, env: Mapping[str, str]) -> dict[str, Any]:
    """A compose file as Compose reads it with ``env`` as its environment (merge keys
    resolved, variables interpolated; ``ValueError`` for a required one left unset)."""
    document = yaml.safe_load(path.read_text())
    assert isinstance(document, dict)
    loaded: dict[str, Any] = _interpolated(document, env)
    return loaded


@dataclass(frozen=True, slots=True)
class Section:
    """One section of an HAProxy configuration: its keyword (``frontend``, ``backend``...), its
    name ("" for ``global`` and ``defaults``) and its directives, each as its words."""

    kind: str
    name: str
    directives: list[list[str]] = field(default_factory=list)

    def all(self, keyword: str) -> list[list[str]]:
        """The directives starting with ``keyword`` (its words after it)."""
        words = keyword.split()
        return [d[len(words) :] for d in self.directives if d[: len(words)] == words]

    def one(self, keyword: str) -> list[str]:
        (found,) = self.all(keyword)
        return found


@dataclass(frozen=True, slots=True)
class HAProxyConfig:
    sections: list[Section]

    @classmethod
    def read(cls, path: Path) -> HAProxyConfig:
        sections: list[Section] = []
        for raw in path.read_text().splitlines():
            line = raw.split("#", 1)[0].rstrip()
            if not line.strip():
                continue
            words = line.split()
            if not raw[0].isspace():
                sections.append(Section(words[0], words[1] if len(words) > 1 else ""))
            else:
                assert sections, f"a directive before any section: {raw}"
                sections[-1].directives.append(words)
        return cls(sections)

    def section(self, kind: str, name: str = "") -> Section:
        (found,) = (s for s in self.sections if s.kind == kind and s.name == name)
        return found

    def of_kind(self, kind: str) -> list[Section]:
        return [s for s in self.sections if s.kind == kind]
