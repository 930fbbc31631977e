"""Pig's rules (``pig/RULES.md``), one worked example each: a roll adds its face, a 1 loses the turn total, a hold
banks it, only a banked score at the target wins; the observation, the notation, the snapshots and the pictures."""

from __future__ import annotations

import numpy as np
import pytest
from pig.actions import HOLD, ROLL
from pig.rules import PigGame

import envs
from envs.common.game import TERMINAL, ConfigError, IllegalActionError, SnapshotError
from envs.common.testing import state_key


class Dice:
    """A stand-in for the ``np.random.Generator`` that ``apply`` takes: it rolls the faces it is given, in order
    (``rng.integers(6)`` answers the face minus one, as the engine draws a roll)."""

    def __init__(self, *faces: int):
        self.faces = list(faces)

    def integers(self, n: int) -> int:
        assert n == 6 and self.faces, "the engine drew more than the scripted rolls"
        return self.faces.pop(0) - 1


def play(game: PigGame, state, *moves: str | int) -> None:
    """Apply ``moves``: ``"hold"``, or an int, the face of a roll."""
    for move in moves:
        if move == "hold":
            game.apply(state, HOLD, Dice())
        else:
            game.apply(state, ROLL, Dice(int(move)))


def test_the_first_turn_starts_with_a_roll():
    game = PigGame()
    state = game.initial_state(np.random.default_rng(0))
    assert game.current_player(state) == 0 and state.scores == [0, 0] and state.turn_total == 0
    assert game.legal_actions(state) == [ROLL]  # rule 4: nothing to bank yet
    with pytest.raises(IllegalActionError, match="nothing to bank"):
        game.apply(state, HOLD, Dice())


def test_rolls_add_up_and_a_hold_banks_them_and_passes_the_turn():
    game = PigGame()
    state = game.initial_state()
    play(game, state, 4, 6)  # rule 2
    assert (state.turn_total, state.current, state.last_roll) == (10, 0, 6)
    assert game.legal_actions(state) == [ROLL, HOLD]
    play(game, state, "hold")  # rule 4
    assert state.scores == [10, 0] and state.turn_total == 0 and state.current == 1 and state.last_roll == 0


def test_a_one_loses_the_turn_total_and_passes_the_turn():
    game = PigGame()
    state = game.make_state([10, 0], turn_total=0, current=1)
    play(game, state, 3, 5, 1)  # rule 3
    assert state.scores == [10, 0] and state.turn_total == 0 and state.current == 0 and state.last_roll == 1
    assert game.legal_actions(state) == [ROLL]


def test_only_a_banked_score_at_the_target_wins():
    game = PigGame(target=20)
    state = game.make_state([15, 12], turn_total=0, current=0)
    play(game, state, 6)  # 15 + 6 >= 20, but not banked: the game goes on (rule 5)
    assert game.current_player(state) == 0 and not game.is_terminal(state)
    assert np.array_equal(game.returns(state), [0.0, 0.0])
    play(game, state, "hold")
    assert game.current_player(state) == TERMINAL and state.scores == [21, 12] and game.winner(state) == 0
    assert np.array_equal(game.returns(state), [1.0, -1.0])
    assert not game.legal_mask(state).any()
    before = state_key(game, state)
    with pytest.raises(IllegalActionError, match="over"):
        game.apply(state, ROLL, Dice(3))
    assert state_key(game, state) == before


def test_the_second_player_can_win():
    game = PigGame(target=10)
    state = game.make_state([8, 6], turn_total=0, current=1)
    play(game, state, 2, 2, "hold")
    assert game.winner(state) == 1 and np.array_equal(game.returns(state), [-1.0, 1.0])


def test_illegal_actions_are_rejected_before_any_change():
    game = PigGame()
    state = game.make_state([3, 4], turn_total=5, current=1, last_roll=5)
    before = state_key(game, state)
    for action in (-1, 2, 1.0, None):
        with pytest.raises(IllegalActionError):
            game.apply(state, action, Dice())
    assert state_key(game, state) == before


