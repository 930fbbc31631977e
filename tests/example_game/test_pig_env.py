"""Pig through PettingZoo (the standard checks) and through its registration from outside ``envs``."""

from __future__ import annotations

import functools

import pettingzoo
import pig
import pig_v0
import pytest
from pettingzoo.test import api_test, render_test, seed_test

import envs
from envs.common.testing import play_env_randomly


@pytest.mark.parametrize("target", [10, 20, 100])
def test_pettingzoo_api(target):
    api_test(pig_v0.env(target=target), num_cycles=300)


def test_pettingzoo_seed_and_render():
    seed_test(functools.partial(pig_v0.env, target=30), num_cycles=300)
    render_test(pig_v0.env)


def test_registered_through_the_public_call():
    """``tests/conftest.py`` registered the descriptor with ``envs.register_game``: the game is everywhere a
    built-in one is, and registering it again does nothing."""
    assert "pig" in envs.GAMES and envs.game_info("pig") is pig.INFO
    assert envs.module("pig") is pig_v0 and envs.ENV_IDS["pig"] == "barnyard/pig-v0"
    assert envs.VERSIONS["pig"] == 0 and envs.MODULES["pig"] == "pig_v0" and envs.ENGINES["pig"] == "PigGame"
    envs.register_game(pig.INFO)
    assert envs.GAMES.count("pig") == 1
    env = pettingzoo.make("aec", "barnyard/pig-v0", target=15)
    assert env.unwrapped.game.options() == {"target": 15}
    assert play_env_randomly(env, seed=4) > 2
    with pytest.raises(ValueError, match="registered already"):
        envs.register_game(envs.GameInfo(name="pig", title="Another Pig", package="another_pig"))
