"""The stateless rules methods through the referee."""

from __future__ import annotations

import pytest
from hanafuda.v1 import rules_pb2, scoring_pb2, service_pb2

from hanafuda_referee.calls.errors import ApiError
from hanafuda_referee.cards import Card
from hanafuda_referee.hosting.referee import Referee
from hanafuda_referee.koikoi.rules import PRESETS

from .conftest import SPECTATOR, cards


async def test_presets_are_listed_resolved_default_first(referee: Referee) -> None:
    every = await referee.ListPresets(service_pb2.ListPresetsRequest(), SPECTATOR)
    koikoi = [p for p in every.presets if p.kind == rules_pb2.GAME_KIND_KOI_KOI]
    assert koikoi[0].name == "fudawiki" and koikoi[0].is_default
    assert {p.name for p in koikoi} == set(PRESETS)
    assert every.presets[-1].kind == rules_pb2.GAME_KIND_HACHI_HACHI
    coins = next(p for p in koikoi if p.name == "coins")
    rules = coins.rules.koi_koi
    assert rules.starting_points == 30 and rules.HasField("target_score")
    assert rules.exhaustion == rules_pb2.EXHAUSTION_VOID
    assert len(rules.yaku) == 14 and all(y.HasField("points") for y in rules.yaku)
    only = await referee.ListPresets(
        service_pb2.ListPresetsRequest(kind=rules_pb2.GAME_KIND_HACHI_HACHI), SPECTATOR
    )
    assert [p.rules.hachi_hachi.rounds for p in only.presets] == [12]


async def test_score_koikoi_shows_the_arithmetic(referee: Referee) -> None:
    # RULES.md 1.5's first example, wikipedia-fr: 44.
    captured = [
        Card.PINE_CRANE,
        Card.PAULOWNIA_PHOENIX,
        Card.SUSUKI_MOON,
        Card.CHRYSANTHEMUM_SAKE,
        Card.PINE_RIBBON,
        Card.PLUM_RIBBON,
        Card.WISTERIA_RIBBON,
        Card.IRIS_RIBBON,
        Card.CLOVER_RIBBON,
    ]
    request = service_pb2.ScoreKoiKoiRequest(
        preset="wikipedia-fr",
        captured=cards(captured),
        round_month=5,
        own_koikoi_calls=2,
    )
    score = (await referee.ScoreKoiKoi(request, SPECTATOR)).score
    assert score.points == 44
    assert score.multipliers[-1].result == 44
    assert sum(y.points for y in score.yaku) == score.base
    overridden = service_pb2.ScoreKoiKoiRequest(
        captured=cards([1, 9, 29]),
        round_month=1,
        overrides=rules_pb2.KoiKoiRules(
            yaku=[rules_pb2.YakuRule(id="sanko", points=9)], seven_or_more=0
        ),
    )
    assert (await referee.ScoreKoiKoi(overridden, SPECTATOR)).score.points == 9
    for bad in (
        service_pb2.ScoreKoiKoiRequest(captured=cards([1, 1]), round_month=1),
        service_pb2.ScoreKoiKoiRequest(captured=cards([49]), round_month=1),
    ):
        with pytest.raises(ApiError) as info:
            await referee.ScoreKoiKoi(bad, SPECTATOR)
        assert info.value.reason == "BAD_CARDS"
    with pytest.raises(ApiError) as info:
        await referee.ScoreKoiKoi(service_pb2.ScoreKoiKoiRequest(), SPECTATOR)
    assert info.value.reason == "INVALID_ARGUMENT"


async def test_hand_classification(referee: Referee) -> None:
    # Four pines and two pairs: a teshi, and no kuttsuki (its pairs are of four different months).
    four_and_pairs = [1, 2, 3, 4, 5, 6, 9, 10]
    answer = await referee.ClassifyKoiKoiHand(
        service_pb2.ClassifyKoiKoiHandRequest(hand=cards(four_and_pairs)),
        SPECTATOR,
    )
    assert [(m.check, list(m.months)) for m in answer.matches] == [
        (rules_pb2.DEAL_CHECK_HAND_FOUR, [1]),
    ]
    four_pairs = [1, 2, 5, 6, 9, 10, 45, 46]
    answer = await referee.ClassifyKoiKoiHand(
        service_pb2.ClassifyKoiKoiHandRequest(hand=cards(four_pairs)),
        SPECTATOR,
    )
    assert [(m.check, list(m.months)) for m in answer.matches] == [
        (rules_pb2.DEAL_CHECK_HAND_PAIRS, [1, 2, 3, 12]),
    ]
    with pytest.raises(ApiError) as info:
        await referee.ClassifyKoiKoiHand(
            service_pb2.ClassifyKoiKoiHandRequest(hand=cards([1, 2])),
            SPECTATOR,
        )
    assert info.value.reason == "BAD_CARDS"
    red = [14, 18, 3, 7, 11, 42, 47]
    teyaku = await referee.ClassifyHachiHachiHand(
        service_pb2.ClassifyHachiHachiHandRequest(hand=cards(red)),
        SPECTATOR,
    )
    assert teyaku.teyaku.id == "red" and teyaku.teyaku.value == 15


async def test_hachihachi_scoring_and_settlement(referee: Referee) -> None:
    lights = [1, 9, 29, 41, 45]
    scored = await referee.ScoreHachiHachiCaptures(
        service_pb2.ScoreHachiHachiCapturesRequest(captured=cards(lights)),
        SPECTATOR,
    )
    assert [d.id for d in scored.dekiyaku] == ["five-lights"]
    assert scored.count == 100 and scored.difference == 12
    settled = await referee.SettleHachiHachiRound(
        service_pb2.SettleHachiHachiRoundRequest(counts=[88, 88, 88], field_multiplier=1),
        SPECTATOR,
    )
    assert [d.id for d in settled.dekiyaku] == ["all-eights"]
    assert list(settled.net_halves) == [200, -100, -100]
    assert {p.cause for p in settled.payments} == {scoring_pb2.PAYMENT_CAUSE_ALL_EIGHTS}
    with pytest.raises(ApiError) as info:
        await referee.SettleHachiHachiRound(
            service_pb2.SettleHachiHachiRoundRequest(counts=[1, 2, 3], field_multiplier=1),
            SPECTATOR,
        )
    assert info.value.reason == "BAD_CARDS"


async def test_list_captures(referee: Referee) -> None:
    def request(card: int, field: list[int], wild: bool = False) -> service_pb2.ListCapturesRequest:
        return service_pb2.ListCapturesRequest(
            card=cards([card])[0], field=cards(field), lightning_wild=wild
        )

    none = await referee.ListCaptures(request(1, [5, 9]), SPECTATOR)
    assert not none.options
    one = await referee.ListCaptures(request(1, [3, 9]), SPECTATOR)
    assert [(o.target, list(o.captured)) for o in one.options] == [(0, [3])]
    two = await referee.ListCaptures(request(1, [3, 4, 9]), SPECTATOR)
    assert [(o.target, list(o.captured)) for o in two.options] == [(3, [3]), (4, [4])]
    three = await referee.ListCaptures(request(1, [2, 3, 4]), SPECTATOR)
    assert [(o.target, list(o.captured)) for o in three.options] == [(0, [2, 3, 4])]
    wild = await referee.ListCaptures(request(44, [3, 9], wild=True), SPECTATOR)
    assert [o.target for o in wild.options] == [3, 9, 0]
    with pytest.raises(ApiError) as info:
        await referee.ListCaptures(request(1, [1, 3]), SPECTATOR)
    assert info.value.reason == "BAD_CARDS"
