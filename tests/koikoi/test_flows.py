"""Rule flows of a Koi-Koi round, played from prepared deals and built positions."""

from __future__ import annotations

import pytest

from hanafuda_referee.cards import Card, mask_of
from hanafuda_referee.errors import MoveRejected, Reason
from hanafuda_referee.koikoi import events as ev
from hanafuda_referee.koikoi.game import (
    KoiKoiState,
    Phase,
    apply,
    classify_hand,
    legal_moves,
    new_game,
)
from hanafuda_referee.koikoi.rules import KoiKoiRules
from hanafuda_referee.moves import KOIKOI, SAGE, STOP, Move
from tests.koikoi.positions import deal, position

C = Card
NINTENDO = KoiKoiRules.from_preset("nintendo")


def rejected(state: KoiKoiState, seat: int, move: Move) -> Reason:
    with pytest.raises(MoveRejected) as info:
        apply(state, seat, move)
    return info.value.reason


def kinds(events: tuple[ev.Event, ...]) -> list[str]:
    return [type(e).__name__ for e in events]


# --- captures --------------------------------------------------------------------------------


def test_target_is_required_exactly_when_two_field_cards_match() -> None:
    state = position(
        NINTENDO,
        hands=([C.PINE_CRANE, C.MAPLE_PLAIN_1], [C.PEONY_PLAIN_1, C.IRIS_PLAIN_1]),
        field=[C.PINE_PLAIN_1, C.PINE_PLAIN_2, C.CHERRY_PLAIN_1],
        stock=[C.WISTERIA_PLAIN_1],
    )
    assert rejected(state, 0, Move.play(C.PINE_CRANE)) is Reason.TARGET_REQUIRED
    assert rejected(state, 0, Move.play(C.PINE_CRANE, C.CHERRY_PLAIN_1)) is (
        Reason.TARGET_DOES_NOT_MATCH
    )
    assert Move.play(C.PINE_CRANE, C.PINE_PLAIN_2) in legal_moves(state)
    assert Move.play(C.PINE_CRANE) not in legal_moves(state)
    after, events = apply(state, 0, Move.play(C.PINE_CRANE, C.PINE_PLAIN_2))
    assert after.captured[0] == mask_of([C.PINE_CRANE, C.PINE_PLAIN_2])
    assert after.field == mask_of([C.PINE_PLAIN_1, C.CHERRY_PLAIN_1, C.WISTERIA_PLAIN_1])
    assert events[0] == ev.CardPlayed(0, C.PINE_CRANE, mask_of([C.PINE_CRANE, C.PINE_PLAIN_2]))
    assert after.turn == 1


def test_a_single_match_is_taken_with_or_without_naming_it() -> None:
    state = position(
        NINTENDO,
        hands=([C.PINE_CRANE, C.MAPLE_PLAIN_1], [C.PEONY_PLAIN_1, C.IRIS_PLAIN_1]),
        field=[C.PINE_PLAIN_1, C.CHERRY_PLAIN_1],
        stock=[C.WISTERIA_PLAIN_1],
    )
    a, _ = apply(state, 0, Move.play(C.PINE_CRANE))
    b, _ = apply(state, 0, Move.play(C.PINE_CRANE, C.PINE_PLAIN_1))
    assert a == b
    assert a.captured[0] == mask_of([C.PINE_CRANE, C.PINE_PLAIN_1])


def test_a_card_with_no_match_joins_the_field_and_names_no_target() -> None:
    state = position(
        NINTENDO,
        hands=([C.MAPLE_PLAIN_1, C.PINE_CRANE], [C.PEONY_PLAIN_1, C.IRIS_PLAIN_1]),
        field=[C.PINE_PLAIN_1],
        stock=[C.WISTERIA_PLAIN_1],
    )
    assert rejected(state, 0, Move.play(C.MAPLE_PLAIN_1, C.PINE_PLAIN_1)) is (
        Reason.TARGET_DOES_NOT_MATCH
    )
    after, _ = apply(state, 0, Move.play(C.MAPLE_PLAIN_1))
    assert after.field == mask_of([C.PINE_PLAIN_1, C.MAPLE_PLAIN_1, C.WISTERIA_PLAIN_1])
    assert after.captured == (0, 0)


