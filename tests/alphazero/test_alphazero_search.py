"""The network-guided search (training/alphazero/search.py): its maths against hand-computed numbers, and its play on
hand-made positions whose exact values a solver checks (tic-tac-toe, Battle Sheep text boards, a counting race
for four players, a dice duel for chance nodes)."""

from __future__ import annotations

import numpy as np
import pytest
from solver import action_bounds, action_values, wins_at_once
from tiny_games import DiceDuel, ExactRaceEvaluator, Race, TicTacToe, solve_tictactoe

from envs.battle_sheep.render import board_from_text
from envs.battle_sheep.rules import BattleSheepGame
from envs.common.game import TERMINAL
from training.alphazero.search import (
    BatchedSearch,
    RecordingRng,
    SearchConfig,
    SearchError,
    UniformEvaluator,
    completed_q,
    considered_visit_sequence,
    gumbel_interior_scores,
    gumbel_policy_target,
    gumbel_root_scores,
    mixed_value,
    puct_scores,
    sigma,
    to_absolute,
    to_relative,
    value_vectors,
    visit_count_target,
)

KINDS = ("gumbel", "puct")


def search_one(game, state, kind: str, simulations: int, seed: int = 0, evaluator=None):
    config = SearchConfig(kind=kind, simulations=simulations, gumbel_scale=0.0, dirichlet_fraction=0.0)
    evaluator = evaluator or UniformEvaluator(game.num_players)
    return BatchedSearch(game, evaluator, config, np.random.default_rng(seed)).search([state])[0]


# ----- the maths, by hand ---------------------------------------------------------------------------------------
def test_sequential_halving_schedule_matches_hand_computed_phases():
    # m = 4, n = 8: ceil(log2 4) = 2; 4 actions x max(1, 8 // 8) = 1 visit, then 2 actions x 8 // 4 = 2 visits
    assert considered_visit_sequence(4, 8) == [0, 0, 0, 0, 1, 1, 2, 2]
    # m = 16, n = 32: 16 x 1, then 8 x 1 (32 // 32), then 4 actions for the rest (2 x 32 // 16 visits each, cut)
    assert considered_visit_sequence(16, 32) == [0] * 16 + [1] * 8 + [2] * 4 + [3] * 4
    # m = 2, n = 5: 2 actions x 5 // 2 = 2 visits, again, cut at 5
    assert considered_visit_sequence(2, 5) == [0, 0, 1, 1, 2]
    assert considered_visit_sequence(1, 3) == [0, 1, 2]


def test_mixed_value_completed_q_and_sigma_match_hand_computed_numbers():
    q = np.array([0.5, 0.0, -0.2])
    visits = np.array([2, 0, 1])
    prior = np.array([0.5, 0.3, 0.2])
    # visited prior mass 0.7: weighted q = (0.5 * 0.5 + 0.2 * -0.2) / 0.7 = 0.3; v_mix = (0.1 + 3 * 0.3) / 4
    v_mix = mixed_value(0.1, q, visits, prior)
    assert v_mix == pytest.approx(0.25)
    assert mixed_value(0.1, q, np.zeros(3, dtype=int), prior) == pytest.approx(0.1)
    done = completed_q(q, visits, v_mix)
    np.testing.assert_allclose(done, [0.5, 0.25, -0.2])
    # (50 + max N = 2) * 0.1 = 5.2 times q: as it is, mapped from [-1, 1] to [0, 1], or min-max stretched
    np.testing.assert_allclose(sigma(done, visits, 50.0, 0.1, normalisation=None), [2.6, 1.3, -1.04])
    np.testing.assert_allclose(sigma(done, visits, 50.0, 0.1, normalisation="bounds"), [3.9, 3.25, 2.08])
    np.testing.assert_allclose(sigma(done, visits, 50.0, 0.1, normalisation="minmax"), [5.2, 5.2 * 0.45 / 0.7, 0.0])
    np.testing.assert_allclose(sigma(np.full(3, 0.3), visits), [0.0, 0.0, 0.0])
    # the improved policy: prior * exp(sigma), normalised
    target = gumbel_policy_target(np.log(prior), sigma(done, visits))
    expected = np.array([0.5 * np.exp(5.2), 0.3 * np.exp(5.2 * 0.45 / 0.7), 0.2 * np.exp(0.0)])
    np.testing.assert_allclose(target, expected / expected.sum())
    assert target[0] == pytest.approx(0.91251, abs=1e-4)
    target = gumbel_policy_target(np.log(prior), sigma(done, visits, normalisation="bounds"))
    expected = np.array([0.5 * np.exp(3.9), 0.3 * np.exp(3.25), 0.2 * np.exp(2.08)])
    np.testing.assert_allclose(target, expected / expected.sum())


