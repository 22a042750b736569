"""The mappings from engine and store exceptions to API errors on the move path."""

from __future__ import annotations

import doctest

import pytest

from hanafuda_referee.calls.errors import ApiError
from hanafuda_referee.errors import MoveRejected, Reason, RulesError
from hanafuda_referee.hachihachi.inputs import BadCardsError
from hanafuda_referee.hosting import convert
from hanafuda_referee.hosting.convert import engine_refusals
from hanafuda_referee.hosting.games import store_failures
from hanafuda_referee.store import GameNotFound, StoreUnavailable


def test_the_examples_of_the_conversions_run() -> None:
    result = doctest.testmod(convert)
    assert result.attempted > 0
    assert result.failed == 0


def test_a_rejected_move_keeps_its_reason_and_message() -> None:
    with pytest.raises(ApiError) as raised, engine_refusals():
        raise MoveRejected(Reason.NOT_YOUR_TURN, "seat 1 is to play")
    assert (raised.value.reason, raised.value.message) == ("NOT_YOUR_TURN", "seat 1 is to play")
    assert raised.value.metadata == {}
    # The engine's exception is not chained: nothing of it reaches a client or a log by accident.
    assert raised.value.__suppress_context__


def test_a_rules_error_names_its_option() -> None:
    with pytest.raises(ApiError) as raised, engine_refusals():
        raise RulesError(Reason.BAD_OPTION_VALUE, "rounds is 1 to 12", option="rounds")
    assert raised.value.reason == "BAD_OPTION_VALUE"
    assert raised.value.metadata == {"option": "rounds"}
    with pytest.raises(ApiError) as unnamed, engine_refusals():
        raise RulesError(Reason.UNKNOWN_PRESET, "no preset 'x'")
    assert unnamed.value.metadata == {}


def test_bad_cards_are_bad_cards() -> None:
    with pytest.raises(ApiError) as raised, engine_refusals():
        raise BadCardsError("7 cards, expected 8")
    assert (raised.value.reason, raised.value.message) == ("BAD_CARDS", "7 cards, expected 8")


def test_anything_else_passes_through_both_mappings_unchanged() -> None:
    failure = KeyError("a bug")
    with pytest.raises(KeyError) as raised, engine_refusals():
        raise failure
    assert raised.value is failure
    with pytest.raises(KeyError) as again, store_failures("g"):
        raise failure
    assert again.value is failure
    with engine_refusals(), store_failures("g"):
        pass  # no exception: nothing raised on the way out


def test_store_failures_become_unavailable_or_unknown_game() -> None:
    with pytest.raises(ApiError) as down, store_failures("g1"):
        raise StoreUnavailable("connection refused")
    assert down.value.reason == "UNAVAILABLE"
    assert "connection refused" not in down.value.message  # the store's details stay inside
    with pytest.raises(ApiError) as gone, store_failures("g1"):
        raise GameNotFound("g1")
    assert (gone.value.reason, gone.value.message) == ("UNKNOWN_GAME", "no game 'g1'")