def test_three_matches_take_all_four() -> None:
    state = position(
        NINTENDO,
        hands=([C.PINE_CRANE, C.MAPLE_PLAIN_1], [C.PEONY_PLAIN_1, C.IRIS_PLAIN_1]),
        field=[C.PINE_RIBBON, C.PINE_PLAIN_1, C.PINE_PLAIN_2, C.CHERRY_PLAIN_1],
        stock=[C.WISTERIA_PLAIN_1],
    )
    assert legal_moves(state)[0] == Move.play(C.PINE_CRANE)
    after, _ = apply(state, 0, Move.play(C.PINE_CRANE))
    assert after.captured[0] == mask_of(
        [C.PINE_CRANE, C.PINE_RIBBON, C.PINE_PLAIN_1, C.PINE_PLAIN_2]
    )


def test_the_drawn_cards_target_choice_blocks_until_answered() -> None:
    state = position(
        NINTENDO,
        hands=([C.MAPLE_PLAIN_1, C.IRIS_PLAIN_2], [C.PEONY_PLAIN_1, C.IRIS_PLAIN_1]),
        field=[C.PINE_CRANE, C.PINE_RIBBON],
        stock=[C.PINE_PLAIN_1],
    )
    waiting, events = apply(state, 0, Move.play(C.MAPLE_PLAIN_1))
    assert waiting.phase is Phase.DRAWN_TARGET and waiting.turn == 0
    assert events[-1] == ev.TargetRequired(
        0, C.PINE_PLAIN_1, mask_of([C.PINE_CRANE, C.PINE_RIBBON])
    )
    assert legal_moves(waiting) == [Move.choose(C.PINE_CRANE), Move.choose(C.PINE_RIBBON)]
    assert legal_moves(waiting, 1) == []
    assert rejected(waiting, 1, Move.play(C.PEONY_PLAIN_1)) is Reason.NOT_YOUR_TURN
    assert rejected(waiting, 0, Move.play(C.IRIS_PLAIN_2)) is Reason.WRONG_MOVE
    assert rejected(waiting, 0, KOIKOI) is Reason.WRONG_MOVE
    assert rejected(waiting, 0, Move.choose(C.MAPLE_PLAIN_1)) is Reason.TARGET_DOES_NOT_MATCH
    done, events = apply(waiting, 0, Move.choose(C.PINE_RIBBON))
    assert events[0] == ev.CardDrawn(0, C.PINE_PLAIN_1, mask_of([C.PINE_PLAIN_1, C.PINE_RIBBON]))
    assert done.turn == 1 and done.phase is Phase.PLAY
    assert done.field == mask_of([C.PINE_CRANE, C.MAPLE_PLAIN_1])


def test_a_drawn_card_takes_its_only_match_or_all_three() -> None:
    state = position(
        NINTENDO,
        hands=([C.MAPLE_PLAIN_1, C.IRIS_PLAIN_2], [C.PEONY_PLAIN_1, C.IRIS_PLAIN_1]),
        field=[C.PINE_CRANE, C.PINE_RIBBON, C.PINE_PLAIN_2],
        stock=[C.PINE_PLAIN_1],
    )
    after, _ = apply(state, 0, Move.play(C.MAPLE_PLAIN_1))
    assert after.captured[0] == mask_of(
        [C.PINE_CRANE, C.PINE_RIBBON, C.PINE_PLAIN_1, C.PINE_PLAIN_2]
    )


# --- yaku check, koi-koi and stop ---------------------------------------------------------------


def sanko_position(rules: KoiKoiRules, **kw: object) -> KoiKoiState:
    hands = kw.pop("hands", ([C.SUSUKI_MOON, C.MAPLE_PLAIN_1], [C.PEONY_PLAIN_1, C.IRIS_PLAIN_1]))
    return position(
        rules,
        hands=hands,  # type: ignore[arg-type]
        field=[C.SUSUKI_PLAIN_1, C.CHERRY_PLAIN_1],
        stock=[C.WISTERIA_PLAIN_1, C.CLOVER_PLAIN_1, C.PAULOWNIA_PLAIN_1],
        captured=([C.PINE_CRANE, C.CHERRY_CURTAIN], []),
        **kw,  # type: ignore[arg-type]
    )


def test_a_new_yaku_asks_koikoi_or_stop_and_stop_scores() -> None:
    state = sanko_position(NINTENDO)
    deciding, events = apply(state, 0, Move.play(C.SUSUKI_MOON))
    assert deciding.phase is Phase.DECISION and deciding.turn == 0
    improved = [e for e in events if isinstance(e, ev.YakuImproved)]
    assert improved and improved[0].points == 5 and improved[0].yaku[0].id == "sanko"
    assert legal_moves(deciding) == [KOIKOI, STOP]
    assert rejected(deciding, 0, Move.play(C.MAPLE_PLAIN_1)) is Reason.WRONG_MOVE
    assert rejected(deciding, 1, STOP) is Reason.NOT_YOUR_TURN
    over, events = apply(deciding, 0, STOP)
    ended = next(e for e in events if isinstance(e, ev.RoundEnded))
    assert ended.result.outcome == "stop" and ended.result.winner == 0
    assert ended.result.points == 5 and ended.scores == (5, 0)
    assert over.round == 2 and over.dealer == 0  # the winner deals next


