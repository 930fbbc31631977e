"""PettingZoo conformance of the Boaring AEC env and its Parallel view."""

from __future__ import annotations

import numpy as np
import pytest
from pettingzoo.test import api_test, parallel_api_test, render_test, seed_test

import envs
from envs import boaring_v0
from envs.boaring import actions as A
from envs.boaring.env import BoaringParallelEnv
from envs.boaring.rules import BID, EAT
from envs.common.game import IllegalActionError, SnapshotError
from envs.common.testing import play_env_randomly

SIZES = [2, 4, 6, 10]


@pytest.mark.parametrize("n", SIZES)
def test_api(n):
    api_test(boaring_v0.env(num_players=n), num_cycles=400)


@pytest.mark.parametrize("n", SIZES)
def test_seed(n):
    seed_test(lambda **kw: boaring_v0.env(num_players=n, **kw), num_cycles=300)


@pytest.mark.parametrize("n", SIZES)
def test_render(n):
    render_test(
        lambda **kw: boaring_v0.env(num_players=n, **kw),
        custom_tests={
            "ansi": lambda text: (
                text.startswith("spectator view")
                and text.splitlines()[1].startswith("Boaring")
                and text.count("\n") >= n + 3
            )
        },
    )


@pytest.mark.parametrize("n", SIZES)
def test_parallel_api(n):
    parallel_api_test(boaring_v0.parallel_env(num_players=n), num_cycles=400)


def test_parallel_seed():
    """Same seed, same masked actions: identical whole games. (PettingZoo's parallel_seed_test samples actions
    without the mask, so its games end at the first illegal action: tests/test_conformance.py runs it.)"""
    runs = []
    for _ in range(2):
        par = boaring_v0.parallel_env(num_players=4)
        obs, _ = par.reset(seed=42)
        rng = np.random.default_rng(7)
        trace = []
        while par.agents:
            actions = {a: int(rng.choice(np.flatnonzero(obs[a]["action_mask"]))) for a in par.agents}
            obs, rewards, _, _, _ = par.step(actions)
            trace.append(
                (sorted(actions.items()), [o["observation"].tobytes() for o in obs.values()], sorted(rewards.items()))
            )
        runs.append(trace)
    assert runs[0] == runs[1]


def test_registry_and_spaces():
    assert "boaring" in envs.GAMES
    e = boaring_v0.raw_env(num_players=3)
    e.reset(seed=0)
    space = e.observation_space("player_0")["observation"]
    assert space.shape == (68 + 22 * 3,)
    for agent in e.agents:
        assert space.contains(e.observe(agent)["observation"])
    assert e.action_space("player_1").n == 14 + 3 * 2


@pytest.mark.parametrize("n", [2, 5])
def test_random_games_end_with_zero_sum_rewards(n):
    for seed in range(3):
        e = boaring_v0.env(num_players=n)
        play_env_randomly(e, seed)
        total = sum(e.unwrapped._cumulative_rewards.values())
        assert abs(total) < 1e-9
        assert all(e.unwrapped.terminations.values())


def test_score_reward_option():
    e = boaring_v0.env(num_players=3, reward="score")
    e.reset(seed=1)
    rng = np.random.default_rng(1)
    final = {}
    for agent in e.agent_iter():
        obs, reward, term, trunc, _ = e.last()
        if term or trunc:
            final[agent] = reward
            e.step(None)
        else:
            e.step(int(rng.choice(np.flatnonzero(obs["action_mask"]))))
    game, state = e.unwrapped.game, e.unwrapped.game_state
    scores = game.scores(state)
    assert [final[a] for a in e.possible_agents] == pytest.approx(scores - scores.mean())


def test_raw_env_rejects_illegal_and_env_terminates():
    raw = boaring_v0.raw_env(num_players=2)
    raw.reset(seed=0)
    mask = raw.observe(raw.agent_selection)["action_mask"]
    bad = int(np.flatnonzero(mask == 0)[0])
    snap = raw.snapshot()
    with pytest.raises(IllegalActionError):
        raw.step(bad)
    assert raw.snapshot() == snap
    wrapped = boaring_v0.env(num_players=2)
    wrapped.reset(seed=0)
    wrapped.step(bad)
    assert all(wrapped.terminations.values())
    assert wrapped.rewards[wrapped.possible_agents[0]] == -1


