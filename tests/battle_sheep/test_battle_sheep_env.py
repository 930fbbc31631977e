"""Battle Sheep through PettingZoo: API conformance, seeding, rendering, errors, snapshots."""

import functools
import json

import numpy as np
import pettingzoo
import pytest
from pettingzoo.test import api_test, render_test, seed_test

import envs
from envs import battle_sheep_v0
from envs.common.game import ConfigError, IllegalActionError, SnapshotError
from envs.common.testing import play_env_randomly, play_fingerprint

OPTION_SETS = [dict(num_players=n, pasture=p) for n in (2, 3, 4) for p in ("build", "random")]


@pytest.mark.parametrize("options", OPTION_SETS, ids=lambda o: f"{o['num_players']}p-{o['pasture']}")
def test_pettingzoo_api_seed_and_render(options):
    api_test(battle_sheep_v0.env(**options), num_cycles=200)
    seed_test(lambda **kw: battle_sheep_v0.env(**options, **kw), num_cycles=50)
    render_test(lambda render_mode=None: battle_sheep_v0.env(render_mode=render_mode, **options))


def test_registered_with_pettingzoo():
    env = pettingzoo.make("aec", envs.ENV_IDS["battle_sheep"], num_players=3)
    env.reset(seed=1)
    assert env.agents == ["player_0", "player_1", "player_2"]
    assert env.unwrapped.game.num_players == 3


def test_observation_is_from_the_observers_point_of_view():
    env = battle_sheep_v0.raw_env(num_players=3, pasture="random")
    env.reset(seed=3)
    for _ in range(3):  # place the three stacks
        env.step(int(np.flatnonzero(env.observe(env.agent_selection)["action_mask"])[0]))
    game = env.game
    n = 3
    for seat, agent in enumerate(env.possible_agents):
        obs = env.observe(agent)["observation"]
        for other in range(n):
            rel = (other - seat) % n
            cell = env.game_state.stacks[other][0]
            flat = game.grid.square_index[cell]
            assert obs[3 + rel].ravel()[flat] == 1.0
            assert obs[3 + n + rel].ravel()[flat] == 1.0  # 16 sheep / 16
        mask = env.observe(agent)["action_mask"]
        assert mask.any() == (agent == env.agent_selection)


@pytest.mark.parametrize("num_players", [2, 4])
def test_derived_planes_agree_with_the_legal_moves(num_players):
    """Liberties, per-direction slide destinations and reach planes, recomputed from the action masks (the
    observer's own moves) and by walking rays (the others'), on random games through the move phase."""
    from envs.battle_sheep.actions import MAX_MOVE
    from envs.battle_sheep.rules import EMPTY, NO_PASTURE

    env = battle_sheep_v0.raw_env(num_players=num_players, pasture="random")
    rng = np.random.default_rng(num_players)
    checked = 0
    for game_seed in range(3):
        env.reset(seed=game_seed)
        game, n = env.game, num_players
        base = 6 + 3 * n
        while env.agents:
            agent = env.agent_selection
            if env.terminations[agent] or env.truncations[agent]:
                env.step(None)
                continue
            seat = env.possible_agents.index(agent)
            seen = env.observe(agent)
            planes = seen["observation"].reshape(game.num_channels, -1)
            state, sq = env.game_state, game.grid.square_index
            if state.phase != 0:  # after the build phase
                for c in range(game.grid.num_cells):
                    if state.cells[c] == NO_PASTURE:
                        assert planes[base, sq[c]] == 0
                        continue
                    free = sum(1 for j in game.grid.neighbor_lists[c] if state.cells[j] == EMPTY)
                    assert planes[base, sq[c]] == pytest.approx(free / 6)
                reach_me, reach_others = set(), set()
                for s in range(n):
                    for c in state.stacks[s]:
                        for d, ray in enumerate(game.grid.rays[c]):
                            dest = None
                            for j in ray:
                                if state.cells[j] != EMPTY:
                                    break
                                dest = j
                            splittable = state.heights[c] >= 2 and dest is not None
                            if s == seat:
                                want = 0.0
                                if splittable:
                                    free = sum(1 for j in game.grid.neighbor_lists[dest] if state.cells[j] == EMPTY)
                                    want = (1 + free) / 7
                                    reach_me.add(dest)
                                    if state.phase == 2 and agent == env.agent_selection:  # the mask agrees
                                        move = game.codec.move_base + (c * 6 + d) * MAX_MOVE
                                        assert seen["action_mask"][move] == 1
                                assert planes[base + 1 + d, sq[c]] == pytest.approx(want)
                            elif splittable:
                                reach_others.add(dest)
                assert set(np.flatnonzero(planes[base + 7])) == {int(sq[c]) for c in reach_me}
                assert set(np.flatnonzero(planes[base + 8])) == {int(sq[c]) for c in reach_others}
                checked += 1
            else:
                assert not planes[base:].any()
            mask = seen["action_mask"]
            env.step(int(rng.choice(np.flatnonzero(mask))))
    assert checked > 30


