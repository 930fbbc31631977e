"""``envs.text``: the TextArena-shaped text env plays every registered game (the example game Pig included) from
reply strings, refuses invalid replies with the parser's reason, forfeits past the error allowance, and never shows
a seat another seat's face-down card."""

from __future__ import annotations

import random

import numpy as np
import pytest

import envs
from envs.common.game import ConfigError
from envs.common.testing import option_sets
from envs.text import TextEnv, text_env

CASES = [(game, options) for game in envs.GAMES for options in option_sets(game)[:1]]
IDS = [g for g, _ in CASES]
GARBAGE = ("", "I am not sure.", "move 0", "999", '{"move": null}', "```\nno idea\n```", "pass the salt")


def play(env: TextEnv, rng: random.Random, garbage: float = 0.0, max_garbage_in_a_row: int = 0):
    """Play ``env`` to the end with random legal replies in random accepted forms, and garbage with probability
    ``garbage`` (at most ``max_garbage_in_a_row`` in a row); returns (replies, invalid replies, last info)."""
    replies = invalid = in_a_row = 0
    done, info = False, {}
    while not done:
        player, observation = env.get_observation()
        assert player == env.player_id and isinstance(observation, str)
        moves = env.legal_moves()
        assert moves and f"Your legal moves ({len(moves)}):" in observation
        if in_a_row < max_garbage_in_a_row and rng.random() < garbage:
            reply, in_a_row = rng.choice(GARBAGE), in_a_row + 1
        else:
            number = rng.randrange(len(moves))
            notation = moves[number][1]
            reply = rng.choice(
                (notation, str(number + 1), f"I considered it.\nAnswer: {notation}", f'{{"move": "{notation}"}}')
            )
            in_a_row = 0
        done, info = env.step(reply)
        replies += 1
        assert info["player"] == player
        if not info["valid"]:
            invalid += 1
            assert info["error"]
            if not done:
                assert env.get_observation()[1].count("Your last reply was refused") == 1
    return replies, invalid, info


@pytest.mark.parametrize("game_id, options", CASES, ids=IDS)
def test_random_string_agents_play_whole_games_and_get_the_games_returns(game_id, options):
    env = text_env(game_id, seed=11, **options)
    replies, invalid, info = play(env, random.Random(1))
    assert invalid == 0 and env.done and "forfeit" not in info
    rewards = env.close()
    assert list(rewards) == list(range(env.num_players))
    assert np.allclose(list(rewards.values()), env.game.returns(env.state))
    assert info["rewards"] == rewards
    assert abs(sum(rewards.values())) < 1e-9


@pytest.mark.parametrize("game_id, options", CASES, ids=IDS)
def test_garbage_is_refused_and_the_game_goes_on(game_id, options):
    """An agent that sometimes sends garbage (never more than the allowance in a row) still finishes the game;
    a refused reply changes nothing."""
    env = text_env(game_id, seed=12, error_allowance=2, **options)
    replies, invalid, info = play(env, random.Random(2), garbage=0.3, max_garbage_in_a_row=2)
    assert invalid > 0 and "forfeit" not in info
    rewards = env.close()
    assert np.allclose(list(rewards.values()), env.game.returns(env.state))


@pytest.mark.parametrize("game_id, options", CASES, ids=IDS)
def test_an_invalid_reply_past_the_allowance_forfeits(game_id, options):
    env = text_env(game_id, seed=13, error_allowance=0, **options)
    seat, _ = env.get_observation()
    done, info = env.step("certainly not a move")
    n = env.num_players
    assert done and info["forfeit"] == seat == env.forfeit and not info["valid"]
    assert env.close() == {s: -1.0 if s == seat else 1.0 / (n - 1) for s in range(n)}
    with pytest.raises(RuntimeError, match="over"):
        env.step("1")
    with pytest.raises(RuntimeError, match="over"):
        env.get_observation()
    env.reset()
    assert not env.done and env.close() == dict.fromkeys(range(n), 0.0)


def test_one_invalid_reply_is_allowed_by_default_then_the_next_forfeits():
    env = text_env("pig", seed=0)
    done, info = env.step("jump")
    assert not done and info["retries_left"] == 1 and "not a Pig move" in info["error"]
    assert "one more invalid reply forfeits" in env.get_observation()[1]
    done, info = env.step("1")  # a valid reply clears the count
    assert info["valid"] and not done
    assert "refused" not in env.get_observation()[1]


def test_same_seed_same_game():
    def transcript(seed):
        env = text_env("beasty_borders", seed=seed)
        out, done = [], False
        while not done:
            out.append(env.get_observation())
            done, _ = env.step("1")
        return out, env.close()

    assert transcript(4) == transcript(4)
    assert transcript(4) != transcript(5)


def test_boaring_bidders_are_asked_one_at_a_time_and_never_see_another_bid():
    """Two games alike but for the card the first bidder lays: the next bidder's observation is the same, and the
    bidders are asked in the engine's order, each told who else chooses at the same time."""
    observations = []
    for pick in (0, -1):
        env = text_env("boaring", seed=3, num_players=3)
        first, text = env.get_observation()
        assert "You choose at the same time as" in text
        env.step(env.legal_moves()[pick][1])
        second, text = env.get_observation()
        assert second == (first + 1) % 3
        assert f"{env.names[first]}: lays a food card face down" in text
        observations.append(text)
    assert observations[0] == observations[1]


def test_bad_env_arguments_are_clear_errors():
    with pytest.raises(ValueError, match="error_allowance"):
        text_env("pig", error_allowance=-1)
    with pytest.raises(ValueError, match="unknown game"):
        text_env("chess")
    with pytest.raises(ConfigError):
        text_env("boaring", num_players=11)