def test_koikoi_passes_the_turn_and_doubles_the_opponents_stop() -> None:
    deciding, _ = apply(sanko_position(NINTENDO), 0, Move.play(C.SUSUKI_MOON))
    after, events = apply(deciding, 0, KOIKOI)
    assert events[0] == ev.KoiKoiCalled(0, 1)
    assert after.turn == 1 and after.calls == (1, 0) and after.last_caller == 0
    # Seat 1 now forms a yaku of its own and stops: x2 for the opponent's koi-koi (nintendo).
    stopper = after._replace(
        captured=(after.captured[0], mask_of([C.CLOVER_BOAR, C.MAPLE_DEER])),
        hands=(after.hands[0], mask_of([C.PEONY_BUTTERFLIES, C.IRIS_PLAIN_1])),
        field=after.field | mask_of([C.PEONY_PLAIN_2]),
        turn_points=0,
    )
    stopper = stopper._replace(
        stock=tuple(c for c in stopper.stock if c != C.PEONY_PLAIN_2), stock_pos=0
    )
    deciding1, _ = apply(stopper, 1, Move.play(C.PEONY_BUTTERFLIES))
    assert deciding1.phase is Phase.DECISION
    _, events = apply(deciding1, 1, STOP)
    ended = next(e for e in events if isinstance(e, ev.RoundEnded))
    assert ended.result.winner == 1 and ended.result.points == 10  # inoshikacho 5 x2


def test_the_referee_stops_for_a_player_whose_hand_is_empty() -> None:
    state = sanko_position(NINTENDO, hands=([C.SUSUKI_MOON], [C.PEONY_PLAIN_1]))
    _, events = apply(state, 0, Move.play(C.SUSUKI_MOON))
    assert ev.Stopped(0, True) in events
    assert next(e for e in events if isinstance(e, ev.RoundEnded)).result.points == 5


def test_last_turn_koikoi_lets_an_empty_hand_choose() -> None:
    rules = NINTENDO.with_overrides({"last_turn_koikoi": True})
    state = sanko_position(rules, hands=([C.SUSUKI_MOON], [C.PEONY_PLAIN_1]))
    deciding, _ = apply(state, 0, Move.play(C.SUSUKI_MOON))
    assert deciding.phase is Phase.DECISION


def test_the_koikoi_limit_stops_automatically() -> None:
    rules = NINTENDO.with_overrides({"koikoi_limit": 1})
    state = sanko_position(rules, calls=(1, 0), last_caller=0)
    _, events = apply(state, 0, Move.play(C.SUSUKI_MOON))
    assert ev.Stopped(0, True) in events


def test_no_rise_means_no_decision() -> None:
    # Already sanko at the start of the turn: capturing a plain does not change the points.
    state = position(
        NINTENDO,
        hands=([C.MAPLE_PLAIN_1, C.IRIS_PLAIN_2], [C.PEONY_PLAIN_1, C.IRIS_PLAIN_1]),
        field=[C.MAPLE_PLAIN_2],
        stock=[C.WISTERIA_PLAIN_1],
        captured=([C.PINE_CRANE, C.CHERRY_CURTAIN, C.SUSUKI_MOON], []),
        calls=(1, 0),
        last_caller=0,
    )
    assert state.turn_points == 5
    after, _ = apply(state, 0, Move.play(C.MAPLE_PLAIN_1))
    assert after.phase is Phase.PLAY and after.turn == 1


def test_a_rise_caused_only_by_the_players_own_call_is_not_a_rise() -> None:
    # koikoi-japan: hanami-zake is 1 point, 3 once he has called koi-koi.
    rules = KoiKoiRules.from_preset("koikoi-japan")
    state = position(
        rules,
        hands=(
            [C.CHRYSANTHEMUM_SAKE, C.MAPLE_PLAIN_1, C.IRIS_PLAIN_2],
            [C.PEONY_PLAIN_1, C.IRIS_PLAIN_1],
        ),
        field=[C.CHRYSANTHEMUM_PLAIN_1],
        stock=[C.WISTERIA_PLAIN_1, C.CLOVER_PLAIN_1, C.PAULOWNIA_PLAIN_1],
        captured=([C.CHERRY_CURTAIN], []),
    )
    deciding, events = apply(state, 0, Move.play(C.CHRYSANTHEMUM_SAKE))
    assert deciding.phase is Phase.DECISION
    assert [e.points for e in events if isinstance(e, ev.YakuImproved)] == [1]
    called, _ = apply(deciding, 0, KOIKOI)
    back, _ = apply(called, 1, Move.play(C.PEONY_PLAIN_1))
    assert back.turn == 0 and back.turn_points == 3
    after, _ = apply(back, 0, Move.play(C.MAPLE_PLAIN_1))
    assert after.phase is Phase.PLAY and after.turn == 1


