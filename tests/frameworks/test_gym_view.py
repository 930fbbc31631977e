"""The Gymnasium single-agent view (envs/common/gym_view.py): API, masks, seats, reward accrual, seeding."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from gymnasium.utils.env_checker import check_env

import envs
from envs.common.game import ConfigError, IllegalActionError
from envs.common.gym_view import OpponentError, SingleAgentEnv
from envs.common.policies import RandomPolicy


class Recorder:
    """A random policy that logs (seat, ply) of every decision it is asked for."""

    name = "recorder"

    def __init__(self, view: SingleAgentEnv | None = None):
        self.inner = RandomPolicy(0)
        self.view = view
        self.log: list[tuple[int, int]] = []

    def reset(self, seed=None):
        self.inner.reset(seed)

    def act(self, decision):
        self.log.append((decision.seat, self.view.aec.num_plies if self.view else -1))
        return self.inner.act(decision)


def play_random(view: SingleAgentEnv, rng: np.random.Generator):
    """Play one episode with random legal learner moves; yields (reward, terminated, truncated, info)."""
    done = False
    while not done:
        mask = view.action_masks()
        action = int(rng.choice(np.flatnonzero(mask)))
        obs, reward, terminated, truncated, info = view.step(action)
        assert view.observation_space.contains(obs)
        done = terminated or truncated
        yield reward, terminated, truncated, info


@pytest.mark.parametrize("game", envs.GAMES)
def test_check_env(game):
    """Gymnasium's checker (it steps with unmasked samples, hence illegal_action='lose')."""
    check_env(SingleAgentEnv(game, illegal_action="lose"), skip_render_check=True)
    check_env(SingleAgentEnv(game, learner_seat="random", illegal_action="lose"), skip_render_check=True)


@pytest.mark.parametrize("game", envs.GAMES)
def test_masks_spaces_and_episode(game):
    view = SingleAgentEnv(game, learner_seat="random")
    assert view.observation_space == view.aec.observation_spaces["player_0"]["observation"]
    assert view.action_space.n == view.game.num_actions
    obs, info = view.reset(seed=3)
    assert obs.shape == view.game.observation_shape and obs.dtype == np.float32
    rng = np.random.default_rng(0)
    for _ in range(3):
        total = 0.0
        mask = view.action_masks()
        assert mask.dtype == bool and mask.any()
        assert info["action_mask"].dtype == np.int8 and np.array_equal(info["action_mask"], mask)
        assert view.game.current_player(view.aec.game_state) == view.learner_seat
        for reward, terminated, truncated, info in play_random(view, rng):
            total += reward
            if not (terminated or truncated):
                assert reward == 0.0  # terminal rewards only
                assert view.game.current_player(view.aec.game_state) == view.learner_seat
                assert np.array_equal(info["action_mask"], view.game.legal_mask(view.aec.game_state))
        assert not view.action_masks().any() and not info["action_mask"].any()
        if terminated:
            assert total == pytest.approx(view.game.returns(view.aec.game_state)[view.learner_seat])
            assert info["returns"][view.learner_seat] == pytest.approx(total)
        with pytest.raises(RuntimeError):
            view.step(0)
        obs, info = view.reset()


def test_reward_arrives_with_the_opponents_winning_move():
    """Hand-checked: a Bestiarium game that the opponent (seat 1) ends: the learner (seat 0) gets the terminal
    return in the step of its own last move, which also ran the opponent's final move."""
    for seed in range(40):
        view = SingleAgentEnv("bestiarium", learner_seat=0, opponents=["random"])
        view.reset(seed=seed)
        rng = np.random.default_rng(seed)
        steps = list(play_random(view, rng))
        reward, terminated, _, _ = steps[-1]
        plies = view.aec.num_plies
        # Seat 0 moves on even plies (Bestiarium alternates); an even ply count means seat 1 moved last.
        if terminated and plies % 2 == 0:
            returns = view.game.returns(view.aec.game_state)
            assert reward == returns[0] != 0.0
            assert all(r == 0.0 for r, *_ in steps[:-1])
            assert len(steps) == plies // 2  # every learner step spanned its move and the opponent's reply
            return
    pytest.fail("no game in 40 seeds ended on the opponent's move")


