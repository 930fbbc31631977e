"""The learning curve and the tournament heat map: the numbers they draw, and that they draw."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
from PIL import Image

from training.arena import tournament
from training.charts import evaluation_series, plot_curves, plot_win_matrix
from training.stats import wilson_interval

HEADER = (
    "update,global_step,time_s,entropy,train_win_snapshot,train_win_random,eval_random_win_rate,"
    "eval_random_mean_reward,eval_random_games"
)
ROWS = ["1,100,2.0,3.1,0.5,,,,", "2,200,4.5,3.0,0.5,0.25,0.8,0.6,10", "3,300,6.0,2.9,0.6,0.5,0.9,0.8,20"]


def write_log(path: Path, header: str = HEADER, rows: list[str] = ROWS) -> Path:
    path.mkdir(parents=True, exist_ok=True)
    (path / "log.csv").write_text("\n".join([header, *rows]) + "\n")
    return path / "log.csv"


def test_evaluation_points_carry_the_wilson_interval_of_their_games(tmp_path: Path):
    rows = [dict(zip(HEADER.split(","), r.split(","))) for r in ROWS]
    s = evaluation_series(rows)["random"]
    assert s.steps.tolist() == [200, 300] and s.rates.tolist() == [0.8, 0.9] and s.games.tolist() == [10, 20]
    assert (s.low[0], s.high[0]) == pytest.approx((0.4902, 0.9433), abs=1e-4)  # 8 of 10
    assert (s.low[1], s.high[1]) == pytest.approx(wilson_interval(18, 20))
    # a log without the games column takes them from the caller, else has no interval
    old = [{k: v for k, v in r.items() if k != "eval_random_games"} for r in rows]
    assert evaluation_series(old, eval_games=10)["random"].low[0] == pytest.approx(0.4902, abs=1e-4)
    assert np.isnan(evaluation_series(old)["random"].low).all()


def test_plot_curves_draws_a_png_also_for_an_old_log_with_its_sidecar(tmp_path: Path):
    png = plot_curves(write_log(tmp_path / "run"), tmp_path / "run" / "curve.png", title="run")
    with Image.open(png) as image:
        assert image.format == "PNG" and image.size == (1000, 700)
    old_header = HEADER.rsplit(",", 1)[0]
    old = write_log(tmp_path / "old", old_header, [r.rsplit(",", 1)[0] for r in ROWS])
    (tmp_path / "old" / "policy.json").write_text(json.dumps({"config": {"eval_games": 10}}))
    assert plot_curves(old, tmp_path / "old" / "curve.png").exists()
    empty = write_log(tmp_path / "empty", HEADER, [])
    assert plot_curves(empty, tmp_path / "empty" / "curve.png") is None


def test_the_heat_map_of_a_two_player_tournament_fills_both_cells(tmp_path: Path, monkeypatch):
    drawn = {}

    def capture(names, share, low, high, parity, title, png_path):
        drawn.update(names=names, share=share, low=low, high=high, parity=parity, title=title)
        return plot_win_matrix(names, share, low, high, parity, title, png_path)

    monkeypatch.setattr(tournament, "plot_win_matrix", capture)
    result = tournament.run_tournament("bestiarium", {}, ["random", "greedy"], games=4, seed=0, progress=False)
    _, png = tournament.save_result(result, tmp_path)
    pair = result.pairs[0]
    assert drawn["names"] == ["random", "greedy"] and drawn["parity"] == 0.5
    assert drawn["share"][0, 1] == pair.win_share and drawn["share"][1, 0] == pytest.approx(1 - pair.win_share)
    assert (drawn["low"][1, 0], drawn["high"][1, 0]) == pytest.approx((1 - pair.interval[1], 1 - pair.interval[0]))
    assert np.isnan(drawn["share"][0, 0]) and "4 games per pair" in drawn["title"]
    with Image.open(png) as image:
        assert image.format == "PNG"
