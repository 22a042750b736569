"""Game states and logged deals stored by earlier versions are read back, and hidden card sets
take the same room whatever they hold.

The bytes below were written by the encoders before hands came to be stored at a fixed width
(Koi-Koi format 1, Hachi-Hachi formats 1 and 2, varint hands), and before the finished rounds
came with their length (Koi-Koi format 2, Hachi-Hachi formats 3 and 4); a game in Redis across
an upgrade is read from them, and written again in the current format at its next move. Its log
keeps its deals as they were logged (``ROUND_DEALT``, varint hands) and is read as it is.
"""

from __future__ import annotations

import random
from typing import Any

import pytest
from hanafuda.v1 import play_pb2, rules_pb2

from hanafuda_referee.dealing import shuffled_deal
from hanafuda_referee.hachihachi import codec as hachi_codec
from hanafuda_referee.hachihachi import game as hachi
from hanafuda_referee.hachihachi.game import HachiHachiState
from hanafuda_referee.hachihachi.rules import HachiHachiRules
from hanafuda_referee.hosting import hachihachi as hachi_adapter
from hanafuda_referee.hosting import koikoi as koikoi_adapter
from hanafuda_referee.hosting.adapter import GameInfo
from hanafuda_referee.hosting.koikoi import KOI_KOI
from hanafuda_referee.hosting.tokens import GameMeta
from hanafuda_referee.hosting.turns import ClockSettings, Seats
from hanafuda_referee.koikoi import codec as koikoi_codec
from hanafuda_referee.koikoi import events as koikoi_events
from hanafuda_referee.koikoi import game as koikoi
from hanafuda_referee.koikoi.game import KoiKoiState
from hanafuda_referee.koikoi.rules import KoiKoiRules
from hanafuda_referee.varint import MASK_BYTES, Writer, mask_bytes, pack
from tests.legacy_meta import legacy_meta


def _played(engine: Any, state: Any, rng: random.Random, moves: int, stop: Any = None) -> Any:
    for _ in range(moves):
        if stop is not None and stop(state):
            break
        state, _ = engine.apply(state, state.turn, rng.choice(engine.legal_moves(state)))
    return state


def koikoi_state() -> KoiKoiState:
    state, _ = koikoi.new_game(KoiKoiRules.from_preset("fudawiki", {"rounds": 3}), seed=5)
    return _played(koikoi, state, random.Random(1), 7)  # type: ignore[no-any-return]


def hachihachi_state() -> HachiHachiState:
    rules = HachiHachiRules.from_preset("fudawiki", {})
    state, _ = hachi.new_game(rules, seed=12, participants=3)
    return _played(hachi, state, random.Random(2), 9)  # type: ignore[no-any-return]


def dropping_state() -> HachiHachiState:
    """Five participants, once a hand is set aside."""
    rules = HachiHachiRules.from_preset("fudawiki", {})
    state, _ = hachi.new_game(rules, seed=11, participants=5)
    return _played(hachi, state, random.Random(3), 10, lambda s: s.aside)  # type: ignore[no-any-return]


def after_drops_state() -> HachiHachiState:
    """A prepared deal with a stock after drops (Hachi-Hachi format 2, then 4, now 6)."""
    dealt = shuffled_deal(21, 0, 4, 7, 6)
    prepared = dealt._replace(stock_after_drops=tuple(reversed(dealt.hands[1] + dealt.stock)))
    rules = HachiHachiRules.from_preset("fudawiki", {})
    state, _ = hachi.new_game(rules, seed=21, participants=4, deals=[prepared])
    return state


