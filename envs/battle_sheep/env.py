"""Battle Sheep as a PettingZoo AEC environment.

``from envs import battle_sheep_v0; env = battle_sheep_v0.env(num_players=2)``

Options
    .. options: generated from OPTIONS in rules.py by ``python -m envs.common.options``; do not edit
    ``num_players``: 2 .. 4; default ``2``. Players, in clockwise turn order.
    ``pasture``: ``"build"`` | ``"random"``; default ``"build"``. "build": the players build the pasture from their 4
        tiles each (the rulebook); "random": the env lays a legal random pasture from the same tiles (seeded) and the
        game starts with stack placement.
    ``end_rule``: ``"battle_sheep"`` | ``"splits"``; default ``"battle_sheep"``. "battle_sheep": blocked players are
        skipped, the game ends when nobody can move, most pastures wins (tie: largest herd; still tied: draw); "splits"
        (2 players only): the first player unable to move loses.
    ``canvas_radius``: 6 .. 16; default 11, 13, 15 for 2, 3, 4 players. Radius of the hexagonal canvas the pasture is
        built on, at least 6, 7, 7 for 2, 3, 4 players; its frame follows the pasture (RULES.md, 'Canvas size').
    ``render_mode`` (the env only): ``None`` (default) | ``"human"`` | ``"ansi"`` | ``"rgb_array"``.
    .. end of options

Agents
    ``player_0 .. player_{n-1}`` in clockwise turn order; ``player_0`` places the first tile and the first stack,
    and moves first.

Actions
    ``Discrete(4N + 90N)`` over the canvas's ``N`` cells: tile placements ``[0, 3N)``, stack placements
    ``[3N, 4N)``, moves ``[4N, 94N)`` as (cell, direction, count); see ``envs/battle_sheep/RULES.md``.

Observation
    ``{"observation": float32 (15 + 3n, 2R+1, 2R+1), "action_mask": int8 (94N,)}``: planes on the square
    embedding of the hex canvas; seats are relative (index 0 is the observer, then the others clockwise):

    ================  ==========================================================================================
    plane             content
    ================  ==========================================================================================
    0                 1 on canvas cells
    1                 1 on pasture hexes
    2                 1 on free pasture hexes
    3 .. 2+n          1 where relative seat i has a stack
    3+n .. 2+2n       stack height / 16 of relative seat i
    3+2n .. 2+3n      constant: tiles relative seat i still has to place / 4
    3+3n .. 5+3n      constant one-hot phase: build, place, move (all 0 when the game is over)
    6+3n              derived: free neighbouring pasture hexes / 6, on every pasture hex
    7+3n .. 12+3n     derived, one per direction E NE NW W SW SE: on each of my stacks that can split that way,
                      (1 + free neighbours of the cell the slide stops on) / 7
    13+3n             derived: 1 on every cell a slide of mine can stop on
    14+3n             derived: 1 on every cell a slide of another player's can stop on
    ================  ==========================================================================================

Rewards
    At the end only: each player gets (players beaten - players beating them) / (n - 1) under the ranking
    (pastures, largest herd); two players: +1 / -1, 0 for a draw. Rewards sum to zero.

Version history
    =======  ========  ==========================================================================================
    version  package   changes
    =======  ========  ==========================================================================================
    v0       0.1.0     first release
    =======  ========  ==========================================================================================
"""

from __future__ import annotations

from envs.battle_sheep.rules import BattleSheepGame
from envs.common.aec import BarnyardAECEnv


class raw_env(BarnyardAECEnv):
    """Battle Sheep without wrappers: illegal actions raise ``IllegalActionError``."""

    metadata = {**BarnyardAECEnv.metadata, "name": "battle_sheep_v0"}
    game_class = BattleSheepGame
