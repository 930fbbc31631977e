"""One conformance suite over every registered game: the shared AEC base and the env() wrapper."""

import json

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


@pytest.mark.parametrize("game", envs.GAMES)
def test_state_is_pettingzoos_global_state_and_changes_nothing(game):
    """``env.state()`` is PettingZoo's global-state method (no longer shadowed by the engine state, which is
    ``env.unwrapped.game_state``): for perfect-information games player_0's observation followed by a one-hot of
    the seat to move, inside ``state_space``; for Boaring (hidden hands) a clear NotImplementedError. Calling it
    at every decision changes nothing: the game plays exactly as one where nobody called it."""
    from pettingzoo.test.state_test import test_state, test_state_space

    mod = envs.module(game)
    probe, plain = mod.env(), mod.env()
    probe.reset(seed=3)
    raw = probe.unwrapped
    assert raw.game_state is not None and not callable(raw.game_state)
    if not raw.game.perfect_information:
        assert not hasattr(raw, "state_space")
        with pytest.raises(NotImplementedError, match="hidden information"):
            probe.state()
    else:
        test_state_space(probe)
        test_state(mod.env(), num_cycles=50)
    log_probe, log_plain = [], []
    for env, log in ((probe, log_probe), (plain, log_plain)):
        env.reset(seed=3)
        rng = np.random.default_rng(3)
        for agent in env.agent_iter(5000):
            if env is probe:
                before = json_snapshot(env)
                if raw.game.perfect_information:
                    state = env.state()
                    assert env.state_space.contains(state) and state.dtype == raw.game.observation_dtype
                    channels = raw.game.observation_shape[0]
                    assert np.array_equal(state[:channels], env.observe("player_0")["observation"])
                    seat = raw.game.current_player(raw.game_state)
                    to_move = state[channels:].reshape(raw.game.num_players, -1)
                    expected = np.zeros(raw.game.num_players)
                    if seat >= 0:
                        expected[seat] = 1
                    assert np.array_equal(to_move.min(axis=1), expected)
                    assert np.array_equal(to_move.max(axis=1), expected)
                else:
                    with pytest.raises(NotImplementedError):
                        env.state()
                assert json_snapshot(env) == before
            obs, reward, term, trunc, _ = env.last()
            log.append((agent, obs["observation"].tobytes(), reward, term, trunc))
            env.step(None if term or trunc else int(rng.choice(np.flatnonzero(obs["action_mask"]))))
    assert log_probe == log_plain


def json_snapshot(env) -> str:
    """The whole env as text (game state, hidden cards and RNG included), for before/after comparisons."""
    return json.dumps(env.unwrapped.snapshot(), sort_keys=True)


def test_boaring_parallel_state_is_a_clear_not_implemented():
    from envs import boaring_v0

    par = boaring_v0.parallel_env(num_players=3)
    par.reset(seed=0)
    before = json.dumps(par.game.state_to_json(par.game_state), sort_keys=True)
    with pytest.raises(NotImplementedError, match="hidden information"):
        par.state()
    assert json.dumps(par.game.state_to_json(par.game_state), sort_keys=True) == before


@pytest.mark.parametrize("game", envs.GAMES)
def test_render_for_gives_each_seat_its_view(game):
    """``render_for(agent)`` draws what that seat may see: in the perfect-information games the whole position
    (the same picture as ``render()``), in Boaring a picture labelled as the seat's own view (its content is
    tested in tests/boaring/test_boaring_info.py). Unknown agents are a ValueError."""
    mod = envs.module(game)
    for mode in ("ansi", "rgb_array"):
        env = mod.env(render_mode=mode)
        env.reset(seed=2)
        raw = env.unwrapped
        for agent in raw.possible_agents:
            view = env.render_for(agent)
            if raw.game.perfect_information:
                assert np.array_equal(view, env.render()) if mode == "rgb_array" else view == env.render()
            elif mode == "ansi":
                assert view.startswith(f"{agent}'s view") and env.render().startswith("spectator view")
            else:
                assert view.dtype == np.uint8 and view.ndim == 3 and view.shape[2] == 3
        with pytest.raises(ValueError, match="unknown agent"):
            env.render_for("bogus")
