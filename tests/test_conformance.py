"""One conformance suite over every registered game: the shared AEC base and the env() wrapper."""

import numpy as np
import pettingzoo
import pytest

import envs
from envs.common.aec import StandardWrapper, wrap_pettingzoo_stack


def trajectory(env, seed: int, illegal_at: int | None):
    """Play a random game, optionally making an illegal move at decision ``illegal_at``; record everything."""
    env.reset(seed=seed)
    rng = np.random.default_rng(seed)
    log = []
    for k, agent in enumerate(env.agent_iter(5000)):
        obs, reward, term, trunc, info = env.last()
        log.append((agent, obs["observation"].tobytes(), obs["action_mask"].tobytes(), reward, term, trunc))
        if term or trunc:
            env.step(None)
            continue
        mask = obs["action_mask"]
        illegal = np.flatnonzero(mask == 0)
        if k == illegal_at and illegal.size:
            action = int(illegal[0])
        else:
            action = int(rng.choice(np.flatnonzero(mask)))
        env.step(action)
    return log


@pytest.mark.parametrize("game", envs.GAMES)
@pytest.mark.parametrize("illegal_at", [None, 0, 7])
def test_env_wrapper_matches_pettingzoos_standard_stack(game, illegal_at):
    mod = envs.module(game)
    fast = mod.env()
    assert isinstance(fast, StandardWrapper)
    reference = wrap_pettingzoo_stack(mod.raw_env())
    for seed in (0, 1):
        assert trajectory(fast, seed, illegal_at) == trajectory(reference, seed, illegal_at)


@pytest.mark.parametrize("game", envs.GAMES)
def test_order_enforcement_before_reset(game):
    env = envs.module(game).env()
    with pytest.raises(AttributeError, match="before reset"):
        _ = env.agents
    with pytest.raises(AttributeError, match="before reset"):
        _ = env.agent_selection


@pytest.mark.parametrize("game", envs.GAMES)
def test_every_game_is_registered_and_documented(game):
    env = pettingzoo.make("aec", envs.ENV_IDS[game])
    env.reset(seed=0)
    raw = env.unwrapped
    assert raw.metadata["name"] == f"{game}_v0"
    assert raw.game.name == game
    assert envs.module(game).__doc__ and "Observation" in envs.module(game).__doc__
    obs = env.observe(env.agent_selection)
    assert obs["observation"].shape == raw.game.observation_shape
    assert obs["action_mask"].dtype == np.int8 and obs["action_mask"].any()


def test_unknown_game_is_a_clear_error():
    with pytest.raises(ValueError, match="unknown game 'chess'"):
        envs.module("chess")
