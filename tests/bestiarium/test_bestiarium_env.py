"""Bestiarium through PettingZoo: the standard checks per board size, and the eating chain in AEC terms."""

from __future__ import annotations

import functools

import numpy as np
import pytest
from pettingzoo.test import api_test, render_test, seed_test

import envs
from envs import bestiarium_v1
from envs.bestiarium import render
from envs.common.game import IllegalActionError
from envs.common.testing import play_env_randomly

# Black e4 e5; placing e6 eats two White threes, then +e7 eats White's four, then +e8 ends the chain.
FEAST = """
    . . . . .
   . . . . . .
  . . O . . O O
 . . O O . O . .
. . . X X . . . .
 . . . O . O O O
  . . . O . . O
   . . . O . .
    . . . . .
"""

OPTION_SETS = [
    {"board_size": 5},
    {"board_size": 6},
    {"board_size": 7},
    {"board_size": 6, "shape_equivalence": "fixed"},
]


@pytest.mark.parametrize("options", OPTION_SETS, ids=lambda o: "-".join(f"{k}={v}" for k, v in o.items()))
def test_pettingzoo_api(options):
    api_test(bestiarium_v1.env(**options), num_cycles=300)


@pytest.mark.parametrize("size", [5, 6, 7])
def test_pettingzoo_seed(size):
    seed_test(functools.partial(bestiarium_v1.env, board_size=size), num_cycles=300)


@pytest.mark.parametrize("size", [5, 6, 7])
def test_pettingzoo_render(size):
    render_test(functools.partial(bestiarium_v1.env, board_size=size))


def test_registered_and_named():
    assert "bestiarium" in envs.GAMES
    assert envs.module("bestiarium") is bestiarium_v1
    raw = bestiarium_v1.raw_env()
    assert raw.metadata["name"] == "bestiarium_v1"
    assert raw.possible_agents == ["player_0", "player_1"]


def test_random_games_finish_through_the_wrapped_env():
    for seed in range(3):
        env = bestiarium_v1.env(board_size=5)
        steps = play_env_randomly(env, seed)
        assert steps > 30
        raw = env.unwrapped
        assert raw.game.is_terminal(raw.game_state) or raw.game.is_truncated(raw.game_state)
        assert raw.agents == []  # every agent took its dead step


def test_final_rewards_reach_both_agents():
    env = bestiarium_v1.env(board_size=5)
    env.reset(seed=3)
    rng = np.random.default_rng(3)
    final = {}
    for agent in env.agent_iter():
        obs, reward, term, trunc, _ = env.last()
        if term or trunc:
            final[agent] = reward
            env.step(None)
        else:
            legal = np.flatnonzero(obs["action_mask"])
            env.step(int(rng.choice(legal)))
    raw = env.unwrapped
    winner = raw.game.winner(raw.game_state)
    assert final == {f"player_{winner}": 1.0, f"player_{1 - winner}": -1.0}


def feast_env(**kwargs):
    """A raw env restored into the FEAST position, Black to move."""
    env = bestiarium_v1.raw_env(board_size=5, **kwargs)
    env.reset(seed=1)
    snap = env.snapshot()
    snap["state"] = env.game.state_to_json(render.state_from_text(env.game, FEAST))
    env.restore(snap)
    return env


def test_the_eater_keeps_the_turn_through_the_chain():
    env = feast_env()
    assert env.agent_selection == "player_0"
    env.step(env.str_to_action("e6"))
    assert env.agent_selection == "player_0"
    obs = env.observe("player_0")
    legal = [env.action_to_str(a) for a in np.flatnonzero(obs["action_mask"])]
    assert legal == ["+d3", "+d4", "+d5", "+d6", "+e3", "+e7", "+f3", "+f5"]
    assert not env.observe("player_1")["action_mask"].any()
    assert obs["observation"][5].all()  # grow-phase plane
    env.step(env.str_to_action("+e7"))
    assert env.agent_selection == "player_0"
    env.step(env.str_to_action("+e8"))
    assert env.agent_selection == "player_1"
    assert not env.observe("player_1")["observation"][5].any()


def test_snapshot_restore_mid_chain():
    env = feast_env()
    env.step(env.str_to_action("e6"))
    snap = env.snapshot()
    obs_before = env.observe("player_0")
    env.step(env.str_to_action("+e7"))
    after_one = env.observe("player_0")["observation"].copy()
    env.restore(snap)
    assert env.agent_selection == "player_0"
    restored = env.observe("player_0")
    assert np.array_equal(restored["observation"], obs_before["observation"])
    assert np.array_equal(restored["action_mask"], obs_before["action_mask"])
    env.step(env.str_to_action("+e7"))
    assert np.array_equal(env.observe("player_0")["observation"], after_one)


def test_illegal_actions():
    raw = feast_env()
    with pytest.raises(IllegalActionError):
        raw.step(raw.str_to_action("e4"))  # occupied
    wrapped = bestiarium_v1.env(board_size=5)
    wrapped.reset(seed=0)
    wrapped.step(0)
    wrapped.step(0)  # a1 is taken: the wrapper ends the game, -1 to the mover
    assert all(wrapped.terminations.values())
    assert wrapped.rewards == {"player_0": 0.0, "player_1": -1.0}


def test_renders_text_and_picture():
    env = bestiarium_v1.env(board_size=6, render_mode="ansi")
    env.reset(seed=0)
    env.step(env.unwrapped.str_to_action("f6"))
    text = env.render()
    assert "X" in text and "White (O) to place" in text
    pic = bestiarium_v1.env(render_mode="rgb_array")
    pic.reset(seed=0)
    img = pic.render()
    assert img.dtype == np.uint8 and img.ndim == 3 and img.shape[2] == 3 and img.shape[0] > 100
