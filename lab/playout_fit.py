"""Bestiarium's learned playout: the weights of the compiled search's playout policy, fitted by maximum likelihood to
a stronger player's moves (as Monte Carlo Go programs learned their playout patterns from expert moves).

The playout policy (``envs/bestiarium/search.py``, :data:`~envs.bestiarium.search.PLAYOUT_FEATURES`) draws each
move with probability ``exp(w . f(move))`` over the legal moves, ``f`` seven cheap 0/1 features of the move.

1. **Positions.** ``--games`` games between two copies of ``--mover`` (a policy spec of Bestiarium's baselines,
   default ``search``), the first ``--random-plies`` plies and each later move with probability ``--epsilon``
   uniformly random. Each position with at least two legal moves is kept with probability ``--label-fraction``.
2. **Labels.** The move ``--teacher`` (default ``search:400``) would play there, and every legal move's feature code
   (:meth:`~envs.bestiarium.search.CompiledSearch.move_codes`).
3. **Fit.** The conditional logit ``P(a) = exp(w . f(a)) / sum_b exp(w . f(b))`` over each position's legal moves,
   by Newton's method on the log-likelihood minus ``--l2 * |w|^2 / 2`` (per position). ``--table`` fits one
   log-weight per feature code instead (128 numbers: every combination of the features on its own, as a pattern
   table); ``--sharpen`` multiplies the fitted weights (a playout temperature). Printed: the mean log-likelihood
   per position of the (sharpened) weights and of uniform play (w = 0), and how often the teacher's move has the
   highest weight. Everything is seeded: the same ``--seed`` gives the same positions and weights.
4. **Output.** The weights as the tuple for ``envs.bestiarium.baselines.PLAYOUT_WEIGHTS``; ``--out`` writes them
   with the report as JSON.

``python -m lab.playout_fit --games 40 --seed 1 --teacher greedy --sharpen 2`` (``search_playout``'s
weights; docs/baselines.md, "A learned playout")
"""

from __future__ import annotations

import argparse
import json
import time
from pathlib import Path
from typing import Any

import numpy as np

from envs.bestiarium.rules import BestiariumGame
from envs.bestiarium.search import N_CODES, PLAYOUT_FEATURES, CompiledSearch, feature_bits
from envs.common.policies import decision_from_state, make_baseline


def generate(args: argparse.Namespace) -> tuple[np.ndarray, np.ndarray]:
    """The labelled positions: per position the count of legal moves of each feature code (P, N_CODES) and the
    teacher's move's code (P,)."""
    game = BestiariumGame(board_size=args.board_size)
    features = CompiledSearch(game, budget=1, exploration=1.4, depth=0, scale=1.0)
    rng = np.random.default_rng(args.seed)
    teacher = make_baseline("bestiarium", args.teacher, seed=args.seed + 1, engine=game)
    counts: list[np.ndarray] = []
    chosen: list[int] = []
    for g in range(args.games):
        movers = [
            make_baseline("bestiarium", args.mover, seed=args.seed * 1000 + 2 * g + i, engine=game) for i in (0, 1)
        ]
        state = game.initial_state()
        plies = 0
        while not game.is_terminal(state):
            d = decision_from_state(game, state)
            legal = d.legal_actions()
            if legal.size >= 2 and rng.random() < args.label_fraction:
                codes = features.move_codes(state)
                a = int(teacher.act(d))
                counts.append(np.bincount(codes[legal], minlength=N_CODES))
                chosen.append(int(codes[a]))
            if plies < args.random_plies or rng.random() < args.epsilon:
                action = int(legal[rng.integers(legal.size)])
            else:
                action = int(movers[d.seat].act(d))
            game.apply(state, action)
            plies += 1
    return np.array(counts, dtype=np.float64).reshape(-1, N_CODES), np.array(chosen, dtype=np.int64)


def log_likelihood(w: np.ndarray, counts: np.ndarray, chosen: np.ndarray, bits: np.ndarray) -> float:
    """The mean log-probability of the chosen moves under weights ``w``."""
    logits = bits @ w
    top = logits.max()
    norm = np.log(counts @ np.exp(logits - top)) + top
    return float(np.mean(logits[chosen] - norm))


