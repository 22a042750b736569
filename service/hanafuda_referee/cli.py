"""The ``hanafuda-referee`` command.

``hanafuda-referee`` (or ``hanafuda-referee serve``) runs the service: gRPC, and HTTP when its
transport is installed, configured by flags and environment variables (see
:mod:`hanafuda_referee.config`); with ``--workers`` more than 1, in that many processes sharing
the ports (:mod:`hanafuda_referee.workers`). ``hanafuda-referee bot-workers`` runs bot workers
alone against Redis (:mod:`hanafuda_referee.botworkers.command`). ``hanafuda-referee demo`` plays a
whole Koi-Koi game between two random players and prints every ruling.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import sys
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING

from hanafuda_referee.config import Config, add_arguments
from hanafuda_referee.koikoi.rules import PRESETS

if TYPE_CHECKING:  # the service's modules are imported only to serve (not for ``demo``)
    from hanafuda_referee.serving import ExtraServices
    from hanafuda_referee.store import GameStore

__all__ = ["main"]


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="hanafuda-referee", description="Hanafuda Referee: Koi-Koi and Hachi-Hachi rules."
    )
    sub = parser.add_subparsers(dest="command")
    serve = sub.add_parser("serve", help="run the service (the default command)")
    add_arguments(serve)
    bot_workers = sub.add_parser(
        "bot-workers",
        help="run bot workers alone against REDIS_URL (for referees started with --bot-workers 0)",
    )
    add_arguments(bot_workers)
    demo = sub.add_parser("demo", help="two random players play a whole Koi-Koi game")
    demo.add_argument("--preset", default="fudawiki", choices=sorted(PRESETS))
    demo.add_argument("--seed", type=int, default=2026)
    return parser


def main(
    argv: Sequence[str] | None = None, *, extra: Callable[[GameStore], ExtraServices] | None = None
) -> int:
    """Run the command line ``argv`` (default: the process's); returns the exit status.
    ``extra``: services to serve beside the referee's (see :func:`.serving.serve`)."""
    args = list(sys.argv[1:] if argv is None else argv)
    # No command, or only settings flags: serve.
    if not args or (args[0].startswith("-") and args[0] not in ("-h", "--help")):
        args.insert(0, "serve")
    parser = _parser()
    parsed = parser.parse_args(args)
    if parsed.command == "demo":
        from hanafuda_referee.demo import play_demo

        play_demo(parsed.preset, parsed.seed)
        return 0
    try:
        config = Config.load(parsed, os.environ)
    except ValueError as error:
        parser.error(str(error))
    if parsed.command == "bot-workers":
        from hanafuda_referee.botworkers.command import run_bot_workers

        return run_bot_workers(config)
    if config.workers > 1:
        from hanafuda_referee.workers import run_workers

        return run_workers(config, extra=extra)
    from hanafuda_referee.observability.logs import configure_logging
    from hanafuda_referee.serving import StartupFailed, loop_factory, serve

    configure_logging(config.log_format, config.log_level)
    with asyncio.Runner(loop_factory=loop_factory()) as runner:
        try:
            runner.run(serve(config, extra=extra))
        except StartupFailed:
            return 1  # logged as it happened
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
