"""Self-play credit assignment on a hand-built game, opponents, and the GameSlots reports."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest
import torch

import envs
from envs.common.aec import BarnyardAECEnv, agent_name
from envs.common.game import TERMINAL, Game
from lab.shaping_gap import measure
from training.config import make_config
from training.networks import MLPNet
from training.ppo.buffer import RolloutBuffer
from training.ppo.collect import SelfPlayCollector
from training.ppo.slots import GameSlots
from training.run.opponents import outcome


class TickState:
    def __init__(self) -> None:
        self.plies = 0
        self.actions: list[int] = []


class TickGame(Game[TickState]):
    """Two seats alternate for four plies (0, 1, 0, 1); actions 0..2 (seat 1 may not play 2).

    After each non-final move by seat s with action a, the *other* seat is paid 0.1 * (a + 1) (see TickEnv); at
    the end the seat with the larger action sum gets +1, the other -1.
    """

    name = "tick"
    num_players = 2
    num_actions = 3
    observation_shape = (5,)
    max_game_length = 4

    def options(self) -> dict[str, Any]:
        return {}

    def initial_state(self, rng: np.random.Generator) -> TickState:
        return TickState()

    def current_player(self, state: TickState) -> int:
        return TERMINAL if state.plies == 4 else state.plies % 2

    def legal_mask(self, state: TickState) -> np.ndarray:
        if state.plies == 4:
            return np.zeros(3, np.int8)
        return np.array([1, 1, 1 if state.plies % 2 == 0 else 0], np.int8)

    def apply(self, state: TickState, action: int, rng: np.random.Generator) -> None:
        state.actions.append(int(action))
        state.plies += 1

    def returns(self, state: TickState) -> np.ndarray:
        if state.plies < 4:
            return np.zeros(2)
        a = state.actions
        diff = (a[0] + a[2]) - (a[1] + a[3])
        return np.array([np.sign(diff), -np.sign(diff)], dtype=np.float64)

    def clone(self, state: TickState) -> TickState:
        other = TickState()
        other.plies, other.actions = state.plies, list(state.actions)
        return other

    def observation(self, state: TickState, seat: int) -> np.ndarray:
        obs = np.zeros(5, np.float32)
        obs[state.plies] = 1.0
        return obs

    def action_to_str(self, state: TickState, action: int) -> str:
        return str(action)

    def state_to_json(self, state: TickState) -> dict[str, Any]:
        return {"plies": state.plies, "actions": state.actions}

    def state_from_json(self, data: dict[str, Any]) -> TickState:
        state = TickState()
        state.plies, state.actions = data["plies"], list(data["actions"])
        return state

    def render_ansi(self, state: TickState) -> str:
        return str(state.actions)

    def render_rgb(self, state: TickState) -> np.ndarray:
        return np.zeros((1, 1, 3), np.uint8)


class TickEnv(BarnyardAECEnv):
    metadata = {**BarnyardAECEnv.metadata, "name": "tick_v0"}
    game_class = TickGame

    def _after_move(self) -> None:
        super()._after_move()
        state = self.game_state
        if state.actions and state.plies < 4:  # an intermediate reward to the seat that did not move
            mover = (state.plies - 1) % 2
            self.rewards[agent_name(1 - mover)] = 0.1 * (state.actions[-1] + 1)


def tick_collector(make_env: type = None, **overrides: Any) -> SelfPlayCollector:
    config = make_config(
        "battle_sheep", **{"num_envs": 1, "opponent_fraction": 0.0, "num_workers": 0, "score_shaping": 0.0, **overrides}
    )
    torch.manual_seed(0)
    net = MLPNet((5,), 3, hidden=16, layers=1)
    return SelfPlayCollector(config, net, torch.Generator().manual_seed(0), make_env=make_env or TickEnv)


def test_each_seat_is_credited_with_its_own_rewards_until_its_next_decision():
    collector = tick_collector()
    buffer = RolloutBuffer(3)
    collector.collect(buffer, 4)  # one game: four decisions, all complete at the end
    seat0 = buffer.streams[(0, 0)]
    seat1 = buffer.streams[(0, 1)]
    assert len(seat0) == 2 and len(seat1) == 2
    t0, t2 = seat0
    t1, t3 = seat1
    a0, a1, a2, a3 = t0.action, t1.action, t2.action, t3.action
    assert a1 != 2 and a3 != 2  # the mask held
    # seat 0's first decision: paid for seat 1's move in between (0.1 * (a1 + 1)); bootstraps on its next value
    assert t0.reward == pytest.approx(0.1 * (a1 + 1))
    assert not t0.done and t0.next_value == pytest.approx(t2.value)
    # seat 1's first decision: paid for seat 0's second move; seat 0's first move paid seat 1 *before* its
    # first decision, which belongs to no decision of seat 1 and is dropped
    assert t1.reward == pytest.approx(0.1 * (a2 + 1))
    assert t1.next_value == pytest.approx(t3.value)
    # the terminal reward arrives for seat 0 while seat 1 makes the last move
    diff = np.sign((a0 + a2) - (a1 + a3))
    assert t2.done and t2.reward == pytest.approx(diff) and t2.next_value == 0.0
    assert t3.done and t3.reward == pytest.approx(-diff)
    # the observations are each seat's own decision points
    assert [int(t.obs.argmax()) for t in (t0, t1, t2, t3)] == [0, 1, 2, 3]
    batch = buffer.build(gamma=1.0, gae_lambda=1.0)
    # with gamma = lambda = 1 the return of each decision is the seat's reward sum to the end
    np.testing.assert_allclose(
        batch.returns.numpy(), [t0.reward + diff, diff, t1.reward - diff, -diff], rtol=1e-5, atol=1e-6
    )


def test_pending_transitions_carry_over_between_batches():
    collector = tick_collector()
    buffer = RolloutBuffer(3)
    collector.collect(buffer, 1)  # one round: seat 0 decided, seat 1 decided -> seat 0's first is complete?
    done_so_far = len(buffer)
    assert len(collector.pending) >= 1
    buffer.clear()
    collector.collect(buffer, 8)
    streams = buffer.streams
    assert sum(len(s) for s in streams.values()) == len(buffer) >= 8
    assert done_so_far + len(buffer) >= 8
    # every game contributes exactly two done transitions, one per seat
    assert sum(t.done for t in buffer) % 2 == 0


def test_opponent_seats_are_not_trained_on():
    collector = tick_collector(opponent_fraction=1.0, opponent_mix="random:1")
    buffer = RolloutBuffer(3)
    collector.collect(buffer, 20)
    # one learner seat per game, two decisions each: its stream reads (not done, done) per game, the
    # opponent's decisions never appear
    for (_, seat), stream in buffer.streams.items():
        dones = [t.done for t in stream]
        assert dones[: len(dones) // 2 * 2] == [False, True] * (len(dones) // 2)
        assert all(int(t.obs.argmax()) in (seat, seat + 2) for t in stream)
    assert len(buffer) in (2 * collector.episodes, 2 * collector.episodes + 1)
    assert len(collector.results["random"]) == collector.episodes


def test_game_slots_report_terminal_rewards_of_the_ended_game():
    slots = GameSlots("tick", {}, [5], make_env=TickEnv)
    report = slots.reset()
    assert report.ended.tolist() == [False] and report.new_controllers[0] == ["learner", "learner"]
    seen = []
    for action in (1, 0, 2, 1):
        report = slots.step([action])
        seen.append(report.rewards[0].tolist())
    # after each move the other seat is paid; the last report holds the terminal rewards and a new game
    assert seen[0] == [0.0, pytest.approx(0.2)] and seen[1] == [pytest.approx(0.1), 0.0]
    assert seen[2] == [0.0, pytest.approx(0.3)]
    assert seen[3] == [1.0, -1.0] and report.ended[0] and report.new_controllers[0] is not None
    assert report.episodes[0]["returns"] == [pytest.approx(1.1), pytest.approx(-0.5)]
    assert report.seats[0] == 0 and report.obs[0].argmax() == 0


def test_outcome_scores():
    assert outcome(np.array([1.0, -1.0]), 0) == 1.0
    assert outcome(np.array([1.0, -1.0]), 1) == 0.0
    assert outcome(np.array([0.5, 0.5, -1.0]), 0) == 0.5


class ScoredTickGame(TickGame):
    """TickGame whose running score per seat is the sum of its actions so far."""

    def scores(self, state: TickState) -> np.ndarray:
        a = state.actions
        return np.array([sum(a[0::2]), sum(a[1::2])], dtype=np.float64)


class ScoredTickEnv(TickEnv):
    game_class = ScoredTickGame


def test_reports_carry_the_deciding_seats_potential_and_unshaped_rewards():
    plain = GameSlots("tick", {}, [5], make_env=ScoredTickEnv)
    shaped = GameSlots("tick", {}, [5], score_shaping=0.5, make_env=ScoredTickEnv)
    assert plain.reset().potential.tolist() == shaped.reset().potential.tolist() == [0.0]
    potentials = []
    for action in (1, 0, 2, 1):
        p, s = plain.step([action]), shaped.step([action])
        assert s.rewards.tolist() == p.rewards.tolist()  # the env's rewards; the shaping is the collector's
        potentials.append(float(s.potential[0]))
    # seat 1 decides after (1,): scores (1, 0), its potential 0.5 * (0 - 1); seat 0 after (1, 0): 0.5 * (1 - 0);
    # seat 1 after (1, 0, 2): 0.5 * (0 - 3); then a new game starts at 0
    assert potentials == [-0.5, 0.5, -1.5, 0.0]
    assert s.episodes[0]["returns"] == p.episodes[0]["returns"]  # episode results are never shaped


def test_each_transition_is_paid_gamma_times_the_next_potential_minus_its_own():
    gamma = 0.9
    plain = tick_collector(gamma=gamma, make_env=ScoredTickEnv)
    shaped = tick_collector(gamma=gamma, score_shaping=0.5, make_env=ScoredTickEnv)
    buffers = RolloutBuffer(3), RolloutBuffer(3)
    plain.collect(buffers[0], 4)
    shaped.collect(buffers[1], 4)
    (p0, p2), (p1, p3) = buffers[0].streams[(0, 0)], buffers[0].streams[(0, 1)]
    (t0, t2), (t1, t3) = buffers[1].streams[(0, 0)], buffers[1].streams[(0, 1)]
    a = [t0.action, t1.action, t2.action, t3.action]
    assert a == [p0.action, p1.action, p2.action, p3.action]
    phi0 = [0.0, 0.5 * ((a[0]) - a[1])]  # seat 0's potentials at its decisions (plies 0 and 2)
    phi1 = [0.5 * (0 - a[0]), 0.5 * (a[1] - (a[0] + a[2]))]  # seat 1's (plies 1 and 3)
    assert [t0.potential, t2.potential, t1.potential, t3.potential] == pytest.approx(phi0 + phi1)
    assert t0.reward - p0.reward == pytest.approx(gamma * phi0[1] - phi0[0])
    assert t2.reward - p2.reward == pytest.approx(0.0 - phi0[1])  # the game ended: potential 0 after it
    assert t1.reward - p1.reward == pytest.approx(gamma * phi1[1] - phi1[0])
    assert t3.reward - p3.reward == pytest.approx(-phi1[1])
    # per seat, the discounted shaping is minus the potential of its first decision
    assert (t1.reward - p1.reward) + gamma * (t3.reward - p3.reward) == pytest.approx(-phi1[0])


@pytest.mark.parametrize("game", envs.GAMES)
def test_discounted_shaping_sums_to_minus_the_first_potential_on_random_games(game: str):
    """The trainer's shaping is exactly potential-based on random games of every game (the game's default
    shaping; a game without one by default, such as Bestiarium, with 0.1)."""
    report = measure(game, games=3, seed=11, score_shaping=make_config(game).score_shaping or 0.1)
    assert len(report.gaps) >= 3 * 2 and report.truncated_games == 0
    assert np.mean(report.shaping_paid) > 0.05  # shaping was paid, so the identity is not vacuous
    assert max(report.gaps) < 1e-9


def test_pending_potentials_survive_an_exact_resume():
    straight = tick_collector(score_shaping=0.5, make_env=ScoredTickEnv)
    first = tick_collector(score_shaping=0.5, make_env=ScoredTickEnv)
    buffer_a, buffer_b = RolloutBuffer(3), RolloutBuffer(3)
    straight.collect(buffer_a, 1)
    first.collect(buffer_b, 1)
    assert any(t.potential for t in first.pending.values())
    saved = first.state_dict()
    resumed = tick_collector(score_shaping=0.5, make_env=ScoredTickEnv)
    resumed.load_state_dict(saved)
    resumed.generator.set_state(first.generator.get_state())  # the run saves the sampling generator apart
    assert {k: t.potential for k, t in resumed.pending.items()} == {k: t.potential for k, t in first.pending.items()}
    more_a, more_b = RolloutBuffer(3), RolloutBuffer(3)
    straight.collect(more_a, 12)
    resumed.collect(more_b, 12)
    assert [(t.action, t.reward, t.done) for t in more_a] == [(t.action, t.reward, t.done) for t in more_b]


class CutTickGame(ScoredTickGame):
    """ScoredTickGame cut by a ply cap after 3 plies (the AEC layer truncates at ``max_game_length``); each
    seat sees the ply and which seat it is, so that the two seats' values at the cut differ."""

    max_game_length = 3

    def observation(self, state: TickState, seat: int) -> np.ndarray:
        obs = np.zeros(5, np.float32)
        obs[state.plies] = 1.0
        obs[4] += 2.0 * seat - 1.0
        return obs


