"""A fixed rating scale per game: ``barnyard rate --game GAME --policy SPEC [--games N] [--seed S]``.

Win shares and a Bradley-Terry fit of whatever a tournament entered (``barnyard evaluate``) cannot be compared from
one paper to the next. A *ladder* fixes the scale: a set of anchor policies (random, greedy, the search baseline at
a few budgets, the shipped agents) whose ratings were fitted once, from a large seeded round robin, with ``random``
at 0 on the Elo scale (400 log10 of the Bradley-Terry strength). Each game's ladder is stored in the package
(``training/arena/ladders/<game>.json``) with the command that made it; its ``scale`` names it (cite it with the
games and the seed: docs/evaluation.md).

Rating a policy plays it against every anchor, ``--games`` games each on a fixed schedule (seats rotated, each
game seeded from ``--seed``: the harness's ``--versus`` games), and fits its one strength with the anchors' held
fixed (maximum likelihood over every pairwise comparison of its seat with an anchor's seat, ties half; a weak prior
of one draw against ``random`` keeps an unbeaten policy finite). The 95% interval is the fit's +-1.96 standard
errors (from the Fisher information; the anchors count as exact, which is what a fixed scale means). The same
seed gives the same games and the same number.

Building a ladder: ``python -m training.arena.rating --build --game GAME --anchors random greedy search ...
--games 200 --seed 0 --workers 2`` (a full round robin; written to the ladder file).
"""

from __future__ import annotations

import argparse
import datetime
import json
import math
import shlex
import sys
from collections.abc import Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

import numpy as np

import envs
from training.arena.players import make_policy
from training.arena.tournament import (
    PolicyError,
    check_game_count,
    fit_bradley_terry,
    ordered_pairs,
    run_tournament,
    schedule,
)
from training.cli_errors import check_seed, command_errors
from training.stats import wilson_interval

LADDERS = Path(__file__).resolve().parent / "ladders"
"""Where the stored ladders are (``<game>.json``)."""
ELO = 400.0 / math.log(10.0)
"""Elo points per unit of Bradley-Terry log-strength."""
Z95 = 1.959964


class LadderError(ValueError):
    """A game without a stored ladder, or a ladder file that does not belong to it."""


@dataclass(frozen=True)
class Ladder:
    """A game's stored scale: its anchors and their fixed ratings."""

    game: str
    scale: str
    """The scale's name and version, e.g. ``barnyard-beasty_borders-v1`` (cite it)."""
    options: dict[str, Any]
    anchors: tuple[str, ...]
    ratings: tuple[float, ...]
    """Each anchor's rating (Elo; ``random`` 0)."""
    errors: tuple[float, ...]
    """Each anchor's standard error in the round robin's fit (of its rating relative to ``random``)."""
    made_by: str
    """The command that fitted it, and when."""
    weights: tuple[str | None, ...] = ()
    """Per anchor, the sha256 of the weights a checkpoint anchor was fitted with (its sidecar's
    ``weights_sha256``); None for an anchor that names no checkpoint."""


REPOSITORY = Path(__file__).resolve().parents[2]
"""Where a ladder's checkpoint anchors (``checkpoints/<game>/policy.pt``) are found when not under the working
directory."""


def ladder_path(game: str) -> Path:
    return LADDERS / f"{game}.json"


def anchor_spec(spec: str) -> str:
    """The spec the harness loads for an anchor: a checkpoint path relative to the repository where it is not
    found from the working directory; any other spec as it is."""
    if spec.endswith(".pt") and not Path(spec).exists() and (REPOSITORY / spec).exists():
        return str(REPOSITORY / spec)
    return spec


def spec_key(spec: str) -> str:
    """A spec with every file it names as its resolved path (found as :func:`anchor_spec` finds it), so that two
    spellings of one policy (``./checkpoints/x.pt``, ``checkpoints/x.pt``, ``sym:checkpoints/x.pt`` and
    ``sym:/abs/checkpoints/x.pt``) are known as one; any other spec as it is."""
    parts = spec.split(":")
    for k, part in enumerate(parts):
        if part.endswith((".pt", ".json")):
            found = anchor_spec(part)
            if Path(found).exists():
                parts[k] = str(Path(found).resolve())
    return ":".join(parts)


def anchor_weights(spec: str) -> str | None:
    """The sha256 of a checkpoint anchor's weights, from its sidecar (the loader checks the weights against it);
    None for a spec that names no checkpoint. :class:`LadderError` when the checkpoint cannot be read."""
    if not spec.endswith(".pt"):
        return None
    from training.checkpoint import CheckpointError, read_sidecar

    try:
        return str(read_sidecar(anchor_spec(spec))["weights_sha256"])
    except (CheckpointError, KeyError) as err:
        raise LadderError(f"anchor {spec}: cannot read its checkpoint's sidecar ({err})") from None


