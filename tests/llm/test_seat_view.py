"""``envs.common.seat_view``: a seat's view as JSON and text, and the reply parser, generic over every registered
game (the example game Pig included): what a seat is shown never depends on what it may not know, every legal
move's notation and number parse back to it, and everything else is refused with a reason."""

from __future__ import annotations

import json

import numpy as np
import pytest

import envs
from envs.boaring import actions as A
from envs.boaring.rules import BoaringGame
from envs.common.game import TERMINAL
from envs.common.seat_view import (
    MAX_REPLY_CHARS,
    ReplyError,
    legal_moves,
    parse_reply,
    seat_text,
    seat_view,
    spectator_view,
)
from envs.common.testing import option_sets
from tests.boaring.test_boaring_info import decision_states

CASES = [(game, options) for game in envs.GAMES for options in option_sets(game)[:2]]
IDS = [f"{g}-" + "-".join(str(v) for v in o.values()) for g, o in CASES]


def positions(game, seed: int, every: int = 1, limit: int = 40):
    """Up to ``limit`` positions of one random game (every ``every``-th), the last one finished (or cut off)."""
    rng = np.random.default_rng(seed)
    state = game.initial_state(rng)
    out, plies = [], 0
    while game.current_player(state) != TERMINAL and not game.is_truncated(state) and plies < game.max_game_length:
        if plies % every == 0 and len(out) < limit - 1:
            out.append(game.clone(state))
        legal = game.legal_actions(state)
        game.apply(state, legal[rng.integers(len(legal))], rng)
        plies += 1
    out.append(state)
    return out


def every_seat(game):
    return range(game.num_players)


@pytest.mark.parametrize("game_id, options", CASES, ids=IDS)
def test_views_are_json_and_the_same_for_the_same_seed(game_id, options):
    game = envs.make_game(game_id, **options)
    first = [[seat_view(game, s, seat) for seat in every_seat(game)] for s in positions(game, 3, every=7)]
    again = [[seat_view(game, s, seat) for seat in every_seat(game)] for s in positions(game, 3, every=7)]
    assert json.dumps(first) == json.dumps(again)
    for views in first:
        for seat, view in enumerate(views):
            assert json.loads(json.dumps(view)) == view
            assert view["seat"] == seat and view["game"] == game_id
            assert view["your_turn"] == (seat in view["to_move"]) == bool(view["legal_moves"])
            assert [m["number"] for m in view["legal_moves"]] == list(range(1, len(view["legal_moves"]) + 1))
    last = first[-1][0]
    assert last["terminal"] and last["result"] is not None and not last["to_move"]


@pytest.mark.parametrize("game_id, options", CASES, ids=IDS)
def test_every_legal_move_parses_back_by_notation_number_and_json(game_id, options):
    game = envs.make_game(game_id, **options)
    for state in positions(game, 5, every=3, limit=12):
        for seat in every_seat(game):
            moves = legal_moves(game, state, seat)
            assert [a for a, _ in moves] == sorted(a for a, _ in moves)
            if not moves:
                with pytest.raises(ReplyError):
                    parse_reply(game, state, seat, "1")
                continue
            for number, (action, text) in enumerate(moves, 1):
                for reply in (
                    text,
                    text.upper(),
                    f" `{text}`. ",
                    str(number),
                    f"#{number}",
                    f"move {number}",
                    json.dumps({"move": text}),
                    json.dumps({"move": number}),
                    f"Let me think.\nThe best is clear.\nAnswer: {text}",
                ):
                    assert parse_reply(game, state, seat, reply) == action, reply
            with pytest.raises(ReplyError, match="not one of the"):
                parse_reply(game, state, seat, str(len(moves) + 1))
            with pytest.raises(ReplyError):
                parse_reply(game, state, seat, "xyzzy plugh")


def test_a_reply_over_the_cap_is_refused():
    game = envs.make_game("boaring", num_players=2)
    state = game.initial_state(np.random.default_rng(0))
    with pytest.raises(ReplyError, match="over the limit"):
        parse_reply(game, state, 0, "play 1 " * (MAX_REPLY_CHARS // 7 + 1))


def test_boaring_bids_are_hidden_from_the_other_seats():
    """Two games that differ only in the card player_0 laid face down (3 or 9, the other one in its hand):
    player_1's view and text are the same, the spectator's are not (``test_a_seats_screen_for_one_other_hidden_card``'s
    pair)."""
    game = BoaringGame(num_players=2)
    views, texts, spectators = [], [], []
    for laid in (3, 9):
        state = game.initial_state(np.random.default_rng(5))
        state.hands[0] = [0] * 10
        state.hands[0][3 - 1] += 1
        state.hands[0][9 - 1] += 1
        state.hand_size[0] = 2
        state.hands[1] = [1, 1, 0, 0, 0, 0, 0, 0, 0, 0]
        state.hand_size[1] = 2
        game.apply(state, A.play_action(laid), np.random.default_rng(0))
        views.append(json.dumps(seat_view(game, state, 1), sort_keys=True))
        texts.append(seat_text(game, state, 1))
        spectators.append(json.dumps(spectator_view(game, state), sort_keys=True))
    assert views[0] == views[1] and texts[0] == texts[1]
    assert spectators[0] != spectators[1]


@pytest.mark.parametrize("n", [2, 4])
def test_boaring_views_ignore_every_hidden_card(n):
    """Redeal every card a seat cannot see (other hands, other face-down bids, pile and deck order): its view and
    text stay identical."""
    game = BoaringGame(num_players=n)
    rng = np.random.default_rng(7 + n)
    for state in decision_states(game, seed=n, every=5):
        for seat in range(n):
            other = game.determinize(game.information_state(state, seat), seat, rng)
            assert json.dumps(seat_view(game, other, seat)) == json.dumps(seat_view(game, state, seat))
            assert seat_text(game, other, seat) == seat_text(game, state, seat)
