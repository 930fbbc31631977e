"""Does the canvas edge ever bind? ``python -m lab.canvas_stats [--games N] [--players 2 3 4]``.

Plays random builds (every legal tile placement equally likely, as ``pasture="random"`` does: the most sprawling
play there is) and, before every placement after the first, counts the placements that the edgeless rules
allow (the rulebook's table has no edge) and those that the canvas allows. The edgeless count is taken on a hex
grid 4 larger than the canvas, in the same frame: every tile touching the pasture lies within hex distance 3
of a pasture cell (RULES.md, "The frame"), so that grid holds all of them. Reports, per player count, the
share of builds in which the canvas allowed fewer placements at some step, the share of such steps, and how
far the pasture's enclosing hexagon reached (its radius, largest over each build's steps before a placement).
"""

from __future__ import annotations

import argparse
from collections import Counter
from dataclasses import dataclass, field

import numpy as np

from envs.battle_sheep.actions import BUILD
from envs.battle_sheep.rules import BattleSheepGame, tile_geometry
from envs.common.hexgrid import HexGrid, enclosing_hexagon


@dataclass
class EdgeReport:
    """What :func:`edge_losses` counted."""

    builds: int = 0
    builds_with_loss: int = 0
    steps: int = 0
    steps_with_loss: int = 0
    placements_lost: int = 0
    largest_radius: Counter = field(default_factory=Counter)
    """Per build, the largest enclosing-hexagon radius of the pasture before a placement: how many builds."""


def edge_losses(num_players: int, games: int, seed: int = 0, canvas_radius: int | None = None) -> EdgeReport:
    """Random builds on the canvas, counting at every step the edgeless placements the canvas does not allow."""
    game = BattleSheepGame(num_players=num_players, canvas_radius=canvas_radius)
    grid = game.grid
    big = HexGrid(game.canvas_radius + 4)
    big_cells, big_ids, big_table, big_ring = tile_geometry(big)
    to_big = np.array([big.index[c] for c in grid.coords], dtype=np.int64)
    # a canvas tile id (3 * anchor + orientation) -> the same tile's id on the big grid
    tile_to_big = 3 * to_big[np.arange(3 * grid.num_cells) // 3] + np.arange(3 * grid.num_cells) % 3
    rng = np.random.default_rng(seed)
    report = EdgeReport()
    for _ in range(games):
        state = game.initial_state(rng)
        lost_here = False
        widest = 0
        while state.phase == BUILD:
            canvas_legal = np.flatnonzero(game.legal_tiles(state))
            if state.pasture:
                pasture = np.zeros(big.num_cells + 1, dtype=bool)
                pasture[to_big[state.pasture]] = True
                edgeless = np.zeros(len(big_cells), dtype=bool)
                edgeless[big_ids] = ~pasture[big_table].any(axis=1) & pasture[big_ring].any(axis=1)
                assert edgeless[tile_to_big[canvas_legal]].all(), "the canvas allowed a placement the rules do not"
                lost = int(edgeless.sum()) - len(canvas_legal)
                report.steps += 1
                report.steps_with_loss += lost > 0
                report.placements_lost += lost
                lost_here |= lost > 0
                widest = max(widest, enclosing_hexagon([grid.coords[c] for c in state.pasture])[1])
            game.apply(state, int(canvas_legal[rng.integers(len(canvas_legal))]), rng)
        report.builds += 1
        report.builds_with_loss += lost_here
        report.largest_radius[widest] += 1
    return report


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--games", type=int, default=10_000, help="random builds per player count")
    parser.add_argument("--players", type=int, nargs="+", default=[2, 3, 4])
    parser.add_argument("--radius", type=int, default=None, help="canvas radius (default: the player count's)")
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args(argv)
    for n in args.players:
        game = BattleSheepGame(num_players=n, canvas_radius=args.radius)
        rep = edge_losses(n, args.games, args.seed, args.radius)
        radii = ", ".join(f"{r}: {k}" for r, k in sorted(rep.largest_radius.items()))
        print(
            f"{n} players, canvas radius {game.canvas_radius}: the canvas allowed fewer placements than the "
            f"edgeless rules in {rep.builds_with_loss} of {rep.builds} random builds "
            f"({rep.builds_with_loss / rep.builds:.2%}), at {rep.steps_with_loss} of {rep.steps} steps "
            f"({rep.placements_lost} placements in all); largest pasture radius before a placement "
            f"(radius: builds) {radii}"
        )


if __name__ == "__main__":
    main()