#: (the state, its codec, its bytes in the earlier format, that format, the format now)
EARLIER = [
    (
        koikoi_state,
        koikoi_codec,
        "01086675646177696b690c7b22726f756e6473223a337d05000101000000000101848480808140c080c080"
        "a08030a090a280c4880118261b050b232a1703300412182b250d161a2d112c012728200780a880858a0380"
        "8385500000000000000001",
        1,
        3,
    ),
    (
        koikoi_state,
        koikoi_codec,
        "02086675646177696b690c7b22726f756e6473223a337d0500010100000000010104020010000200004000"
        "100002c00000a090a280c4880118261b050b232a1703300412182b250d161a2d112c012728200780a88085"
        "8a03808385500000000000000001",
        2,
        3,
    ),
    (
        hachihachi_state,
        hachi_codec,
        "01086675646177696b69000c03000101010101a0c0c28084010000000002010700000003010200c0808080"
        "a0128c18000080a08081800ca082808c80800600008080848080c0488080e0800c000082c582c090a12015"
        "2b0b0a171f091801282a2e1c1a1104120e1622191d0900000000",
        1,
        5,
    ),
    (
        dropping_state,
        hachi_codec,
        "01086675646177696b69000b05000101030102908481c080030000000000000101180101a0a09281c00800"
        "000000008080848880d430000000c880808086800e0000008088c880390000008480a0b280a04000000090"
        "8481c0800307080b0d2a1701070000000000",
        1,
        5,
    ),
    (
        after_drops_state,
        hachi_codec,
        "02086675646177696b6900150401072a250d27291026070a23082220122c072b1816211f1513072d1b1c1e"
        "070e1a060117041409060e241d0319020c2e0b1130050f282f152f280f0530110b2e0c0219031d242c1220"
        "2208230a0101020102d284c00400000000000102000000000080c0848080dc01000000808a9080d0810400"
        "00008080a08ba88002000000808181e0858008000000d284c0040e241d0319020c2e0b1130050f282f0000"
        "000000",
        2,
        6,
    ),
    (
        hachihachi_state,
        hachi_codec,
        "03086675646177696b69000c03000101010101a0c0c2808401000000000201070000000000000000000003"
        "01020040000000920000008c1800000010200060000000a082808c808006000000000100002201008080e0"
        "800c000082c582c090a120152b0b0a171f091801282a2e1c1a1104120e1622191d0900000000",
        3,
        5,
    ),
    (
        after_drops_state,
        hachi_codec,
        "04086675646177696b6900150401072a250d27291026070a23082220122c072b1816211f1513072d1b1c1e"
        "070e1a060117041409060e241d0319020c2e0b1130050f282f152f280f0530110b2e0c0219031d242c1220"
        "2208230a0101020102d284c0040000000000010200000000000000000000000000200100e0060000000000"
        "000504000d10000000000000006881020800000000008040005c00200000000000d284c0040e241d031902"
        "0c2e0b1130050f282f0000000000",
        4,
        6,
    ),
]


@pytest.mark.parametrize(("make", "codec", "earlier", "was", "now"), EARLIER)
def test_a_state_stored_in_an_earlier_format_is_read_back(
    make: Any, codec: Any, earlier: str, was: int, now: int
) -> None:
    state = make()
    data = bytes.fromhex(earlier)
    assert data[0] == was
    assert codec.decode(data) == state
    # Written again, it takes the current format, which reads back the same.
    current = codec.encode(codec.decode(data))
    assert current[0] == now and current == codec.encode(state)
    assert codec.decode(current) == state


def test_the_earlier_states_hold_what_they_are_here_for() -> None:
    assert dropping_state().aside != 0
    assert after_drops_state().prepared[0].stock_after_drops
    assert all(hand.bit_length() > 7 for hand in koikoi_state().hands)  # several varint bytes


def _shuffled_hidden(state: Any, rng: random.Random) -> Any:
    """The state with the cards of its hands, its hands set aside and its stock still to draw
    dealt again among the same places."""
    hands = [[c for c in range(1, 49) if h >> c & 1] for h in state.hands]
    aside = [c for c in range(1, 49) if getattr(state, "aside", 0) >> c & 1]
    stock = list(state.stock[state.stock_pos :])
    cards = [c for group in (*hands, aside, stock) for c in group]
    rng.shuffle(cards)
    it = iter(cards)
    new_hands = tuple(sum(1 << next(it) for _ in hand) for hand in hands)
    changes: dict[str, Any] = {"hands": new_hands}
    if aside:
        changes["aside"] = sum(1 << next(it) for _ in aside)
    changes["stock"] = state.stock[: state.stock_pos] + tuple(it)
    return state._replace(**changes)