def check_anchors(ladder: Ladder) -> None:
    """:class:`LadderError` unless every checkpoint anchor still has the weights the ladder was fitted with: a
    scale's ratings hold for those weights only (a new policy is shipped under a new name, or the ladder rebuilt as
    the next version)."""
    for spec, pinned in zip(ladder.anchors, ladder.weights):
        if pinned is None:
            continue
        found = anchor_weights(spec)
        if found != pinned:
            raise LadderError(
                f"anchor {spec} of {ladder.scale} has other weights (sha256 {found[:12] if found else None}...) "
                f"than the scale was fitted with ({pinned[:12]}...); restore that checkpoint or build the next "
                "version of the ladder (--build)"
            )


RATING_LIMIT = 10_000.0
"""The largest rating (and standard error) a ladder may hold, in Elo: far beyond any scale's spread (the stored
ladders span 0 to 1,163), and well inside what the fit can take (``exp`` of a rating over 400 log10 overflows near
123,000)."""


HEX = frozenset("0123456789abcdef")


def _reject_constant(name: str) -> None:
    raise ValueError(f"{name} is not a number JSON allows")


def _number(value: Any, what: str, low: float) -> float:
    """``value`` as a float if it is a finite JSON number from ``low`` to :data:`RATING_LIMIT`; ValueError naming
    ``what`` otherwise."""
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise ValueError(f"{what} is {value!r}, not a number")
    if not low <= float(value) <= RATING_LIMIT:  # NaN fails too
        raise ValueError(f"{what} is {value!r}; give a number from {low:g} to {RATING_LIMIT:g}")
    return float(value)


def parse_ladder(data: Any, game: str) -> Ladder:
    """A ladder file's parsed JSON as a :class:`Ladder`, checked as data: the game's, with a scale name, anchors
    (``random`` among them, at 0), each a distinct spec with a finite rating and standard error in range and at
    most a sha256 of weights. ValueError saying what is wrong otherwise."""
    if not isinstance(data, dict):
        raise ValueError(f"the file holds a {type(data).__name__}, not a ladder (an object)")
    if data.get("game") != game:
        raise LadderError(f"is the ladder of {data.get('game')!r}, not {game!r}")
    scale, options, made_by = data.get("scale"), data.get("options", {}), data.get("made_by", "")
    if not isinstance(scale, str) or not scale:
        raise ValueError("'scale' (the scale's name) is missing")
    if not isinstance(options, dict) or not isinstance(made_by, str):
        raise ValueError("'options' must be an object and 'made_by' a string")
    anchors = data.get("anchors")
    if not isinstance(anchors, list) or not anchors:
        raise ValueError("'anchors' must be a list of anchors, and there are none")
    specs, ratings, errors, weights = [], [], [], []
    for k, anchor in enumerate(anchors):
        if not isinstance(anchor, dict) or not isinstance(anchor.get("spec"), str) or not anchor["spec"]:
            raise ValueError(f"anchor {k} is not an object with a 'spec'")
        spec = anchor["spec"]
        if spec in specs:
            raise ValueError(f"anchor {spec} appears twice")
        sha = anchor.get("weights_sha256")
        if sha is not None and not (isinstance(sha, str) and len(sha) == 64 and all(c in HEX for c in sha)):
            raise ValueError(f"anchor {spec}: 'weights_sha256' is {sha!r}, not a sha256 in hex")
        specs.append(spec)
        ratings.append(_number(anchor.get("rating"), f"anchor {spec}: 'rating'", -RATING_LIMIT))
        errors.append(_number(anchor.get("se"), f"anchor {spec}: 'se'", 0.0))
        weights.append(sha)
    if "random" not in specs or ratings[specs.index("random")] != 0.0:
        raise ValueError("the anchor 'random' (the scale's zero, rated 0) is missing")
    return Ladder(game, scale, dict(options), tuple(specs), tuple(ratings), tuple(errors), made_by, tuple(weights))


