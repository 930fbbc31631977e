"""Shared run flags of both trainers: ``--device`` (auto picks cuda only when torch sees a GPU; CPU is the tested
default) and ``--time-budget-min`` (the run stops once its logged time reaches the budget)."""

from __future__ import annotations

import csv
import json
from pathlib import Path

import pytest
import torch

from training.config import make_config
from training.ppo.loop import train as ppo_train
from training.run.pieces import resolve_device

BUDGET_MIN = 0.025 / 60
"""25 ms: log.csv rounds time_s to 10 ms, and a budget half-way between two logged values keeps the comparison
below exact."""

PPO_TINY = dict(
    env_options={"canvas_radius": 6},
    num_envs=4,
    num_steps=16,
    conv_channels=8,
    conv_layers=1,
    hidden=32,
    update_epochs=1,
    num_minibatches=2,
    eval_games=2,
    eval_every=0,
    eval_opponents="random",
    opponent_fraction=0.0,
    progress=False,
    num_workers=0,
)


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
        config = make_config(
            "battle_sheep",
            **PPO_TINY,
            total_steps=10**9,
            time_budget_min=BUDGET_MIN,
            device="auto",
            out=str(tmp_path / algo),
        )
        path = ppo_train(config)
    else:
        from training.alphazero.selfplay import train

        config = make_config(
            "bestiarium",
            algo="alphazero",
            env_options={"board_size": 5},
            num_envs=4,
            simulations=2,
            max_considered=2,
            iteration_moves=2,
            train_batch_size=4,
            conv_channels=8,
            conv_layers=1,
            hidden=16,
            eval_every=0,
            eval_games=2,
            eval_opponents="random",
            progress=False,
            total_steps=10**9,
            time_budget_min=BUDGET_MIN,
            num_workers=0,
            device="auto",
            out=str(tmp_path / algo),
        )
        path = train(config)
    meta = json.loads(path.with_suffix(".json").read_text())
    assert meta["algo"] == algo and meta["config"]["device"] == "auto"
    assert set(meta["evaluation"]["vs"]) == {"random"}  # the final evaluation ran
    # the run stopped at the first update whose logged time reached the budget (one or a few updates,
    # depending on the machine's speed), far short of total_steps
    times = [float(row["time_s"]) for row in csv.DictReader((path.parent / "log.csv").open())]
    budget_s = 60 * config.time_budget_min
    assert times[-1] >= budget_s and all(t < budget_s for t in times[:-1])
    assert meta["updates"] == len(times) and meta["steps"] < config.total_steps
