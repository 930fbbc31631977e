"""Hypothesis property tests over random Bestiarium games."""

from __future__ import annotations

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from envs import bestiarium_v1
from envs.bestiarium.rules import GROW, BestiariumGame
from envs.common.testing import (
    check_mask_matches_apply,
    check_snapshot_roundtrip,
    random_playout,
    state_key,
)

GAMES = {
    (size, eq): BestiariumGame(board_size=size, shape_equivalence=eq)
    for size in (5, 6, 7)
    for eq in ("free", "one_sided", "fixed")
}
configs = st.sampled_from(sorted(GAMES))
seeds = st.integers(0, 2**31 - 1)


def check_creatures(game: BestiariumGame, state) -> None:
    """The incremental books agree with a from-scratch rebuild, and no two friendly creatures touch."""
    color = state.color
    for col in (1, 2):
        comps = game.grid.components([color[i] == col for i in range(game.num_cells)])
        assert sorted(sorted(c) for c in comps) == game.creatures(state, col - 1)
    for c, cells in state.members.items():
        assert cells and all(state.cid[i] == c for i in cells)
        for i in cells:
            for j in game.nbrs[i]:
                # a friendly neighbour is always in the same creature: creatures never touch
                assert color[j] != color[i] or state.cid[j] == c
    rebuilt = game.state_from_json(game.state_to_json(state))
    assert rebuilt.legal == state.legal
    for c in state.members:
        if c in state.shape:
            assert state.shape[c] == game.shape_id(state.members[c])


@settings(max_examples=60, deadline=None)
@given(config=configs, seed=seeds)
def test_random_games_keep_invariants_and_end(config, seed):
    game = GAMES[config]
    rng = np.random.default_rng(seed)
    check_rng = np.random.default_rng(seed + 1)
    seen = {"plies": 0, "chains": 0}

    def on_state(state):
        seen["plies"] += 1
        check_creatures(game, state)
        mid_chain = state.phase == GROW and not state.over
        if mid_chain:
            seen["chains"] += 1
        if mid_chain or seen["plies"] % 25 == 0:
            check_mask_matches_apply(game, state, check_rng, max_legal=8, max_illegal=8)
            check_snapshot_roundtrip(game, state)
            clone = game.clone(state)
            assert state_key(game, clone) == state_key(game, state)

    state, plies = random_playout(game, rng, on_state=on_state)
    assert game.is_terminal(state) or game.is_truncated(state)
    check_mask_matches_apply(game, state, check_rng)
    if game.is_terminal(state):
        r = game.returns(state)
        assert sorted(r.tolist()) == [-1.0, 1.0] and r.sum() == 0
        assert state.passes == 2 and state.first_passer in (0, 1)


@settings(max_examples=60, deadline=None)
@given(config=configs, seed=seeds)
def test_mask_matches_what_step_accepts(config, seed):
    game = GAMES[config]
    rng = np.random.default_rng(seed)
    state, _ = random_playout(game, rng, max_plies=int(rng.integers(0, 120)))
    check_mask_matches_apply(game, state, rng, max_legal=200, max_illegal=200)
    legal = game.legal_actions(state)
    assert legal == np.flatnonzero(game.legal_mask(state)).tolist()
    if not game.is_terminal(state):
        # pass is legal exactly when nothing else is
        assert (legal == [game.pass_action]) == (game.pass_action in legal)


@settings(max_examples=20, deadline=None)
@given(size=st.sampled_from([5, 6]), seed=seeds)
def test_env_snapshot_restore_round_trips_mid_chain(size, seed):
    env = bestiarium_v1.raw_env(board_size=size, shape_equivalence="fixed")  # fixed: chains are frequent
    rng = np.random.default_rng(seed)
    for game_no in range(20):
        env.reset(seed=seed + game_no)
        while not any(env.terminations.values()) and not any(env.truncations.values()):
            if env.game_state.phase == GROW:
                break
            mask = env.observe(env.agent_selection)["action_mask"]
            env.step(int(rng.choice(np.flatnonzero(mask))))
        if env.game_state.phase == GROW:
            break
    else:
        return  # no chain met (rare): nothing to check
    snap = env.snapshot()
    mover = env.agent_selection

    def run_on(k):
        trace = []
        local = np.random.default_rng(seed)
        for _ in range(k):
            if any(env.terminations.values()) or any(env.truncations.values()):
                break
            obs = env.observe(env.agent_selection)
            trace.append((env.agent_selection, obs["observation"].copy(), obs["action_mask"].copy()))
            env.step(int(local.choice(np.flatnonzero(obs["action_mask"]))))
        return trace

    first = run_on(12)
    env.restore(snap)
    assert env.agent_selection == mover and env.game_state.phase == GROW
    second = run_on(12)
    assert len(first) == len(second)
    for (a1, o1, m1), (a2, o2, m2) in zip(first, second):
        assert a1 == a2 and np.array_equal(o1, o2) and np.array_equal(m1, m2)