class CutTickEnv(TickEnv):
    game_class = CutTickGame


def test_a_game_cut_at_ply_3_bootstraps_on_each_seats_value_at_the_cut():
    gamma = 0.9
    collector = tick_collector(gamma=gamma, score_shaping=0.5, make_env=CutTickEnv)
    buffer = RolloutBuffer(3)
    collector.collect(buffer, 5)  # the first game's three transitions, then more games
    t0, t2 = buffer.streams[(0, 0)][:2]
    t1 = buffer.streams[(0, 1)][0]
    a0, a1, a2 = t0.action, t1.action, t2.action
    env = collector.handles[0].slots.envs[0]
    cut_state = TickState()
    cut_state.plies, cut_state.actions = 3, [a0, a1, a2]
    with torch.no_grad():
        values = collector.net(torch.from_numpy(np.stack([env.game.observation(cut_state, s) for s in (0, 1)])))[1]
    phi_cut = [0.5 * ((a0 + a2) - a1), 0.5 * (a1 - (a0 + a2))]  # the potentials are kept at the cut
    # seat 0's first decision completes at its second one, as in any game
    assert not t0.done and not t0.cut and t0.next_value == pytest.approx(t2.value)
    # seat 0's second decision and seat 1's only one are cut: not done, bootstrapped on each seat's own value
    for t, seat, phi_then, env_reward in ((t2, 0, 0.5 * (a0 - a1), 0.0), (t1, 1, 0.5 * (0 - a0), 0.1 * (a2 + 1))):
        assert t.cut and not t.done
        assert t.next_value == pytest.approx(float(values[seat]))
        assert t.reward == pytest.approx(env_reward + gamma * phi_cut[seat] - phi_then)
    assert float(values[0]) != pytest.approx(float(values[1]))
    # the advantage chain stops at the cut: the next game's first decision is not t2's successor
    arrays = buffer.arrays()
    stream0 = buffer.streams[(0, 0)]
    assert len(stream0) >= 3 and stream0[2].obs.argmax() == 0
    index = list(buffer.streams).index((0, 0))
    offset = sum(len(s) for s in list(buffer.streams.values())[:index])
    assert arrays["chained"][offset : offset + 2].tolist() == [True, False]
    batch = buffer.build(gamma, 0.95)
    assert float(batch.advantages[offset + 1]) == pytest.approx(t2.reward + gamma * t2.next_value - t2.value, abs=1e-6)


