"""Stable-Baselines3 / sb3-contrib MaskablePPO through the single-agent view: the docs snippet, for every game."""

from __future__ import annotations

import pytest

pytest.importorskip("sb3_contrib")
torch = pytest.importorskip("torch")

from docs_snippets import GAME_SETUPS, run_snippet  # noqa: E402

import envs  # noqa: E402
from envs.common.gym_view import SingleAgentEnv  # noqa: E402


@pytest.fixture(autouse=True)
def one_thread():
    """One torch thread: on a shared 2-core machine more threads make a 25k-way softmax ~20x slower."""
    before = torch.get_num_threads()
    torch.set_num_threads(1)
    yield
    torch.set_num_threads(before)


@pytest.mark.parametrize("game", envs.GAMES)
def test_docs_snippet_trains_and_plays_legally(game):
    """Two PPO updates of 64 steps, then whole games with the trained policy (an illegal move would raise)."""
    ns = run_snippet("sb3", GAME=game, **GAME_SETUPS[game], N_STEPS=64, TIMESTEPS=128, EVAL_GAMES=2)
    model = ns["model"]
    assert model.num_timesteps >= 128 and model._n_updates >= 2  # really trained (n_epochs per update)
    assert -2.0 <= ns["total"] <= 2.0  # two finished games, returns in [-1, 1]
    # The trained policy, asked on fresh positions of a learner at seat 1, picks only masked-in actions.
    view = SingleAgentEnv(game, GAME_SETUPS[game]["OPTIONS"], learner_seat=1, seed=3)
    obs, _ = view.reset()
    for _ in range(20):
        mask = view.action_masks()
        action, _ = model.predict(obs, action_masks=mask, deterministic=False)
        assert mask[int(action)]
        obs, _, terminated, truncated, _ = view.step(action)
        if terminated or truncated:
            obs, _ = view.reset()
