"""The batched-engine plumbing (envs/common/vector.py) on a toy game, independent of any real game's kernels."""

from __future__ import annotations

from typing import NamedTuple

import numpy as np
import pytest

from envs.common.fastrng import below, next_u64, seed_states, shuffle
from envs.common.game import TERMINAL, IllegalActionError
from envs.common.vector import BatchedGame, VectorEnv, sample_legal

TARGET = 10


class RaceState(NamedTuple):
    count: np.ndarray
    to_move: np.ndarray
    winner: np.ndarray
    plies: np.ndarray
    rng: np.ndarray


class Race(BatchedGame):
    """Two players add 1 or 2 to a counter that starts at a random 0..3; whoever reaches 10 wins."""

    name = "race"
    num_players = 2
    num_actions = 2
    observation_shape = (TARGET + 1,)
    max_game_length = 20

    def __init__(self):
        pass  # no rule engine behind the toy: its sizes are the class attributes above

    def options(self):
        return {}

    def new_state(self, batch):
        z = np.zeros(batch, dtype=np.int64)
        return RaceState(z.copy(), z.copy(), z.copy(), z.copy(), np.zeros(batch, dtype=np.uint64))

    def reset_rows(self, state, rows):
        for b in rows:
            state.count[b] = below(state.rng, b, 4)
        state.to_move[rows] = 0
        state.winner[rows] = -1
        state.plies[rows] = 0

    def legal_mask(self, state, out):
        out[:] = (state.winner == -1)[:, None]

    def apply(self, state, actions):
        live = state.winner == -1
        state.count[live] += actions[live] + 1
        state.plies[live] += 1
        won = live & (state.count >= TARGET)
        state.winner[won] = state.to_move[won]
        state.to_move[live] = 1 - state.to_move[live]

    def observe(self, state, seats, out):
        out[:] = 0.0
        out[np.arange(len(seats)), np.minimum(state.count, TARGET)] = 1.0

    def current_player(self, state):
        return np.where(state.winner == -1, state.to_move, TERMINAL)

    def returns(self, state):
        out = np.zeros((len(state.count), 2))
        over = state.winner >= 0
        out[over, state.winner[over]] = 1.0
        out[over, 1 - state.winner[over]] = -1.0
        return out

    def truncated(self, state):
        return np.zeros(len(state.count), dtype=bool)

    def to_reference(self, state, row):
        raise NotImplementedError

    def from_reference(self, reference_state, state, row):
        raise NotImplementedError


def test_same_step_autoreset_keeps_the_final_observation_and_pays_per_seat_rewards():
    env = VectorEnv(Race(), 3)
    obs, info = env.reset(seed=5)
    assert obs.shape == (3, TARGET + 1) and obs.dtype == np.float32
    assert info["action_mask"].dtype == bool and info["current_player"].tolist() == [0, 0, 0]
    finished = 0
    for _ in range(12):  # always add 2: every game ends within 5 plies
        before = env.state.count.copy()
        mover = env.current_player.copy()
        obs, rewards, terminated, truncated, info = env.step(np.ones(3, dtype=np.int64))
        assert rewards.shape == (3, 2) and not truncated.any()
        for b in np.flatnonzero(terminated):
            finished += 1
            assert info["_final_obs"][b]
            assert info["final_obs"][b].argmax() == min(before[b] + 2, TARGET)  # the position that ended
            assert rewards[b, mover[b]] == 1.0 and rewards[b, 1 - mover[b]] == -1.0  # the last mover won
            assert env.state.count[b] <= 3 and env.current_player[b] == 0  # already a new game
        assert (rewards[~terminated] == 0).all()
    assert finished >= 6


def test_illegal_action_raises_naming_the_game_and_changes_nothing():
    env = VectorEnv(Race(), 2)
    env.reset(seed=1)
    before = [f.copy() for f in env.state]
    with pytest.raises(IllegalActionError, match="game 1"):
        env.step(np.array([0, 2]))
    with pytest.raises(IllegalActionError):
        env.step(np.array([0.0, 1.0]))
    with pytest.raises(IllegalActionError):
        env.step(np.array([0, 1, 1]))
    for a, b in zip(before, env.state):
        assert np.array_equal(a, b)
    with pytest.raises(RuntimeError, match="reset"):
        VectorEnv(Race(), 2).step(np.zeros(2, dtype=np.int64))
    with pytest.raises(ValueError, match="num_envs"):
        VectorEnv(Race(), 0)


