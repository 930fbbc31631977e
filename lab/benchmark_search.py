"""Where search-guided self-play spends its time:
``python -m lab.benchmark_search --game GAME [options]``.

Plays ``--moves`` searched self-play moves in each of ``--num-envs`` games (the training loop's
:class:`training.alphazero.selfplay.SelfPlay` with a fresh network, or ``--checkpoint``'s) and reports positions
per second and the split of the search's time: tree bookkeeping (selection and backup), the engine (clone, apply, legal
actions, observations), the network's forward passes, and recording the samples. Then times ``--train-steps``
gradient steps on the positions collected. ``--profile`` adds cProfile's top functions. Any training-config
field can be set (``--simulations 32``, ``--search puct``, ``--torch-threads 1``).

Timings on a shared machine are noisy: compare settings within one run (``--repeat`` alternates them).
"""

from __future__ import annotations

import argparse
import cProfile
import io
import pstats
import time
from typing import Any

import numpy as np
import torch

from training.alphazero.search import NetworkEvaluator
from training.alphazero.selfplay import ReplayBuffer, SelfPlay, build, train_step, value_outputs
from training.config import TrainConfig, make_config
from training.workers import set_threads, thread_counts


def measure(
    config: TrainConfig, moves: int, train_steps: int, checkpoint: str | None = None, profile: bool = False
) -> dict[str, float]:
    """One measurement: self-play seconds by part, positions per second, seconds per gradient step."""
    set_threads(thread_counts(config.torch_threads)[1])
    torch.manual_seed(config.seed)
    game, spec, net = build(config)
    if checkpoint:
        from training.checkpoint import init_weights_from

        init_weights_from(net, spec, checkpoint, config.game, config.env_options)
    net.eval()
    selfplay = SelfPlay(game, config, NetworkEvaluator(net, game.num_players), config.seed)
    buffer = ReplayBuffer(100_000, game.observation_shape, value_outputs(game))
    profiler = cProfile.Profile() if profile else None
    selfplay.play(1)  # warm-up (first allocations, caches)
    if profiler:
        profiler.enable()
    played = selfplay.play(moves)
    if profiler:
        profiler.disable()
    seconds = played["seconds"]
    out = {
        key: played[key]
        for key in ("positions", "select_s", "backup_s", "engine_s", "forward_s", "record_s", "leaves_per_forward")
    }
    out.update(
        seconds=seconds,
        positions_per_s=played["positions"] / seconds,
        other_s=seconds - sum(played[k] for k in ("select_s", "backup_s", "engine_s", "forward_s", "record_s")),
    )
    while len(buffer) < config.train_batch_size:
        for sample in selfplay.play(1)["samples"]:
            buffer.add(*sample)
        if selfplay.symmetry_source is not None and not buffer.symmetries:
            buffer.set_symmetries(game, game.state_from_json(selfplay.symmetry_source))
    if train_steps:
        optimizer = torch.optim.AdamW(net.parameters(), lr=config.learning_rate, weight_decay=config.weight_decay)
        rng = np.random.default_rng(0)
        net.train()
        begin = time.perf_counter()
        for _ in range(train_steps):
            train_step(net, optimizer, buffer.sample(config.train_batch_size, rng, config.augment), config)
        out["train_step_s"] = (time.perf_counter() - begin) / train_steps
        out["train_positions_per_s"] = config.train_batch_size / out["train_step_s"]
    if profiler:
        text = io.StringIO()
        pstats.Stats(profiler, stream=text).sort_stats("tottime").print_stats(18)
        out["profile"] = text.getvalue()
    return out


def main(argv: list[str] | None = None) -> None:
    from envs.common.options import parse_options
    from training.train_cli import build_parser as train_parser

    parser = argparse.ArgumentParser(
        prog="python -m lab.benchmark_search",
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("--game", required=True)
    parser.add_argument("--env-option", action="append", default=[], metavar="KEY=VALUE")
    parser.add_argument("--moves", type=int, default=4, help="searched moves per game")
    parser.add_argument("--train-steps", type=int, default=10)
    parser.add_argument("--checkpoint", default=None, help="start from this checkpoint's weights")
    parser.add_argument("--profile", action="store_true")
    parser.add_argument("--repeat", type=int, default=1)
    parser.add_argument(
        "--compare",
        default="",
        metavar="FIELD=V1,V2",
        help="alternate a config field's values, e.g. torch_threads=1,2 or search=gumbel,puct",
    )
    args, rest = parser.parse_known_args(argv)
    overrides = {}
    fields = train_parser()
    parsed = fields.parse_args(rest)
    for key, value in vars(parsed).items():
        if value is not None and key not in ("resume", "env_option", "game"):
            overrides[key] = value
    options = parse_options(args.env_option, args.game)
    variants: list[dict[str, Any]] = [{}]
    if args.compare:
        field, _, values = args.compare.partition("=")
        kind = type(getattr(make_config(args.game, algo="alphazero"), field))
        variants = [{field: kind(v)} for v in values.split(",")]
    for round_ in range(args.repeat):
        for variant in variants:
            config = make_config(
                args.game, **{"algo": "alphazero", "env_options": options, "progress": False, **overrides, **variant}
            )
            out = measure(config, args.moves, args.train_steps, args.checkpoint, args.profile)
            parts = " ".join(
                f"{k}={out[k]:.2f}" for k in ("select_s", "backup_s", "engine_s", "forward_s", "record_s", "other_s")
            )
            print(
                f"[{round_}] {variant or 'default'} search={config.search} sims={config.simulations} "
                f"games={config.num_envs} threads={config.torch_threads}: {out['positions']} positions in "
                f"{out['seconds']:.2f} s = {out['positions_per_s']:.1f}/s ({parts}; "
                f"{out['leaves_per_forward']:.1f} leaves a forward pass)"
                + (
                    f"; gradient step {1000 * out['train_step_s']:.0f} ms ({out['train_positions_per_s']:.0f} "
                    f"positions/s)"
                    if "train_step_s" in out
                    else ""
                ),
                flush=True,
            )
            if "profile" in out:
                print(out["profile"])


if __name__ == "__main__":
    main()
