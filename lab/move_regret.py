"""How much better than a random move each player's move is, by Bestiarium's flat Monte Carlo action values.

Why: :mod:`lab.mc_distill` fits a network to per-action values; this measures whether those values separate
the players at all. Positions are sampled from games of the ``search`` baseline against itself (the first
``--random-plies`` plies uniformly random; each later position kept with probability 1/4, one-action positions
skipped). At each kept position two independent value maps ``A`` and ``B`` are drawn
(:meth:`envs.bestiarium.search.CompiledSearch.action_values`, ``--rollouts`` playouts per legal action each), and
every policy in ``--policies`` chooses a move. Reported per policy, over the positions:

* ``gain``: ``B[move] - mean(B over the legal moves)``, the move's value above a uniformly random move's. ``B``
  played no part in any choice, so this is unbiased; ``argmax A`` (the distillation target's own choice) is
  reported the same way.
* ``regret_A``: ``max(A) - A[move]``, what :mod:`lab.mc_distill` reports as held-out regret. Its ``max`` is
  taken over noisy means and sits above the true best by noise alone, which the ``uniform`` row (the mean over
  the legal moves, gain 0 by definition) shows.

``python -m lab.move_regret --positions 120 --rollouts 128 --seed 1``
"""

from __future__ import annotations

import argparse
import time
from typing import Any

import numpy as np
import torch

from envs.bestiarium.rules import BestiariumGame
from envs.bestiarium.search import CompiledSearch
from envs.common.policies import decision_from_state, make_baseline
from training.arena.players import make_policy


def measure(policies: list[str], positions: int, rollouts: int, random_plies: int, seed: int) -> dict[str, Any]:
    """The table described in the module docstring, as ``{policy: {"gain": (mean, half-width), ...}}``."""
    torch.set_num_threads(1)
    game = BestiariumGame()
    rng = np.random.default_rng([seed, 2])
    values = CompiledSearch(game, 1, 1.4, depth=20, scale=2.0)
    players = {spec: make_policy(spec, "bestiarium", seed=seed * 31 + i) for i, spec in enumerate(policies)}
    gain: dict[str, list[float]] = {name: [] for name in ["argmax A", "uniform", *policies]}
    regret: dict[str, list[float]] = {name: [] for name in gain}
    kept, games = 0, 0
    while kept < positions:
        mover = make_baseline("bestiarium", "search", seed=seed * 1000 + games, engine=game)
        state = game.initial_state()
        games += 1
        while game.current_player(state) >= 0 and not game.is_truncated(state) and kept < positions:
            legal = np.asarray(game.legal_actions(state))
            if state.plies >= random_plies and legal.size > 1 and rng.random() < 0.25:
                a_map = values.action_values(state, rng, rollouts)
                b_map = values.action_values(state, rng, rollouts)
                b_mean = float(np.mean(b_map[legal]))
                a_best = float(np.nanmax(a_map))
                moves = {"argmax A": int(legal[np.argmax(a_map[legal])])}
                for spec, policy in players.items():
                    moves[spec] = int(policy.act(decision_from_state(game, state)))
                for name, move in moves.items():
                    gain[name].append(float(b_map[move]) - b_mean)
                    regret[name].append(a_best - float(a_map[move]))
                gain["uniform"].append(0.0)
                regret["uniform"].append(a_best - float(np.mean(a_map[legal])))
                kept += 1
            move = (
                int(rng.choice(legal))
                if state.plies < random_plies
                else int(mover.act(decision_from_state(game, state)))
            )
            game.apply(state, move)

    def summary(v: list[float]) -> tuple[float, float]:
        x = np.asarray(v)
        return float(x.mean()), float(1.96 * x.std(ddof=1) / np.sqrt(len(x)))

    return {name: {"gain": summary(gain[name]), "regret_A": summary(regret[name])} for name in gain} | {
        "positions": kept,
        "games": games,
    }


def main(argv: list[str] | None = None) -> dict[str, Any]:
    parser = argparse.ArgumentParser(prog="python -m lab.move_regret", description=__doc__.split("\n")[0])
    parser.add_argument(
        "--policies",
        default="greedy,search,checkpoints/bestiarium/policy.pt",
        help="comma-separated policy specs, as `python -m training evaluate` takes them",
    )
    parser.add_argument("--positions", type=int, default=120)
    parser.add_argument("--rollouts", type=int, default=128, help="playouts per legal action, per value map")
    parser.add_argument("--random-plies", type=int, default=4)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args(argv)
    start = time.time()
    table = measure(
        [p for p in args.policies.split(",") if p], args.positions, args.rollouts, args.random_plies, args.seed
    )
    print("| move | gain over a random move (B) | regret under A |\n|---|---|---|")
    for name, row in table.items():
        if isinstance(row, dict):
            (g, gh), (r, rh) = row["gain"], row["regret_A"]
            print(f"| {name} | {g:+.4f} +- {gh:.4f} | {r:.4f} +- {rh:.4f} |")
    print(f"{table['positions']} positions of {table['games']} games, {time.time() - start:.0f} s")
    return table


if __name__ == "__main__":
    main()
