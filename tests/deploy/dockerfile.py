"""A reader of Dockerfiles, enough for the checks in this package.

It reads parser directives (``# escape=``), comments, line continuations (comment and blank lines
inside a continuation are dropped, as Docker does), instructions with their leading ``--flags``,
the exec (JSON) and shell forms, ``ARG`` values and build stages. Heredocs are not read: a
Dockerfile using one makes :func:`parse` fail rather than be misread.
"""

from __future__ import annotations

import json
import re
import shlex
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

__all__ = [
    "Dockerfile",
    "Instruction",
    "Stage",
    "exec_form",
    "expand",
    "parse",
    "split_flags",
]

_DIRECTIVE = re.compile(r"#\s*([A-Za-z]+)\s*=\s*(\S+)\s*$")
_HEREDOC = re.compile(r"<<-?[\"']?[A-Za-z_]\w*")
_VARIABLE = re.compile(r"\$(?:\{(\w+)\}|(\w+))")


@dataclass(frozen=True, slots=True)
class Instruction:
    """One instruction: its keyword in upper case, its argument text (continuations joined) and
    the line it starts on."""

    keyword: str
    text: str
    line: int


def parse(text: str) -> list[Instruction]:
    """The instructions of a Dockerfile's ``text``, in order."""
    lines = text.splitlines()
    escape = "\\"
    start = 0
    # Parser directives are only read at the very top, before any comment or instruction.
    while start < len(lines) and (directive := _DIRECTIVE.match(lines[start])):
        if directive[1].lower() == "escape":
            escape = directive[2]
        start += 1
    instructions: list[Instruction] = []
    pending: list[str] = []
    first_line = 0
    for number, raw in enumerate(lines[start:], start=start + 1):
        stripped = raw.strip()
        if stripped.startswith("#") or not stripped:
            continue
        if not pending:
            first_line = number
        body = raw.rstrip()
        if body.endswith(escape):
            pending.append(body[: -len(escape)])
            continue
        pending.append(body)
        instructions.append(_instruction("".join(pending), first_line))
        pending = []
    if pending:
        instructions.append(_instruction("".join(pending), first_line))
    return instructions


def _instruction(joined: str, line: int) -> Instruction:
    keyword, *rest_list = joined.strip().split(maxsplit=1)
    keyword = keyword.upper()
    rest = rest_list[0] if rest_list else ""
    if keyword in ("RUN", "COPY", "ADD") and _HEREDOC.search(rest):
        raise ValueError(f"line {line}: heredocs are not read by this parser")
    return Instruction(keyword, rest.strip(), line)


def split_flags(text: str) -> tuple[dict[str, str], str]:
    """The leading ``--name=value`` (or bare ``--name``) flags of an argument text, and the rest."""
    flags: dict[str, str] = {}
    rest = text.strip()
    while rest.startswith("--"):
        token, *remainder = rest.split(maxsplit=1)
        name, _, value = token[2:].partition("=")
        flags[name] = value
        rest = remainder[0] if remainder else ""
    return flags, rest


def exec_form(text: str) -> list[str] | None:
    """The argument list of an exec-form (JSON array) argument text; None for the shell form
    (Docker, too, reads text that is not a JSON array of strings as a shell command)."""
    if not text.startswith("["):
        return None
    try:
        value = json.loads(text)
    except json.JSONDecodeError:
        return None
    if isinstance(value, list) and all(isinstance(item, str) for item in value):
        return value
    return None


def expand(text: str, variables: Mapping[str, str]) -> str:
    """``text`` with ``$NAME`` and ``${NAME}`` replaced from ``variables`` (KeyError if unknown)."""
    return _VARIABLE.sub(lambda m: variables[m[1] or m[2]], text)


