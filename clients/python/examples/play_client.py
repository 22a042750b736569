"""Play a whole game through the Python client package (``hanafuda_client``), each seat taking
its first legal move, while a spectator watches it live.

Usage: python play_client.py [TARGET] [koikoi|hachihachi]  (TARGET as host:port, by default
localhost:50051)

Needs the client distribution alone (``pip install -e clients/python``).
"""

from __future__ import annotations

import sys
import threading

from hanafuda.v1 import game_pb2, rules_pb2, service_pb2
from hanafuda_client import RefereeClient, RefereeError

KINDS = {
    "koikoi": (rules_pb2.GAME_KIND_KOI_KOI, ["ann", "bob"]),
    "hachihachi": (rules_pb2.GAME_KIND_HACHI_HACHI, ["ann", "bob", "cy"]),
}


def main(target: str, kind: str) -> None:
    game_kind, players = KINDS[kind]
    with RefereeClient(target) as referee:
        created = referee.create_game(
            service_pb2.CreateGameRequest(kind=game_kind, players=players)
        )
        game, tokens = created.game, list(created.player_tokens)
        print(f"created {game}")

        def watch() -> None:  # a spectator, from the first version; resumes by itself
            versions = [item.version for item in referee.watch_game(game, from_version=0)]
            print(f"watched versions {versions[0]} to {versions[-1]}")

        watcher = threading.Thread(target=watch)
        watcher.start()
        view = created.view  # a spectator's view: whose turn it is
        while view.status == game_pb2.GAME_STATUS_IN_PROGRESS:
            own = referee.get_game(game, tokens[view.turn])  # the seat's own view
            view = referee.submit_move(
                game, own.legal_moves[0], tokens[view.turn], expected_version=own.version
            ).view
        watcher.join()
        try:
            referee.resign(game, tokens[0])
        except RefereeError as error:  # the game is over: refused, with its reason
            print(f"resign refused: {error.code.name} {error.reason}")
        print(f"{game_pb2.GameStatus.Name(view.status)} at version {view.version}")


if __name__ == "__main__":
    main(
        sys.argv[1] if len(sys.argv) > 1 else "localhost:50051",
        sys.argv[2] if len(sys.argv) > 2 else "koikoi",
    )