def test_slots_report_the_cut_with_every_seats_observation_and_a_draw():
    slots = GameSlots("tick", {}, [5], score_shaping=0.5, make_env=CutTickEnv)
    slots.reset()
    for action in (2, 1):
        report = slots.step([action])
        assert report.cuts == [None]
    report = slots.step([0])
    cut = report.cuts[0]
    assert report.ended[0] and cut is not None
    assert cut.obs[:, 3].tolist() == [1.0, 1.0] and cut.obs[:, 4].tolist() == [-1.0, 1.0]
    assert cut.potential.tolist() == [0.5 * (2 - 1), 0.5 * (1 - 2)]
    episode = report.episodes[0]
    assert episode["truncated"] and episode["length"] == 3
    assert report.rewards[0].tolist() == [0.0, pytest.approx(0.1)]  # no result: the env pays a draw (0)
    # the cut survives a save and restore of the slots (it is part of the pending report)
    again = GameSlots("tick", {}, [5], score_shaping=0.5, make_env=CutTickEnv)
    restored = again.set_state(slots.get_state())
    assert restored.cuts[0].obs.tolist() == cut.obs.tolist() and restored.cuts[0].obs.dtype == cut.obs.dtype
    assert restored.cuts[0].potential.tolist() == cut.potential.tolist()