def design(table: bool) -> np.ndarray:
    """Each feature code's regressors: its feature bits, or (``table``) one indicator per code."""
    return np.eye(N_CODES) if table else feature_bits(np.arange(N_CODES))


def fit(counts: np.ndarray, chosen: np.ndarray, l2: float, iterations: int = 50, table: bool = False) -> np.ndarray:
    """The penalised maximum-likelihood weights of the conditional logit (Newton's method from w = 0): one per
    feature, or (``table``) one log-weight per feature code."""
    bits = design(table)
    f = bits.shape[1]
    w = np.zeros(f)
    n = chosen.size
    target = bits[chosen].sum(axis=0)
    for _ in range(iterations):
        p = counts * np.exp(bits @ w)[None, :]
        p /= p.sum(axis=1, keepdims=True)
        mean = p @ bits  # (P, F): the expected features per position
        grad = target - mean.sum(axis=0) - l2 * n * w
        second = np.einsum("pc,cf,cg->fg", p, bits, bits) - mean.T @ mean
        hess = -second - l2 * n * np.eye(f)
        step = np.linalg.solve(hess, grad)
        w = w - step
        if np.abs(step).max() < 1e-10:
            break
    return w


def main(argv: list[str] | None = None) -> dict[str, Any]:
    parser = argparse.ArgumentParser(prog="python -m lab.playout_fit", description=__doc__.split("\n")[0])
    parser.add_argument("--games", type=int, default=40, help="games to take positions from")
    parser.add_argument("--mover", default="search", help="the policy spec that plays the games")
    parser.add_argument("--teacher", default="search:400", help="the policy spec whose moves are fitted")
    parser.add_argument("--random-plies", type=int, default=2)
    parser.add_argument("--epsilon", type=float, default=0.1, help="share of later moves played at random")
    parser.add_argument("--label-fraction", type=float, default=0.5)
    parser.add_argument("--l2", type=float, default=1e-3, help="penalty per position on |w|^2 / 2")
    parser.add_argument(
        "--table", action="store_true", help="fit one log-weight per feature code (a pattern table) instead"
    )
    parser.add_argument("--sharpen", type=float, default=1.0, help="multiply the fitted weights (a temperature)")
    parser.add_argument("--board-size", type=int, default=6)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--out", default=None, help="write the weights and the report here (JSON)")
    args = parser.parse_args(argv)
    start = time.perf_counter()
    counts, chosen = generate(args)
    if chosen.size == 0:
        raise SystemExit("no labelled positions: more --games or a larger --label-fraction")
    w = fit(counts, chosen, args.l2, table=args.table)
    w = w * args.sharpen
    bits = design(args.table)
    logits = bits @ w
    best = np.where(counts > 0, logits[None, :], -np.inf).max(axis=1)
    report: dict[str, Any] = {
        "positions": int(chosen.size),
        "weights": [round(float(x), 4) for x in w],
        "features": list(PLAYOUT_FEATURES),
        "log_likelihood": log_likelihood(w, counts, chosen, bits),  # of the sharpened weights
        "log_likelihood_uniform": log_likelihood(np.zeros_like(w), counts, chosen, bits),
        "teacher_move_in_top_code": float(np.mean(logits[chosen] >= best - 1e-12)),
        "seconds": round(time.perf_counter() - start, 1),
        "args": vars(args),
    }
    if not args.table:
        for name, x in zip(PLAYOUT_FEATURES, report["weights"]):
            print(f"  {name:10s} {x:+.4f}")
    print(
        f"{report['positions']} positions: log-likelihood {report['log_likelihood']:.4f} a position "
        f"(uniform {report['log_likelihood_uniform']:.4f}), teacher's move in the top code "
        f"{report['teacher_move_in_top_code']:.3f}, {report['seconds']} s"
    )
    print("PLAYOUT_WEIGHTS = (" + ", ".join(f"{x}" for x in report["weights"]) + ")")
    if args.out:
        Path(args.out).parent.mkdir(parents=True, exist_ok=True)
        Path(args.out).write_text(json.dumps(report, indent=2) + "\n")
    return report


if __name__ == "__main__":
    main()
