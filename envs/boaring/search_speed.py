"""Seconds per move of the Boaring ``search`` baseline, compiled and pure Python, on the same decisions in one run.

``python -m envs.boaring.search_speed [--players 4] [--games 2] [--budget 50] [--seed 0]`` collects every
decision with more than one legal action from ``--games`` random games, then times both searches over them,
alternating in blocks so that a busy machine slows both alike. The compiled search's first call (numba's compile
or cache load) is outside the timing.
"""

from __future__ import annotations

import argparse
import time

import numpy as np

from envs.boaring.baselines import search_policy
from envs.boaring.rules import BoaringGame
from envs.common.game import TERMINAL
from envs.common.policies import Decision, decision_from_state


def decisions(game: BoaringGame, games: int, seed: int) -> list[Decision]:
    """The decisions with a choice met in ``games`` random games."""
    rng = np.random.default_rng(seed)
    out = []
    for _ in range(games):
        state = game.initial_state(rng)
        while game.current_player(state) != TERMINAL:
            d = decision_from_state(game, state)
            if d.legal_actions().size > 1:
                out.append(d)
            legal = game.legal_actions(state)
            game.apply(state, legal[rng.integers(len(legal))], rng)
    return out


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--players", type=int, default=4)
    parser.add_argument("--games", type=int, default=2)
    parser.add_argument("--budget", type=int, default=50)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args(argv)
    game = BoaringGame(num_players=args.players)
    todo = decisions(game, args.games, args.seed)
    policies = {"compiled": search_policy(game, seed=1, budget=args.budget),
                "python": search_policy(game, seed=1, budget=args.budget, compiled=False)}
    policies["compiled"].act(todo[0])
    spent = dict.fromkeys(policies, 0.0)
    block = max(1, len(todo) // 8)
    for start in range(0, len(todo), block):
        for name, policy in policies.items():
            t0 = time.perf_counter()
            for d in todo[start:start + block]:
                policy.act(d)
            spent[name] += time.perf_counter() - t0
    for name, seconds in spent.items():
        print(f"search ({name}, budget {args.budget}, {args.players} players): {seconds / len(todo):.5f} s/move "
              f"over {len(todo)} decisions")
    print(f"speed-up: {spent['python'] / spent['compiled']:.1f}x")


if __name__ == "__main__":
    main()
