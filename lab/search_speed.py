"""Seconds per move of a game's ``search`` baseline, compiled and on ``rules.py``, on the same decisions in one run.

``python -m lab.search_speed --game battle_sheep [--players N] [--games 2] [--budget B] [--seed 0]
[--every 1]``: every decision with more than one legal action from ``--games`` random games (every ``--every``-th
of them), both searches (``envs.<game>.baselines.search_policy`` with ``compiled=True`` and ``False``) timed over
them, alternating in blocks so that a busy machine slows both alike. The compiled search's first call (numba's
compile or cache load) is outside the timing. ``--players`` and ``--budget`` default to the game's (below);
``--players`` applies to the games with a ``num_players`` option. The measured numbers are in docs/speed.md.
"""

from __future__ import annotations

import argparse
import importlib
import time

import numpy as np

import envs
from envs.common.game import TERMINAL, Game
from envs.common.policies import Decision, decision_from_state

DEFAULTS: dict[str, dict[str, int]] = {
    "battle_sheep": {"players": 2, "budget": 600, "digits": 4},
    "boaring": {"players": 4, "budget": 50, "digits": 5},
    "beasty_borders": {"players": 2, "budget": 120, "digits": 4},
    "bestiarium": {"players": 2, "budget": 60, "digits": 4},
}
"""Per game: the player count, the search budget (each game's default) and the digits printed."""
NUM_PLAYERS_OPTION = ("battle_sheep", "boaring")
"""The games whose player count is an option."""


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


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--game", choices=sorted(DEFAULTS), required=True)
    parser.add_argument("--players", type=int, default=None)
    parser.add_argument("--games", type=int, default=2)
    parser.add_argument("--budget", type=int, default=None)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--every", type=int, default=1, help="time every n-th decision only")
    args = parser.parse_args(argv)
    defaults = DEFAULTS[args.game]
    players = defaults["players"] if args.players is None else args.players
    budget = defaults["budget"] if args.budget is None else args.budget
    options = {"num_players": players} if args.game in NUM_PLAYERS_OPTION else {}
    game = envs.make_game(args.game, **options)
    search_policy = importlib.import_module(f"envs.{args.game}.baselines").search_policy
    todo = decisions(game, args.games, args.seed)[:: args.every]
    policies = {
        "compiled": search_policy(game, seed=1, budget=budget),
        "python": search_policy(game, seed=1, budget=budget, compiled=False),
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
    digits = defaults["digits"]
    for name, seconds in spent.items():
        print(
            f"search ({name}, budget {budget}, {players} players): {seconds / len(todo):.{digits}f} "
            f"s/move over {len(todo)} decisions"
        )
    print(f"speed-up: {spent['python'] / spent['compiled']:.1f}x")


if __name__ == "__main__":
    main()
