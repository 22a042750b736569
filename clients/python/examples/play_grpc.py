"""Play a hosted game to its end over gRPC, each seat taking its first legal move.

Usage: python play_grpc.py TARGET [GAME_ID TOKEN ...]  (TARGET as host:port, the tokens in seat
order; without a game, it creates a Koi-Koi game of one round and plays that)

Before playing, it submits a move the referee refuses, to show what a refusal carries: the gRPC
status and, in the rich status details, a ``google.rpc.ErrorInfo`` with the stable reason.
Needs ``grpcio``, ``grpcio-status`` and the generated ``hanafuda.v1`` package: the client
distribution (``pip install ./clients/python``), which the service installs too.
"""

from __future__ import annotations

import sys

import grpc
from google.rpc import error_details_pb2  # type: ignore[import-untyped]
from grpc_status import rpc_status  # type: ignore[import-untyped]
from hanafuda.v1 import game_pb2, moves_pb2, rules_pb2, service_pb2, service_pb2_grpc


def bearer(token: str) -> tuple[tuple[str, str | bytes], ...]:
    """The call metadata that makes a call a seat's."""
    return (("authorization", f"Bearer {token}"),)


def reason_of(error: grpc.RpcError) -> str:
    """The stable reason of a refused call (its ErrorInfo), or "" when it has none."""
    status = rpc_status.from_call(error)
    for detail in status.details if status is not None else ():
        info = error_details_pb2.ErrorInfo()
        if detail.Unpack(info):
            return str(info.reason)
    return ""


def views_of(
    stub: service_pb2_grpc.RefereeServiceStub, game: str, tokens: list[str]
) -> list[game_pb2.GameView]:
    """The game as each seat sees it, in seat order."""
    return [
        stub.GetGame(service_pb2.GetGameRequest(game=game), metadata=bearer(token)).view
        for token in tokens
    ]


def create(stub: service_pb2_grpc.RefereeServiceStub) -> tuple[str, list[str]]:
    """A new Koi-Koi game of one round: its id and the seats' tokens."""
    created = stub.CreateGame(
        service_pb2.CreateGameRequest(
            kind=rules_pb2.GAME_KIND_KOI_KOI,
            players=["ann", "bob"],
            koi_koi=rules_pb2.KoiKoiRules(rounds=1),
        )
    )
    return created.game, list(created.player_tokens)


def show_a_refusal(stub: service_pb2_grpc.RefereeServiceStub, game: str, tokens: list[str]) -> None:
    """A move refused, and how the refusal reads: the first legal move of the seat on turn,
    submitted by another seat (``NOT_YOUR_TURN``); or, when the game is already over (a
    one-round game can end at its deal), any move (``GAME_OVER``)."""
    views = views_of(stub, game, tokens)
    mover = next((seat for seat, view in enumerate(views) if view.legal_moves), None)
    if mover is None:
        seat, move = 0, moves_pb2.Move(kind=moves_pb2.MOVE_KIND_STOP)
    else:
        seat, move = (mover + 1) % len(tokens), views[mover].legal_moves[0]
    try:
        request = service_pb2.SubmitMoveRequest(
            game=game, move=move, expected_version=views[seat].version
        )
        stub.SubmitMove(request, metadata=bearer(tokens[seat]))
    except grpc.RpcError as error:
        print(f"seat {seat} refused: {error.code().name} {reason_of(error)}")


def play(stub: service_pb2_grpc.RefereeServiceStub, game: str, tokens: list[str]) -> None:
    """Each seat with a legal move plays the first one, until the game is over."""
    while True:
        views = views_of(stub, game, tokens)
        if views[0].status != game_pb2.GAME_STATUS_IN_PROGRESS:
            final = views[0]
            scores = ", ".join(f"{s.name} {s.score}" for s in final.seats)
            print(f"{game_pb2.GameStatus.Name(final.status)}: {scores}")
            return
        seat = next(i for i, view in enumerate(views) if view.legal_moves)
        move = views[seat].legal_moves[0]
        answer = stub.SubmitMove(
            service_pb2.SubmitMoveRequest(
                game=game, move=move, expected_version=views[seat].version
            ),
            metadata=bearer(tokens[seat]),
        )
        kind = moves_pb2.MoveKind.Name(move.kind)
        print(f"seat {seat}: {kind} -> version {answer.version}, {len(answer.events)} events")


def main(target: str, game: str | None, tokens: list[str]) -> None:
    with grpc.insecure_channel(target) as channel:
        stub = service_pb2_grpc.RefereeServiceStub(channel)
        if game is None:
            game, tokens = create(stub)
            print(f"created {game}")
        show_a_refusal(stub, game, tokens)
        play(stub, game, tokens)


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2] if len(sys.argv) > 2 else None, sys.argv[3:])