def test_root_and_interior_selection_scores_by_hand():
    gumbel = np.array([0.3, -0.1, 2.0])
    logits = np.array([1.0, 2.0, 0.0])
    sig = np.array([0.5, 0.0, 0.0])
    visits = np.array([1, 1, 0])
    # only actions with the considered visit count qualify; score = g + (logits - max) + sigma
    scores = gumbel_root_scores(gumbel, logits, sig, visits, considered_visit=1)
    np.testing.assert_allclose(scores[:2], [0.3 - 1.0 + 0.5, -0.1 + 0.0 + 0.0])
    assert scores[2] == -np.inf and int(np.argmax(scores)) == 1
    # interior: softmax(logits + sigma) - N / (1 + sum N); equal policy: the unvisited action
    np.testing.assert_allclose(gumbel_interior_scores(np.zeros(2), np.zeros(2), np.array([1, 0])), [0.0, 0.5])
    # PUCT: Q + c * P * sqrt(N) / (1 + N(a)); an unvisited action gets the first-play value
    np.testing.assert_allclose(
        puct_scores(np.array([0.5, 0.0]), np.array([0.25, 0.75]), np.array([1, 0]), 4, 1.5, fpu=-0.1),
        [0.5 + 1.5 * 0.25 * 2 / 2, -0.1 + 1.5 * 0.75 * 2 / 1],
    )
    np.testing.assert_allclose(visit_count_target(np.array([3, 1, 0, 4])), [3 / 8, 1 / 8, 0.0, 4 / 8])


def test_relative_and_absolute_values():
    relative = np.array([0.4, 0.3, 0.2, 0.1])  # the mover (seat 2) first, then seats 3, 0, 1
    absolute = to_absolute(relative, 2)
    np.testing.assert_allclose(absolute, [0.2, 0.1, 0.4, 0.3])
    np.testing.assert_allclose(to_relative(absolute, 2), relative)
    np.testing.assert_allclose(value_vectors(np.array([0.5, -0.25]), 2), [[0.5, -0.5], [-0.25, 0.25]])
    with pytest.raises(SearchError, match="value_outputs=4"):
        value_vectors(np.array([0.5]), 4)


# ----- play on hand-made positions --------------------------------------------------------------------------------
TICTACTOE = {
    "win in one": "XX./OO./...",  # X to move: 2 wins at once (5 only draws)
    "block in one": "X../OO./X..",  # X to move: only 5 stops O's row (and X's column threat is gone)
    "forced win in two": "XO./.../...",  # X to move: 3, 4 or 6 set up a fork
    "trap": "X../.O./..X",  # O to move: a corner loses to a fork, an edge draws
}


@pytest.mark.parametrize("kind", KINDS)
@pytest.mark.parametrize("name", list(TICTACTOE))
def test_tictactoe_positions(kind: str, name: str):
    game = TicTacToe()
    state = game.from_text(TICTACTOE[name])
    values = solve_tictactoe(game, state)
    best = max(values.values())
    assert sum(v == best for v in values.values()) < len(values), "the position has a wrong move"
    result = search_one(game, state, kind, simulations=200)
    assert values[result.action] == best
    assert state == game.from_text(TICTACTOE[name]), "the search does not change the state it is given"


SHEEP_WIN_IN_ONE = """
.  .  A1
  A2  .  B3
.  .  _
"""
SHEEP_WIN_IN_TWO = """
.  .  .  .
  .  .  A3  .
.  B2  .  B1
"""
SHEEP_BLOCK = """
.  B1  .  .
  .  B2  A2  .
_  A1  .  .
"""


@pytest.mark.parametrize("kind", KINDS)
def test_battle_sheep_takes_a_win_in_one(kind: str):
    game = BattleSheepGame(canvas_radius=6)
    state = board_from_text(game, SHEEP_WIN_IN_ONE)
    legal = game.legal_actions(state)
    winners = [a for a in legal if wins_at_once(game, state, a)]
    assert len(winners) == 1 and len(legal) == 5
    assert search_one(game, state, kind, simulations=50).action == winners[0]


