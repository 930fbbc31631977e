"""Bestiarium: hexhex creatures that eat and grow (engine in ``rules.py``, AEC env in ``env.py``)."""

from __future__ import annotations

from envs.common.registry import GameInfo

INFO = GameInfo(
    name="bestiarium",
    title="Bestiarium",
    package="envs.bestiarium",
    version=1,
    summary="polyhex creatures eat and grow; size-by-size scoring cascade",
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
