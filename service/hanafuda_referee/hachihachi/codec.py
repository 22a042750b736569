"""The compact, lossless byte encoding of a Hachi-Hachi game state (what the store keeps).

>>> from hanafuda_referee.hachihachi.game import new_game
>>> from hanafuda_referee.hachihachi.rules import HachiHachiRules
>>> state, _ = new_game(HachiHachiRules.from_preset("fudawiki", {"rounds": 3}), seed=9,
...                     participants=5)
>>> data = encode(state)
>>> decode(data) == state, len(data) < 200
(True, True)
"""

from __future__ import annotations

import json
from functools import lru_cache

from hanafuda_referee.dealing import Deal
from hanafuda_referee.errors import Reason, RulesError
from hanafuda_referee.hachihachi.dekiyaku import DekiyakuId
from hanafuda_referee.hachihachi.events import RoundResult
from hanafuda_referee.hachihachi.game import (
    MAX_PARTICIPANTS,
    MIN_PARTICIPANTS,
    HachiHachiState,
    Phase,
)
from hanafuda_referee.hachihachi.rules import HachiHachiRules
from hanafuda_referee.hachihachi.settlement import Payment, PaymentReason
from hanafuda_referee.hachihachi.teyaku import TEYAKU_VALUES, Teyaku, TeyakuId
from hanafuda_referee.identity_cache import IdentityCache
from hanafuda_referee.interning import Interner
from hanafuda_referee.varint import Reader, Writer, pack

__all__ = ["WORDS", "WORD_INDEX", "decode", "encode"]

#: The format written: 5, or 6 when a prepared deal has a stock after drops (format 6 writes
#: it after each deal's stock). Formats 3 and 4 are the same without the finished rounds' length
#: (below), formats 1 and 2 the same again with the hands and the hands set aside as varints
#: instead of at a fixed width (see :mod:`..varint`); all six are read.
_FORMAT = 5
_FORMAT_AFTER_DROPS = 6
_FORMATS_VARINT_HANDS = (1, 2)
#: Formats 5 and 6 are 3 and 4 with the finished rounds preceded by their length, so that a
#: state decoded again finds them by their bytes without parsing them (a long game's reads
#: cost what its present costs).
_FORMATS_SIZED_RESULTS = (5, 6)
#: The words of results and payments, stored as their index here, in states and (through the
#: service's Hachi-Hachi adapter) in logged events. Append only: stored data use these numbers,
#: so a new id goes at the end whatever its place in its table.
WORDS: tuple[str, ...] = (
    "shobu",
    "overtaken",
    "count",
    "triplet",
    "special-triplet",
    "red",
    "lone-ribbon",
    "lone-animal",
    "lone-light",
    "three-pairs",
    "empty-nest",
    "four-of-a-kind",
    "haneken",
    "one-two-four",
    "four-three",
    "akatan",
    "aotan",
    "inoshikacho",
    "seven-ribbons",
    "four-lights",
    "five-lights",
    "plains-16",
    "plains-17",
    "plains-18",
    "plains-19",
    "card-count",
    "all-eights",
    "double-eights",
    "sage-refund",
    "sage-overtaken",
    "drop-fee",
    # Only in logged events: the round winner taking the drop fees on the table.
    "drop-fees-taken",
)
WORD_INDEX = {word: i for i, word in enumerate(WORDS)}
# A new teyaku, dekiyaku or payment reason must be given a number above before it can be stored.
assert {*TeyakuId, *DekiyakuId, *PaymentReason} <= set(WORDS)


def _fail(what: str) -> RulesError:
    return RulesError(Reason.BAD_ENCODING, f"malformed Hachi-Hachi state: {what}")


def _write_payments(w: Writer, payments: tuple[Payment, ...]) -> None:
    w.uint(len(payments))
    for p in payments:
        w.uint(p.payer)
        w.uint(p.payee)
        w.uint(p.amount)
        w.uint(WORD_INDEX[p.reason])


def _word(r: Reader) -> str:
    index = r.uint()
    if index >= len(WORDS):
        raise _fail("unknown word")
    return WORDS[index]


def _read_payments(r: Reader) -> tuple[Payment, ...]:
    return tuple(Payment(r.uint(), r.uint(), r.uint(), _word(r)) for _ in range(r.uint()))


