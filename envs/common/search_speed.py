"""Seconds per move of a game's ``search`` baseline, compiled and on ``rules.py``, on the same decisions in one run.

Each game's ``envs/<game>/search_speed.py`` calls :func:`main` with its engine, its ``search_policy`` and its
defaults. The script collects every decision with more than one legal action from ``--games`` random games
(every ``--every``-th of them), then times both searches over them, alternating in blocks so that a busy machine
slows both alike. The compiled search's first call (numba's compile or cache load) is outside the timing.
"""

from __future__ import annotations

import argparse
import time
from collections.abc import Callable
from typing import Any

import numpy as np

from envs.common.game import TERMINAL, Game
from envs.common.policies import Decision, decision_from_state


def decisions(game: Game, games: int, seed: int) -> list[Decision]:
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


def main(
    make_game: Callable[[int], Game],
    search_policy: Callable[..., Any],
    players: int,
    budget: int,
    doc: str,
    digits: int = 4,
    argv: list[str] | None = None,
) -> None:
    """Parse ``argv`` (``--players`` / ``--budget`` default to the game's), time both searches, print s/move."""
    parser = argparse.ArgumentParser(description=doc, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--players", type=int, default=players)
    parser.add_argument("--games", type=int, default=2)
    parser.add_argument("--budget", type=int, default=budget)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--every", type=int, default=1, help="time every n-th decision only")
    args = parser.parse_args(argv)
    game = make_game(args.players)
    todo = decisions(game, args.games, args.seed)[:: args.every]
    policies = {
        "compiled": search_policy(game, seed=1, budget=args.budget),
        "python": search_policy(game, seed=1, budget=args.budget, compiled=False),
    }
    policies["compiled"].act(todo[0])
    spent = dict.fromkeys(policies, 0.0)
    block = max(1, len(todo) // 8)
    for start in range(0, len(todo), block):
        for name, policy in policies.items():
            t0 = time.perf_counter()
            for d in todo[start : start + block]:
                policy.act(d)
            spent[name] += time.perf_counter() - t0
    for name, seconds in spent.items():
        print(
            f"search ({name}, budget {args.budget}, {args.players} players): {seconds / len(todo):.{digits}f} "
            f"s/move over {len(todo)} decisions"
        )
    print(f"speed-up: {spent['python'] / spent['compiled']:.1f}x")
