"""The fixed rating scale (``barnyard rate``): the one-player fit against fixed anchors, a ladder built and used
end to end on a small schedule, and the stored ladders."""

from __future__ import annotations

import json

import numpy as np
import pytest

import envs
from training.arena import rating as R


def simulated(anchors: list[float], true: float, games: int, rng: np.random.Generator) -> list[tuple[int, float]]:
    """(anchor, score) comparisons drawn from the Bradley-Terry model: a player rated ``true`` against each anchor."""
    out: list[tuple[int, float]] = []
    for j, r in enumerate(anchors):
        p = 1.0 / (1.0 + 10 ** ((r - true) / 400.0))
        out += [(j, float(x)) for x in rng.random(games) < p]
    return out


def test_one_player_fit_is_calibrated():
    """Over 100 simulated matches against anchors of known ratings, the 95% interval holds the true rating about
    95% of the time; with 16 times the games it is about 4 times narrower."""
    anchors, true = [0.0, 300.0, 600.0], 420.0
    covered = 0
    for seed in range(100):
        rating, se = R.fit_one(anchors, simulated(anchors, true, 200, np.random.default_rng(seed)))
        covered += abs(rating - true) <= R.Z95 * se
    assert 88 <= covered <= 100
    _, narrow = R.fit_one(anchors, simulated(anchors, true, 3200, np.random.default_rng(0)))
    _, wide = R.fit_one(anchors, simulated(anchors, true, 200, np.random.default_rng(0)))
    assert 3.5 < wide / narrow < 4.5


def test_an_unbeaten_player_gets_a_finite_rating():
    rating, se = R.fit_one([0.0, 100.0], [(0, 1.0)] * 50 + [(1, 1.0)] * 50)
    assert np.isfinite(rating) and rating > 500 and np.isfinite(se)


@pytest.fixture
def ladders(tmp_path, monkeypatch):
    monkeypatch.setattr(R, "LADDERS", tmp_path)
    return tmp_path


def test_a_built_ladder_rates_its_anchor_within_its_interval_and_repeats(ladders):
    """A small Beasty Borders ladder (random at 0, greedy, the search at 10 simulations), then greedy rated
    through the command on another seed: its rating is within its interval of the stored one; the same seed
    prints the same number."""
    data = R.build("beasty_borders", ["random", "greedy", "search:10"], games=12, seed=0, workers=1)
    assert [a["spec"] for a in data["anchors"]] == ["random", "greedy", "search:10"]
    assert data["anchors"][0]["rating"] == 0.0 and data["anchors"][0]["se"] == 0.0
    assert data["anchors"][1]["rating"] > 200  # greedy beats random in every game of this game
    R.ladder_path("beasty_borders").write_text(json.dumps(data))
    first = R.rate("beasty_borders", "greedy", games=12, seed=5)
    stored = data["anchors"][1]["rating"]
    assert first.interval[0] <= stored <= first.interval[1], (first.rating, first.interval, stored)
    assert [row[0] for row in first.per_anchor] == ["random", "search:10"]
    again = R.rate("beasty_borders", "greedy", games=12, seed=5)
    assert (again.rating, again.interval) == (first.rating, first.interval)
    assert "greedy on barnyard-beasty_borders-v1" in first.table()


def test_a_game_without_a_ladder_is_a_clear_error(ladders):
    with pytest.raises(R.LadderError, match="has no stored ladder"):
        R.rate("bestiarium", "greedy", games=1)
    R.ladder_path("bestiarium").write_text(json.dumps({"game": "boaring", "scale": "x-v1", "anchors": []}))
    with pytest.raises(R.LadderError, match="is the ladder of 'boaring', not 'bestiarium'"):
        R.load_ladder("bestiarium")
    with pytest.raises(ValueError, match="unknown game"):
        R.load_ladder("chess")