def load_ladder(game: str) -> Ladder:
    """The stored ladder of ``game``; :class:`LadderError` naming the file when there is none, it is not JSON, it
    is another game's or its numbers are not a scale's (:func:`parse_ladder`): refused before any game."""
    envs.game_info(game)  # an unknown game is a ValueError naming the games
    path = ladder_path(game)
    if not path.exists():
        raise LadderError(f"{game} has no stored ladder ({path}); build one with --build")
    try:
        data = json.loads(path.read_text(), parse_constant=_reject_constant)
        return parse_ladder(data, game)
    except (OSError, UnicodeDecodeError, ValueError) as err:  # JSONDecodeError and LadderError are ValueErrors
        raise LadderError(f"ladder {path}: {err}") from None


def comparisons_of(result: Any, versus: bool) -> list[tuple[int, int, float]]:
    """(i, j, score of i) for every pairwise comparison of two seats held by different policies in a tournament
    ``result`` played with ``versus`` (the hero's seat against each seat of the field: 1 for a higher return, 0.5
    for an equal one, 0 for a lower one), policy indices as in ``result.policies``."""
    n = envs.make_game(result.game, **result.options).num_players
    tasks = schedule(len(result.policies), n, result.games_per_pair, result.seed, versus)
    out = []
    for task, rec in zip(tasks, result.records):
        a, b = task.pair
        r, hero = rec.returns, task.hero_seat
        for i in range(n):
            if i != hero:
                out.append((a, b, 1.0 if r[hero] > r[i] else 0.0 if r[hero] < r[i] else 0.5))
    return out


def fit_one(ratings: Sequence[float], comparisons: Sequence[tuple[int, float]], prior_games: float = 1.0) -> tuple:
    """The maximum-likelihood rating (Elo) of one player from (anchor, score) comparisons against anchors of fixed
    ``ratings``, with ``prior_games`` virtual draws against a player rated 0; returns (rating, standard error)."""
    strengths = np.asarray(ratings, dtype=np.float64) / ELO
    theta = 0.0
    info = prior_games * 0.25
    for _ in range(100):
        grad = prior_games * (0.5 - 1.0 / (1.0 + math.exp(-theta)))
        p0 = 1.0 / (1.0 + math.exp(-theta))
        info = prior_games * p0 * (1 - p0)
        for j, s in comparisons:
            p = 1.0 / (1.0 + math.exp(strengths[j] - theta))
            grad += s - p
            info += p * (1 - p)
        step = grad / info
        theta += max(-2.0, min(2.0, step))
        if abs(step) < 1e-12:
            break
    return theta * ELO, ELO / math.sqrt(info)


@dataclass
class Rating:
    """What ``barnyard rate`` prints."""

    game: str
    scale: str
    policy: str
    rating: float
    interval: tuple[float, float]
    games: int
    seed: int
    per_anchor: list[tuple[str, float, float, tuple[float, float], int]]
    """(anchor, its rating, the policy's win share against it, the share's Wilson interval, games)."""
    llm: dict[str, int] | None = None
    """The policy's illegal-move counts where it keeps transcripts (``llm:``;
    :func:`training.arena.tournament.llm_counts`), else None."""

    def table(self) -> str:
        """The result as text (the rating, the interval, then one line per anchor)."""
        lines = [
            f"{self.policy} on {self.scale}: {self.rating:.0f} [{self.interval[0]:.0f}, {self.interval[1]:.0f}] "
            f"(95%; {self.games} games against each anchor, seed {self.seed})",
            f"{'anchor':<40} {'rating':>7} {'win share':>10}  95% interval",
        ]
        for anchor, rating, share, (lo, hi), _ in self.per_anchor:
            lines.append(f"{anchor:<40} {rating:7.0f} {share:10.3f}  [{lo:.3f}, {hi:.3f}]")
        if self.llm is not None:
            lines.append("illegal-move rule: " + ", ".join(f"{k.replace('_', ' ')} {v}" for k, v in self.llm.items()))
        return "\n".join(lines)