# --- the end of the hands --------------------------------------------------------------------


def last_cards(rules: KoiKoiRules, **kw: object) -> KoiKoiState:
    """Each seat holds one card that captures nothing; seat 0 (the dealer) plays first."""
    return position(
        rules,
        hands=([C.MAPLE_PLAIN_1], [C.IRIS_PLAIN_1]),
        field=[C.PINE_PLAIN_1],
        stock=[C.WISTERIA_PLAIN_1, C.CLOVER_PLAIN_1],
        **kw,  # type: ignore[arg-type]
    )


def play_out(state: KoiKoiState) -> tuple[KoiKoiState, ev.RoundResult]:
    s1, _ = apply(state, 0, Move.play(C.MAPLE_PLAIN_1))
    if s1.turn == 0:  # the round already ended (end_when_dealer_empty) and seat 0 deals again
        s2, events = s1, _
    else:
        s2, events = apply(s1, 1, Move.play(C.IRIS_PLAIN_1))
    ended = next(e for e in events if isinstance(e, ev.RoundEnded))
    return s2, ended.result


SANKO = [C.PINE_CRANE, C.CHERRY_CURTAIN, C.PAULOWNIA_PHOENIX]


@pytest.mark.parametrize("rotate", [False, True])
def test_exhaustion_void(rotate: bool) -> None:
    rules = NINTENDO.with_overrides({"dealer_after_void": "rotate" if rotate else "keep"})
    state, result = play_out(last_cards(rules, captured=([], SANKO), calls=(0, 1), last_caller=1))
    assert (result.outcome, result.winner, result.points) == ("void", -1, 0)
    assert state.round == 2 and state.dealer == (1 if rotate else 0)
    assert state.scores == (0, 0)


def test_exhaustion_last_koikoi_wins() -> None:
    rules = KoiKoiRules.from_preset("fudawiki")
    state, result = play_out(last_cards(rules, captured=([], SANKO), calls=(0, 1), last_caller=1))
    assert (result.outcome, result.detail, result.winner, result.points) == (
        "exhaustion",
        "last-koikoi-wins",
        1,
        5,
    )
    assert state.dealer == 1 and state.scores == (0, 5)


def test_exhaustion_last_koikoi_wins_without_a_call_is_void() -> None:
    rules = KoiKoiRules.from_preset("fudawiki")
    _, result = play_out(last_cards(rules, captured=([], SANKO)))
    assert result.outcome == "void"


def test_exhaustion_dealer_points_in_transfer_mode() -> None:
    rules = KoiKoiRules.from_preset("koikoi-japan")
    state, result = play_out(last_cards(rules, captured=([], SANKO), calls=(0, 1), last_caller=1))
    assert (result.outcome, result.detail, result.winner, result.points) == (
        "exhaustion",
        "dealer-points",
        0,
        1,
    )
    assert state.scores == (31, 29) and state.dealer == 0


def test_exhaustion_all_lost() -> None:
    rules = KoiKoiRules.from_preset("fudawiki", {"exhaustion": "all-lost"})
    _, result = play_out(last_cards(rules, captured=([], SANKO), calls=(0, 1), last_caller=1))
    assert result.outcome == "void" and result.winner == -1


@pytest.mark.parametrize(
    ("last_caller", "winner"), [(-1, -1), (0, -1), (1, 1)], ids=["no-call", "dealer", "other"]
)
def test_end_when_dealer_empty(last_caller: int, winner: int) -> None:
    rules = KoiKoiRules.from_preset("wikipedia-fr")
    calls = (1 if last_caller == 0 else 0, 1 if last_caller == 1 else 0)
    state = position(
        rules,
        hands=([C.MAPLE_PLAIN_1], [C.IRIS_PLAIN_1, C.PEONY_PLAIN_1]),
        field=[C.PINE_PLAIN_1],
        stock=[C.WISTERIA_PLAIN_1],
        captured=(SANKO[:2], SANKO),
        calls=calls,
        last_caller=last_caller,
        round_number=2,
    )
    after, events = apply(state, 0, Move.play(C.MAPLE_PLAIN_1))
    result = next(e for e in events if isinstance(e, ev.RoundEnded)).result
    assert result.winner == winner
    if winner == 1:
        # sanko 5, no seven, opponent never called: 5 (own koi-koi doubles: 10).
        assert result.outcome == "dealer-empty" and result.points == 10
        assert after.dealer == 1
    else:
        assert result.outcome == "void" and after.dealer == 1  # wikipedia-fr rotates