@pytest.mark.parametrize("game", [g for g in envs.GAMES if R.ladder_path(g).exists()])
def test_stored_ladders_belong_to_their_game_and_start_at_random(game):
    ladder = R.load_ladder(game)
    assert ladder.anchors[0] == "random" and ladder.ratings[0] == 0.0
    assert ladder.scale.startswith(f"barnyard-{game}-v") and ladder.made_by


@pytest.mark.parametrize("game", [g for g in envs.GAMES if R.ladder_path(g).exists()])
def test_a_stored_ladder_rates_its_greedy_anchor_within_its_interval(game):
    """``barnyard rate`` on the shipped scale, on a small schedule: greedy, an anchor, rated against the others
    lands within its interval of its stored rating."""
    ladder = R.load_ladder(game)
    stored = ladder.ratings[ladder.anchors.index("greedy")]
    rated = R.rate(game, "greedy", games=8, seed=3)
    assert rated.scale == ladder.scale
    assert rated.interval[0] <= stored <= rated.interval[1], (rated.rating, rated.interval, stored)


@pytest.mark.parametrize("game", [g for g in envs.GAMES if R.ladder_path(g).exists()])
def test_stored_ladders_pin_their_checkpoint_anchors(game):
    """Every checkpoint anchor of a stored ladder records the weights it was fitted with, and the checkpoint under
    that name still has them (a new policy is shipped under a new name, not over an anchor)."""
    ladder = R.load_ladder(game)
    for spec, pinned in zip(ladder.anchors, ladder.weights):
        assert (pinned is not None) == spec.endswith(".pt"), spec
    R.check_anchors(ladder)


def _one_checkpoint_ladder(pinned: str) -> dict:
    spec = "checkpoints/beasty_borders/policy.pt"
    return {
        "game": "beasty_borders",
        "scale": "barnyard-beasty_borders-v1",
        "options": {},
        "anchors": [
            {"spec": "random", "rating": 0.0, "se": 0.0},
            {"spec": spec, "rating": 900.0, "se": 10.0, "weights_sha256": pinned},
        ],
        "made_by": "test",
    }


def test_rate_refuses_an_anchor_whose_weights_changed(ladders, monkeypatch):
    """A checkpoint anchor with other weights than the ladder pinned (or gone) is a LadderError naming it, raised
    before any game is played."""
    played = []
    monkeypatch.setattr(R, "run_tournament", lambda *a, **k: played.append(a))
    R.ladder_path("beasty_borders").write_text(json.dumps(_one_checkpoint_ladder("0" * 64)))
    with pytest.raises(
        R.LadderError, match="checkpoints/beasty_borders/policy.pt of barnyard-beasty_borders-v1 has other"
    ):
        R.rate("beasty_borders", "greedy", games=2)
    data = _one_checkpoint_ladder("0" * 64)
    data["anchors"][1]["spec"] = "checkpoints/beasty_borders/no_such_policy.pt"
    R.ladder_path("beasty_borders").write_text(json.dumps(data))
    with pytest.raises(R.LadderError, match="no_such_policy.pt: cannot read its checkpoint's sidecar"):
        R.rate("beasty_borders", "greedy", games=2)
    assert played == []
    sha = R.anchor_weights("checkpoints/beasty_borders/policy.pt")
    R.ladder_path("beasty_borders").write_text(json.dumps(_one_checkpoint_ladder(sha)))
    R.check_anchors(R.load_ladder("beasty_borders"))  # the right weights pass


def test_a_built_ladder_pins_its_checkpoint_anchor(ladders):
    data = R.build("beasty_borders", ["random", "checkpoints/beasty_borders/policy.pt"], games=2, seed=0, workers=1)
    sidecar = json.loads((R.REPOSITORY / "checkpoints/beasty_borders/policy.json").read_text())
    assert data["anchors"][1]["weights_sha256"] == sidecar["weights_sha256"]
    assert "weights_sha256" not in data["anchors"][0]
