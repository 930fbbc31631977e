"""Hypothesis property tests over random Pig games."""

from __future__ import annotations

import json

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st
from pig.rules import PigGame

from envs.common.game import TERMINAL, SnapshotError
from envs.common.testing import check_mask_matches_apply, check_snapshot_roundtrip, random_playout, state_key

GAMES = {t: PigGame(target=t) for t in (10, 20, 37, 100)}
targets = st.sampled_from(sorted(GAMES))
seeds = st.integers(0, 2**32 - 1)


@settings(max_examples=100, deadline=None)
@given(targets, seeds)
def test_scores_only_grow_and_the_game_ends_with_one_winner(target, seed):
    game = GAMES[target]
    seen = []

    def check(state):
        assert state.turn_total != 1 and state.turn_total >= 0
        if seen:
            assert all(a >= b for a, b in zip(state.scores, seen[-1]))
        if state.current != TERMINAL:
            assert max(state.scores) < target and game.legal_mask(state)[0] == 1
        seen.append(list(state.scores))

    state, plies = random_playout(game, np.random.default_rng(seed), on_state=check)
    assert game.is_terminal(state) and sum(s >= target for s in state.scores) == 1
    assert sorted(game.returns(state).tolist()) == [-1.0, 1.0]
    assert plies <= game.max_game_length


@settings(max_examples=100, deadline=None)
@given(targets, seeds, st.integers(0, 200))
def test_masks_match_apply_and_snapshots_round_trip(target, seed, plies):
    game = GAMES[target]
    rng = np.random.default_rng(seed)
    state, _ = random_playout(game, rng, max_plies=plies)
    check_mask_matches_apply(game, state, rng)
    check_snapshot_roundtrip(game, state)
    assert game.legal_actions(state) == np.flatnonzero(game.legal_mask(state)).tolist()


@settings(max_examples=40, deadline=None)
@given(targets, seeds, st.integers(0, 100))
def test_clone_is_independent(target, seed, plies):
    game = GAMES[target]
    rng = np.random.default_rng(seed)
    state, _ = random_playout(game, rng, max_plies=plies)
    before = state_key(game, state)
    random_playout(game, rng, state=game.clone(state))
    assert state_key(game, state) == before


@settings(max_examples=60, deadline=None)
@given(targets, seeds, st.sampled_from(["scores", "turn_total", "current", "last_roll"]))
def test_damaged_snapshots_are_rejected(target, seed, field):
    game = GAMES[target]
    rng = np.random.default_rng(seed)
    state, _ = random_playout(game, rng, max_plies=int(rng.integers(0, 40)))
    data = json.loads(json.dumps(game.state_to_json(state)))
    if field == "scores":
        data["scores"] = [target, target]
    elif field == "turn_total":
        data["turn_total"] = 1
    elif field == "current":
        data["current"] = 2
    else:
        data["last_roll"] = 0 if data["turn_total"] else 9
    try:
        game.state_from_json(data)
    except SnapshotError:
        return
    raise AssertionError(f"damaged {field} was accepted")
