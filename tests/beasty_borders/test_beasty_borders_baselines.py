"""The scripted Beasty Borders baselines: legal, reproducible, and sensible on hand-made positions."""

from __future__ import annotations

import numpy as np
import pytest

from envs.beasty_borders import render
from envs.beasty_borders.actions import ROLLER_CHOICE
from envs.beasty_borders.baselines import POLICIES, GreedyPolicy, placement_gain, search_policy
from envs.beasty_borders.rules import BeastyBordersGame
from envs.common.game import TERMINAL
from envs.common.policies import RandomPolicy, decision_from_state

# Lakes of tiles laid as slots 0..8 = tiles 0 1 2 / 3 6 4 / 5 7 8 (as in the rule tests).
LAKES_MAIN = [
    "....~...~",
    "..~......",
    "...~.....",
    "~...~..~.",
    "~...~...~",
    ".....~~..",
]


def with_rows(**rows: str) -> list[str]:
    """LAKES_MAIN with some rows (a..f) replaced."""
    out = list(LAKES_MAIN)
    for name, text in rows.items():
        out["abcdef".index(name)] = text
    return out


def play(game, policies, seed: int) -> list[int]:
    """Play one game, checking every action against the mask; returns the actions."""
    rng = np.random.default_rng(seed)
    state = game.initial_state(rng)
    actions = []
    while game.current_player(state) != TERMINAL:
        seat = game.current_player(state)
        decision = decision_from_state(game, state, seat)
        action = policies[seat].act(decision)
        assert decision.action_mask[action], (seat, action)
        game.apply(state, int(action), rng)
        actions.append(int(action))
    return actions


@pytest.mark.parametrize("variant", ["main", "without_luck"])
def test_policies_return_legal_actions(variant):
    game = BeastyBordersGame(variant=variant)
    for seed in range(3):
        greedy, search = GreedyPolicy(game, seed=seed), search_policy(game, seed=seed, budget=12)
        play(game, [greedy, RandomPolicy(seed)], seed)
        play(game, [RandomPolicy(seed), greedy], seed + 10)
        play(game, [search, greedy] if seed % 2 == 0 else [greedy, search], seed + 20)


def test_registry():
    assert set(POLICIES) == {"greedy", "search"}
    game = BeastyBordersGame()
    assert POLICIES["search"](game, seed=0, budget=5).budget == 5


@pytest.mark.parametrize("compiled", [True, False], ids=["compiled", "python"])
@pytest.mark.parametrize("variant", ["main", "without_luck"])
def test_same_seed_same_decisions(variant, compiled):
    game = BeastyBordersGame(variant=variant)
    a = play(game, [search_policy(game, seed=3, budget=10, compiled=compiled), GreedyPolicy(game, seed=4)], 7)
    b = play(game, [search_policy(game, seed=3, budget=10, compiled=compiled), GreedyPolicy(game, seed=4)], 7)
    assert a == b
    assert (search_policy(game, compiled=compiled).compiled is None) != compiled


def test_placement_gain_merges_groups():
    game = BeastyBordersGame()
    # a4 joins the A group a1-a3 (3 -> 4: +2); the lone A on b6 is not adjacent.
    s = render.state_from_text(game, with_rows(a="AAA.~...~", b="..~..A..."), marker="a4")
    board = s.board.tolist()
    a4 = 3
    assert placement_gain(game, board, a4, 3) == 5 - 3  # A: 3 -> 4
    assert placement_gain(game, board, a4, 4) == 0  # B: no B nearby


def greedy_action(game, state) -> int:
    return GreedyPolicy(game, seed=0).act(decision_from_state(game, state))


def test_greedy_extends_its_group():
    game = BeastyBordersGame()
    s = render.state_from_text(game, with_rows(a="AAA.~...~"), marker="a4", roller=0, phase=ROLLER_CHOICE)
    assert greedy_action(game, s) == 0  # A grows 3 -> 4


def test_greedy_denies_the_opponent_and_passes_on_dead_spaces():
    game = BeastyBordersGame()
    # Wild's X group f1-f3 would grow on f4: farm fills it (any animal) rather than pass.
    s = render.state_from_text(game, with_rows(f="XXX..~~.."), marker="f4", roller=0, phase=ROLLER_CHOICE)
    assert greedy_action(game, s) != game.pass_action
    # f9: lake above, marker to the left, no group anywhere near: nothing to gain or deny, no room: pass.
    s = render.state_from_text(game, with_rows(f=".....~~#."), marker="f9", roller=0, phase=ROLLER_CHOICE)
    assert greedy_action(game, s) == game.pass_action
