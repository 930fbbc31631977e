"""The learned playout inside Bestiarium's compiled search (``envs/bestiarium/search.py``): its move features
against a readable definition, its draws against the softmax they define, the shipped uniform search unchanged,
the ``search_playout`` policy, and the fit script (``lab/playout_fit.py``)."""

from __future__ import annotations

import numpy as np
import pytest

from envs.bestiarium.baselines import EVAL_SCALE, POLICIES, ROLLOUT_DEPTH, GreedyPolicy, search_playout_policy
from envs.bestiarium.rules import GROW, BestiariumGame
from envs.bestiarium.search import N_CODES, PLAYOUT_FEATURES, CompiledSearch, feature_bits, playout_table
from envs.common.policies import decision_from_state


def random_positions(game: BestiariumGame, count: int, seed: int) -> list:
    """Live positions met in random games (grow phases included)."""
    rng = np.random.default_rng(seed)
    out = []
    while len(out) < count:
        s = game.initial_state()
        while not game.is_terminal(s):
            if rng.random() < 0.15:
                out.append(game.clone(s))
            legal = game.legal_actions(s)
            game.apply(s, legal[rng.integers(len(legal))])
    return out[:count]


def reference_codes(game: BestiariumGame, s) -> dict[int, int]:
    """The feature code of each legal placement / growth, read off the reference engine's creatures
    (:data:`PLAYOUT_FEATURES`' definitions)."""
    seat = s.to_move
    own, enemy = seat + 1, 2 - seat
    single_shape_max = 1 if game.shape_equivalence == "fixed" else 2
    sizes = {c: len(cells) for c, cells in s.members.items()}
    mine = [sizes[c] for c, cells in s.members.items() if s.color[cells[0]] == own]
    theirs = [sizes[c] for c, cells in s.members.items() if s.color[cells[0]] == enemy]
    my_top, their_top = max(mine, default=0), max(theirs, default=0)
    out = {}
    for a in game.legal_actions(s):
        a = int(a)
        if a == game.pass_action:
            continue
        if s.phase == GROW:
            c = s.chain
        else:
            c = next((s.cid[k] for k in game.nbrs[a] if s.color[k] == own), -1)
        cells = s.members[c] if c >= 0 else []
        s0 = len(cells)
        s1 = s0 + 1
        around = {sizes[s.cid[k]] for x in [*cells, a] for k in game.nbrs[x] if s.color[k] == enemy}
        features = {
            "join": c >= 0,
            "eat": s1 > single_shape_max and s1 in around,
            "danger": s1 > single_shape_max and s0 in around,
            "top": s1 > my_top,
            "same_size": s1 in mine,
            "contest": their_top > 0 and s1 >= their_top,
            "contact": any(s.color[k] == enemy for k in game.nbrs[a]),
        }
        out[a] = sum(1 << i for i, name in enumerate(PLAYOUT_FEATURES) if features[name])
    return out


@pytest.mark.parametrize("size,eq", [(5, "fixed"), (6, "free"), (7, "one_sided")])
def test_move_codes_match_the_readable_features(size, eq):
    game = BestiariumGame(board_size=size, shape_equivalence=eq)
    search = CompiledSearch(game, budget=1, exploration=1.4, depth=0, scale=EVAL_SCALE)
    positions = random_positions(game, 80, seed=size)
    assert any(s.phase == GROW for s in positions)
    seen = 0
    for s in positions:
        codes = search.move_codes(s)
        want = reference_codes(game, s)
        assert {a: int(codes[a]) for a in np.flatnonzero(codes >= 0)} == want, game.render_ansi(s)
        for a in want.values():
            seen |= a
    assert seen == N_CODES - 1  # every feature occurs


def test_table_is_exp_of_the_weighted_features():
    w = np.array([0.5, -1.0, 2.0, 0.25, -0.5, 1.5, -2.0])
    table = playout_table(w)
    bits = feature_bits(np.arange(N_CODES))
    assert table.shape == (N_CODES,) and np.allclose(np.log(table), bits @ w)
    assert np.array_equal(playout_table(np.zeros(len(PLAYOUT_FEATURES))), np.ones(N_CODES))
    with pytest.raises(ValueError):
        playout_table([1.0, 2.0])


