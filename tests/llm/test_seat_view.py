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
from tests.boaring.test_boaring_info import decision_states, one_card_laid

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
        state = one_card_laid(game, laid)
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


def test_boaring_views_for_one_other_hand():
    """Two games that differ only in one card of player_2's hand (swapped with one of the food pile): player_0's
    and player_1's views and texts are the same, player_2's and the spectator's are not."""
    game = BoaringGame(num_players=3)
    state = game.initial_state(np.random.default_rng(8))
    other = game.clone(state)
    hand = other.hands[2]
    give = next(v for v in range(10) if hand[v] > 0)
    take = next(i for i, v in enumerate(other.food_pile) if v - 1 != give)
    hand[give] -= 1
    hand[other.food_pile[take] - 1] += 1
    other.food_pile[take] = give + 1
    game.state_from_json(json.loads(json.dumps(game.state_to_json(other))))  # still a consistent position
    for seat in (0, 1):
        assert seat_view(game, state, seat) == seat_view(game, other, seat)
        assert seat_text(game, state, seat) == seat_text(game, other, seat)
    assert seat_view(game, state, 2) != seat_view(game, other, 2)
    assert spectator_view(game, state) != spectator_view(game, other)


def test_boaring_every_seat_yet_to_bid_is_to_move_with_its_own_hand():
    """In a bid every seat that has not laid its card is to move, in the engine's order, each with the values of
    its own hand; a seat that has laid its card waits; its bid parses now and is legal when its turn comes. In the
    eat phase only the eater moves."""
    game = BoaringGame(num_players=4)
    state = game.make_state([[2, 9], [3, 8], [4, 7], [5, 6]], "boar", 5, active=1)
    rng = np.random.default_rng(0)
    assert seat_view(game, state, 0)["to_move"] == [1, 2, 3, 0]
    early = parse_reply(game, state, 3, "play 6")  # seat 3 answers before its turn
    game.apply(state, A.play_action(8), rng)  # seat 1 lays its 8
    for seat in range(4):
        view = seat_view(game, state, seat)
        assert view["to_move"] == [2, 3, 0]
        assert view["your_turn"] == (seat != 1)
        expected = [f"play {v}" for v in ([2, 9], [3], [4, 7], [5, 6])[seat]] if seat != 1 else []
        assert [m["notation"] for m in view["legal_moves"]] == expected
    with pytest.raises(ReplyError, match="not your turn"):
        parse_reply(game, state, 1, "play 3")
    with pytest.raises(ReplyError, match="not legal now"):
        parse_reply(game, state, 2, "play 8")
    game.apply(state, A.play_action(7), rng)
    assert game.current_player(state) == 3 and early in game.legal_actions(state)
    assert "You choose at the same time as p0" in seat_text(game, state, 3)


def test_a_seat_that_does_not_move_is_told_whom_it_waits_for():
    game = envs.make_game("bestiarium", board_size=5)
    state = game.initial_state(np.random.default_rng(0))
    assert "It is not your turn: waiting for Black (seat 0)" in seat_text(game, state, 1)
    with pytest.raises(ReplyError, match="not your turn"):
        parse_reply(game, state, 1, "e5")
    view = seat_view(game, state, 1)
    assert view["to_move"] == [0] and not view["your_turn"] and view["legal_moves"] == []


def test_the_text_of_a_finished_game_says_who_won():
    game = envs.make_game("pig")
    state = game.make_state([19, 5], turn_total=3, current=0, last_roll=3)
    game.apply(state, 1, np.random.default_rng(0))  # hold: 22
    text = seat_text(game, state, 1)
    assert "The game is over. Winner: first." in text
    view = seat_view(game, state, 1)
    assert view["terminal"] and view["result"]["winners"] == [0] and view["result"]["returns"] == [1.0, -1.0]
    with pytest.raises(ReplyError, match="over"):
        parse_reply(game, state, 0, "roll")


def test_bad_seats_and_replies_that_are_not_text():
    game = envs.make_game("pig")
    state = game.initial_state(np.random.default_rng(0))
    for bad in (2, -1, "0", True, None):
        with pytest.raises(ValueError, match="seat"):
            seat_view(game, state, bad)
        with pytest.raises(ValueError, match="seat"):
            parse_reply(game, state, bad, "roll")
    with pytest.raises(ReplyError, match="text"):
        parse_reply(game, state, 0, 1)


@pytest.mark.parametrize("game_id, options", CASES, ids=IDS)
def test_the_player_to_move_is_among_the_seats_to_move_with_its_legal_actions(game_id, options):
    """``Game.seats_to_move`` keeps its promise in every game: the player to move first, with exactly its legal
    actions; nobody once the game is over."""
    game = envs.make_game(game_id, **options)
    for state in positions(game, 9, every=2, limit=30):
        movers = game.seats_to_move(state)
        player = game.current_player(state)
        if player == TERMINAL:
            assert movers == {}
            continue
        assert next(iter(movers)) == player and movers[player] == game.legal_actions(state)
        assert len(set(movers)) == len(movers) and all(0 <= s < game.num_players for s in movers)


ADVERSARIAL = [
    "move" + " " * 19_990 + "x",
    "#" * 20_000,
    "```" * 6_666,
    "Answer:" * 2_857,
    "a:" * 9_999 + "\n",
    "(" * 10_000 + ")" * 10_000,
    "*`'\"" * 5_000,
    "Answer:\n" * 2_500,
    "T " + "1," * 9_990,
    "move " + "#" * 19_990 + "1",
    "{" + " " * 19_998 + "}",
]


def test_long_and_crafted_replies_are_refused_without_backtracking(no_hang):
    """Replies built to make a parser backtrack (long runs of what its patterns repeat) are refused at once: the
    patterns never let two quantifiers share a character, and the game's parser sees at most 200 characters."""
    game = envs.make_game("battle_sheep")
    state = game.initial_state(np.random.default_rng(0))
    for reply in ADVERSARIAL:
        assert len(reply) <= MAX_REPLY_CHARS
        with pytest.raises(ReplyError):
            parse_reply(game, state, 0, reply)
