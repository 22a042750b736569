"""A terminal demo: two seeded random players play a whole Koi-Koi game, every ruling printed."""

from __future__ import annotations

import random
from collections.abc import Callable

from hanafuda_referee.cards import Card, cards_of
from hanafuda_referee.koikoi import events as ev
from hanafuda_referee.koikoi.game import Phase, apply, legal_moves, new_game, result_breakdown
from hanafuda_referee.koikoi.rules import KoiKoiRules

__all__ = ["describe", "play_demo"]


def _cards(mask: int) -> str:
    return ", ".join(c.code for c in cards_of(mask)) or "-"


def describe(event: ev.Event, rules: KoiKoiRules) -> str:
    """One line of plain English for an event."""
    match event:
        case ev.FirstDealerDrawn(draws, dealer):
            tries = "; ".join(f"{Card(a)} vs {Card(b)}" for a, b in draws)
            return f"first-dealer draw: {tries} -> seat {dealer} deals"
        case ev.RoundDealt(number, month, dealer, hands, field, stock):
            return (
                f"\n== round {number} (month {month}), seat {dealer} deals\n"
                f"   field: {_cards(field)}\n   seat 0: {_cards(hands[0])}\n"
                f"   seat 1: {_cards(hands[1])}\n   stock: {stock} cards"
            )
        case ev.DealCheck(check, outcome, seats, _):
            return f"deal check {check} fired for seats {list(seats)}: {outcome}"
        case ev.FieldRefilled(card):
            return f"the field was empty: {Card(card)} turned up"
        case ev.CardPlayed(seat, card, taken, wild):
            how = f"takes {_cards(taken & ~(1 << card))}" if taken else "joins the field"
            return f"seat {seat} plays {Card(card)}: {how}{' (lightning, wild)' if wild else ''}"
        case ev.TargetRequired(seat, card, options):
            return f"seat {seat} draws {Card(card)}: two matches, choose {_cards(options)}"
        case ev.CardDrawn(seat, card, taken):
            how = f"takes {_cards(taken & ~(1 << card))}" if taken else "joins the field"
            return f"seat {seat} draws {Card(card)}: {how}"
        case ev.YakuImproved(seat, yaku, points):
            return f"seat {seat} now has {', '.join(y.id for y in yaku)} = {points} points"
        case ev.KoiKoiCalled(seat, calls):
            return f"seat {seat}: koi-koi! (call {calls})"
        case ev.Stopped(seat, automatic):
            return f"seat {seat} stops{' (automatically)' if automatic else ''}"
        case ev.LightningCollected(seat, cards):
            return f"seat {seat} collects {_cards(cards)} with the lightning"
        case ev.RoundEnded(result, scores):
            line = f"round {result.round} ends: {result.outcome} ({result.detail})"
            if result.winner >= 0:
                line += f", seat {result.winner} scores {result.points}"
            breakdown = result_breakdown(rules, result)
            if breakdown:
                steps = " ".join(
                    f"x{m.factor} {m.id}" if m.factor != 1 else f"+{m.added} {m.id}"
                    for m in breakdown.multipliers
                )
                sums = " + ".join(f"{y.id} {y.points}" for y in breakdown.yaku)
                line += f" = {sums} (base {breakdown.base}) {steps}".rstrip()
            return f"{line}; scores {scores[0]}-{scores[1]}"
        case ev.GameEnded(scores, winner):
            who = f"seat {winner} wins" if winner >= 0 else "a drawn game"
            return f"\ngame over: {scores[0]}-{scores[1]}, {who}"
    return repr(event)


def play_demo(
    preset: str = "fudawiki", seed: int = 2026, out: Callable[[str], None] = print
) -> int:
    """Play one seeded game between two random players; returns the winner (-1: drawn)."""
    rules = KoiKoiRules.from_preset(preset)
    rng = random.Random(seed)
    state, events = new_game(rules, seed=seed)
    out(f"Koi-Koi, preset {preset}, seed {seed}")
    while True:
        for event in events:
            out(describe(event, rules))
        if state.phase is Phase.OVER:
            return state.winner
        move = rng.choice(legal_moves(state))
        out(f"   > seat {state.turn}: {move}")
        state, events = apply(state, state.turn, move)