@lru_cache(maxsize=256)
def _overrides_text(rules: HachiHachiRules) -> str:
    """How a state stores its rule set's differences from the preset; worked out once per rule
    set, as every move encodes the state again."""
    overrides = rules.overrides()
    return json.dumps(overrides, separators=(",", ":"), sort_keys=True) if overrides else ""


#: Bound on each cache below: past it, it is emptied (entries are cheap to rebuild).
_CACHE_LIMIT = 4096
#: The encoded parts that stay the same over many moves, by the identity of what they encode
#: (a game's states share their rule set, prepared deals and results objects until these change):
#: each entry keeps its objects, so an id cannot be reused while it is cached.
_HEADS: dict[tuple[int, int, int, int], tuple[HachiHachiRules, tuple[Deal, ...], bytes]] = {}
_RESULTS: IdentityCache[tuple[RoundResult, ...], bytes] = IdentityCache(_CACHE_LIMIT)
#: The other way: decoded finished rounds by their bytes, so that the states decoded from one
#: game's store share one results tuple between two round ends, as its states in play do (the
#: writers of answers find a results tuple's written form by its identity).
_DECODED_RESULTS: Interner[bytes, tuple[RoundResult, ...]] = Interner(_CACHE_LIMIT)


def _head(state: HachiHachiState) -> bytes:
    """Format, rule set, seed, participants and prepared deals: the same for every state of a
    game."""
    key = (id(state.rules), state.seed, state.participants, id(state.prepared))
    known = _HEADS.get(key)
    if known is not None and known[0] is state.rules and known[1] is state.prepared:
        return known[2]
    w = Writer()
    after_drops = any(deal.stock_after_drops for deal in state.prepared)
    w.uint(_FORMAT_AFTER_DROPS if after_drops else _FORMAT)
    w.text(state.rules.preset)
    w.text(_overrides_text(state.rules))
    w.uint(state.seed)
    w.uint(state.participants)
    w.uint(len(state.prepared))
    for deal in state.prepared:
        for hand in deal.hands:
            w.small_ints(hand)
        w.small_ints(deal.field)
        w.small_ints(deal.stock)
        if after_drops:
            w.small_ints(deal.stock_after_drops)
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
    w = Writer()
    w.uint(len(results))
    for result in results:
        w.uint(result.round)
        w.uint(result.dealer)
        w.uint(result.multiplier)
        w.small_ints(result.players)
        w.uint(WORD_INDEX[result.outcome])
        w.uint(result.winner)
        w.uint(len(result.counts))
        for count in result.counts:
            w.uint(count)
        _write_payments(w, result.payments)
    return _RESULTS.put(results, w.getvalue())


def _read_results(r: Reader) -> tuple[RoundResult, ...]:
    results = []
    for _ in range(r.uint()):
        number, result_dealer, result_multiplier = r.uint(), r.uint(), r.uint()
        players = r.small_ints()
        if len(players) != 3:
            raise _fail("players")
        outcome = _word(r)
        winner = r.uint()
        counts = tuple(r.uint() for _ in range(r.uint()))
        payments = _read_payments(r)
        results.append(
            RoundResult(
                number,
                result_dealer,
                result_multiplier,
                (players[0], players[1], players[2]),
                outcome,
                winner,
                counts,
                payments,
            )
        )
    return tuple(results)


def encode(state: HachiHachiState) -> bytes:
    """The state as bytes; :func:`decode` gives back an equal state.

    Every move encodes its new state for the store, so the parts that rarely change (the head
    and the finished rounds) come from small caches.
    """
    w = Writer()
    for value in (
        state.deals_made,
        state.round,
        state.dealer,
        state.floor,
        state.multiplier,
        state.dealt_field,
    ):
        w.uint(value)
    for balance in state.balances:
        w.sint(balance)
    middle = w.getvalue()
    w = Writer()
    w.uint(state.phase)
    w.uint(state.turn)
    for value in (state.joined, state.dropped, state.fees):
        w.uint(value)
    w.mask(state.aside)
    w.small_ints(state.players)
    for seat in range(state.participants):
        w.mask(state.hands[seat])
        w.uint(state.captured[seat])
        w.uint(state.paid[seat])
        teyaku = state.teyaku[seat]
        if teyaku is None:
            w.uint(0)
        else:
            w.uint(WORD_INDEX[teyaku.id] + 1)
            w.uint(teyaku.exposed)
    w.uint(state.field)
    w.small_ints(state.stock)
    w.uint(state.stock_pos)
    w.uint(state.sage + 1)
    w.uint(state.first_points)
    w.uint(state.drawn)
    _write_payments(w, state.payments)
    # A resignation is written as an optional last field, so that every other state keeps
    # the bytes of formats 3 and 4.
    if state.resigned >= 0:
        w.uint(state.resigned + 1)
    results = _results(state.results)
    return b"".join((_head(state), middle, pack(len(results)), results, w.getvalue()))


