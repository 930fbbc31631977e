"""Bestiarium scripted baselines: legal, reproducible, and greedy reads the cascade."""

from __future__ import annotations

import numpy as np

from envs.bestiarium import render
from envs.bestiarium.baselines import POLICIES, GreedyPolicy, cascade_value, search_policy
from envs.bestiarium.rules import GROW, BestiariumGame
from envs.common.policies import RandomPolicy, decision_from_state

BLACK = 0


def play_game(g: BestiariumGame, policies, seed: int) -> list[int]:
    """Play to the end, asserting every action is legal; returns the actions."""
    for i, p in enumerate(policies):
        p.reset(seed * 101 + i)
    s = g.initial_state(np.random.default_rng(seed))
    actions = []
    while not g.is_terminal(s):
        assert not g.is_truncated(s)
        d = decision_from_state(g, s)
        a = policies[d.seat].act(d)
        assert isinstance(a, int) and d.action_mask[a] == 1, (a, g.render_ansi(s))
        g.apply(s, a)
        actions.append(a)
    return actions


def test_policies_table():
    assert set(POLICIES) == {"greedy", "search", "search_playout"}
    g = BestiariumGame(board_size=5)
    assert POLICIES["search"](g, seed=0, budget=5).budget == 5


def test_greedy_and_search_play_legal_moves():
    g = BestiariumGame(board_size=5)
    for seed in range(3):
        play_game(g, [GreedyPolicy(g), RandomPolicy()], seed)
        play_game(g, [RandomPolicy(), GreedyPolicy(g)], seed)
    play_game(g, [search_policy(g, budget=8), GreedyPolicy(g)], 7)
    play_game(g, [GreedyPolicy(g), search_policy(g, budget=8)], 8)


def test_same_seed_same_decisions():
    g = BestiariumGame(board_size=5)
    for make in (lambda: GreedyPolicy(g), lambda: search_policy(g, budget=8)):
        first = play_game(g, [make(), make()], 3)
        second = play_game(g, [make(), make()], 3)
        assert first == second


def test_greedy_placement_makes_a_fauna_at_the_top_size():
    # Black: a line of 3 (-9 at size 3) and a domino. Growing the domino into a bent or triangle triomino makes a
    # size-3 fauna (+18); into a line it makes a species of two (-18); anything else leaves -9 or goes worse.
    g = BestiariumGame(board_size=5)
    s = render.state_from_text(
        g,
        """
        X X X . .
       . . . . . .
      . . . . . . .
     . . . . . . . .
    . . . . X X . . .
     . . . . . . . .
      . . . . . . .
       . . . . . .
        O . . . O
    """,
    )
    for seed in range(5):
        a = GreedyPolicy(g, seed=seed).act(decision_from_state(g, s))
        after = s.clone()
        g.apply(after, a)
        assert g.size_values(after, BLACK)[3] == 18, g.action_to_str(s, a)


def test_greedy_growth_avoids_a_second_creature_of_the_same_shape():
    # Black's line of 3 (lower case) ate and must grow; it already has a line of 4. Extending at e3 / e7 makes a
    # second line of 4 (a species, -32); the other eight cells make a different tetrahex (a fauna, +32).
    g = BestiariumGame(board_size=5)
    s = render.state_from_text(
        g,
        """
        X X X X .
       . . . . . .
      . . . . . . .
     . . . . . . . .
    . . . x x x . . .
     . . . . . . . .
      . . . . . . .
       . . . . . .
        O . . . O
    """,
    )
    assert s.phase == GROW
    bad = {g.codec.index["e3"], g.codec.index["e7"]}
    assert bad <= set(g.growth_cells(s))
    for seed in range(5):
        a = GreedyPolicy(g, seed=seed).act(decision_from_state(g, s))
        assert a not in bad
        after = s.clone()
        g.apply(after, a)
        assert g.size_values(after, BLACK)[4] == 32


def test_cascade_value_reads_the_largest_differing_size():
    g = BestiariumGame(board_size=5)
    s = render.state_from_text(
        g,
        """
        X X X . .
       . . . . . .
      . . . . . . .
     . . . . . . . .
    . . . . X X . . .
     . . . . . . . .
      . . . . . . .
       . . . . . .
        O . . . O
    """,
    )
    v = cascade_value(g, s)  # size 3: Black -9 vs White 0, so Black is behind
    assert v[0] < 0 and v[0] == -v[1] and v[0] > -1