def test_raw_env_rejects_illegal_actions_and_keeps_the_state():
    env = battle_sheep_v0.raw_env()
    env.reset(seed=0)
    before = json.dumps(env.snapshot())
    illegal = int(np.flatnonzero(env.observe("player_0")["action_mask"] == 0)[0])
    with pytest.raises(IllegalActionError, match=f"action {illegal}"):
        env.step(illegal)
    with pytest.raises(IllegalActionError, match="out of range"):
        env.step(env.game.num_actions)
    assert json.dumps(env.snapshot()) == before


def test_wrapped_env_ends_the_game_with_minus_one_for_an_illegal_move():
    env = battle_sheep_v0.env()
    env.reset(seed=0)
    illegal = int(np.flatnonzero(env.observe("player_0")["action_mask"] == 0)[0])
    env.step(illegal)
    assert all(env.terminations.values())
    assert env._cumulative_rewards == {"player_0": -1.0, "player_1": 0.0}
    other = battle_sheep_v0.env()
    other.reset(seed=0)
    with pytest.raises(AssertionError, match="action space"):
        other.step(-5)


def test_bad_options_fail_at_construction():
    with pytest.raises(ConfigError, match="num_players"):
        battle_sheep_v0.env(num_players=7)
    with pytest.raises(TypeError):
        battle_sheep_v0.env(colour="red")
    with pytest.raises(ValueError, match="render_mode"):
        battle_sheep_v0.env(render_mode="opengl")


def test_snapshot_restore_round_trips_and_replays_identically():
    env = battle_sheep_v0.raw_env(num_players=3)
    env.reset(seed=11)
    rng = np.random.default_rng(0)
    for _ in range(20):
        legal = np.flatnonzero(env.observe(env.agent_selection)["action_mask"])
        env.step(int(rng.choice(legal)))
    snap = json.loads(json.dumps(env.snapshot()))
    twin = battle_sheep_v0.raw_env(num_players=3)
    twin.restore(snap)
    assert twin.snapshot() == snap
    for _ in range(10):
        if env.terminations[env.agent_selection]:
            break
        legal = np.flatnonzero(env.observe(env.agent_selection)["action_mask"])
        action = int(rng.choice(legal))
        env.step(action)
        twin.step(action)
        assert twin.snapshot() == env.snapshot()


def test_restore_rejects_other_games_and_damaged_snapshots():
    env = battle_sheep_v0.raw_env()
    env.reset(seed=0)
    snap = env.snapshot()
    with pytest.raises(SnapshotError, match="options"):
        battle_sheep_v0.raw_env(num_players=3).restore(snap)
    with pytest.raises(SnapshotError, match="game"):
        env.restore({**snap, "game": "bestiarium"})
    broken = json.loads(json.dumps(snap))
    del broken["state"]["cells"]
    with pytest.raises(SnapshotError, match="damaged"):
        env.restore(broken)
    broken = json.loads(json.dumps(snap))
    broken["state"]["cells"] = broken["state"]["cells"][:-1]
    with pytest.raises(SnapshotError):
        env.restore(broken)


def test_notation_through_the_env():
    env = battle_sheep_v0.raw_env()
    env.reset(seed=0)
    legal = np.flatnonzero(env.observe("player_0")["action_mask"])
    for a in legal:
        assert env.str_to_action(env.action_to_str(int(a))) == a
    assert env.action_to_str(int(legal[0])).startswith("T 0,0/")