@pytest.mark.parametrize("make", [koikoi_state, hachihachi_state, dropping_state])
def test_the_hidden_cards_take_the_same_room_whatever_they_are(make: Any) -> None:
    """A stored state's length, and so the time to write and read it, says nothing of which
    cards are where out of sight: hands are written at a fixed width."""
    state = make()
    codec = koikoi_codec if isinstance(state, KoiKoiState) else hachi_codec
    rng = random.Random(7)
    lengths = set()
    for _ in range(200):
        other = _shuffled_hidden(state, rng)
        assert codec.decode(codec.encode(other)) == other
        lengths.add(len(codec.encode(other)))
    assert lengths == {len(codec.encode(state))}


def test_a_hand_takes_its_fixed_width() -> None:
    state = koikoi_state()
    emptied = state._replace(
        hands=(0, 0),
        stock=state.stock + tuple(c for h in state.hands for c in range(1, 49) if h >> c & 1),
    )
    # Emptying both hands into the stock moves their cards to one byte each, not their masks.
    grown = len(koikoi_codec.encode(emptied)) - len(koikoi_codec.encode(state))
    cards = sum(h.bit_count() for h in state.hands)
    assert grown == cards
    low, high = state._replace(hands=(2, 4)), state._replace(hands=(1 << 48, 1 << 47))
    assert len(koikoi_codec.encode(low)) == len(koikoi_codec.encode(high))
    assert koikoi_codec.decode(koikoi_codec.encode(high)).hands == (1 << 48, 1 << 47)
    assert MASK_BYTES == 8


# --- the logged deals --------------------------------------------------------------------------


def test_a_koikoi_deal_logged_with_varint_hands_is_read_as_one_logged_now() -> None:
    state = koikoi_state()
    _, events = koikoi.new_game(state.rules, seed=5)
    deal = next(e for e in events if isinstance(e, koikoi_events.RoundDealt))
    blobs = koikoi_adapter.encode_events(state, state, None, events)
    # ROUND_DEALT_FIXED (17): the hands at a fixed width between varints.
    assert (
        pack(17, deal.round, deal.dealer)
        + mask_bytes(deal.hands[0])
        + mask_bytes(deal.hands[1])
        + pack(deal.field, deal.stock_size)
        in blobs
    )
    hands = state.hands
    # The layout before (tag 3, ROUND_DEALT): every field a varint.
    earlier = pack(3, 1, 0, hands[0], hands[1], 0b110, 24)
    now = pack(17, 1, 0) + mask_bytes(hands[0]) + mask_bytes(hands[1]) + pack(0b110, 24)
    info = GameInfo("g", ("Ann", "Bob"))
    for seat in (0, 1, None):
        read = koikoi_adapter.event_to_proto(state.rules, earlier, seat, info)
        assert read == koikoi_adapter.event_to_proto(state.rules, now, seat, info)
        assert list(read.round_dealt.hand) == (
            [] if seat is None else [c for c in range(1, 49) if hands[seat] >> c & 1]
        )
    assert KOI_KOI.deal_records(state, [earlier]) == KOI_KOI.deal_records(state, [now])


def test_a_hachihachi_deal_logged_with_varint_hands_is_read_as_one_logged_now() -> None:
    state = hachihachi_state()
    rules = state.rules
    _, events = hachi.new_game(rules, seed=12, participants=3)
    assert any(blob[0] == 21 for blob in hachi_adapter.encode_events(None, events))
    hands = state.hands

    def logged(tag: int, write: Any) -> bytes:
        w = Writer()
        for value in (tag, 1, 0, 0, 1, len(hands)):
            w.uint(value)
        for hand in hands:
            write(w, hand)
        w.uint(0b110)
        w.uint(21)
        w.small_ints(())
        return w.getvalue()

    earlier = logged(3, Writer.uint)  # ROUND_DEALT: varint hands
    now = logged(21, Writer.mask)  # ROUND_DEALT_FIXED
    info = GameInfo("g", ("Ann", "Bob", "Cy"))
    for seat in (0, 1, 2, None):
        read = hachi_adapter.event_to_proto(rules, earlier, seat, info)
        assert read == hachi_adapter.event_to_proto(rules, now, seat, info)
        expected = [] if seat is None else [c for c in range(1, 49) if hands[seat] >> c & 1]
        assert list(read.round_dealt.hand) == expected


