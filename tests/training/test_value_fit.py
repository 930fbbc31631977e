"""python -m lab.value_fit: the positions it labels and a small end-to-end run."""

from __future__ import annotations

import json

import numpy as np

from envs.bestiarium import observation
from lab import value_fit


def test_positions_are_labelled_from_the_movers_view():
    data = value_fit.search_positions(games=3, seed=4, random_plies=4, budget=4)
    n = data["obs"].shape[0]
    assert data["obs"].shape[1:] == (56, 11, 11) and data["result"].shape == data["score_now"].shape == (n,)
    assert set(np.unique(data["result"]).tolist()) <= {-1.0, 1.0}
    assert np.array_equal(data["score_now"], data["obs"][:, observation.VERDICT, 0, 0])
    for g in np.unique(data["game"]):  # one game: the movers' results are +1 for one seat, -1 for the other
        rows = data["game"] == g
        assert set(data["result"][rows].tolist()) == {-1.0, 1.0}
    again = value_fit.search_positions(games=3, seed=4, random_plies=4, budget=4)
    assert np.array_equal(again["obs"], data["obs"])  # same seed, same positions


def test_main_fits_every_encoding_and_writes_the_table(tmp_path):
    out = tmp_path / "fit.json"
    report = value_fit.main(
        ["--games", "6", "--epochs", "2", "--budget", "4", "--torch-threads", "1", "--out", str(out)]
    )
    assert set(report["fits"]) == set(value_fit.ENCODINGS)
    for fits in report["fits"].values():
        for target in value_fit.TARGETS:
            r = fits[target]
            assert 1 <= r["epoch"] <= 2 and np.isfinite(r["test_mse"]) and r["zero_mse"] > 0
    assert json.loads(out.read_text())["positions"] == report["positions"]
