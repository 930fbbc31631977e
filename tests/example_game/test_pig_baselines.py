"""Pig's baselines: greedy holds at 20 or when holding wins; the search beats random play and holds a sure win (it
loses to greedy: its random playouts value a position as two random players would play it on)."""

from __future__ import annotations

import numpy as np
from pig.actions import HOLD, ROLL
from pig.baselines import POLICIES, GreedyPolicy
from pig.rules import PigGame

from envs.common.policies import RandomPolicy, decision_from_state, make_baseline
from envs.common.testing import state_key


def test_greedy_holds_at_twenty_or_when_holding_wins():
    game = PigGame(target=50)
    greedy = GreedyPolicy(game)

    def move(scores, turn_total, current=0):
        last = 0 if turn_total == 0 else min(turn_total, 6)
        return greedy.act(decision_from_state(game, game.make_state(scores, turn_total, current, last)))

    assert move([0, 0], 0) == ROLL
    assert move([0, 0], 19) == ROLL and move([0, 0], 20) == HOLD and move([0, 0], 26) == HOLD
    assert move([45, 0], 4) == ROLL and move([45, 0], 5) == HOLD  # 45 + 5 = 50 wins
    assert move([0, 44], 6, current=1) == HOLD
    assert GreedyPolicy(game, hold_at=10).act(decision_from_state(game, game.make_state([0, 0], 10, 0, 6))) == HOLD


def play(game: PigGame, players: list, seed: int) -> np.ndarray:
    rng = np.random.default_rng(seed)
    state = game.initial_state(rng)
    while not game.is_terminal(state):
        decision = decision_from_state(game, state)
        before = state_key(game, state)
        action = players[decision.seat].act(decision)
        assert decision.action_mask[action] and state_key(game, state) == before
        game.apply(state, action, rng)
    return game.returns(state)


def test_search_beats_random_play():
    """Over 100 games of Pig to 50, seats alternating (0.84 measured; 70 wins are 4 standard deviations above an
    even match)."""
    game = PigGame(target=50)
    wins = 0
    for g in range(100):
        seat = g % 2
        players = [RandomPolicy(seed=g), RandomPolicy(seed=g + 1000)]
        players[seat] = make_baseline("pig", "search", engine=game, seed=g)
        wins += play(game, players, g)[seat] > 0
    assert wins >= 70


def test_search_holds_a_sure_win():
    game = PigGame(target=20)
    search = POLICIES["search"](game, seed=0, budget=50)
    state = game.make_state([18, 19], turn_total=2, current=0, last_roll=2)
    assert search.act(decision_from_state(game, state)) == HOLD