def test_the_buffer_lays_streams_out_in_the_order_of_their_first_sample_and_grows():
    """Streams (env, seat) in the order of their first complete transition, each in time order; the chain stops at
    a stream's last sample and after a cut game; the arrays double past their capacity."""
    buffer = RolloutBuffer(3, capacity=2)

    def add(env: list[int], seat: list[int], reward: list[float], cut: list[bool] | None = None) -> None:
        k = len(env)
        buffer.add(
            np.arange(k * 5, dtype=np.float32).reshape(k, 5),
            np.zeros((k, 1), np.uint8),
            env=np.array(env),
            seat=np.array(seat),
            action=np.zeros(k, np.int64),
            logp=np.zeros(k, np.float32),
            value=np.zeros(k, np.float32),
            reward=np.array(reward),
            done=np.zeros(k, bool),
            next_value=np.zeros(k, np.float32),
            potential=np.zeros(k),
            cut=np.array(cut or [False] * k),
        )

    add([1, 0], [0, 1], [1, 2])
    add([0, 1, 1], [1, 0, 1], [3, 4, 5], cut=[True, False, False])
    add([0], [1], [6])
    assert len(buffer) == 6 and buffer.capacity >= 6
    arrays = buffer.arrays()
    assert arrays["rewards"].tolist() == [1, 4, 2, 3, 6, 5]
    assert arrays["chained"].tolist() == [True, False, True, False, False, False]
    assert list(buffer.streams) == [(1, 0), (0, 1), (1, 1)]
    assert [t.reward for t in buffer.streams[(0, 1)]] == [2, 3, 6]
    buffer.clear()
    assert len(buffer) == 0 and buffer.capacity >= 6