def test_the_observation_is_seen_from_each_seat():
    game = PigGame(target=20)
    state = game.make_state([12, 7], turn_total=8, current=1, last_roll=5)
    assert game.observation(state, 1).tolist() == pytest.approx([7 / 20, 12 / 20, 8 / 20, 1.0, 0.0])
    assert game.observation(state, 0).tolist() == pytest.approx([12 / 20, 7 / 20, 8 / 20, 0.0, 1.0])
    assert game.observation(state, 0).dtype == np.float32
    over = game.make_state([24, 7], current=TERMINAL)
    assert game.observation(over, 1).tolist() == pytest.approx([7 / 20, 1.0, 0.0, 0.0, 0.0])  # capped, nobody moves
    big = game.make_state([0, 0], turn_total=33, current=0, last_roll=6)
    assert game.observation(big, 0)[2] == 1.0  # the turn total is capped at the target too


def test_notation():
    game = PigGame()
    state = game.initial_state()
    assert [game.action_to_str(state, a) for a in (ROLL, HOLD)] == ["roll", "hold"]
    assert game.str_to_action(state, " HOLD ") == HOLD and game.str_to_action(state, "roll") == ROLL
    assert game.str_to_action(state, "1") == HOLD
    with pytest.raises(IllegalActionError, match="not a Pig move"):
        game.str_to_action(state, "pass")


def test_options():
    assert envs.make_game("pig").options() == {"target": 20}
    assert envs.make_game("pig", target=100).max_game_length == 5000
    for bad in (9, 101, "20", 20.0, True):
        with pytest.raises(ConfigError, match="target"):
            PigGame(target=bad)
    with pytest.raises(ConfigError, match="dice"):
        envs.make_game("pig", dice=2)


@pytest.mark.parametrize(
    "fields",
    [
        {"scores": [0, 0], "turn_total": 1, "current": 0, "last_roll": 1},  # a 1 leaves no turn total
        {"scores": [0, 0], "turn_total": 4, "current": 0, "last_roll": 0},  # a turn total needs a roll
        {"scores": [0, 0], "turn_total": 3, "current": 0, "last_roll": 4},  # less than the last roll
        {"scores": [20, 0], "turn_total": 0, "current": 1, "last_roll": 0},  # live with a score at the target
        {"scores": [20, 25], "turn_total": 0, "current": TERMINAL, "last_roll": 0},  # two winners
        {"scores": [5, 0], "turn_total": 0, "current": TERMINAL, "last_roll": 0},  # over without a winner
        {"scores": [0, 0], "turn_total": 0, "current": 2, "last_roll": 0},  # no such seat
        {"scores": [0, -1], "turn_total": 0, "current": 0, "last_roll": 0},
        {"scores": [0], "turn_total": 0, "current": 0, "last_roll": 0},
        {"scores": [0, 0], "turn_total": 0, "current": 0, "last_roll": 7},
        {"scores": [0, 0], "turn_total": 0, "current": 0},
        {"scores": [0, 0], "turn_total": "0", "current": 0, "last_roll": 0},
    ],
)
def test_damaged_snapshots_are_rejected(fields):
    with pytest.raises(SnapshotError):
        PigGame().state_from_json(fields)


def test_snapshots_round_trip():
    game = PigGame(target=30)
    state = game.make_state([12, 29], turn_total=9, current=0, last_roll=3)
    assert game.state_to_json(state) == {"scores": [12, 29], "turn_total": 9, "current": 0, "last_roll": 3}
    assert state_key(game, game.state_from_json(game.state_to_json(state))) == state_key(game, state)


def test_pictures():
    game = PigGame()
    state = game.make_state([12, 7], turn_total=8, current=1, last_roll=5)
    assert game.render_ansi(state) == "Pig to 20: p0 12  p1 7\np1 to move: turn total 8 (rolled a 5)"
    over = game.make_state([21, 7], current=TERMINAL)
    assert game.render_ansi(over).endswith("game over: p0 wins")
    image = game.render_rgb(state)
    assert image.dtype == np.uint8 and image.ndim == 3 and image.shape[2] == 3


def test_the_web_pages_data():
    from pig import render

    game = PigGame()
    state = game.make_state([12, 7], turn_total=8, current=1, last_roll=5)
    board = render.board_data(game, state)
    assert board == {
        "kind": "pig",
        "target": 20,
        "scores": [12, 7],
        "turn_total": 8,
        "current": 1,
        "last_roll": 5,
        "over": False,
        "winner": None,
    }
    assert render.move_data(game, state, board, HOLD, "hold") == {"id": 1, "text": "hold", "kind": "hold"}
    after = game.clone(state)
    play(game, after, 1)
    assert render.events(game, board, render.board_data(game, after)) == ["the die shows 1: the turn total is lost"]
    assert render.events(game, None, board) == [] and render.seat_names(game) == ["first", "second"]
