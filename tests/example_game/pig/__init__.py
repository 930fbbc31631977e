"""Pig: one die, roll or hold (the example game of ``docs/adding_a_game.md``; engine in ``rules.py``, AEC env in
``env.py``). Registered by ``envs.register_game(pig.INFO)`` (``tests/conftest.py``), or by naming this package
in the environment variable ``BARNYARD_GAMES``."""

from __future__ import annotations

from typing import Any

from envs.common.registry import GameInfo


def _chance_nodes_bound(engine: Any) -> int:
    """OpenSpiel: at most one die roll a ply."""
    return int(engine.max_game_length)


INFO = GameInfo(
    name="pig",
    title="Pig",
    package="pig",
    summary="push your luck with one die: roll again or bank the turn total (the guide's example game)",
    rules_summary=(
        'On your turn you "roll" a die: 2-6 adds to your turn total and you go on; a 1 loses the turn total and '
        'ends your turn. Or "hold": bank the turn total (only when it is above 0) and end your turn. The first '
        "player whose banked score reaches the target wins."
    ),
    # A five-entry vector: a small MLP. Nothing was tuned: these keep a run quick.
    ppo_defaults={"num_envs": 16, "num_steps": 32, "hidden": 64},
    alphazero_defaults={"num_envs": 16, "hidden": 64, "num_workers": 0},
    # two actions: keep both, and about the search's budget
    guided_defaults=(2, 100),
    openspiel=(
        {
            "explicit_chance": True,
            "max_chance_outcomes": 6,
            "chance_nodes_bound": _chance_nodes_bound,
        },
    ),
)
"""The descriptor: what generic code reads about this game (``envs.common.registry``)."""
