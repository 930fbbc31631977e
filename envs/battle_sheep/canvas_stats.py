"""How often does the fixed canvas bind? ``python -m envs.battle_sheep.canvas_stats [--games N]``.

Builds pastures by uniform random legal tile placements (the `pasture="random"` option, the most sprawling play
there is) and reports, per player count, the share of games whose pasture reaches the canvas rim (only then can
the canvas have removed a placement that an unbounded table allows).
"""

from __future__ import annotations

import argparse

import numpy as np

from envs.battle_sheep.rules import NO_PASTURE, BattleSheepGame


def rim_share(num_players: int, games: int, seed: int = 0, canvas_radius: int | None = None) -> float:
    """Share of random builds whose pasture touches the canvas rim."""
    game = BattleSheepGame(num_players=num_players, pasture="random", canvas_radius=canvas_radius)
    rng = np.random.default_rng(seed)
    hits = 0
    for _ in range(games):
        state = game.initial_state(rng)
        hits += any(state.cells[i] != NO_PASTURE and game.grid.on_rim[i] for i in range(game.grid.num_cells))
    return hits / games


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--games", type=int, default=300)
    args = parser.parse_args()
    for n in (2, 3, 4):
        game = BattleSheepGame(num_players=n)
        share = rim_share(n, args.games)
        print(f"{n} players, canvas radius {game.canvas_radius}: pasture reaches the rim in {share:.1%} "
              f"of {args.games} random builds")


if __name__ == "__main__":
    main()
