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


# ----- hostile ladders and arguments --------------------------------------------------------------------------------
LADDER = {
    "game": "bestiarium",
    "scale": "barnyard-bestiarium-v1",
    "options": {},
    "anchors": [
        {"spec": "random", "rating": 0.0, "se": 0.0},
        {"spec": "greedy", "rating": 188.0, "se": 27.2},
        {"spec": "search:15", "rating": 299.1, "se": 28.7},
    ],
    "made_by": "test",
}


def _with_greedy(**fields) -> str:
    anchors = [dict(a) for a in LADDER["anchors"]]
    anchors[1].update(fields)
    return json.dumps({**LADDER, "anchors": anchors})


def _rate(argv, capsys):
    """``barnyard rate ARGV``: (exit status, stdout, stderr)."""
    with pytest.raises(SystemExit) as done:
        R.main(argv)
    out, err = capsys.readouterr()
    return done.value.code, out, err


@pytest.mark.parametrize(
    ("text", "message"),
    [
        (_with_greedy(rating=float("nan")), "NaN is not a number JSON allows"),
        (_with_greedy(rating=1e308), "anchor greedy: 'rating' is 1e+308; give a number from -10000 to 10000"),
        (_with_greedy(rating="188"), "anchor greedy: 'rating' is '188', not a number"),
        (_with_greedy(se=-1.0), "anchor greedy: 'se' is -1.0; give a number from 0 to 10000"),
        (_with_greedy(weights_sha256=7), "anchor greedy: 'weights_sha256' is 7, not a sha256 in hex"),
        ('{"game": "bestiarium", "anchors": [', "Expecting value: line 1"),
        (json.dumps({**LADDER, "anchors": []}), "'anchors' must be a list of anchors, and there are none"),
        (json.dumps({**LADDER, "anchors": LADDER["anchors"][1:]}), "the anchor 'random' (the scale's zero"),
        (json.dumps([LADDER]), "the file holds a list, not a ladder"),
    ],
)
def test_a_hostile_ladder_is_one_error_line_before_any_game(text, message, ladders, monkeypatch, capsys):
    """A NaN rating printed a rating of 34744 [nan, nan] with exit status 0, 1e308 an OverflowError, a string rating,
    malformed JSON or no anchors a traceback: each is now ``error: ladder FILE: ...``, exit status 2, no game."""
    R.ladder_path("bestiarium").write_text(text)
    monkeypatch.setattr(R, "run_tournament", lambda *a, **k: pytest.fail("a game was played"))
    code, out, err = _rate(["--game", "bestiarium", "--policy", "first", "--games", "2"], capsys)
    assert code == 2 and out == "" and "Traceback" not in err
    assert err == f"error: ladder {R.ladder_path('bestiarium')}: {message}" + err.split(message, 1)[1], err
    assert err.count("\n") == 1


def test_an_anchor_spelled_another_way_is_that_anchor(ladders, monkeypatch):
    """``./checkpoints/...`` played the anchor ``checkpoints/...`` as another policy (rated 121 where the exact
    spelling gave 202): every spelling of a file is that file, so the policy meets the same anchors."""
    spec = "checkpoints/bestiarium/policy_selfplay.pt"
    anchors = [
        *LADDER["anchors"],
        {"spec": spec, "rating": 167.1, "se": 27.1},
        {"spec": f"sym:{spec}", "rating": 170.0, "se": 27.0},
    ]
    R.ladder_path("bestiarium").write_text(json.dumps({**LADDER, "anchors": anchors}))
    monkeypatch.chdir(R.REPOSITORY)
    entered = []

    class Entered(Exception):
        pass

    def tournament(game, options, specs, **kwargs):
        entered.append(specs)
        raise Entered

    monkeypatch.setattr(R, "run_tournament", tournament)
    for spelling in (spec, f"./{spec}", str(R.REPOSITORY / spec), f"checkpoints/../{spec}"):
        with pytest.raises(Entered):
            R.rate("bestiarium", spelling, games=2)
        assert entered[-1][1:] == ["random", "greedy", "search:15", f"sym:{spec}"], spelling
    with pytest.raises(Entered):
        R.rate("bestiarium", f"sym:./{spec}", games=2)
    assert entered[-1][1:] == ["random", "greedy", "search:15", spec]


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["--policy", "nonsense"], "error: unknown policy 'nonsense' for bestiarium"),
        (["--policy", "search:abc"], "error: "),
        (["--policy", "greedy", "--seed", "-1"], "error: --seed -1: give a whole number from 0 to 4294967295"),
        (
            ["--policy", "greedy", "--games", str(10**9)],
            "error: --games 1000000000 makes 2,000,000,000 games (2 pairs)",
        ),
    ],
)
def test_rate_refuses_a_bad_policy_seed_or_count_in_one_line(argv, message, ladders, monkeypatch, capsys, no_hang):
    """Tracebacks before (``evaluate`` printed ``error:`` for the same values); a huge count built its schedule."""
    R.ladder_path("bestiarium").write_text(json.dumps(LADDER))
    played = []
    monkeypatch.setattr("training.arena.tournament.run_task", lambda job: played.append(job))
    code, out, err = _rate(["--game", "bestiarium", "--games", "2", *argv], capsys)
    assert code == 2 and out == "" and "Traceback" not in err and played == []
    assert err.count("\n") == 1 and err.startswith(message), err