def test_snapshot_restore_continues_identically():
    a = boaring_v0.raw_env(num_players=4)
    a.reset(seed=3)
    rng = np.random.default_rng(0)
    for _ in range(47):  # past the first re-deal? (40 bids) - and mid-round
        legal = np.flatnonzero(a.observe(a.agent_selection)["action_mask"])
        a.step(int(rng.choice(legal)))
    snap = a.snapshot()
    b = boaring_v0.raw_env(num_players=4)
    b.reset(seed=99)
    b.restore(snap)
    for _ in range(150):
        if all(a.terminations.values()):
            break
        legal = np.flatnonzero(a.observe(a.agent_selection)["action_mask"])
        act = int(rng.choice(legal))
        assert a.agent_selection == b.agent_selection
        assert np.array_equal(a.observe(a.agent_selection)["observation"], b.observe(b.agent_selection)["observation"])
        a.step(act)
        b.step(act)
    assert a.snapshot() == b.snapshot()
    with pytest.raises(SnapshotError):
        bad = dict(snap, state=dict(snap["state"], discard=[9] * 10))
        b.restore(bad)
    with pytest.raises(SnapshotError):
        boaring_v0.raw_env(num_players=3).restore(snap)


def test_parallel_matches_aec():
    """Same seed, same bids: the Parallel view and the AEC env play the same game."""
    n = 4
    par = boaring_v0.parallel_env(num_players=n)
    aec = boaring_v0.raw_env(num_players=n)
    obs, _ = par.reset(seed=11)
    aec.reset(seed=11)
    rng = np.random.default_rng(1)
    steps = 0
    while par.agents:
        actions = {a: int(rng.choice(np.flatnonzero(obs[a]["action_mask"]))) for a in par.agents}
        if par.game_state.phase == EAT:  # eat step: only the eater acts in the AEC env
            assert (
                sum(int(obs[a]["action_mask"].sum()) == 1 and obs[a]["action_mask"][A.NO_EAT] for a in par.agents)
                >= n - 1
            )
            aec.step(actions[aec.agent_selection])
        else:
            for _ in range(n):
                aec.step(actions[aec.agent_selection])
        obs, rewards, terms, truncs, _ = par.step(actions)
        steps += 1
        assert aec.game.state_to_json(aec.game_state) == par.game.state_to_json(par.game_state)
    assert all(aec.terminations.values())
    assert rewards == {a: aec._cumulative_rewards[a] for a in aec.possible_agents}
    assert all(terms.values()) and not any(truncs.values())
    assert steps >= 38


def test_unwrapped_parallel_rejects_illegal_without_change():
    """The unwrapped Parallel env raises on an illegal action (``parallel_env()`` ends the game with -1 instead,
    as ``env()`` does: tests/test_conformance.py)."""
    par = BoaringParallelEnv(num_players=2)
    obs, _ = par.reset(seed=0)
    before = par.game.state_to_json(par.game_state)
    bad = int(np.flatnonzero(obs["player_1"]["action_mask"] == 0)[0])
    good = int(np.flatnonzero(obs["player_0"]["action_mask"])[0])
    with pytest.raises(IllegalActionError):
        par.step({"player_0": good, "player_1": bad})
    with pytest.raises(IllegalActionError):
        par.step({"player_0": good})
    assert par.game.state_to_json(par.game_state) == before


def test_parallel_step_refuses_unknown_agents_and_changes_nothing():
    """Actions for agents that are not in the game ('player_7' at a 3-player table, 'bogus') are a ValueError
    naming them, in a bid step and in an eat step, and leave the game and its generator as they were: the game
    then goes on exactly as one that never saw them."""
    import json

    par, twin = boaring_v0.parallel_env(num_players=3), boaring_v0.parallel_env(num_players=3)
    obs, _ = par.reset(seed=4)
    twin.reset(seed=4)

    def books(env):
        return json.dumps([env.game.state_to_json(env.game_state), env.np_random.bit_generator.state], default=int)

    rng = np.random.default_rng(0)
    refused = {"bid": 0, "eat": 0}
    while par.agents:
        legal = {a: int(rng.choice(np.flatnonzero(o["action_mask"]))) for a, o in obs.items()}
        kind = "bid" if par.game_state.phase == BID else "eat"
        before = books(par)
        for extra in ({"player_7": legal["player_0"]}, {"bogus": A.NO_EAT}):
            with pytest.raises(ValueError, match="unknown agent") as err:
                par.step({**legal, **extra})
            assert next(iter(extra)) in str(err.value) and not isinstance(err.value, IllegalActionError)
            assert books(par) == before
            refused[kind] += 1
        obs, rewards, *_ = par.step(legal)
        twin_obs, twin_rewards, *_ = twin.step(legal)
        assert books(par) == books(twin) and rewards == twin_rewards
    assert refused["bid"] and refused["eat"]