def test_same_seed_same_game():
    a = battle_sheep_v0.env(num_players=4, pasture="random")
    b = battle_sheep_v0.env(num_players=4, pasture="random")
    assert play_env_randomly(a, seed=5) == play_env_randomly(b, seed=5)
    assert a.unwrapped.snapshot() == b.unwrapped.snapshot()


RECORDED = [  # (options, every agent observed, last() only): recorded before the AEC speed-up (issue 38)
    (
        {},
        "e13c38d2d03cac3e117d18adf29a0176e1712213829d534d35d411dbb6b2d469",
        "8cafceed9b4ba49a3122b05200a1c045c2c38ec5f86fdd78456e36e79f3673db",
    ),
    (
        {"num_players": 3},
        "4c835ca6e87dfcfb21867006b737bf4f94c2acd131edc8c026768b40e2527671",
        "a1da616bd32f6f2bdf5762f2b50132b4eb8b7500a275d165ca924cbd7c4e00be",
    ),
    (
        {"num_players": 4, "pasture": "random"},
        "0cc3308fae3e70c7fa72e15a21fc9e9f71693f464ee768feafc759bacb690648",
        "608f86bb06b71fa2d80bb442956f0fd2c4e96bd5833ac358f7d8ff8c3b50ad11",
    ),
    (
        {"end_rule": "splits"},
        "de6b30492494815e3b5c0b2f19a95a75ab482842d49107486315c0ac1f2b8c61",
        "06a5af8d0fd0c9e79331661c08bdfad0e2c2065916d94b9a36361ab9a118455b",
    ),
    (
        {"num_players": 3, "pasture": "random", "canvas_radius": 8},
        "faf527c7022236125ea462e88babcd63128a665243652ff317a13ea63341f3db",
        "7bcda3ea82d3482952a8acd3dec94a6b7b8a06f53ea3b9adb684cfa3b4bc53aa",
    ),
]


@pytest.mark.parametrize("options, observed, last_only", RECORDED, ids=[str(r[0]) for r in RECORDED])
def test_env_plays_exactly_as_recorded(options, observed, last_only):
    """Observations, masks, rewards, terminations, truncations and infos of seeded random games through ``env()``
    and ``raw_env()`` are bit for bit those recorded before the speed-up (same seeds, same actions)."""
    for make in (battle_sheep_v0.env, battle_sheep_v0.raw_env):
        assert play_fingerprint(functools.partial(make, **options), range(4), observe_all=True) == observed
        assert play_fingerprint(functools.partial(make, **options), range(4, 8), observe_all=False) == last_only


def test_compiled_views_follow_the_states_arrays():
    """The observation and mask kernels read numpy views kept on the state (rules.arrays_of): a state whose arrays
    were replaced, or that was copied, pickled or deep-copied after an observation, is still read as it is now."""
    import copy
    import pickle
    from array import array

    from envs.battle_sheep.observation import observation_numpy
    from envs.battle_sheep.rules import BattleSheepGame

    game = BattleSheepGame(num_players=2, pasture="random")
    rng = np.random.default_rng(0)
    state = game.initial_state(rng)
    for _ in range(4):
        legal = game.legal_actions(state)
        game.apply(state, legal[int(rng.integers(len(legal)))])
    game.observation(state, 0)
    game.legal_mask(state)
    for other in (state.clone(), pickle.loads(pickle.dumps(state)), copy.deepcopy(state)):
        c = state.stacks[0][0]
        other.heights[c] -= 1  # changes only the copy
        assert np.array_equal(game.observation(other, 0), observation_numpy(game, other, 0))
        assert np.array_equal(game.legal_mask(other), game.legal_mask_python(other))
        assert not np.array_equal(game.observation(other, 0), game.observation(state, 0))
    state.heights = array("b", state.heights)  # a new array: the old views must not be read
    state.heights[state.stacks[1][0]] -= 1
    assert np.array_equal(game.observation(state, 1), observation_numpy(game, state, 1))
    assert np.array_equal(game.legal_mask(state), game.legal_mask_python(state))
