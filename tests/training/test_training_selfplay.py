"""Self-play credit assignment on a hand-built game, opponents, and the GameSlots reports."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest
import torch

from envs.common.aec import BarnyardAECEnv, agent_name
from envs.common.game import TERMINAL, Game
from training.buffer import RolloutBuffer
from training.config import make_config
from training.networks import MLPNet
from training.selfplay import GameSlots, SelfPlayCollector, outcome


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


def tick_collector(**overrides: Any) -> SelfPlayCollector:
    config = make_config("battle_sheep", **{"num_envs": 1, "opponent_fraction": 0.0, "num_workers": 0,
                                          "score_shaping": 0.0, **overrides})
    torch.manual_seed(0)
    net = MLPNet((5,), 3, hidden=16, layers=1)
    return SelfPlayCollector(config, net, torch.Generator().manual_seed(0), make_env=TickEnv)


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
    np.testing.assert_allclose(batch.returns.numpy(),
                               [t0.reward + diff, diff, t1.reward - diff, -diff], rtol=1e-5, atol=1e-6)


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


def test_score_shaping_pays_potential_changes_and_takes_them_back_at_the_end():
    plain = GameSlots("tick", {}, [5], make_env=ScoredTickEnv)
    shaped = GameSlots("tick", {}, [5], score_shaping=0.5, make_env=ScoredTickEnv)
    plain.reset()
    shaped.reset()
    totals_plain, totals_shaped = np.zeros(2), np.zeros(2)
    first = None
    for action in (1, 0, 2, 1):
        p, s = plain.step([action]), shaped.step([action])
        first = s.rewards[0] - p.rewards[0] if first is None else first
        totals_plain += p.rewards[0]
        totals_shaped += s.rewards[0]
    # seat 0 played 1: scores (1, 0), potentials 0.5 * (1 - 0) = +0.5 for seat 0 and -0.5 for seat 1
    assert first.tolist() == [pytest.approx(0.5), pytest.approx(-0.5)]
    # the potential is 0 at the end, so a game's shaping sums to zero and the objective is unchanged
    np.testing.assert_allclose(totals_shaped, totals_plain)
    assert s.episodes[0]["returns"] == p.episodes[0]["returns"]  # episode results are never shaped


def test_shaping_survives_an_exact_resume_of_the_slots():
    slots = GameSlots("tick", {}, [5], score_shaping=0.5, make_env=ScoredTickEnv)
    slots.reset()
    slots.step([2])
    saved = slots.get_state()
    again = GameSlots("tick", {}, [5], score_shaping=0.5, make_env=ScoredTickEnv)
    again.set_state(saved)
    assert again.step([1]).rewards.tolist() == slots.step([1]).rewards.tolist()