# --- lightning and refill --------------------------------------------------------------------


def lightning_position(rules: KoiKoiRules, seen: bool = False) -> KoiKoiState:
    state = position(
        rules,
        hands=([C.WILLOW_LIGHTNING, C.IRIS_PLAIN_2], [C.PEONY_PLAIN_1, C.IRIS_PLAIN_1]),
        field=[C.MAPLE_DEER, C.MAPLE_PLAIN_1, C.PINE_PLAIN_1],
        stock=[C.WISTERIA_PLAIN_1, C.CLOVER_PLAIN_1, C.PAULOWNIA_PLAIN_1],
    )
    return state._replace(willow_seen=seen)


def test_lightning_takes_any_field_card_and_collects_its_month_at_the_end() -> None:
    rules = NINTENDO.with_overrides({"lightning_wild": "on"})
    state = lightning_position(rules)
    assert Move.play(C.WILLOW_LIGHTNING, C.MAPLE_DEER) in legal_moves(state)
    after, events = apply(state, 0, Move.play(C.WILLOW_LIGHTNING, C.MAPLE_DEER))
    assert events[0] == ev.CardPlayed(
        0, C.WILLOW_LIGHTNING, mask_of([C.WILLOW_LIGHTNING, C.MAPLE_DEER]), True
    )
    assert after.wild == (10, 0)
    # Seat 1 stops later: seat 0 still collects the maple plain left on the field.
    ending = after._replace(
        hands=(after.hands[0], mask_of([C.SUSUKI_MOON])),
        captured=(after.captured[0], mask_of([C.PINE_CRANE, C.CHERRY_CURTAIN])),
        field=after.field | mask_of([C.SUSUKI_PLAIN_1]),
        stock=tuple(c for c in after.stock if c not in (C.SUSUKI_PLAIN_1, C.SUSUKI_MOON)),
        stock_pos=0,
        turn_points=0,
    )
    _, events = apply(ending, 1, Move.play(C.SUSUKI_MOON))
    assert ev.LightningCollected(0, mask_of([C.MAPLE_PLAIN_1])) in events


def test_lightning_before_november_only_while_no_willow_was_seen() -> None:
    rules = NINTENDO.with_overrides({"lightning_wild": "before-november"})
    assert Move.play(C.WILLOW_LIGHTNING, C.MAPLE_DEER) in legal_moves(lightning_position(rules))
    seen = lightning_position(rules, seen=True)
    assert Move.play(C.WILLOW_LIGHTNING, C.MAPLE_DEER) not in legal_moves(seen)
    assert rejected(seen, 0, Move.play(C.WILLOW_LIGHTNING, C.MAPLE_DEER)) is (
        Reason.TARGET_DOES_NOT_MATCH
    )


def test_a_willow_turned_up_by_a_refill_leaves_the_lightning_wild() -> None:
    # "Only while no willow card has been played or drawn": the refill turns a card up, it
    # neither plays nor draws it (seed 001: "qu'aucune carte de novembre n'a encore été jouée").
    rules = NINTENDO.with_overrides(
        {"lightning_wild": "before-november", "refill_empty_field": True}
    )
    state = position(
        rules,
        hands=([C.PEONY_PLAIN_1, C.CLOVER_PLAIN_1], [C.WILLOW_LIGHTNING, C.MAPLE_DEER]),
        field=[C.PEONY_PLAIN_2, C.IRIS_PLAIN_2],
        stock=[C.IRIS_PLAIN_1, C.WILLOW_SWALLOW, C.PINE_PLAIN_1, C.PAULOWNIA_PLAIN_1],
    )
    # Seat 0 takes both field cards; seat 1's turn begins on an empty field, refilled.
    refilled, events = apply(state, 0, Move.play(C.PEONY_PLAIN_1))
    assert ev.FieldRefilled(C.WILLOW_SWALLOW) in events
    assert refilled.field == mask_of([C.WILLOW_SWALLOW]) and not refilled.willow_seen
    later, _ = apply(refilled, 1, Move.play(C.MAPLE_DEER))
    later, _ = apply(later, 0, Move.play(C.CLOVER_PLAIN_1))
    assert Move.play(C.WILLOW_LIGHTNING, C.MAPLE_DEER) in legal_moves(later)
    # A willow drawn is seen: the same cards with the swallow drawn instead of turned up.
    drawn = position(
        rules,
        hands=([C.PEONY_PLAIN_1, C.CLOVER_PLAIN_1], [C.WILLOW_LIGHTNING, C.MAPLE_DEER]),
        field=[C.PEONY_PLAIN_2, C.IRIS_PLAIN_2],
        stock=[C.WILLOW_SWALLOW, C.PINE_PLAIN_1, C.PAULOWNIA_PLAIN_1],
    )
    after, _ = apply(drawn, 0, Move.play(C.PEONY_PLAIN_1))
    assert after.willow_seen
    assert Move.play(C.WILLOW_LIGHTNING, C.IRIS_PLAIN_2) not in legal_moves(after)