@pytest.mark.parametrize("kind", KINDS)
def test_battle_sheep_finds_a_forced_win_in_two(kind: str):
    game = BattleSheepGame(canvas_radius=6)
    state = board_from_text(game, SHEEP_WIN_IN_TWO)
    values = action_values(game, state)
    assert not any(wins_at_once(game, state, a) for a in values), "no win at once"
    good = [a for a, v in values.items() if v == 1.0]
    assert len(good) == 1 and len(values) == 10
    child = game.clone(state)
    game.apply(child, good[0])
    for reply in game.legal_actions(child):  # every answer of B leaves A a win at once
        after = game.clone(child)
        game.apply(after, reply)
        assert any(wins_at_once(game, after, a) for a in game.legal_actions(after))
    assert search_one(game, state, kind, simulations=200).action == good[0]


@pytest.mark.parametrize("kind", KINDS)
def test_battle_sheep_blocks_a_win_in_one(kind: str):
    game = BattleSheepGame(canvas_radius=6)
    state = board_from_text(game, SHEEP_BLOCK)
    values = action_values(game, state)
    assert not any(wins_at_once(game, state, a) for a in values), "no win at once"
    good = [a for a, v in values.items() if v == max(values.values())]
    assert len(good) == 1 and len(values) == 5 and values[good[0]] == 0.0
    threats = 0
    for a in values:  # the other moves let B win at once
        if a in good:
            continue
        child = game.clone(state)
        game.apply(child, a)
        threats += any(wins_at_once(game, child, b) for b in game.legal_actions(child))
    assert threats == 4
    assert search_one(game, state, kind, simulations=200).action == good[0]


# ----- values from the right seat's point of view ---------------------------------------------------------------------
@pytest.mark.parametrize("num_players", [2, 4])
def test_root_q_is_the_movers_exact_value(num_players: int):
    """With an evaluator that gives the race's exact values (observer-relative, as a network does), one visit to
    each action makes Q(a) the mover's exact value after a: a search that read the values at the wrong seat
    would not match."""
    game = Race(num_players=num_players, target=7)
    checked = 0
    for counter in range(6):
        for mover in range(num_players):
            exact = [
                game.exact_values(*_after(game, counter, mover, a))
                if counter + a + 1 < 7
                else _terminal_returns(game, counter, mover, a)
                for a in (0, 1)
            ]
            result = search_one(game, [counter, mover], "gumbel", simulations=2, evaluator=ExactRaceEvaluator(game))
            np.testing.assert_allclose(result.q, [exact[0][mover], exact[1][mover]])
            np.testing.assert_allclose(result.raw_value, game.exact_values(counter, mover))
            checked += exact[0][mover] != exact[0][(mover + 1) % num_players]
    assert checked > 3, "positions where the seats' values differ"


def _after(game: Race, counter: int, mover: int, a: int) -> tuple[int, int]:
    state = [counter, mover]
    game.apply(state, a)
    return state[0], state[1]


def _terminal_returns(game: Race, counter: int, mover: int, a: int) -> np.ndarray:
    state = [counter, mover]
    game.apply(state, a)
    return game.returns(state)


@pytest.mark.parametrize("kind", KINDS)
def test_four_player_race_takes_the_win(kind: str):
    """Every race position where one action wins whatever the others do and the other cannot win at all."""
    game = Race(num_players=4, target=9)
    tested = 0
    for counter in range(9):
        for mover in range(4):
            state = [counter, mover]
            bounds = action_bounds(game, state)
            forced = [a for a, (worst, _) in bounds.items() if worst == 1.0]
            if len(forced) != 1 or bounds[1 - forced[0]][1] == 1.0:
                continue
            tested += 1
            assert search_one(game, state, kind, simulations=60).action == forced[0]
    assert tested >= 4


SHEEP_4P_FORCED_WIN = """
.  A3  D2
  C3  .  D1
.  _  B1
"""


@pytest.mark.parametrize("kind", KINDS)
def test_battle_sheep_four_players_the_mover_finds_its_forced_win(kind: str):
    """Seat C (2) to move among four: one move wins outright (+1 to C) whatever the others do; after any other
    move C cannot win even if the others help. The search, fed only terminal results, must credit each seat its
    own return to find it."""
    game = BattleSheepGame(num_players=4, canvas_radius=7)
    state = board_from_text(game, SHEEP_4P_FORCED_WIN, to_move=2)
    assert game.current_player(state) == 2
    bounds = action_bounds(game, state)
    forced = [a for a, (worst, _) in bounds.items() if worst == 1.0]
    assert len(forced) == 1 and len(bounds) == 6
    assert all(best < 1.0 for a, (_, best) in bounds.items() if a != forced[0])
    assert not any(wins_at_once(game, state, a) for a in bounds)
    result = search_one(game, state, kind, simulations=300)
    assert result.action == forced[0]
    assert result.value[2] == result.value.max() and result.value[2] > 0.3


