"""PettingZoo conformance of the Beasty Borders env for every option set the issue names."""

from __future__ import annotations

import numpy as np
import pytest
from pettingzoo.test import api_test, render_test, seed_test

from envs import beasty_borders_v0
from envs.common.game import IllegalActionError
from envs.common.testing import play_env_randomly

OPTION_SETS = [
    {},
    {"variant": "without_luck"},
    {"path_order": "snake"},
    {"variant": "without_luck", "path_order": "snake"},
]
IDS = ["main", "without_luck", "snake", "without_luck-snake"]


@pytest.mark.parametrize("opts", OPTION_SETS, ids=IDS)
def test_api(opts):
    api_test(beasty_borders_v0.env(**opts), num_cycles=300)


@pytest.mark.parametrize("opts", OPTION_SETS[:2], ids=IDS[:2])
def test_seed(opts):
    seed_test(lambda: beasty_borders_v0.env(**opts), num_cycles=300)


@pytest.mark.parametrize("opts", OPTION_SETS[:2], ids=IDS[:2])
def test_render(opts):
    render_test(lambda render_mode=None: beasty_borders_v0.env(render_mode=render_mode, **opts))


def test_render_rgb_picture():
    e = beasty_borders_v0.env(render_mode="rgb_array")
    e.reset(seed=0)
    img = e.render()
    assert img.dtype == np.uint8 and img.ndim == 3 and img.shape[2] == 3 and img.shape[0] > 6 * 28


def test_registry_and_metadata():
    import pettingzoo

    import envs

    assert "beasty_borders" in envs.GAMES
    e = beasty_borders_v0.raw_env()
    assert e.metadata["name"] == "beasty_borders_v0"
    assert envs.ENV_IDS["beasty_borders"] == "barnyard/beasty_borders-v0"
    assert pettingzoo is not None


def test_raw_env_illegal_raises_and_wrapped_penalises():
    raw = beasty_borders_v0.raw_env()
    raw.reset(seed=1)
    before = raw.snapshot()
    with pytest.raises(IllegalActionError):
        raw.step(7)  # out of Discrete(4)
    raw.game_state.remaining[0][0] = 0
    raw._mask = None
    with pytest.raises(IllegalActionError, match="no A animal left"):
        raw.step(0)
    raw.game_state.remaining[0][0] = 8
    assert raw.snapshot() == before
    wrapped = beasty_borders_v0.env()
    wrapped.reset(seed=1)
    agent = wrapped.agent_selection
    obs = wrapped.observe(agent)
    assert obs["action_mask"].tolist() == [1, 1, 1, 1]
    raw2 = wrapped.unwrapped
    raw2.game_state.remaining[0][0] = 0  # make A illegal for the test
    raw2._mask = None
    wrapped.step(0)
    assert raw2._cumulative_rewards[agent] == -1 and all(raw2.terminations.values())


@pytest.mark.parametrize("opts", OPTION_SETS, ids=IDS)
def test_env_snapshot_restore_replays(opts):
    e = beasty_borders_v0.raw_env(**opts)
    e.reset(seed=11)
    rng = np.random.default_rng(0)
    for _ in range(9):
        legal = np.flatnonzero(e.observe(e.agent_selection)["action_mask"])
        e.step(int(legal[rng.integers(legal.size)]))
    snap = e.snapshot()
    moves, obs = [], []
    while not all(e.terminations.values()):
        legal = np.flatnonzero(e.observe(e.agent_selection)["action_mask"])
        a = int(legal[rng.integers(legal.size)])
        moves.append(a)
        e.step(a)
        obs.append(e.observe(e.agent_selection)["observation"])
    final = dict(e._cumulative_rewards)
    e.restore(snap)
    for a, o in zip(moves, obs):
        e.step(a)
        assert np.array_equal(e.observe(e.agent_selection)["observation"], o)
    assert dict(e._cumulative_rewards) == final and all(e.terminations.values())
    assert abs(sum(final.values())) < 1e-9


@pytest.mark.parametrize("opts", OPTION_SETS, ids=IDS)
def test_random_games_through_env(opts):
    for seed in range(3):
        assert play_env_randomly(beasty_borders_v0.env(**opts), seed) > 0