@pytest.mark.parametrize("weights", [(0.0,) * 7, (0.4, 1.5, -1.0, -0.8, 0.7, 0.3, -0.6)])
def test_playout_draws_follow_the_softmax(weights):
    """w = 0 draws uniformly among the legal moves; other weights as exp(w . f) normalised (4,000 draws, placement
    and grow phases)."""
    game = BestiariumGame(board_size=5)
    search = CompiledSearch(
        game, budget=1, exploration=1.4, depth=ROLLOUT_DEPTH, scale=EVAL_SCALE, playout_weights=weights
    )
    positions = [s for s in random_positions(game, 300, seed=4) if len(game.legal_actions(s)) >= 3]
    picks = [next(s for s in positions if s.phase == GROW), positions[len(positions) // 2]]
    table = playout_table(weights)
    n = 4000
    for s in picks:
        codes = reference_codes(game, s)
        actions = sorted(codes)
        p = np.array([table[codes[a]] for a in actions])
        p /= p.sum()
        draws = np.array([search.playout_move(s, seed=k) for k in range(n)])
        assert set(draws.tolist()) <= set(actions)
        freq = np.array([(draws == a).mean() for a in actions])
        assert np.all(np.abs(freq - p) <= 4.5 * np.sqrt(p * (1 - p) / n) + 1e-3), (freq, p)


def test_local_playout_weighs_the_moves_next_to_the_last_cell():
    """The local playout: the placements next to the previous ply's cell weigh exp(w . f) (their codes as the full
    playout's), the other legal moves 1; with no previous cell, uniform."""
    game = BestiariumGame(board_size=5)
    weights = (0.4, 1.5, -1.0, -0.8, 0.7, 0.3, -0.6)
    search = CompiledSearch(
        game,
        budget=1,
        exploration=1.4,
        depth=ROLLOUT_DEPTH,
        scale=EVAL_SCALE,
        playout_weights=weights,
        local_playout=True,
    )
    table = playout_table(weights)
    positions = [s for s in random_positions(game, 300, seed=6) if s.phase != GROW and len(game.legal_actions(s)) >= 3]
    s = positions[len(positions) // 2]
    codes = reference_codes(game, s)
    stones = [x for x in range(game.num_cells) if s.color[x]]
    last = max(stones, key=lambda x: sum(y in codes for y in game.nbrs[x]))
    n = 4000
    for prev in (last, -1):
        near = set(game.nbrs[prev]) if prev >= 0 else set()
        actions = sorted(codes)
        assert prev < 0 or near & set(actions)
        p = np.array([table[codes[a]] if a in near else 1.0 for a in actions])
        p /= p.sum()
        draws = np.array([search.playout_move(s, seed=k, last=prev) for k in range(n)])
        freq = np.array([(draws == a).mean() for a in actions])
        assert np.all(np.abs(freq - p) <= 4.5 * np.sqrt(p * (1 - p) / n) + 1e-3), (freq, p)


def test_a_table_of_code_weights_is_a_playout_too():
    game = BestiariumGame(board_size=5)
    logw = np.linspace(-1.0, 1.0, N_CODES)
    assert np.allclose(playout_table(logw), np.exp(logw))
    search = CompiledSearch(game, 1, 1.4, depth=ROLLOUT_DEPTH, scale=EVAL_SCALE, playout_weights=logw)
    s = random_positions(game, 1, seed=1)[0]
    assert search.playout_move(s, seed=0) in set(reference_codes(game, s))


def test_the_shipped_search_is_unchanged():
    """``search`` (no playout weights) keeps the draws of the kernel before the learned playout: its decisions and
    leaf values on seeded positions as recorded at commit 356c2e8."""
    game = BestiariumGame()
    rng = np.random.default_rng(0)
    positions = []
    s = game.initial_state()
    while not game.is_terminal(s):
        if rng.random() < 0.1:
            positions.append(game.clone(s))
        legal = game.legal_actions(s)
        game.apply(s, legal[rng.integers(len(legal))])
    search = CompiledSearch(game, 60, 1.4, depth=ROLLOUT_DEPTH, scale=EVAL_SCALE)
    moves = [search(p, np.random.default_rng(i)) for i, p in enumerate(positions)]
    assert moves == [66, 48, 58, 67, 51, 68, 56, 69, 70, 56, 53, 57, 91]
    leaves = [search.leaf_value(p, seed=i)[0] for i, p in enumerate(positions)]
    t1, t2 = np.tanh(0.5), np.tanh(1.0)
    want = [-t1, -t1, t2, t1, t1, t1, t1, t1, -t1, -1.0, -1.0, -1.0, -1.0]
    assert np.allclose(leaves, want, rtol=1e-12, atol=0)


def test_search_playout_is_legal_and_seeded():
    assert "search_playout" in POLICIES
    game = BestiariumGame(board_size=5)

    def play(seed: int, learner_seat: int) -> list[int]:
        players = [GreedyPolicy(game, seed=seed), GreedyPolicy(game, seed=seed + 1)]
        players[learner_seat] = search_playout_policy(game, seed=seed, budget=8)
        s = game.initial_state()
        actions = []
        while not game.is_terminal(s):
            d = decision_from_state(game, s)
            a = players[d.seat].act(d)
            assert d.action_mask[a] == 1
            game.apply(s, a)
            actions.append(a)
        return actions

    assert play(3, 0) == play(3, 0)
    assert play(4, 1) == play(4, 1)
    assert search_playout_policy(game, seed=0).name == "search_playout"
    with pytest.raises(ValueError):
        CompiledSearch(game, 1, 1.4, depth=1, scale=1.0).playout_move(game.initial_state(), seed=0)


def test_fit_recovers_known_weights():
    """The conditional-logit fit on moves drawn from known weights finds them back."""
    from lab.playout_fit import fit

    rng = np.random.default_rng(0)
    true = np.array([0.5, 1.2, -0.8, -0.4, 0.6, 0.3, -0.5])
    table = playout_table(true)
    counts = rng.integers(0, 4, size=(4000, N_CODES)).astype(np.float64)
    chosen = np.array([rng.choice(N_CODES, p=c * table / (c * table).sum()) for c in counts])
    w = fit(counts, chosen, l2=0.0)
    assert np.abs(w - true).max() < 0.1, w


def test_fit_script_runs_and_is_seeded(tmp_path):
    from lab.playout_fit import main

    args = ["--games", "1", "--board-size", "5", "--teacher", "greedy", "--mover", "greedy", "--seed", "2"]
    first = main([*args, "--out", str(tmp_path / "fit.json")])
    second = main(args)
    assert first["positions"] > 10 and len(first["weights"]) == len(PLAYOUT_FEATURES)
    assert first["weights"] == second["weights"]
    assert first["log_likelihood"] >= first["log_likelihood_uniform"]
    assert (tmp_path / "fit.json").exists()
