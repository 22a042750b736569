"""The compact, lossless byte encoding of a Koi-Koi game state (what the store keeps).

>>> from hanafuda_referee.koikoi.game import new_game
>>> from hanafuda_referee.koikoi.rules import KoiKoiRules
>>> state, _ = new_game(KoiKoiRules.from_preset("coins", {"rounds": 3}), seed=9)
>>> data = encode(state)
>>> decode(data) == state, len(data) < 200
(True, True)
"""

from __future__ import annotations

import json
from functools import lru_cache

from hanafuda_referee.dealing import Deal
from hanafuda_referee.errors import Reason, RulesError
from hanafuda_referee.koikoi.events import RoundResult
from hanafuda_referee.koikoi.game import KoiKoiState, Phase, round_month
from hanafuda_referee.koikoi.rules import KoiKoiRules
from hanafuda_referee.varint import Reader, Writer

__all__ = ["decode", "encode"]

_FORMAT = 1
#: The words of round results, stored as their index here (append only: stored states use them).
_WORDS = (
    "stop",
    "exhaustion",
    "dealer-empty",
    "teyaku",
    "void",
    "called",
    "automatic",
    "last-koikoi-wins",
    "dealer-points",
    "field_four",
    "field_pairs",
    "hand_four",
    "hand_pairs",
)
_WORD_INDEX = {w: i for i, w in enumerate(_WORDS)}


def _write_deal(w: Writer, deal: Deal) -> None:
    for hand in deal.hands:
        w.small_ints(hand)
    w.small_ints(deal.field)
    w.small_ints(deal.stock)


@lru_cache(maxsize=256)
def _overrides_text(rules: KoiKoiRules) -> str:
    """How a state stores its rule set's differences from the preset; worked out once per rule
    set, as every move encodes the state again."""
    overrides = rules.overrides()
    return json.dumps(overrides, separators=(",", ":"), sort_keys=True) if overrides else ""


def encode(state: KoiKoiState) -> bytes:
    """The state as bytes; :func:`decode` gives back an equal state."""
    w = Writer()
    w.uint(_FORMAT)
    w.text(state.rules.preset)
    w.text(_overrides_text(state.rules))
    w.uint(state.seed)
    w.uint(len(state.prepared))
    for deal in state.prepared:
        _write_deal(w, deal)
    for value in (state.deals_made, state.round, state.dealer):
        w.uint(value)
    w.sint(state.scores[0])
    w.sint(state.scores[1])
    w.uint(len(state.results))
    for r in state.results:
        w.uint(r.round)
        w.uint(r.dealer)
        w.uint(_WORD_INDEX[r.outcome])
        w.uint(_WORD_INDEX[r.detail])
        w.uint(r.winner + 1)
        for value in (r.points, r.captured, r.own_calls, r.opponent_calls, r.opponent_points):
            w.uint(value)
    w.uint(state.phase)
    w.uint(state.turn)
    for value in (*state.hands, state.field):
        w.uint(value)
    w.small_ints(state.stock)
    w.uint(state.stock_pos)
    for value in (*state.captured, *state.calls):
        w.uint(value)
    w.uint(state.last_caller + 1)
    w.uint(state.turn_points)
    w.uint(state.drawn)
    w.uint(state.wild[0])
    w.uint(state.wild[1])
    w.uint(int(state.willow_seen))
    return w.getvalue()


def decode(data: bytes) -> KoiKoiState:
    """The state :func:`encode` encoded. Raises ``RulesError`` (``BAD_ENCODING``) on bad input."""
    r = Reader(data)
    if r.uint() != _FORMAT:
        raise RulesError(Reason.BAD_ENCODING, "unknown Koi-Koi state format")
    preset = r.text()
    overrides_text = r.text()
    rules = KoiKoiRules.from_preset(preset, json.loads(overrides_text) if overrides_text else {})
    seed = r.uint()
    prepared = tuple(
        Deal((r.small_ints(), r.small_ints()), r.small_ints(), r.small_ints())
        for _ in range(r.uint())
    )
    deals_made, round_number, dealer = r.uint(), r.uint(), r.uint()
    scores = (r.sint(), r.sint())
    results = []
    for _ in range(r.uint()):
        number, result_dealer = r.uint(), r.uint()
        outcome, detail = _WORDS[r.uint()], _WORDS[r.uint()]
        winner = r.uint() - 1
        points, taken, own, opp, opp_points = (r.uint() for _ in range(5))
        results.append(
            RoundResult(
                number,
                round_month(number),
                result_dealer,
                outcome,
                detail,
                winner,
                points,
                taken,
                own,
                opp,
                opp_points,
            )
        )
    phase = Phase(r.uint())
    turn = r.uint()
    hands = (r.uint(), r.uint())
    field = r.uint()
    stock = r.small_ints()
    stock_pos = r.uint()
    captured = (r.uint(), r.uint())
    calls = (r.uint(), r.uint())
    last_caller = r.uint() - 1
    turn_points, drawn = r.uint(), r.uint()
    wild = (r.uint(), r.uint())
    willow_seen = bool(r.uint())
    r.done()
    return KoiKoiState(
        rules,
        seed,
        prepared,
        deals_made,
        round_number,
        dealer,
        scores,
        tuple(results),
        phase,
        turn,
        hands,
        field,
        stock,
        stock_pos,
        captured,
        calls,
        last_caller,
        turn_points,
        drawn,
        wild,
        willow_seen,
    )