def test_opponents_play_between_learner_moves_four_players():
    """Boaring for four, learner at seat 2: opponents[k] sits k+1 seats after the learner and every ply between two
    learner decisions is an opponent's, made inside the learner's step."""
    recorders = [Recorder(), Recorder(), Recorder()]
    view = SingleAgentEnv("boaring", {"num_players": 4}, learner_seat=2, opponents=recorders)
    for r in recorders:
        r.view = view
    view.reset(seed=0)
    assert {s for s, _ in recorders[0].log} <= {3}
    assert {s for s, _ in recorders[1].log} <= {0}
    assert {s for s, _ in recorders[2].log} == {1}  # seats 0 and 1 bid before seat 2 in the first round
    rng = np.random.default_rng(1)
    before = view.aec.num_plies
    learner_plies = [before]
    for _ in play_random(view, rng):
        learner_plies.append(view.aec.num_plies)
    opponent_plies = sorted(p for r in recorders for _, p in r.log)
    learner_made = set(learner_plies[:-1])
    assert sorted(set(range(view.aec.num_plies)) - learner_made) == opponent_plies
    assert {s for r, k in zip(recorders, (3, 0, 1)) for s, _ in r.log if s != k} == set()


def test_seat_one_starts_after_the_opponent():
    view = SingleAgentEnv("beasty_borders", learner_seat=1, opponents="greedy")
    obs, _ = view.reset(seed=5)
    assert view.aec.num_plies >= 1 and view.game.current_player(view.aec.game_state) == 1
    assert np.array_equal(obs, view.game.observation(view.aec.game_state, 1))


def test_illegal_action_raises_and_leaves_the_game():
    view = SingleAgentEnv("battle_sheep")
    view.reset(seed=0)
    before = view.aec.snapshot()
    illegal = int(np.flatnonzero(view.action_masks() == 0)[0])
    with pytest.raises(IllegalActionError):
        view.step(illegal)
    with pytest.raises(IllegalActionError):
        view.step(view.game.num_actions)
    assert view.aec.snapshot() == before
    lose = SingleAgentEnv("battle_sheep", illegal_action="lose")
    lose.reset(seed=0)
    _, reward, terminated, truncated, info = lose.step(illegal)
    assert (reward, terminated, truncated, info["illegal_action"]) == (-1.0, True, False, True)


def test_seeding_is_reproducible():
    def trajectory(view, seed):
        out = []
        obs, _ = view.reset(seed=seed)
        out.append(obs.tobytes())
        for _ in range(2):  # two games: the second reset draws from the seeded generator
            rng = np.random.default_rng(7)
            for reward, *_ in play_random(view, rng):
                out.append((reward, view.learner_seat, view.aec.num_plies))
            obs, _ = view.reset()
            out.append(obs.tobytes())
        return out

    a = trajectory(SingleAgentEnv("boaring", learner_seat="random", opponents=["greedy", "random", "random"]), 11)
    b = trajectory(SingleAgentEnv("boaring", learner_seat="random", opponents=["greedy", "random", "random"]), 11)
    assert a == b


def test_bad_arguments():
    with pytest.raises(ConfigError):
        SingleAgentEnv("boaring", {"num_players": 4}, opponents=["random", "random"])
    with pytest.raises(ConfigError):
        SingleAgentEnv("bestiarium", learner_seat=2)
    with pytest.raises(ValueError):
        SingleAgentEnv("bestiarium", opponents=["no-such-policy"])
    with pytest.raises(TypeError):
        SingleAgentEnv("bestiarium", opponents=[object()])


def test_opponent_error_names_the_policy():
    class Bad:
        name = "bad"

        def reset(self, seed=None):
            pass

        def act(self, decision):
            return -1

    with pytest.raises(OpponentError, match="bad"):
        SingleAgentEnv("bestiarium", learner_seat=1, opponents=[Bad()]).reset(seed=0)


@pytest.mark.parametrize("name", ["sb3", "torchrl", "rllib"])
def test_docs_snippets_parse(name):
    """docs/frameworks.md's code blocks exist and compile even where the frameworks are not installed (the
    framework tests execute them)."""
    from docs_snippets import snippet

    code = snippet(name, GAME="bestiarium")
    compile(code, name, "exec")
    assert "from envs" in code or "import envs" in code


def test_a_checkpoint_opponent_is_resolved_through_the_entry_point():
    """A checkpoint path as an opponent spec reaches training's resolver (the ``barnyard.policy_specs`` entry
    point) and plays legal moves; an unknown spec is refused with the resolver's clear error."""
    from envs.common.gym_view import resolve_policy

    path = str(Path(__file__).resolve().parents[2] / "checkpoints" / "beasty_borders" / "policy.pt")
    env = SingleAgentEnv("beasty_borders", opponents=[path], seed=3)
    obs, info = env.reset()
    done = False
    while not done:
        legal = np.flatnonzero(env.action_masks())
        obs, reward, terminated, truncated, info = env.step(int(legal[0]))
        done = terminated or truncated
    with pytest.raises(ValueError, match="no-such-policy"):
        resolve_policy("no-such-policy", "beasty_borders")
