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
from hanafuda_referee.identity_cache import IdentityCache
from hanafuda_referee.interning import Interner
from hanafuda_referee.koikoi.events import RoundResult
from hanafuda_referee.koikoi.game import KoiKoiState, Phase, round_month
from hanafuda_referee.koikoi.rules import KoiKoiRules
from hanafuda_referee.varint import Reader, Writer, mask_bytes, pack, zigzag

__all__ = ["decode", "encode"]

#: The format written: 3, whose finished rounds come with their length, so that a state decoded
#: again (every read of a stored game) finds them by their bytes without parsing them: a long
#: game's reads cost what its present costs. Format 2 (the same without that length) and
#: format 1 (hands as varints, see :mod:`..varint`) are read too.
_FORMAT = 3
_FORMAT_UNSIZED_RESULTS = 2
_FORMAT_VARINT_HANDS = 1
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


#: Bound on each cache below: past it, it is emptied (entries are cheap to rebuild).
_CACHE_LIMIT = 4096
#: The encoded parts that stay the same over many moves, by the identity of what they encode
#: (a game's states share their rule set, prepared deals and results objects until these change):
#: each entry keeps its objects, so an id cannot be reused while it is cached.
_HEADS: dict[tuple[int, int, int], tuple[KoiKoiRules, tuple[Deal, ...], bytes]] = {}
_RESULTS: IdentityCache[tuple[RoundResult, ...], bytes] = IdentityCache(_CACHE_LIMIT)
#: The other way: decoded finished rounds by their bytes, so that the states decoded from one
#: game's store share one results tuple between two round ends, as its states in play do (the
#: writers of answers find a results tuple's written form by its identity).
_DECODED_RESULTS: Interner[bytes, tuple[RoundResult, ...]] = Interner(_CACHE_LIMIT)


@lru_cache(maxsize=256)
def _rules(preset: str, overrides_text: str) -> KoiKoiRules:
    """The rule set a state stores, one object per stored text: resolving it is costly, and the
    caches of this module, the scoring and the views find a rule set by identity first, so
    states decoded from the store share their game's object rather than each bring a new one."""
    return KoiKoiRules.from_preset(preset, json.loads(overrides_text) if overrides_text else {})


def _head(state: KoiKoiState) -> bytes:
    """Format, rule set, seed and prepared deals: the same for every state of a game."""
    key = (id(state.rules), state.seed, id(state.prepared))
    known = _HEADS.get(key)
    if known is not None and known[0] is state.rules and known[1] is state.prepared:
        return known[2]
    w = Writer()
    w.uint(_FORMAT)
    w.text(state.rules.preset)
    w.text(_overrides_text(state.rules))
    w.uint(state.seed)
    w.uint(len(state.prepared))
    for deal in state.prepared:
        _write_deal(w, deal)
    data = w.getvalue()
    if len(_HEADS) >= _CACHE_LIMIT:
        _HEADS.clear()
    _HEADS[key] = (state.rules, state.prepared, data)
    return data


def _results(results: tuple[RoundResult, ...]) -> bytes:
    """The finished rounds: the same from one round's end to the next."""
    known = _RESULTS.get(results)
    if known is not None:
        return known
    values = [len(results)]
    for r in results:
        values += (
            r.round,
            r.dealer,
            _WORD_INDEX[r.outcome],
            _WORD_INDEX[r.detail],
            r.winner + 1,
            r.points,
            r.captured,
            r.own_calls,
            r.opponent_calls,
            r.opponent_points,
        )
    return _RESULTS.put(results, pack(*values))


def _sized_results(results: tuple[RoundResult, ...]) -> bytes:
    data = _results(results)
    return pack(len(data)) + data


def _read_results(r: Reader) -> tuple[RoundResult, ...]:
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
    return tuple(results)


def encode(state: KoiKoiState) -> bytes:
    """The state as bytes; :func:`decode` gives back an equal state.

    Every move encodes its new state for the store, so the parts that rarely change come from
    small caches and the rest is packed in three runs.
    """
    (
        _,
        _,
        _,
        deals_made,
        round_number,
        dealer,
        scores,
        results,
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
        resigned,
    ) = state
    # A resignation is written as an optional last field, so that every other state keeps
    # the bytes of format 2.
    return b"".join(
        (
            _head(state),
            pack(deals_made, round_number, dealer, zigzag(scores[0]), zigzag(scores[1])),
            _sized_results(results),
            pack(phase, turn),
            mask_bytes(hands[0]),
            mask_bytes(hands[1]),
            pack(field, len(stock)),
            bytes(stock),
            pack(
                stock_pos,
                captured[0],
                captured[1],
                calls[0],
                calls[1],
                last_caller + 1,
                turn_points,
                drawn,
                wild[0],
                wild[1],
                int(willow_seen),
            ),
            pack(resigned + 1) if resigned >= 0 else b"",
        )
    )


def decode(data: bytes) -> KoiKoiState:
    """The state :func:`encode` encoded. Raises ``RulesError`` (``BAD_ENCODING``) on bad input."""
    r = Reader(data)
    state_format = r.uint()
    if state_format not in (_FORMAT, _FORMAT_UNSIZED_RESULTS, _FORMAT_VARINT_HANDS):
        raise RulesError(Reason.BAD_ENCODING, "unknown Koi-Koi state format")
    preset = r.text()
    overrides_text = r.text()
    rules = _rules(preset, overrides_text)
    seed = r.uint()
    prepared = tuple(
        Deal((r.small_ints(), r.small_ints()), r.small_ints(), r.small_ints())
        for _ in range(r.uint())
    )
    deals_made, round_number, dealer = r.uint(), r.uint(), r.uint()
    scores = (r.sint(), r.sint())
    if state_format == _FORMAT:
        results_bytes = r.take(r.uint())
        shared = _DECODED_RESULTS.get(results_bytes)
        if shared is None:
            sub = Reader(results_bytes)
            shared = _DECODED_RESULTS.intern(results_bytes, _read_results(sub))
            sub.done()
    else:
        results_start = r.position
        parsed = _read_results(r)
        shared = _DECODED_RESULTS.intern(data[results_start : r.position], parsed)
    phase = Phase(r.uint())
    turn = r.uint()
    hands = (r.uint(), r.uint()) if state_format == _FORMAT_VARINT_HANDS else (r.mask(), r.mask())
    field = r.uint()
    stock = r.small_ints()
    stock_pos = r.uint()
    captured = (r.uint(), r.uint())
    calls = (r.uint(), r.uint())
    last_caller = r.uint() - 1
    turn_points, drawn = r.uint(), r.uint()
    wild = (r.uint(), r.uint())
    willow_seen = bool(r.uint())
    resigned = r.uint() - 1 if r.position < len(data) else -1
    r.done()
    return KoiKoiState(
        rules,
        seed,
        prepared,
        deals_made,
        round_number,
        dealer,
        scores,
        shared,
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
        resigned,
    )
