"""PettingZoo conformance of the Beasty Borders env for every option set the issue names."""

from __future__ import annotations

import functools

import numpy as np
import pytest
from pettingzoo.test import api_test, render_test, seed_test

from envs import beasty_borders_v0
from envs.beasty_borders import observation
from envs.common.game import IllegalActionError
from envs.common.testing import play_env_randomly, play_fingerprint

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


RECORDED = [  # (options, every agent observed, last() only): recorded before the AEC speed-up (issue 38)
    (
        {},
        "d44feb543197e188f4900028598f43e9d39626e86b0f9063fafd9a71a0e38739",
        "ec89a54e0afe961cad32018d1b4629aaeb0c1e2068e691212b1f2501192e3ac1",
    ),
    (
        {"variant": "without_luck"},
        "9bec1d22ea91476b081a7b20ab4c34a9ad0ab2411defe4635c7f9e140f72e687",
        "ef5a9804a5d42b85470b58e919a0525639f7d9b65b4beba3c53559ff0c305c66",
    ),
    (
        {"path_order": "snake"},
        "d8cc116ccce00eb4ebdc79e4f160bbdfa9ae58f869790a00bc5541d4f93d6c92",
        "24b3e72a5d375e0a3ac27a775f152600325d839fb5b9b412cf914268cdf0e252",
    ),
    (
        {"variant": "without_luck", "path_order": "snake"},
        "bd4fe3bfaa33c378e2891837c5d6919fd2f17d6733419ba4765592acf9853f61",
        "bc9b6cf53449bcacbcf7c29f0d32ffce496ab1dddc6c61cce18b981227c99d5d",
    ),
]


@pytest.mark.parametrize("options, observed, last_only", RECORDED, ids=[str(r[0]) for r in RECORDED])
def test_env_plays_exactly_as_recorded(options, observed, last_only):
    """Observations, masks, rewards, terminations, truncations and infos of seeded random games through ``env()``
    and ``raw_env()`` are bit for bit those recorded before the speed-up (same seeds, same actions)."""
    for make in (beasty_borders_v0.env, beasty_borders_v0.raw_env):
        assert play_fingerprint(functools.partial(make, **options), range(4), observe_all=True) == observed
        assert play_fingerprint(functools.partial(make, **options), range(4, 8), observe_all=False) == last_only


@pytest.mark.parametrize("opts", OPTION_SETS, ids=IDS)
def test_compiled_observation_is_the_readable_one(opts):
    """``observation`` (compiled, groups recounted) equals ``observation_python`` (observation.encode) for both
    seats at every position of seeded random games, whether or not the readable one's caches are alive."""
    env = beasty_borders_v0.raw_env(**opts)
    game = env.game
    rng = np.random.default_rng(7)
    checked = 0
    for seed in range(6):
        env.reset(seed=seed)
        while env.agents:
            agent = env.agent_selection
            if env.terminations[agent] or env.truncations[agent]:
                env.step(None)
                continue
            state = env.game_state
            for seat in (0, 1):
                fresh = state.clone()
                fresh.group_cache = fresh.vp_cache = fresh.space_cache = None
                assert np.array_equal(game.observation(state, seat), observation.observation_python(game, fresh, seat))
                if seed % 2:  # keep the readable encoding's caches alive on the played state too
                    assert np.array_equal(
                        game.observation(state, seat), observation.observation_python(game, state, seat)
                    )
                checked += 1
            legal = np.flatnonzero(env.observe(agent)["action_mask"])
            env.step(int(legal[rng.integers(legal.size)]))
    assert checked > 100


def test_observation_of_a_seat_that_does_not_exist_is_refused():
    env = beasty_borders_v0.raw_env()
    env.reset(seed=0)
    for seat in (-1, 2):
        with pytest.raises(ValueError, match="seat must be 0 or 1"):
            env.game.observation(env.game_state, seat)