def _pairs(text: str) -> dict[str, str]:
    """The ``key=value`` pairs of an ENV or LABEL text (or the legacy ``ENV key value``)."""
    words = shlex.split(text)
    if words and "=" not in words[0]:
        return {words[0]: " ".join(words[1:])}
    pairs: dict[str, str] = {}
    for word in words:
        key, equals, value = word.partition("=")
        if not equals:
            raise ValueError(f"not a key=value pair: {word!r}")
        pairs[key] = value
    return pairs


@dataclass(frozen=True, slots=True)
class Stage:
    """One build stage: its base (ARGs expanded), its name if any, and its instructions after
    ``FROM``. ``arguments`` are the ARG values in scope in the stage."""

    base: str
    name: str | None
    instructions: tuple[Instruction, ...]
    arguments: Mapping[str, str]

    def all(self, keyword: str) -> list[Instruction]:
        """The stage's instructions of one keyword, in order."""
        return [i for i in self.instructions if i.keyword == keyword]

    def last(self, keyword: str) -> Instruction:
        """The stage's last instruction of one keyword (the one in effect); AssertionError if
        there is none."""
        found = self.all(keyword)
        assert found, f"no {keyword} in the stage from {self.base}"
        return found[-1]

    def index(self, keyword: str) -> int:
        """Position of the stage's last instruction of one keyword (-1 if none)."""
        positions = [n for n, i in enumerate(self.instructions) if i.keyword == keyword]
        return positions[-1] if positions else -1

    def environment(self) -> dict[str, str]:
        """The variables the stage's ENV instructions set (values as written, unexpanded)."""
        environment: dict[str, str] = {}
        for instruction in self.all("ENV"):
            environment.update(_pairs(instruction.text))
        return environment

    def labels(self) -> dict[str, str]:
        """The stage's labels, ARGs expanded."""
        labels: dict[str, str] = {}
        for instruction in self.all("LABEL"):
            labels.update(
                {k: expand(v, self.arguments) for k, v in _pairs(instruction.text).items()}
            )
        return labels


@dataclass(frozen=True, slots=True)
class Dockerfile:
    """A parsed Dockerfile: the global ARG defaults and the stages in order."""

    global_arguments: Mapping[str, str]
    stages: tuple[Stage, ...]

    @classmethod
    def read(cls, path: Path) -> Dockerfile:
        return cls.parse(path.read_text())

    @classmethod
    def parse(cls, text: str) -> Dockerfile:
        instructions = parse(text)
        global_arguments: dict[str, str] = {}
        position = 0
        while position < len(instructions) and instructions[position].keyword != "FROM":
            instruction = instructions[position]
            if instruction.keyword != "ARG":
                raise ValueError(f"line {instruction.line}: only ARG may come before FROM")
            name, _, default = instruction.text.partition("=")
            global_arguments[name.strip()] = default.strip()
            position += 1
        stages: list[Stage] = []
        while position < len(instructions):
            start = instructions[position]
            end = position + 1
            while end < len(instructions) and instructions[end].keyword != "FROM":
                end += 1
            body = tuple(instructions[position + 1 : end])
            stages.append(_stage(start, body, global_arguments))
            position = end
        return cls(global_arguments, tuple(stages))


def _stage(start: Instruction, body: tuple[Instruction, ...], globals_: Mapping[str, str]) -> Stage:
    _, rest = split_flags(start.text)
    words = rest.split()
    if len(words) == 3 and words[1].upper() == "AS":
        name: str | None = words[2]
    elif len(words) == 1:
        name = None
    else:
        raise ValueError(f"line {start.line}: cannot read FROM {start.text!r}")
    # Inside a stage, "ARG NAME" brings the global default into scope; "ARG NAME=value" sets it.
    arguments: dict[str, str] = {}
    for instruction in body:
        if instruction.keyword == "ARG":
            key, equals, value = instruction.text.partition("=")
            key = key.strip()
            arguments[key] = value.strip() if equals else globals_.get(key, "")
    return Stage(expand(words[0], globals_), name, body, arguments)