def test_a_commit_logged_with_bot_moves_in_it_still_replays() -> None:
    """Before bot workers, a seat's move and the bot moves it handed the turn to shared one
    commit: a format-2 log header with ``Cause.BOT`` steps after the ``PLAYED`` one. Such an entry,
    as it was stored, still reads back and replays to the state those moves lead to."""
    from hanafuda.v1 import rules_pb2, service_pb2

    from hanafuda_referee.hosting.kinds import adapter_for
    from hanafuda_referee.hosting.stored import LogHeader, state_after
    from hanafuda_referee.hosting.turns import Cause
    from hanafuda_referee.moves import Move, MoveKind

    stored = bytes.fromhex("0280d095ffbc3105030001040000000101090001000001160001000000")
    header = LogHeader.decode(stored)
    assert [(s.seat, s.move, s.cause) for s in header.steps] == [
        (0, Move(MoveKind.PLAY, 4, 0), Cause.PLAYED),
        (1, Move(MoveKind.PLAY, 9, 0), Cause.BOT),
        (0, Move(MoveKind.PLAY, 22, 0), Cause.BOT),
    ]
    assert (header.seat, header.move) == (0, Move(MoveKind.PLAY, 4, 0))
    adapter = adapter_for(rules_pb2.GAME_KIND_KOI_KOI)
    request = service_pb2.CreateGameRequest(
        kind=rules_pb2.GAME_KIND_KOI_KOI, players=["a", "b"], first_dealer=0
    )
    start, _ = adapter.new_game(request, 3, [])
    expected = start
    for step in header.steps:
        expected, _ = adapter.apply(expected, step.seat, step.move)
    replayed = state_after(adapter, start, header)
    assert adapter.encode_state(replayed) == adapter.encode_state(expected)
    assert header.encode() == stored


def _meta_with_clock(mark: int, clock: ClockSettings) -> bytes:
    """A Koi-Koi game's meta, a person against an expert seat, as written with the clock
    settings after ``mark`` (1: the format from before the clocks were bounded)."""
    meta = GameMeta(
        rules_pb2.GAME_KIND_KOI_KOI,
        ("ann", "bob"),
        (bytes([7] * 32),) * 2,
        1_700_000_000_000,
        Seats((0, play_pb2.BOT_LEVEL_EXPERT), clock),
    )
    return legacy_meta(meta, clock, mark)


def test_clock_settings_stored_before_the_bounds_play_under_the_nearest_bounded_ones() -> None:
    """PLAY.md's bounded clocks: a game stored when ``max_auto_decisions`` 0 meant "never" and
    an expert could take timeouts still loads, and its abandoned seat still ends the game."""
    never = ClockSettings(1_000, 0, False, 0, play_pb2.BOT_LEVEL_EXPERT)
    many = ClockSettings(1_000, 0, False, 100, play_pb2.BOT_LEVEL_RANDOM)
    old_never = GameMeta.decode(_meta_with_clock(1, never)).seats.clock
    old_many = GameMeta.decode(_meta_with_clock(1, many)).seats.clock
    assert old_never is not None and old_many is not None
    assert (old_never.max_auto, old_never.timeout_bot) == (10, play_pb2.BOT_LEVEL_GREEDY)
    assert (old_many.max_auto, old_many.timeout_bot) == (10, play_pb2.BOT_LEVEL_RANDOM)


def test_a_bounded_zero_is_never_read_as_the_old_never() -> None:
    """Settings written now carry a mark of their own: 0 stays "resign at the first timeout"."""
    first = ClockSettings(1_000, 0, False, 0, play_pb2.BOT_LEVEL_RANDOM)
    meta = GameMeta(
        rules_pb2.GAME_KIND_KOI_KOI, ("ann", "bob"), (b"\x07" * 32,) * 2, 1, Seats((), first)
    )
    assert GameMeta.decode(meta.encode()).seats.clock == first
    assert GameMeta.decode(_meta_with_clock(2, first)).seats.clock == first
