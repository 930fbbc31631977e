"""Boaring's ``state()``: the privileged global state for centralised critics (every hand, every face-down card),
while each agent's observation still shows only its own hand and bid."""

import numpy as np
import pytest

from envs import boaring_v0
from envs.boaring import actions as A
from envs.boaring.observation import observation_layout
from envs.boaring.rules import BoaringGame

N = 3


def blocks(game: BoaringGame, state_vector: np.ndarray) -> dict[str, np.ndarray]:
    """The global state's blocks as the docstring of BoaringGame.global_state lays them out."""
    n, obs = game.num_players, observation_layout(game.num_players).size
    return {
        "observation": state_vector[:obs],
        "to_move": state_vector[obs : obs + n],
        "hands": state_vector[obs + n : obs + n + 10 * n].reshape(n, 10),
        "pending": state_vector[obs + n + 10 * n :].reshape(n, 10),
    }


def test_global_state_holds_every_hand_and_face_down_card_the_observations_do_not():
    game = BoaringGame(num_players=N)
    state = game.make_state([[1, 2, 10], [5, 6, 7], [3, 4, 8]], "boar", 1, active=0)
    game.apply(state, A.play_action(10), np.random.default_rng(0))  # seat 0 bids its 10
    got = blocks(game, game.global_state(state))
    assert np.array_equal(got["observation"], game.observation(state, 0))
    assert got["to_move"].tolist() == [0, 1, 0]
    expected_hands = np.zeros((N, 10))
    for seat, cards in enumerate([[1, 2], [5, 6, 7], [3, 4, 8]]):
        for v in cards:
            expected_hands[seat, v - 1] = 1 / 7
    assert np.allclose(got["hands"], expected_hands)
    assert got["pending"][0].tolist() == [0] * 9 + [1] and not got["pending"][1:].any()
    # the other seats' observations show that seat 0 committed, not what, and none of seat 0's hand
    for seat in (1, 2):
        obs = game.observation(state, seat)
        lay = observation_layout(game.num_players)
        assert not obs[lay.my_pending : lay.my_pending + 10].any()
        assert obs[lay.committed + (0 - seat) % N] == 1
        assert np.allclose(obs[lay.hand : lay.hand + 10], expected_hands[seat])


def test_global_state_through_the_envs_is_bounded_and_all_zero_to_move_at_the_end():
    env = boaring_v0.env(num_players=N)
    env.reset(seed=5)
    rng = np.random.default_rng(5)
    space = env.unwrapped.state_space
    assert space.shape == (observation_layout(N).size + N * 21,)
    for _agent in env.agent_iter():
        state = env.state()
        assert space.contains(state)
        raw = env.unwrapped
        assert np.allclose(blocks(raw.game, state)["hands"] * 7, np.asarray(raw.game_state.hands))
        obs, _, term, trunc, _ = env.last()
        env.step(None if term or trunc else int(rng.choice(np.flatnonzero(obs["action_mask"]))))
    final = blocks(env.unwrapped.game, env.state())
    assert not final["to_move"].any()


def test_observations_are_unchanged_in_shape():
    """The agents' observations keep their documented size 68 + 22 n; only state() grew."""
    env = boaring_v0.env(num_players=N)
    assert env.observation_space("player_0")["observation"].shape == (68 + 22 * N,)
    with pytest.raises(RuntimeError, match="reset"):
        env.unwrapped.state()
