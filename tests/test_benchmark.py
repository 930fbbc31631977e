"""The speed benchmark's command line (speed itself is measured by running it, never by a timed test)."""

import pytest

import envs
from envs import benchmark


def test_all_refuses_options():
    with pytest.raises(SystemExit, match="default options"):
        benchmark.main(["all", "num_players=3"])


def test_table_has_a_row_per_game_with_positive_speeds():
    lines = benchmark.table(seconds=0.05, num_envs=4).splitlines()
    assert len(lines) == 2 + len(envs.GAMES)
    for line in lines[2:]:
        cells = [c.strip() for c in line.strip("|").split("|")]
        assert float(cells[1].replace(",", "")) > 0 and float(cells[4].replace(",", "")) > 0
        assert cells[3].endswith("x")