def test_lightning_is_an_ordinary_willow_when_the_option_is_off() -> None:
    state = lightning_position(NINTENDO)
    assert all(m.target == 0 for m in legal_moves(state) if m.card == C.WILLOW_LIGHTNING)
    after, _ = apply(state, 0, Move.play(C.WILLOW_LIGHTNING))
    assert (after.field >> C.WILLOW_LIGHTNING) & 1


@pytest.mark.parametrize("refill", [True, False])
def test_an_empty_field_is_refilled_from_the_stock(refill: bool) -> None:
    rules = NINTENDO.with_overrides({"refill_empty_field": refill})
    state = position(
        rules,
        hands=([C.PINE_CRANE, C.IRIS_PLAIN_2], [C.PEONY_PLAIN_1, C.IRIS_PLAIN_1]),
        field=[C.PINE_PLAIN_1, C.MAPLE_PLAIN_1],
        stock=[C.MAPLE_PLAIN_2, C.CHERRY_PLAIN_1],
    )
    after, events = apply(state, 0, Move.play(C.PINE_CRANE))
    if refill:
        assert events[-1] == ev.FieldRefilled(C.CHERRY_PLAIN_1)
        assert (
            after.field == mask_of([C.CHERRY_PLAIN_1]) and after.stock_size == state.stock_size - 2
        )
    else:
        assert after.field == 0


# --- deal checks -----------------------------------------------------------------------------

QUIET0 = [
    C.PINE_CRANE,
    C.PLUM_WARBLER,
    C.CHERRY_CURTAIN,
    C.WISTERIA_CUCKOO,
    C.IRIS_BRIDGE,
    C.PEONY_BUTTERFLIES,
    C.CLOVER_BOAR,
    C.SUSUKI_MOON,
]
QUIET1 = [
    C.PINE_RIBBON,
    C.PLUM_RIBBON,
    C.CHERRY_RIBBON,
    C.WISTERIA_RIBBON,
    C.IRIS_RIBBON,
    C.PEONY_RIBBON,
    C.CLOVER_RIBBON,
    C.SUSUKI_GEESE,
]
QUIET_FIELD = [
    C.PINE_PLAIN_1,
    C.PLUM_PLAIN_1,
    C.CHRYSANTHEMUM_SAKE,
    C.MAPLE_DEER,
    C.WILLOW_RAINMAN,
    C.PAULOWNIA_PHOENIX,
    C.CHERRY_PLAIN_1,
    C.WISTERIA_PLAIN_1,
]
TESHI = [
    C.PINE_CRANE,
    C.PINE_RIBBON,
    C.PINE_PLAIN_1,
    C.PINE_PLAIN_2,
    C.PLUM_WARBLER,
    C.CHERRY_CURTAIN,
    C.WISTERIA_CUCKOO,
    C.IRIS_BRIDGE,
]
KUTTSUKI = [
    C.PLUM_RIBBON,
    C.PLUM_PLAIN_1,
    C.CHERRY_RIBBON,
    C.CHERRY_PLAIN_1,
    C.PEONY_RIBBON,
    C.PEONY_PLAIN_1,
    C.CLOVER_RIBBON,
    C.CLOVER_PLAIN_1,
]
FIELD_FOR_TESHI = [
    C.PLUM_PLAIN_2,
    C.CHERRY_PLAIN_2,
    C.WISTERIA_PLAIN_1,
    C.IRIS_PLAIN_1,
    C.SUSUKI_MOON,
    C.CHRYSANTHEMUM_SAKE,
    C.MAPLE_DEER,
    C.WILLOW_RAINMAN,
]
QUIET = deal(QUIET0, QUIET1, QUIET_FIELD)
BESIDE_TESHI = [
    C.PLUM_RIBBON,
    C.CHERRY_RIBBON,
    C.WISTERIA_RIBBON,
    C.IRIS_RIBBON,
    C.PEONY_RIBBON,
    C.CLOVER_RIBBON,
    C.SUSUKI_GEESE,
    C.MAPLE_RIBBON,
]
KUTTSUKI_FIELD = [
    C.PINE_PLAIN_1,
    C.WISTERIA_PLAIN_1,
    C.IRIS_PLAIN_1,
    C.CHRYSANTHEMUM_SAKE,
    C.MAPLE_DEER,
    C.WILLOW_RAINMAN,
    C.PAULOWNIA_PHOENIX,
    C.SUSUKI_PLAIN_1,
]


