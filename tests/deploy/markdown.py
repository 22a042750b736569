"""A reader of the deploy READMEs' examples, enough for the checks of ``test_readme_snippets``:
fenced code blocks (indented ones inside list items too), inline code spans, and shell text cut
into commands as a reader types them (continuations joined, here-documents kept with their
command, comments set apart).
"""

from __future__ import annotations

import re
import shlex
from collections.abc import Iterator
from dataclasses import dataclass, field

__all__ = [
    "Block",
    "Command",
    "Span",
    "code_blocks",
    "commands",
    "inline_spans",
    "iter_commands",
    "prose",
]

_FENCE = re.compile(r"^(?P<indent> *)(?P<fence>```+)(?P<language>[\w+-]*)[ \t]*\n", re.MULTILINE)
_SPAN = re.compile(r"(?<!`)`(?!`)([^`]+?)`(?!`)")
_HEREDOC = re.compile(r"<<-?\s*(['\"]?)(?P<word>[A-Za-z_]\w*)\1")


@dataclass(frozen=True, slots=True)
class Block:
    """A fenced code block: the line of its opening fence, its language tag ("" if none) and its
    text, dedented by the fence's indent."""

    line: int
    language: str
    text: str

    @property
    def first_line(self) -> str:
        """Its first line that is not blank: what names it in the checks' lists."""
        return next(line.strip() for line in self.text.splitlines() if line.strip())


@dataclass(frozen=True, slots=True)
class Span:
    """An inline code span of the prose, its whitespace runs made single spaces (a span may be
    wrapped over lines), and the line it starts on."""

    line: int
    text: str


def code_blocks(markdown: str) -> list[Block]:
    """Every fenced block of ``markdown``, in order.

    >>> [(b.line, b.language, b.text) for b in code_blocks("a\\n  ```sh\\n  ls\\n  ```\\n")]
    [(2, 'sh', 'ls\\n')]
    """
    blocks: list[Block] = []
    position = 0
    while opening := _FENCE.search(markdown, position):
        indent, fence = opening["indent"], opening["fence"]
        closing = re.compile(rf"^{indent}{fence}[ \t]*$", re.MULTILINE)
        end = closing.search(markdown, opening.end())
        if end is None:
            raise ValueError(f"line {_line(markdown, opening.start())}: an unclosed code block")
        body = markdown[opening.end() : end.start()]
        lines = body.splitlines(keepends=True)
        for number, text in enumerate(lines):
            if text.strip() and not text.startswith(indent):
                raise ValueError(
                    f"line {_line(markdown, opening.start()) + 1 + number}: "
                    "less indented than its fence"
                )
        text = "".join(line[len(indent) :] for line in lines)
        blocks.append(Block(_line(markdown, opening.start()), opening["language"], text))
        position = end.end()
    return blocks


def prose(markdown: str) -> str:
    """``markdown`` with the fenced blocks' bodies blanked (their lines kept, so that line
    numbers stay right)."""
    parts: list[str] = []
    position = 0
    while opening := _FENCE.search(markdown, position):
        closing = re.compile(rf"^{opening['indent']}{opening['fence']}[ \t]*$", re.MULTILINE)
        end = closing.search(markdown, opening.end())
        assert end is not None, "an unclosed code block"
        parts.append(markdown[position : opening.start()])
        parts.append("\n" * markdown.count("\n", opening.start(), end.end()))
        position = end.end()
    parts.append(markdown[position:])
    return "".join(parts)


def inline_spans(markdown: str) -> list[Span]:
    """The inline code spans of the prose (outside fenced blocks).

    >>> [(s.line, s.text) for s in inline_spans("x `docker compose\\n  down` y `-v`")]
    [(1, 'docker compose down'), (2, '-v')]
    """
    text = prose(markdown)
    return [
        Span(_line(text, found.start()), " ".join(found[1].split()))
        for found in _SPAN.finditer(text)
    ]


@dataclass(frozen=True, slots=True)
class Command:
    """One command line of a shell block: its text as the shell reads it (continuations
    joined, no comment), the comment at its end, the comment lines that follow it (an
    example's expected output, say), its here-document if it has one, its line in the block
    (from 1), and its lines as written (what a shell runs)."""

    text: str
    line: int
    source: str = ""
    comment: str = ""
    notes: list[str] = field(default_factory=list)
    heredoc: str | None = None

    @property
    def words(self) -> list[str]:
        """The words of the command (its here-document's marker aside), split as the shell
        splits them, with ``|`` and a final ``&`` as words of their own."""
        lexer = shlex.shlex(_HEREDOC.sub("", self.text), posix=True, punctuation_chars="|&;")
        lexer.whitespace_split = True
        lexer.commenters = ""
        return list(lexer)

    @property
    def pipeline(self) -> list[list[str]]:
        """The words of each command of the pipeline (a final ``&`` dropped)."""
        words = self.words
        if words and words[-1] == "&":
            words = words[:-1]
        stages: list[list[str]] = [[]]
        for word in words:
            if word in ("|", "&&", ";", "&"):
                stages.append([])
            else:
                stages[-1].append(word)
        return stages

    @property
    def background(self) -> bool:
        return self.words[-1:] == ["&"]


def commands(shell: str) -> list[Command]:
    """The commands of a shell block, in order.

    >>> shell = "# setup\\ncat > f <<'EOF'\\na: 1\\nEOF\\n"
    >>> found = commands(shell + "ls -l \\\\\\n  x  # list\\n# -> x\\n")
    >>> [(c.text, c.line, c.comment, c.notes, c.heredoc) for c in found]
    [("cat > f <<'EOF'", 2, '', [], 'a: 1\\n'), ('ls -l x', 5, 'list', ['-> x'], None)]
    """
    found: list[Command] = []
    lines = iter(enumerate(shell.splitlines(), start=1))
    for number, line in lines:
        if not line.strip():
            continue
        if line.lstrip().startswith("#"):
            if found:
                found[-1].notes.append(line.strip()[1:].strip())
            continue
        text = line
        source = [line]
        while text.endswith("\\"):
            _, following = next(lines)
            source.append(following)
            text = text[:-1].rstrip() + " " + following.strip()
        code, comment = _split_comment(text)
        heredoc = None
        if marker := _HEREDOC.search(code):
            body: list[str] = []
            for _, following in lines:
                source.append(following)
                if following.strip() == marker["word"]:
                    break
                body.append(following + "\n")
            else:
                raise ValueError(f"line {number}: the here-document {marker['word']} never ends")
            heredoc = "".join(body)
        found.append(
            Command(code.strip(), number, "\n".join(source) + "\n", comment, heredoc=heredoc)
        )
    return found


def _split_comment(text: str) -> tuple[str, str]:
    """A line cut at its comment: a ``#`` outside quotes that starts a word."""
    quote = ""
    escaped = False
    for index, character in enumerate(text):
        if escaped:
            escaped = False
        elif quote:
            if character == quote:
                quote = ""
            elif character == "\\" and quote == '"':
                escaped = True
        elif character in "'\"":
            quote = character
        elif character == "#" and (index == 0 or text[index - 1].isspace()):
            return text[:index].rstrip(), text[index + 1 :].strip()
    return text, ""


def _line(text: str, offset: int) -> int:
    return text.count("\n", 0, offset) + 1


def iter_commands(blocks: list[Block]) -> Iterator[tuple[Block, Command]]:
    """Each command of the shell blocks among ``blocks``."""
    for block in blocks:
        if block.language in ("sh", "bash", "shell", "console"):
            for command in commands(block.text):
                yield block, command
