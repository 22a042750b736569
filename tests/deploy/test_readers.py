"""The Dockerfile and .dockerignore readers themselves, on small texts with known readings: the
checks of the real files are only as good as these."""

from __future__ import annotations

import doctest

import pytest

from . import markdown
from .dockerfile import Dockerfile, exec_form, parse, split_flags
from .dockerignore import IgnoreRules
from .markdown import code_blocks, commands, inline_spans


def test_continuations_join_and_comments_inside_them_are_dropped() -> None:
    text = (
        "# a comment\n"
        "\n"
        "RUN apt-get update \\\n"
        "    # explained here\n"
        "\n"
        "    && true\n"
        "env A=1 \\\n"
        "  B='two words'\n"
    )
    run, env = parse(text)
    assert (run.keyword, run.line) == ("RUN", 3)
    assert run.text == "apt-get update     && true"
    assert (env.keyword, env.line) == ("ENV", 7)


def test_the_escape_directive_changes_the_continuation_character() -> None:
    (run,) = parse("# escape=`\nRUN dir C:\\ `\n  /b\n")
    assert run.text == "dir C:\\   /b"


def test_flags_and_forms() -> None:
    flags, rest = split_flags('--interval=30s --timeout=5s CMD ["python", "-c", "pass"]')
    assert flags == {"interval": "30s", "timeout": "5s"}
    assert exec_form(rest.removeprefix("CMD").strip()) == ["python", "-c", "pass"]
    assert exec_form("hanafuda-referee serve") is None
    # Not a JSON array of strings: Docker runs it as a shell command.
    assert exec_form("[hanafuda-referee]") is None


def test_stages_expand_global_arguments() -> None:
    dockerfile = Dockerfile.parse(
        "ARG BASE=python:3.11-slim\n"
        "FROM --platform=linux/amd64 ${BASE} AS builder\n"
        "RUN true\n"
        "FROM $BASE\n"
        "ARG BASE\n"
        'LABEL a.b="from ${BASE}" c=d\n'
        "ENV PATH=/opt/venv/bin:$PATH X 1\n"
    )
    builder, final = dockerfile.stages
    assert (builder.base, builder.name, len(builder.instructions)) == (
        "python:3.11-slim",
        "builder",
        1,
    )
    assert (final.base, final.name) == ("python:3.11-slim", None)
    assert final.labels() == {"a.b": "from python:3.11-slim", "c": "d"}
    with pytest.raises(ValueError, match="key=value"):
        final.environment()


def test_heredocs_are_refused_rather_than_misread() -> None:
    with pytest.raises(ValueError, match="heredoc"):
        parse("RUN <<EOF\necho hi\nEOF\n")


def test_dockerignore_patterns_match_from_the_root_unless_they_say_otherwise() -> None:
    rules = IgnoreRules("*.pyc\n**/*.log\n")
    assert rules.excludes("a.pyc")
    assert not rules.excludes("pkg/a.pyc")
    assert rules.excludes("a.log")
    assert rules.excludes("pkg/deep/a.log")
    assert not rules.excludes("a.py")


def test_dockerignore_directories_exceptions_and_the_last_match() -> None:
    rules = IgnoreRules(
        "# everything, then back in\n*\n!service\n  !/docs/keep.md  \n**/__pycache__\n"
    )
    assert rules.excludes(".git")
    assert rules.excludes(".venv/bin/python")
    assert not rules.excludes("service/pkg/module.py")
    assert rules.excludes("service/pkg/__pycache__/module.cpython-311.pyc")
    assert not rules.excludes("docs/keep.md")
    assert rules.excludes("docs/other.md")
    assert not IgnoreRules("").excludes("anything")
    assert IgnoreRules("a?c\n[xy]z\n").excludes("abc")
    assert IgnoreRules("[xy]z\n").excludes("yz")
    assert not IgnoreRules("a?c\n").excludes("a/c")


def test_markdown_examples_in_the_readers_docstrings_hold() -> None:
    result = doctest.testmod(markdown)
    assert result.attempted > 0 and result.failed == 0


def test_markdown_blocks_keep_their_language_indent_and_line() -> None:
    text = "# T\n\n```yaml\na: 1\n```\n\n1. step\n\n   ```sh\n   ls \\\n     -l\n   ```\n"
    yaml_block, shell = code_blocks(text)
    assert (yaml_block.line, yaml_block.language, yaml_block.text) == (3, "yaml", "a: 1\n")
    assert (shell.line, shell.language, shell.text) == (9, "sh", "ls \\\n  -l\n")
    assert [c.text for c in commands(shell.text)] == ["ls -l"]
    with pytest.raises(ValueError, match="unclosed"):
        code_blocks("```sh\nls\n")
    with pytest.raises(ValueError, match="less indented"):
        code_blocks("  ```sh\n ls\n  ```\n")


def test_markdown_spans_leave_the_blocks_out_and_join_wrapped_lines() -> None:
    text = "`a\n  b` then\n```sh\n`not a span`\n```\n`c`\n"
    assert [(s.line, s.text) for s in inline_spans(text)] == [(1, "a b"), (6, "c")]


def test_shell_commands_quotes_comments_pipelines_and_heredocs() -> None:
    code = r"""echo "a # b" 'c # d' "say \"x # y\"" """.strip()
    (quoted,) = commands(code + "  # e\n")
    assert (quoted.text, quoted.comment) == (code, "e")
    (piped,) = commands("kubectl kustomize d | grep 'image:' &\n")
    assert piped.pipeline == [["kubectl", "kustomize", "d"], ["grep", "image:"]]
    assert piped.background
    (written,) = commands("cat > f <<EOF\nx: $y\nEOF\n")
    assert written.words == ["cat", ">", "f"] and written.heredoc == "x: $y\n"
    assert written.source == "cat > f <<EOF\nx: $y\nEOF\n"
    with pytest.raises(ValueError, match="never ends"):
        commands("cat <<'EOF'\nx\n")
