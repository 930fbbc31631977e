"""TorchRL: PettingZooWrapper over the AEC envs (turn-based, masks) and the docs' masked self-play PPO snippet."""

from __future__ import annotations

import warnings

import pytest

pytest.importorskip("torchrl")
torch = pytest.importorskip("torch")

from docs_snippets import run_snippet  # noqa: E402
from torchrl.envs import PettingZooWrapper  # noqa: E402
from torchrl.envs.utils import check_env_specs  # noqa: E402

import envs  # noqa: E402


@pytest.fixture(autouse=True)
def one_thread():
    """One torch thread: on a shared 2-core machine more threads make a 25k-way softmax ~20x slower."""
    before = torch.get_num_threads()
    torch.set_num_threads(1)
    with warnings.catch_warnings():
        # TorchRL warns that it is tested with PettingZoo 1.24.3; Barnyard uses 1.27 (nothing breaks).
        warnings.filterwarnings("ignore", message="PettingZoo in TorchRL is tested")
        yield
    torch.set_num_threads(before)


def wrap(game: str) -> PettingZooWrapper:
    aec = envs.module(game).env()
    return PettingZooWrapper(
        env=aec, use_mask=True, categorical_actions=True, seed=0, group_map={"player": list(aec.possible_agents)}
    )


@pytest.mark.parametrize("game", envs.GAMES)
def test_wrapper_specs_and_masked_random_play(game):
    """TorchRL's own spec check, then a random rollout drawn from the masked action spec stays legal."""
    env = wrap(game)
    check_env_specs(env, seed=0)
    rollout = env.rollout(30, break_when_any_done=False)
    moved = rollout["player", "mask"]
    assert (moved.sum(-1) == 1).all()  # exactly one seat moves per step
    chosen = rollout["player", "action_mask"].gather(-1, rollout["player", "action"].unsqueeze(-1)).squeeze(-1)
    assert chosen[moved].all()
    assert not env._env._terminated_by_illegal  # env() would have ended the game with -1 on an illegal move


@pytest.mark.parametrize("game", envs.GAMES)
def test_docs_snippet_trains_and_plays_legally(game):
    """Two PPO updates of 64 frames through the docs snippet; its evaluation asserts every move is legal."""
    ns = run_snippet("torchrl", GAME=game, FRAMES_PER_BATCH=64, UPDATES=2, EVAL_STEPS=60)
    out = ns["out"]
    assert torch.isfinite(out["loss_objective"]) and torch.isfinite(out["loss_critic"])
    assert int(ns["moved"].sum()) == 60
