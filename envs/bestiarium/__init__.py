"""Bestiarium: hexhex creatures that eat and grow (engine in ``rules.py``, AEC env in ``env.py``)."""

from __future__ import annotations

from envs.common.registry import GameInfo

INFO = GameInfo(
    name="bestiarium",
    title="Bestiarium",
    package="envs.bestiarium",
    version=1,
    summary="polyhex creatures eat and grow; size-by-size scoring cascade",
    rules_summary=(
        "Two players, Black (X, moves first) and White (O), on a hexagonal board; a creature is a connected group "
        'of one colour\'s stones. Your turn: place a stone on an empty cell ("e5": row letter, place in the row) '
        "that touches at most one of your creatures. If that creature C can then grow, it eats every adjacent enemy "
        "creature of its size and a different shape, and you add one stone to it on an empty cell touching it and "
        'no other friendly creature ("+e5"); this repeats while it eats. Pass ("pass") only when you cannot '
        "place. Two passes in a row end the game; creatures are compared size by size from the largest: the "
        "number of creatures of a size with different shapes times size squared scores for you (same shapes score "
        "against you); the first size that differs decides."
    ),
    # Grid planes (C, 11, 11), 91 cells + pass: conv trunk with a per-cell head (pass from the pooled features).
    # lr 5e-4 / lambda 0.9 beat random 0.74 and greedy 0.38 after 83k samples (100 games each). 20% of games
    # against greedy (instead of 4%) took the policy from 0.480 to 0.532 against greedy (400 games).
    ppo_defaults={
        "num_envs": 32,
        "num_steps": 64,
        "conv_channels": 32,
        "conv_layers": 3,
        "learning_rate": 5e-4,
        "gae_lambda": 0.9,
        "opponent_fraction": 0.4,
        "opponent_mix": "snapshot:0.4,greedy:0.5,random:0.1",
    },
    # The PPO run's network (envs/battle_sheep/__init__.py says why; the rest: training.config.ALPHAZERO_DEFAULTS).
    alphazero_defaults={"conv_layers": 3},
    # K: the least bad of 4-24; N: about search's time a decision (60 simulations). checkpoints/README.md.
    guided_defaults=(24, 20),
    openspiel=({"long_name": "Barnyard Bestiarium", "min_players": 2, "max_players": 2},),
    test_option_sets=tuple(
        {"board_size": s, "shape_equivalence": e} for s in (5, 6, 7) for e in ("free", "one_sided", "fixed")
    ),
    spec_symbols=lambda game: {},
    web_board="bestiarium",
    web_test_options={"board_size": 5},
)
"""The descriptor: what generic code reads about this game (``envs.common.registry``)."""
