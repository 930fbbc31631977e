"""Battle Sheep: split-and-slide sheep stacks on a pasture built from hex tiles."""

from __future__ import annotations

from typing import Any

from envs.common.registry import GameInfo


def _no_random_pasture(options: dict[str, Any]) -> str | None:
    """OpenSpiel: ``pasture="random"`` is chance, and the game is registered as deterministic."""
    if options.get("pasture") == "random":
        return (
            "pasture='random' lays the pasture by chance; barnyard_battle_sheep is registered as deterministic "
            "(the players build the pasture: pasture='build')"
        )
    return None


INFO = GameInfo(
    name="battle_sheep",
    title="Battle Sheep",
    package="envs.battle_sheep",
    summary="players build the board, then split and slide stacks",
    rules_summary=(
        "Goal: occupy the most pasture hexes (tie: the largest connected herd). Build phase (unless pasture="
        '"random"): in turn each player adds a 4-hex tile touching the pasture ("T q,r/o": anchor hex q,r in axial '
        "coordinates, orientation o 0-2). Then each player puts a stack of 16 sheep on an empty hex of the "
        'pasture\'s outer border ("S q,r"). Each turn you split one of your stacks: part of it (k sheep, leaving at '
        "least 1) slides in a straight line, direction E NE NW W SW SE, as far as it can before another stack or the "
        'edge ("q,r DIR k", e.g. "-1,2 NE 5"). A player who cannot move is skipped; the game ends when nobody can '
        "move."
    ),
    # Hex canvas (C, 23, 23) (canvas radius 11; the runs quoted below used radius 9, (C, 19, 19)), 94 actions per
    # cell: conv trunk with a per-cell head; ~27 decisions a game.
    # Batches of ~1k at lr 5e-4 learned faster per sample than 2k at 3e-4 in 30k-sample trial runs.
    # The update (convolutions' backward pass) dominates the time: two torch threads (the env workers idle
    # while it runs: 107 against 77 samples/s) and two epochs per batch (fresher samples for the same compute).
    # Shaping 0.05 per pasture + movable sheep of margin (BattleSheepGame.shaping_potential). At lr 5e-4 the
    # updates were tiny (approx_kl ~0.001, clipfrac ~0.01); lr 1.5e-3 (approx_kl ~0.005) beat greedy 0.42 in
    # training at 330k samples against 0.14 at 5e-4. Half the games against other opponents, 20% of all against
    # greedy: the shipped policy beat greedy 0.618 over 400 games after 187k samples, where 4% of games against
    # greedy gave 0.359 after 450k (greedy's games cost time: ~220 samples/s instead of ~340).
    ppo_defaults={
        "num_envs": 32,
        "num_steps": 32,
        "conv_channels": 32,
        "conv_layers": 4,
        "learning_rate": 1.5e-3,
        "update_epochs": 2,
        "score_shaping": 0.05,
        "opponent_fraction": 0.5,
        "opponent_mix": "snapshot:0.3,greedy:0.4,random:0.3",
    },
    # The PPO run's network (so --init-from takes a PPO checkpoint) and 32 games searched together are the
    # dataclass's defaults, the rest is training.config.ALPHAZERO_DEFAULTS: nothing of Battle Sheep's own. Trials
    # on the shared 2-core machine, network alone over 100 games: Battle Sheep 0.915 vs random / 0.50 vs greedy
    # after 8 min (10k positions); Bestiarium 0.64 / 0.23 after 8 min (16k positions), 0.76 / 0.69 when started from
    # the shipped PPO policy.
    alphazero_defaults={},
    # K: the best of 4, 8 and 16 over the policy fine-tuned against search; N: a decision, the forward pass
    # included, takes about search's time (600 simulations). Measurements: checkpoints/README.md.
    guided_defaults=(4, 500),
    openspiel=(
        {
            "long_name": "Barnyard Battle Sheep",
            "min_players": 2,
            "max_players": 4,
            "unsupported": _no_random_pasture,
            "none_options": (("canvas_radius", 0),),
        },
    ),
    test_option_sets=(
        *({"num_players": n, "pasture": p} for n in (2, 3, 4) for p in ("build", "random")),
        {"end_rule": "splits"},
    ),
    spec_symbols=lambda game: {"n": game.num_players},
    web_board="battle_sheep",
    web_test_options={"num_players": 2},
)
"""The descriptor: what generic code reads about this game (``envs.common.registry``)."""
