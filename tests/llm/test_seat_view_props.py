"""Hypothesis property tests of the reply parser over random positions of every registered game (the example
game Pig included): every listed move comes back from its notation, its number and the JSON and free-text forms;
nothing else ever comes back but a refusal (:class:`ReplyError`), whatever the reply."""

from __future__ import annotations

import json

import numpy as np
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import envs
from envs.common.game import TERMINAL
from envs.common.seat_view import ReplyError, legal_moves, parse_reply, seat_view
from envs.common.testing import option_sets, random_playout

CASES = [(game, options) for game in envs.GAMES for options in option_sets(game)[:2]]
ENGINES = [envs.make_game(game, **options) for game, options in CASES]
SETTINGS = settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])

engines = st.sampled_from(ENGINES)
seeds = st.integers(0, 2**32 - 1)
plies = st.integers(0, 400)
PROSE = st.text(alphabet="abcdefghij klmnop.,;!?()'\n", max_size=200)
"""Reasoning text: no marker (no colon), no fence, no JSON object."""
GARBAGE = st.text(alphabet="qjkwQJKW ?!@%^&*~.,-", min_size=1, max_size=40)
"""Text that names no move of any game (no digit, no letter of any game's notation)."""


def position(game, seed: int, ply: int):
    """A live position ``ply`` random plies into a game of ``seed`` (or the last one before it ends)."""
    rng = np.random.default_rng(seed)
    state = game.initial_state(rng)
    last = game.clone(state)
    for _ in range(ply):
        if game.current_player(state) == TERMINAL or game.is_truncated(state):
            break
        last = game.clone(state)
        random_playout(game, rng, state=state, max_plies=1)
    return last if game.current_player(state) == TERMINAL or game.is_truncated(state) else state


def a_seat_to_move(game, state, data) -> int:
    view = seat_view(game, state, 0)
    return data.draw(st.sampled_from(view["to_move"]))


@SETTINGS
@given(engines, seeds, plies, st.data())
def test_every_listed_move_comes_back_in_every_form(game, seed, ply, data):
    state = position(game, seed, ply)
    seat = a_seat_to_move(game, state, data)
    moves = legal_moves(game, state, seat)
    assert moves
    number = data.draw(st.integers(1, len(moves)))
    action, notation = moves[number - 1]
    preamble = data.draw(PROSE)
    forms = [
        notation,
        f"  '{notation.upper()}'!  ",
        f"`{notation}`",
        str(number),
        f"#{number}",
        f"Move {number}.",
        json.dumps({"move": notation}),
        json.dumps({"move": number}),
        json.dumps({"action": str(number)}),
        f"{preamble}\nAnswer: {notation}",
        f"{preamble}\n**Move:** {number}",
        f"{preamble}\n```\n{notation}\n```",
        f'{preamble}\n```json\n{{"move": "{notation}"}}\n```',
    ]
    for reply in forms:
        assert parse_reply(game, state, seat, reply) == action, reply


@SETTINGS
@given(engines, seeds, plies, st.data())
def test_illegal_moves_out_of_range_numbers_and_garbage_are_refused(game, seed, ply, data):
    state = position(game, seed, ply)
    seat = a_seat_to_move(game, state, data)
    moves = legal_moves(game, state, seat)
    legal = {a for a, _ in moves}
    view_state = game.information_state(state, seat)
    illegal = sorted(set(range(game.num_actions)) - legal)
    if illegal:
        for action in data.draw(st.lists(st.sampled_from(illegal), min_size=1, max_size=5, unique=True)):
            text = game.action_to_str(view_state, action)
            if text.lower() in {t.lower() for _, t in moves}:
                continue  # an id that names the same move as a legal one (none do today)
            try:
                got = parse_reply(game, state, seat, text)
            except ReplyError:
                continue
            raise AssertionError(f"{text!r} (illegal action {action}) was read as {got}")
    for number in (0, len(moves) + 1, data.draw(st.integers(len(moves) + 1, 10**9))):
        for reply in (str(number), json.dumps({"move": number})):
            try:
                parse_reply(game, state, seat, reply)
            except ReplyError as error:
                assert "listed" in str(error)
            else:
                raise AssertionError(f"{reply!r} was read as a move")
    garbage = data.draw(GARBAGE)
    try:
        parse_reply(game, state, seat, garbage)
    except ReplyError as error:
        assert str(error)
    else:
        raise AssertionError(f"garbage {garbage!r} was read as a move")


@SETTINGS
@given(engines, seeds, plies, st.data(), st.text(max_size=300))
def test_any_reply_gives_a_legal_move_or_a_refusal(game, seed, ply, data, reply):
    """Whatever the reply and whichever seat sends it (to move or not), the parser answers with one of that seat's
    legal moves or a ReplyError, never another exception or another action."""
    state = position(game, seed, ply)
    seat = data.draw(st.integers(0, game.num_players - 1))
    legal = {a for a, _ in legal_moves(game, state, seat)}
    for text in (reply, f"Answer: {reply}", json.dumps({"move": reply})):
        try:
            action = parse_reply(game, state, seat, text)
        except ReplyError:
            continue
        assert action in legal, (text, action)
