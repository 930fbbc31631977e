"""Shared run flags of both trainers: ``--device`` (auto picks cuda only when torch sees a GPU; CPU is the tested
default) and ``--time-budget-min`` (the run stops once its logged time reaches the budget)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import torch

from training.config import make_config
from training.loop import resolve_device
from training.loop import train as ppo_train

PPO_TINY = dict(env_options={"canvas_radius": 6}, num_envs=4, num_steps=16, conv_channels=8, conv_layers=1,
                hidden=32, update_epochs=1, num_minibatches=2, eval_games=2, eval_every=0, eval_opponents="random",
                opponent_fraction=0.0, progress=False, num_workers=0)


def test_resolve_device():
    assert resolve_device("cpu") == torch.device("cpu")
    assert resolve_device("auto") == torch.device("cuda" if torch.cuda.is_available() else "cpu")
    with pytest.raises(ValueError, match="allowed"):
        resolve_device("tpu")
    if not torch.cuda.is_available():
        with pytest.raises(ValueError, match="no GPU"):
            resolve_device("cuda")


@pytest.mark.parametrize("algo", ["ppo", "alphazero"])
def test_a_time_budget_stops_the_run_and_device_auto_trains(tmp_path: Path, algo: str):
    if algo == "ppo":
        config = make_config("battle_sheep", **PPO_TINY, total_steps=10**9, time_budget_min=1e-4, device="auto",
                             out=str(tmp_path / algo))
        path = ppo_train(config)
    else:
        from training.alphazero import train

        config = make_config("bestiarium", algo="alphazero", env_options={"board_size": 5}, num_envs=4,
                             simulations=2, max_considered=2, iteration_moves=2, train_batch_size=4,
                             conv_channels=8, conv_layers=1, hidden=16, eval_every=0, eval_games=2,
                             eval_opponents="random", progress=False, total_steps=10**9, time_budget_min=1e-4,
                             num_workers=0,
                             device="auto", out=str(tmp_path / algo))
        path = train(config)
    meta = json.loads(path.with_suffix(".json").read_text())
    assert meta["updates"] == 1 and meta["algo"] == algo  # the first update used up the budget
    assert meta["config"]["device"] == "auto" and set(meta["evaluation"]["vs"]) == {"random"}
    rows = (path.parent / "log.csv").read_text().splitlines()
    assert len(rows) == 2
