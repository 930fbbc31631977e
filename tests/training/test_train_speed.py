"""barnyard bench train (training.measure.train_speed): it runs and reports what it says, on tiny configs."""

from __future__ import annotations

import pytest

from training.cli import main
from training.measure.train_speed import (
    PROJECTED_CORES,
    format_row,
    network_limit,
    ppo_speed,
    projected,
    sb3_speed,
    table,
)

TINY = dict(num_envs=4, num_steps=8, hidden=16, mlp_layers=1, num_workers=0, opponent_fraction=0.0)


def test_ppo_speed_and_the_network_limit_are_measured_from_real_runs():
    row = {"game": "beasty_borders", **ppo_speed("beasty_borders", 4.0, **TINY)}
    assert row["updates"] >= 3 and row["ppo"] > 0 and 0 < row["cores"] < 8
    assert row["serial"] > 0 and row["workers"] == 0  # no env workers: everything is this process's
    row["limit"] = network_limit("beasty_borders", repeats=1, **TINY)
    assert row["limit"] > 0
    row["projected"] = {n: projected(row["serial"], row["limit"], row["workers"], n) for n in PROJECTED_CORES}
    row["sb3"] = None
    assert "not installed" in format_row(row)
    lines = table([row]).splitlines()
    assert lines[0].startswith("| game | PPO samples/s") and lines[2].startswith("| beasty_borders | ")


def test_the_projection_model():
    """The trainer (serial work, then the network) and the env workers over the other cores: the slower sets the
    pace; serial work alone caps it."""
    assert projected(10.0, 20_000, 0.0, 2) == pytest.approx(1e6 / 60)
    assert projected(10.0, 20_000, 300.0, 2) == pytest.approx(1e6 / 300)
    assert projected(10.0, 20_000, 300.0, 16) == pytest.approx(1e6 / 60)
    assert projected(10.0, 1e12, 0.0, 16) == pytest.approx(1e5, rel=1e-6)


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