def test_same_seed_same_games_and_unseeded_reset_runs_on():
    a, b = VectorEnv(Race(), 4), VectorEnv(Race(), 4)
    assert np.array_equal(a.reset(seed=7)[0], b.reset(seed=7)[0])
    starts = {tuple(VectorEnv(Race(), 4).reset(seed=s)[0].argmax(axis=1)) for s in range(20)}
    assert len(starts) > 1
    a.reset()
    b.reset()
    assert np.array_equal(a.state.count, b.state.count)  # both generators ran on alike
    assert a.state.rng.tolist() != seed_states(7, 4).tolist()


def test_rng_helpers_are_uniform_and_reproducible():
    rng = seed_states(3, 2)
    draws = np.array([below(rng, 0, 6) for _ in range(60_000)])
    counts = np.bincount(draws, minlength=6)
    assert counts.min() > 9_400 and counts.max() < 10_600  # ~10,000 each; 6 sigma is about +-570
    one, two = seed_states(3, 2), seed_states(3, 2)
    assert [int(next_u64(one, 1)) for _ in range(5)] == [int(next_u64(two, 1)) for _ in range(5)]
    assert int(next_u64(one, 0)) != int(next_u64(one, 1))  # rows are independent streams
    values = np.arange(10)
    shuffle(seed_states(4, 1), 0, values)
    assert sorted(values.tolist()) == list(range(10)) and values.tolist() != list(range(10))


def test_sample_legal_draws_only_legal_actions_uniformly():
    mask = np.zeros((2, 5), dtype=bool)
    mask[0, [1, 3]] = True
    out = np.empty(2, dtype=np.int64)
    rng = seed_states(0, 2)
    seen = []
    for _ in range(2000):
        sample_legal(mask, rng, out)
        seen.append(out[0])
        assert out[1] == -1
    assert set(seen) == {1, 3} and 900 < seen.count(1) < 1100


def test_copy_false_reuses_one_observation_buffer():
    shared, fresh = VectorEnv(Race(), 3, copy=False), VectorEnv(Race(), 3)
    a, _ = shared.reset(seed=2)
    b = shared.step(np.ones(3, dtype=np.int64))[0]
    assert a is b  # the same buffer, overwritten
    c, _ = fresh.reset(seed=2)
    d = fresh.step(np.ones(3, dtype=np.int64))[0]
    assert c is not d and np.array_equal(b, d)


def test_sample_legal_draws_the_kth_legal_action_of_each_row():
    """The blocked search finds the same action as a plain scan: the ``k``-th legal id, ``k`` from the row's
    generator, for masks shorter and longer than a block, dense and sparse, with legal actions at block edges."""
    rs = np.random.default_rng(4)
    for width in (1, 7, 255, 256, 257, 1000, 37_318):
        mask = rs.random((40, width)) < rs.choice([0.0, 0.001, 0.05, 0.5, 1.0], size=(40, 1))
        mask[0] = False
        mask[1] = False
        mask[1, -1] = True
        if width > 256:
            mask[2] = False
            mask[2, [255, 256]] = True
        rng = seed_states(width, 40)
        expected = []
        for b in range(40):
            legal = np.flatnonzero(mask[b])
            expected.append(-1 if legal.size == 0 else int(legal[below(rng, b, legal.size)]))
        out = np.empty(40, dtype=np.int64)
        sample_legal(mask, seed_states(width, 40), out)
        assert out.tolist() == expected


def test_copy_false_reuses_one_final_obs_buffer_with_zeros_for_live_rows():
    env = VectorEnv(Race(), 4, copy=False)
    env.reset(seed=3)
    finals = []
    for _ in range(12):
        _, _, terminated, _, info = env.step(np.ones(4, dtype=np.int64))
        if "final_obs" in info:
            finals.append(info["final_obs"])
            assert not info["final_obs"][~terminated].any()  # rows written by an earlier step were cleared
            assert info["final_obs"][terminated].any(axis=1).all()
    assert len(finals) >= 2 and all(f is finals[0] for f in finals)