def test_teshi_wins_the_round_with_teyaku_points() -> None:
    rules = KoiKoiRules.from_preset("fudawiki")
    state, events = new_game(
        rules, seed=1, deals=[deal(TESHI, BESIDE_TESHI, FIELD_FOR_TESHI), QUIET], first_dealer=1
    )
    check = next(e for e in events if isinstance(e, ev.DealCheck))
    assert (check.check, check.outcome, check.seats) == ("hand_four", "win", (0,))
    assert state.results[0].outcome == "teyaku" and state.results[0].points == 6
    assert state.scores == (6, 0) and state.round == 2 and state.dealer == 0


def test_kuttsuki_wins_and_both_hands_winning_is_void() -> None:
    rules = KoiKoiRules.from_preset("fudawiki")
    hand1 = KUTTSUKI
    state, _ = new_game(
        rules, seed=1, deals=[deal(TESHI, hand1, FIELD_FOR_TESHI), QUIET], first_dealer=0
    )
    assert state.results[0].outcome == "void" and state.scores == (0, 0)
    state, _ = new_game(
        rules, seed=1, deals=[deal(QUIET0, hand1, KUTTSUKI_FIELD), QUIET], first_dealer=0
    )
    assert (state.results[0].outcome, state.results[0].detail, state.results[0].winner) == (
        "teyaku",
        "hand_pairs",
        1,
    )


def test_a_redeal_keeps_the_round_and_the_dealer() -> None:
    rules = KoiKoiRules.from_preset("coins")
    state, events = new_game(
        rules, seed=1, deals=[deal(TESHI, BESIDE_TESHI, FIELD_FOR_TESHI), QUIET], first_dealer=1
    )
    assert kinds(events) == ["RoundDealt", "DealCheck", "RoundDealt"]
    assert state.round == 1 and state.dealer == 1 and state.deals_made == 2
    assert state.hands == (mask_of(QUIET0), mask_of(QUIET1)) and state.results == ()


def test_field_four_void_counts_the_round_as_played() -> None:
    rules = KoiKoiRules.from_preset("wikipedia-fr")
    field = [C.PINE_PLAIN_1, C.PINE_PLAIN_2, C.PINE_RIBBON, C.PINE_CRANE, *QUIET_FIELD[2:6]]
    hand0 = [
        C.PLUM_WARBLER,
        C.CHERRY_CURTAIN,
        C.WISTERIA_CUCKOO,
        C.IRIS_BRIDGE,
        C.PEONY_BUTTERFLIES,
        C.CLOVER_BOAR,
        C.SUSUKI_MOON,
        C.MAPLE_PLAIN_1,
    ]
    state, events = new_game(
        rules, seed=1, deals=[deal(hand0, BESIDE_TESHI, field), QUIET], first_dealer=0
    )
    check = next(e for e in events if isinstance(e, ev.DealCheck))
    assert (check.check, check.outcome) == ("field_four", "void")
    assert state.round == 2 and state.results[0].outcome == "void" and state.dealer == 1


def test_field_pairs_redeal_and_ignored_checks() -> None:
    pairs_field = [
        C.PINE_PLAIN_1,
        C.PINE_PLAIN_2,
        C.PLUM_PLAIN_1,
        C.PLUM_PLAIN_2,
        C.MAPLE_PLAIN_1,
        C.MAPLE_PLAIN_2,
        C.PAULOWNIA_PLAIN_1,
        C.PAULOWNIA_PLAIN_2,
    ]
    first = deal(QUIET0, QUIET1, pairs_field)
    fudawiki = KoiKoiRules.from_preset("fudawiki")
    _state, events = new_game(fudawiki, seed=1, deals=[first, QUIET], first_dealer=0)
    assert ("field_pairs", "redeal") in [
        (e.check, e.outcome) for e in events if isinstance(e, ev.DealCheck)
    ]
    nintendo, _ = new_game(NINTENDO, seed=1, deals=[first, QUIET], first_dealer=0)
    assert nintendo.field == mask_of(pairs_field) and nintendo.deals_made == 1


