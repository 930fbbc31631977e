"""barnyard bench train (training.measure.train_speed): it runs and reports what it says, on tiny configs."""

from __future__ import annotations

import pytest

from training.cli import main
from training.measure.train_speed import format_row, network_limit, ppo_speed, sb3_speed, table

TINY = dict(num_envs=4, num_steps=8, hidden=16, mlp_layers=1, num_workers=0, opponent_fraction=0.0)


def test_ppo_speed_and_the_network_limit_are_measured_from_real_runs():
    row = {"game": "beasty_borders", **ppo_speed("beasty_borders", 4.0, **TINY)}
    assert row["updates"] >= 3 and row["ppo"] > 0 and 0 < row["cores"] < 8
    row["limit"] = network_limit("beasty_borders", repeats=1, **TINY)
    assert row["limit"] > 0
    row["sb3"] = None
    assert "not installed" in format_row(row)
    lines = table([row]).splitlines()
    assert lines[0].startswith("| game | PPO samples/s") and lines[2].startswith("| beasty_borders | ")


def test_a_run_too_short_for_two_measured_updates_says_so():
    with pytest.raises(RuntimeError, match="give more --seconds"):
        ppo_speed("beasty_borders", 0.01, **TINY)


def test_sb3_maskable_ppo_speed():
    pytest.importorskip("sb3_contrib")
    assert sb3_speed("beasty_borders", 1.0) > 0


def test_bench_train_is_a_barnyard_command(capsys):
    with pytest.raises(SystemExit) as done:
        main(["bench", "train", "--help"])
    assert done.value.code == 0
    assert "barnyard bench train" in capsys.readouterr().out
    with pytest.raises(SystemExit, match="unknown game"):
        main(["bench", "train", "--games", "chess"])