# ----- chance ---------------------------------------------------------------------------------------------------------
@pytest.mark.parametrize("kind", KINDS)
def test_chance_nodes_average_over_the_die(kind: str):
    """Bold wins on an 8 only (expected return -0.75), safe on 2-8 (+0.75): the sampled chance nodes keep one
    child per face and their average approaches the expectation."""
    game = DiceDuel()
    config = SearchConfig(kind=kind, simulations=400, gumbel_scale=0.0, dirichlet_fraction=0.0, max_considered=2)
    search = BatchedSearch(game, UniformEvaluator(2), config, np.random.default_rng(1))
    result = search.search([game.initial_state()])[0]
    assert result.action == 1
    visited = result.visits > 0
    assert result.q[1] == pytest.approx(0.75, abs=0.15)
    if visited[0] and result.visits[0] >= 30:
        assert result.q[0] == pytest.approx(-0.75, abs=0.3)


def test_chance_edges_keep_one_child_per_outcome():
    game = DiceDuel()
    search = BatchedSearch(
        game,
        UniformEvaluator(2),
        SearchConfig(kind="puct", simulations=200, dirichlet_fraction=0.0),
        np.random.default_rng(2),
    )
    search.search([game.initial_state()])
    root = search.last_roots[0]
    assert root.stochastic.all()
    for outcomes in root.children:
        assert isinstance(outcomes, dict) and 2 <= len(outcomes) <= 8
        for key, child in outcomes.items():
            assert child.terminal and key == (("integers", child.state[1]),)  # the key is the face drawn
    assert root.child_visits.sum() == 200


def test_recording_rng_names_the_draws():
    rng = RecordingRng(np.random.default_rng(0))
    a = rng.integers(1, 9)
    b = rng.permutation(4)
    assert rng.draws == [("integers", int(a)), ("permutation", ("<i8", (4,), b.tobytes()))]
    again = RecordingRng(np.random.default_rng(0))
    again.integers(1, 9)
    assert again.draws == rng.draws[:1]


def test_search_refuses_finished_games_and_hidden_information():
    import envs

    game = TicTacToe()
    with pytest.raises(SearchError, match="finished"):
        search_one(game, game.from_text("XXX/OO./..."), "gumbel", 4)
    boaring = envs.make_game("boaring")
    with pytest.raises(SearchError, match="hidden information"):
        BatchedSearch(boaring, UniformEvaluator(4), SearchConfig(), np.random.default_rng(0))
    with pytest.raises(SearchError, match="search kind"):
        SearchConfig(kind="alphabeta")
    assert TicTacToe().current_player(game.from_text("XXX/OO./...")) == TERMINAL


def test_many_games_share_one_forward_pass_per_simulation():
    game = TicTacToe()
    calls = []

    class Counting(UniformEvaluator):
        def __call__(self, obs, legal):
            calls.append(len(legal))
            return super().__call__(obs, legal)

    states = [game.from_text(t) for t in ("X../.../...", ".X./.../...", "XO./.../...", "XO./X../...")]
    search = BatchedSearch(game, Counting(2), SearchConfig(simulations=8), np.random.default_rng(0))
    results = search.search(states)
    assert len(results) == 4 and calls[0] == 4
    assert len(calls) <= 1 + 8 and max(calls) == 4  # the roots, then one batch per simulation step
    for state, result in zip(states, results):
        assert game.legal_mask(state)[result.action] == 1
        assert result.policy.sum() == pytest.approx(1.0) and len(result.policy) == len(result.actions)


@pytest.mark.parametrize("kind", KINDS)
def test_each_root_gets_its_own_budget(kind: str):
    game = TicTacToe()
    states = [game.from_text("XX./OO./..."), game.from_text("XX./OO./..."), game.from_text("X../.../...")]
    search = BatchedSearch(
        game,
        UniformEvaluator(2),
        SearchConfig(kind=kind, simulations=8, gumbel_scale=0.0, dirichlet_fraction=0.0),
        np.random.default_rng(0),
    )
    results = search.search(states, simulations=[0, 30, 3])
    assert [int(r.visits.sum()) for r in results] == [0, 30, 3]
    assert results[1].action == 2  # the win in one, found with its budget
    assert all(game.legal_mask(s)[r.action] for s, r in zip(states, results))
