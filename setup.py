"""The build's one step that pyproject.toml cannot declare: the rules engines and the writers
of answers are compiled to C extensions with mypyc, from the same type-annotated sources.

A move's own cost (the rules, its events, the answer written in JSON or protobuf bytes) is
pure Python computation on small values; compiled, it takes about 45% less time, and moves per
second over HTTP rise by about a sixth (see README, "Compiled modules"). The sources stay the
reference: every compiled module is an ordinary module too, and ``HANAFUDA_REFEREE_PURE=1`` at
install time builds without compiling (no C compiler needed, and an editable install then runs
the sources as they are edited).

Compiled modules are the ones whose code runs on every move and that no test replaces at run
time. A compiled module's functions call each other directly, so patching one of its globals
from outside would not be seen; modules that tests patch (``observability``, ``metrics``) and
the transports, whose time goes into the libraries they call, stay interpreted.
"""

from __future__ import annotations

import os
import tempfile
from pathlib import Path

from setuptools import setup

#: Under ``service/hanafuda_referee/``.
COMPILED = [
    "cards.py",
    "capture.py",
    "dealing.py",
    "identity_cache.py",
    "interning.py",
    "moves.py",
    "varint.py",
    "koikoi/codec.py",
    "koikoi/events.py",
    "koikoi/game.py",
    "koikoi/rollout.py",
    "koikoi/rules.py",
    "koikoi/scoring.py",
    "koikoi/view.py",
    "hachihachi/codec.py",
    "hachihachi/dekiyaku.py",
    "hachihachi/events.py",
    "hachihachi/field.py",
    "hachihachi/game.py",
    "hachihachi/inputs.py",
    "hachihachi/kinds.py",
    "hachihachi/rules.py",
    "hachihachi/settlement.py",
    "hachihachi/teyaku.py",
    "hachihachi/view.py",
    "api/convert.py",
    "api/forms.py",
    "api/games.py",
    "api/hachihachi_adapter.py",
    "api/koikoi_adapter.py",
    "api/proto_json.py",
    "api/proto_wire.py",
    "api/tokens.py",
    "api/written_parts.py",
    "store/encoding.py",
    "store/keys.py",
    "store/resp.py",
    "store/validation.py",
]

#: mypy's settings for compiling: the sources are checked strictly by the project's own mypy
#: run (CI); here only the types matter, and the protobuf modules are typed as Any, so that
#: the build needs no stub packages and compiles no assumption about their classes.
_MYPY_CONFIG = """\
[mypy]
python_version = 3.11
mypy_path = service:clients/python
explicit_package_bases = True
ignore_missing_imports = True
follow_imports = silent
"""


_PACKAGE = Path("service/hanafuda_referee")


def _remove_built_in_place(keep: frozenset[str]) -> None:
    """Delete the extensions an earlier editable install compiled next to the sources, except
    those of the modules in ``keep`` (paths as in :data:`COMPILED`): Python imports an extension
    before a source of the same name, so a module no longer compiled, or a build without
    compiling, would otherwise go on running them."""
    for built in _PACKAGE.rglob("*.so"):
        module = built.relative_to(_PACKAGE).parent / (built.name.split(".")[0] + ".py")
        if module.as_posix() not in keep and not (keep and module.stem == "_compiled__mypyc"):
            built.unlink()


def _extensions() -> list[object]:
    if os.environ.get("HANAFUDA_REFEREE_PURE", "") not in ("", "0"):
        _remove_built_in_place(frozenset())
        return []
    _remove_built_in_place(frozenset(COMPILED))
    from mypyc.build import mypycify

    config = Path(tempfile.mkdtemp(prefix="hanafuda-mypyc-")) / "mypy.ini"
    config.write_text(_MYPY_CONFIG)
    return list(
        mypycify(
            ["--config-file", str(config), *(f"{_PACKAGE}/{m}" for m in COMPILED)],
            opt_level="3",
            # The shared library of the compiled modules lives inside the package, not next to it.
            group_name="hanafuda_referee._compiled",
        )
    )


setup(ext_modules=_extensions())