@lru_cache(maxsize=256)
def _rules(preset: str, overrides_text: str) -> HachiHachiRules:
    """The rule set a state stores, one object per stored text (resolving it is costly, and
    caches elsewhere find a rule set by identity first)."""
    try:
        overrides = json.loads(overrides_text) if overrides_text else {}
    except ValueError:
        raise _fail("rule overrides") from None
    return HachiHachiRules.from_preset(preset, overrides)


def decode(data: bytes) -> HachiHachiState:
    """The state :func:`encode` encoded. Raises ``RulesError`` (``BAD_ENCODING``) on bad input.

    >>> decode(b"\\x07")
    Traceback (most recent call last):
    ...
    hanafuda_referee.errors.RulesError: unknown Hachi-Hachi state format
    """
    r = Reader(data)
    state_format = r.uint()
    if not 1 <= state_format <= _FORMAT_AFTER_DROPS:
        raise RulesError(Reason.BAD_ENCODING, "unknown Hachi-Hachi state format")
    after_drops = state_format % 2 == 0
    fixed = state_format not in _FORMATS_VARINT_HANDS
    preset = r.text()
    overrides_text = r.text()
    rules = _rules(preset, overrides_text)
    seed = r.uint()
    n = r.uint()
    if not MIN_PARTICIPANTS <= n <= MAX_PARTICIPANTS:
        raise _fail("participant count")
    prepared = tuple(
        Deal(
            tuple(r.small_ints() for _ in range(n)),
            r.small_ints(),
            r.small_ints(),
            r.small_ints() if after_drops else (),
        )
        for _ in range(r.uint())
    )
    deals_made, round_number, dealer, floor, multiplier, dealt_field = (r.uint() for _ in range(6))
    balances = tuple(r.sint() for _ in range(n))
    if state_format in _FORMATS_SIZED_RESULTS:
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
    try:
        phase = Phase(r.uint())
    except ValueError:
        raise _fail("phase") from None
    turn = r.uint()
    joined, dropped, fees = (r.uint() for _ in range(3))
    aside = r.mask() if fixed else r.uint()
    state_players = r.small_ints()
    hands: list[int] = []
    captured: list[int] = []
    paid: list[int] = []
    teyaku: list[Teyaku | None] = []
    for _ in range(n):
        hands.append(r.mask() if fixed else r.uint())
        captured.append(r.uint())
        paid.append(r.uint())
        index = r.uint()
        if index == 0:
            teyaku.append(None)
        else:
            try:
                teyaku_id = TeyakuId(WORDS[index - 1])
            except (IndexError, ValueError):
                raise _fail("teyaku") from None
            teyaku.append(Teyaku(teyaku_id, TEYAKU_VALUES[teyaku_id], r.uint()))
    field = r.uint()
    stock = r.small_ints()
    stock_pos = r.uint()
    sage = r.uint() - 1
    first_points = r.uint()
    drawn = r.uint()
    payments = _read_payments(r)
    resigned = r.uint() - 1 if r.position < len(data) else -1
    r.done()
    return HachiHachiState(
        rules,
        seed,
        n,
        prepared,
        deals_made,
        round_number,
        dealer,
        floor,
        multiplier,
        dealt_field,
        balances,
        shared,
        phase,
        turn,
        joined,
        dropped,
        fees,
        aside,
        state_players,
        tuple(hands),
        field,
        stock,
        stock_pos,
        tuple(captured),
        tuple(paid),
        tuple(teyaku),
        sage,
        first_points,
        drawn,
        payments,
        resigned,
    )
