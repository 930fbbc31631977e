"""Adversarial search for builds that get stuck: ``python -m lab.stuck_search [--radius 4 5 6 7]``.

A build is stuck when the player to place a tile has no legal placement (every tile touching the pasture
overlaps it or leaves the canvas). For each canvas radius this runs beam searches over tile placements (in
the engine, so in the re-centred frame of RULES.md) that keep, at every step, the ``--beam`` pastures with the
fewest legal placements (``--score room``) or the widest pastures, then the fewest placements (``--score
spread``), ties broken at random (one seed per search; pastures equal up to translation are kept once), up to
15 tiles placed (the most a 4-player build places before its last tile). It reports the fewest
tiles after which a stuck pasture was reached, and so which player counts (4n - 1 tiles before the last
placement) that radius cannot always serve. Finding none proves nothing; finding one does (it is replayed
through the engine and printed in tile notation).
"""

from __future__ import annotations

import argparse

import numpy as np

from envs.battle_sheep.actions import BUILD
from envs.battle_sheep.rules import BattleSheepGame, BattleSheepState
from envs.common.hexgrid import enclosing_hexagon


class AnyCanvasGame(BattleSheepGame):
    """Battle Sheep that accepts the canvases the game refuses (radius 4 up), to search them."""

    min_canvas_radius = {2: 4, 3: 4, 4: 4}


MAX_TILES_BEFORE_LAST = 15
"""4 players place 16 tiles: the 16th placement is the last that can find no room."""


def beam_search(
    radius: int, beam: int, seed: int, score: str = "room", max_tiles: int = MAX_TILES_BEFORE_LAST
) -> tuple[int, list[int]] | None:
    """``(tiles placed, actions)`` of the first stuck build the search reaches, or None."""
    game = AnyCanvasGame(num_players=4, canvas_radius=radius)
    rng = np.random.default_rng(seed)
    layer: list[tuple[BattleSheepState, list[int]]] = [(game.initial_state(rng), [])]
    for placed in range(1, max_tiles + 1):
        children: dict[frozenset[int], tuple[float, BattleSheepState, list[int]]] = {}
        for state, actions in layer:
            for action in game.legal_actions(state):
                child = state.clone()
                game.apply(child, action)
                key = frozenset(child.pasture)
                if key in children:
                    continue
                room = int(game.legal_tiles(child).sum())
                if room == 0 and child.phase == BUILD:
                    return placed, actions + [action]
                rank = room + rng.random()
                if score == "spread":
                    rank -= 1000 * enclosing_hexagon([game.grid.coords[c] for c in child.pasture])[1]
                children[key] = (rank, child, actions + [action])
        ranked = sorted(children.values(), key=lambda entry: entry[0])[:beam]
        layer = [(state, actions) for _, state, actions in ranked]
    return None


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--radius", type=int, nargs="+", default=[4, 5, 6, 7])
    parser.add_argument("--beam", type=int, default=64, help="pastures kept per step")
    parser.add_argument("--seeds", type=int, default=10, help="searches per radius and score")
    parser.add_argument("--score", nargs="+", choices=["room", "spread"], default=["room", "spread"])
    args = parser.parse_args(argv)
    for radius in args.radius:
        best: tuple[int, list[int]] | None = None
        for score in args.score:
            for seed in range(args.seeds):
                found = beam_search(radius, args.beam, seed, score)
                if found and (best is None or found[0] < best[0]):
                    best = found
        searches = f"{args.seeds * len(args.score)} searches ({', '.join(args.score)}), beam {args.beam}"
        if best is None:
            print(f"radius {radius}: no stuck build found ({searches}, up to {MAX_TILES_BEFORE_LAST} tiles)")
            continue
        tiles, actions = best
        game = AnyCanvasGame(num_players=4, canvas_radius=radius)
        state = game.initial_state(np.random.default_rng(0))
        notation = []
        for action in actions:
            notation.append(game.action_to_str(state, action))
            game.apply(state, action)
        players = [n for n in (2, 3, 4) if 4 * n - 1 >= tiles]
        print(
            f"radius {radius}: stuck after {tiles} tiles ({searches}; so not always playable for {players} "
            f"players): {'; '.join(notation)}"
        )


if __name__ == "__main__":
    main()