FOUR_AND_TWO_PAIRS = [
    C.PINE_CRANE,
    C.PINE_RIBBON,
    C.PINE_PLAIN_1,
    C.PINE_PLAIN_2,
    C.PLUM_WARBLER,
    C.PLUM_RIBBON,
    C.CHERRY_CURTAIN,
    C.CHERRY_RIBBON,
]


def test_four_pairs_are_four_different_months() -> None:
    # Seed 000: kuttsuki is "4 paires de cartes de suites différentes"; four cards of one month
    # are a teshi, never two pairs. With teshi ignored, such a hand or field deals normally.
    rest = [c for c in C if c not in FOUR_AND_TWO_PAIRS]
    other_hand, field = rest[:8], rest[8:16]
    teshi_ignored = KoiKoiRules.from_preset(
        "fudawiki", {"hand_four": "ignore", "hand_pairs": "void", "field_four": "ignore"}
    )
    state, events = new_game(
        teshi_ignored, seed=1, deals=[deal(FOUR_AND_TWO_PAIRS, other_hand, field)], first_dealer=0
    )
    assert not [e for e in events if isinstance(e, ev.DealCheck)]
    assert state.round == 1 and state.phase is Phase.PLAY
    on_field = deal(other_hand, field, FOUR_AND_TWO_PAIRS)
    pairs_void = teshi_ignored.with_overrides({"field_pairs": "void"})
    state, events = new_game(pairs_void, seed=1, deals=[on_field], first_dealer=0)
    assert not [e for e in events if isinstance(e, ev.DealCheck)]
    assert state.round == 1 and state.phase is Phase.PLAY
    assert classify_hand(mask_of(FOUR_AND_TWO_PAIRS)) == ("hand_four",)
    assert classify_hand(mask_of(KUTTSUKI)) == ("hand_pairs",)


# --- game end --------------------------------------------------------------------------------


def test_transfer_mode_ends_the_game_when_a_player_reaches_zero() -> None:
    rules = KoiKoiRules.from_preset("coins")
    state = sanko_position(rules, scores=(28, 2))
    deciding, _ = apply(state, 0, Move.play(C.SUSUKI_MOON))
    over, events = apply(deciding, 0, STOP)
    assert over.phase is Phase.OVER and over.scores == (34, -4)
    assert events[-1] == ev.GameEnded((34, -4), 0)
    assert rejected(over, 0, STOP) is Reason.GAME_OVER
    assert legal_moves(over) == []


def test_target_score_ends_the_game() -> None:
    rules = NINTENDO.with_overrides({"target_score": 5})
    deciding, _ = apply(sanko_position(rules), 0, Move.play(C.SUSUKI_MOON))
    over, _ = apply(deciding, 0, STOP)
    assert over.phase is Phase.OVER and over.winner == 0


def test_the_game_ends_after_its_rounds_and_equal_points_draw() -> None:
    rules = NINTENDO.with_overrides({"rounds": 1})
    state, _ = play_out(last_cards(rules))
    assert state.phase is Phase.OVER and state.winner == -1


# --- rejections ------------------------------------------------------------------------------


def test_every_rejection_leaves_the_state_as_it_was() -> None:
    state = sanko_position(NINTENDO)
    before = state
    cases = {
        Reason.UNKNOWN_SEAT: (2, Move.play(C.SUSUKI_MOON)),
        Reason.NOT_YOUR_TURN: (1, Move.play(C.PEONY_PLAIN_1)),
        Reason.MOVE_NOT_IN_GAME: (0, SAGE),
        Reason.NO_DECISION_PENDING: (0, KOIKOI),
        Reason.CARD_NOT_IN_HAND: (0, Move.play(C.PEONY_PLAIN_1)),
    }
    for reason, (seat, move) in cases.items():
        assert rejected(state, seat, move) is reason
        assert state == before
    assert rejected(state, 0, STOP) is Reason.NO_DECISION_PENDING
    assert rejected(state, 0, Move.choose(C.SUSUKI_PLAIN_1)) is Reason.NO_DECISION_PENDING


@pytest.mark.parametrize(
    ("card", "message"),
    [
        (C.PEONY_PLAIN_1, "peony-plain-1 is not in your hand"),
        (0, "a play names the hand card it plays, and this one names none"),
        (49, "49 is not a card"),
    ],
)
def test_a_play_of_no_card_or_of_no_such_card_says_so(card: int, message: str) -> None:
    state = sanko_position(NINTENDO)
    with pytest.raises(MoveRejected) as caught:
        apply(state, 0, Move.play(card))
    assert caught.value.reason is Reason.CARD_NOT_IN_HAND
    assert caught.value.message == message