def rate(game: str, policy: str, games: int = 100, seed: int = 0, workers: int = 1, progress: bool = False) -> Rating:
    """Rate ``policy`` on ``game``'s stored ladder: ``games`` games against each anchor (the harness's versus
    schedule, seeded from ``seed``), its one strength fitted with the anchors' fixed."""
    ladder = load_ladder(game)
    key = spec_key(policy)  # an anchor however it is spelled is that anchor, not another policy
    names = [policy, *(a for a in ladder.anchors if spec_key(a) != key)]
    players = envs.make_game(game, **ladder.options).num_players
    check_game_count(len(names), players, games, versus=True)  # a bad count or policy is refused at once,
    make_policy(policy, game, ladder.options, seed=0)  # before the anchors' checkpoints are read
    check_anchors(ladder)
    specs = [policy, *(anchor_spec(a) for a in names[1:])]
    result = run_tournament(
        game, ladder.options, specs, games=games, seed=seed, workers=workers, progress=progress, versus=True
    )
    result.pairs = [replace(p, a=names[specs.index(p.a)], b=names[specs.index(p.b)]) for p in result.pairs]
    specs = names
    comparisons = []
    for i, j, score in comparisons_of(result, True):  # the policy is index 0, as the hero or in the field
        if i == 0:
            comparisons.append((ladder.anchors.index(specs[j]), score))
        elif j == 0:
            comparisons.append((ladder.anchors.index(specs[i]), 1.0 - score))
    rating, se = fit_one(ladder.ratings, comparisons)
    per_anchor = []
    for pair in result.pairs:
        if pair.a == policy:
            j = ladder.anchors.index(pair.b)
            share = pair.win_share * pair.games
            per_anchor.append(
                (pair.b, ladder.ratings[j], pair.win_share, wilson_interval(share, pair.games), pair.games)
            )
    interval = (rating - Z95 * se, rating + Z95 * se)
    return Rating(game, ladder.scale, policy, rating, interval, games, seed, per_anchor, result.llm.get(policy))


def ordered(result: Any) -> list[tuple[int, int]]:
    """The (hero, field) policy indices of a full tournament's pair rows, in order."""
    n = envs.make_game(result.game, **result.options).num_players
    return ordered_pairs(len(result.policies), n)


def build(
    game: str, anchors: Sequence[str], games: int, seed: int, workers: int, options: dict[str, Any] | None = None
) -> dict[str, Any]:
    """Fit a ladder from a full round robin of ``anchors`` (``random`` first): the Bradley-Terry ratings shifted so
    that ``random`` is 0. Returns the ladder's JSON (the caller writes it)."""
    anchors = list(anchors)
    if "random" not in anchors:
        raise LadderError("a ladder needs the anchor 'random' (its zero)")
    weights = [anchor_weights(a) for a in anchors]  # a checkpoint without a readable sidecar fails before any game
    result = run_tournament(
        game, options, [anchor_spec(a) for a in anchors], games=games, seed=seed, workers=workers, progress=True
    )
    result.pairs = [replace(p, a=anchors[k], b=anchors[j]) for p, (k, j) in zip(result.pairs, ordered(result))]
    comparisons = comparisons_of(result, False)
    elo, se = fit_bradley_terry(len(anchors), comparisons, reference=anchors.index("random"))
    version = 1
    if ladder_path(game).exists():
        version = int(json.loads(ladder_path(game).read_text())["scale"].rsplit("-v", 1)[1]) + 1
    return {
        "game": game,
        "scale": f"barnyard-{game}-v{version}",
        "options": dict(options or {}),
        "anchors": [
            {"spec": spec, "rating": round(float(elo[k]), 1), "se": round(float(se[k]), 1)}
            | ({"weights_sha256": weights[k]} if weights[k] else {})
            for k, spec in enumerate(anchors)
        ],
        "round_robin": {"games_per_pair": games, "seed": seed, "pairs": [p.__dict__ for p in result.pairs]},
        "made_by": f"{datetime.date.today().isoformat()}: python -m training.arena.rating "
        + " ".join(shlex.quote(a) for a in sys.argv[1:]),
    }


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(
        prog="barnyard rate", description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--game", choices=envs.GAMES, required=True)
    parser.add_argument("--policy", help="the policy to rate: a baseline, a checkpoint, search:N, guided:...")
    parser.add_argument("--games", type=int, default=100, help="games against each anchor (round robin: per pair)")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--workers", type=int, default=1)
    parser.add_argument("--build", action="store_true", help="fit and store the game's ladder from --anchors")
    parser.add_argument("--anchors", nargs="+", help="with --build: the anchor policies (random among them)")
    args = parser.parse_args(argv)
    with command_errors(PolicyError):
        check_seed(args.seed)
        if args.build:
            if not args.anchors:
                parser.error("--build needs --anchors")
            data = build(args.game, args.anchors, args.games, args.seed, args.workers)
            LADDERS.mkdir(exist_ok=True)
            ladder_path(args.game).write_text(json.dumps(data, indent=1) + "\n")
            for a in data["anchors"]:
                print(f"{a['spec']:<40} {a['rating']:7.1f} +- {a['se']:.1f}")
            print(f"wrote {ladder_path(args.game)} ({data['scale']})")
            return
        if not args.policy:
            parser.error("give --policy (or --build with --anchors)")
        result = rate(args.game, args.policy, args.games, args.seed, args.workers, progress=True)
        print(result.table())


if __name__ == "__main__":
    main()
