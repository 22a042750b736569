"""Card-set helpers shared by the Hachi-Hachi tests."""

from __future__ import annotations

from hypothesis import strategies as st

from hanafuda_referee.cards import MONTH_MASKS, Card, cards_of, mask_of


def cards(*codes: str) -> int:
    """The set of the cards with these codes; fails on a repeated code so that a hand written
    in a test has exactly the size it looks like."""
    assert len(set(codes)) == len(codes), f"repeated card in {codes}"
    return mask_of(Card.from_code(code) for code in codes)


def codes(mask: int) -> set[str]:
    return {card.code for card in cards_of(mask)}


ALL = list(Card)


@st.composite
def seven_card_hands(draw: st.DrawFn) -> int:
    """Hands of seven cards, drawn so that the rare shapes come up: some uniformly from the deck,
    some from only a few months (fours and triplets), some mostly of plains and willows."""
    style = draw(st.sampled_from(["deck", "few-months", "plain-heavy"]))
    if style == "deck":
        pool = ALL
    elif style == "few-months":
        months = draw(st.sets(st.integers(1, 12), min_size=2, max_size=4))
        pool = [c for c in ALL if any(MONTH_MASKS[m] >> c & 1 for m in months)]
    else:
        others = draw(st.sets(st.sampled_from(ALL), max_size=3))
        pool = sorted({c for c in ALL if c.kind.name == "PLAIN" or c.month == 11} | others)
    chosen = draw(st.sets(st.sampled_from(pool), min_size=7, max_size=7))
    return mask_of(chosen)
