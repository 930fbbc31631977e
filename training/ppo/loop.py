"""PPO self-play: :func:`train` (config -> policy checkpoint).

:func:`train` reads top to bottom: build, (resume,) then per update: anneal the learning rate, collect a batch
(:mod:`training.ppo.collect`), GAE (:mod:`training.ppo.buffer`), PPO update (:mod:`training.ppo.maths`),
snapshot, evaluate, log, checkpoint. The run pieces it is built from (seeding, log, evaluation, saving) are
:mod:`training.run.pieces`, shared with AlphaZero.
"""

from __future__ import annotations

import json
import time
from pathlib import Path
from typing import Any

import numpy as np
import torch

import envs
from training.charts import plot_curves
from training.checkpoint import init_weights_from, load_resume, save_checkpoint, save_resume
from training.config import TrainConfig
from training.networks import build_network, network_spec, num_parameters
from training.ppo.buffer import RolloutBuffer
from training.ppo.collect import SelfPlayCollector
from training.ppo.maths import ppo_update
from training.ppo.warmstart import imitate_greedy
from training.run.pieces import (
    RunLog,
    evaluate,
    evaluation_columns,
    evaluation_due,
    evaluation_kinds,
    evaluation_row,
    progress_bar,
    resolve_device,
    run_directory,
    save_policy,
    seed_everything,
)
from training.workers import set_threads, thread_counts

# ----- PPO self-play ---------------------------------------------------------------------------------------
PPO_COLUMNS = [
    "update",
    "global_step",
    "time_s",
    "samples_per_s",
    "serial_us",
    "workers_us",
    "learning_rate",
    "policy_loss",
    "value_loss",
    "entropy",
    "approx_kl",
    "old_approx_kl",
    "clipfrac",
    "grad_norm",
    "explained_variance",
    "episode_length",
    "episodes",
    "train_win_snapshot",
    "train_win_random",
    "train_win_greedy",
]
"""``log.csv``'s columns before the evaluation's (:func:`evaluation_columns`)."""

LOSS_TAGS = (
    "policy_loss",
    "value_loss",
    "entropy",
    "approx_kl",
    "old_approx_kl",
    "clipfrac",
    "explained_variance",
    "grad_norm",
)
"""Update diagnostics logged to TensorBoard as ``losses/<name>``."""


def train(config: TrainConfig, resume: str | Path | None = None) -> Path:
    """Run PPO self-play for ``config``; returns the path of the final policy checkpoint (``policy.pt``).

    With ``resume`` (a run directory or its ``resume.pt``), the run continues exactly where it was saved:
    weights, optimiser, generators, envs mid-game, pending transitions, opponent pool and counters.
    """
    device = resolve_device(config.device)
    run_dir = run_directory(config)
    game = envs.make_game(config.game, **config.env_options)
    seed_everything(config.seed)
    spec = network_spec(config, game)
    rollout_threads, update_threads = thread_counts(config.torch_threads, small_network=spec["kind"] == "mlp")
    set_threads(update_threads)  # the initialisation rounds by the thread count: fix it, whatever ran before
    net = build_network(spec, game)
    if config.init_from and resume is None:
        init_weights_from(net, spec, config.init_from, config.game, config.env_options)
    warm_start: dict[str, float] = {}
    if config.imitate_greedy and resume is None:
        if config.init_from:
            raise ValueError("imitate_greedy and init_from are two warm starts: choose one")
        warm_start = imitate_greedy(net, config)
    net.to(device)
    optimizer = torch.optim.Adam(net.parameters(), lr=config.learning_rate, eps=config.adam_eps)
    generator = torch.Generator().manual_seed(config.seed)
    shuffle_rng = np.random.default_rng([config.seed, 3])
    state = load_resume(resume, config, game) if resume is not None else None
    engine = None
    if state is not None:  # the saved engine, unless the config names the other (then the collector refuses it)
        saved_engine = state["collector"].get("engine", "reference")
        engine = saved_engine if config.engine in ("auto", saved_engine) else None
    collector = SelfPlayCollector(config, net, generator, engine=engine)
    buffer = RolloutBuffer(game.num_actions, capacity=2 * config.batch_size)
    global_step, update, elapsed = 0, 0, warm_start.get("seconds", 0.0)
    evaluation: dict[str, Any] = {}

    if state is not None:
        net.load_state_dict(state["model"])
        optimizer.load_state_dict(state["optimizer"])
        torch.set_rng_state(state["torch_rng"])
        generator.set_state(state["generator"])
        shuffle_rng.bit_generator.state = json.loads(state["shuffle_rng"])
        collector.load_state_dict(state["collector"])
        global_step, update = int(state["global_step"]), int(state["update"])
        elapsed = float(state["elapsed"])
        evaluation = json.loads(state["evaluation"])

    log = RunLog(
        run_dir,
        PPO_COLUMNS
        + (["train_win_policy"] if config.opponent_policy else [])
        + evaluation_columns(evaluation_kinds(config)),
        resumed=resume is not None,
        texts={
            "config": "```\n" + json.dumps(config.to_dict(), indent=1) + "\n```",
            "network": f"{spec} ({num_parameters(net)} parameters)",
            **({"warm_start": json.dumps(warm_start)} if warm_start else {}),
        },
    )
    bar = progress_bar(config, global_step)
    policy_path = run_dir / "policy.pt"
    budget = 60.0 * config.time_budget_min
    try:
        while global_step < config.total_steps and not (budget and elapsed >= budget):
            start = time.perf_counter()
            lr = config.learning_rate
            if config.anneal_lr:
                lr *= max(0.0, 1.0 - max(global_step / config.total_steps, elapsed / budget if budget else 0.0))
            for group in optimizer.param_groups:
                group["lr"] = lr

            set_threads(rollout_threads)
            cpu, workers_cpu, collector.network_cpu_s = time.thread_time(), collector.workers_cpu_s(), 0.0
            collector.collect(buffer, config.batch_size)
            batch = buffer.build(config.gamma, config.gae_lambda)
            buffer.clear()
            # this process's own work per sample outside the network (the serial part: docs/speed.md)
            serial_us = 1e6 * (time.thread_time() - cpu - collector.network_cpu_s) / len(batch)
            set_threads(update_threads)
            stats = ppo_update(net, optimizer, batch, config, shuffle_rng)
            workers_us = 1e6 * (collector.workers_cpu_s() - workers_cpu) / len(batch)  # the steps run in the update too
            global_step += len(batch)
            update += 1
            seconds = time.perf_counter() - start
            elapsed += seconds
            samples_per_s = len(batch) / seconds

            if config.snapshot_every and update % config.snapshot_every == 0:
                collector.add_snapshot(net)
            evaluated = evaluation_due(
                config, update, final=global_step >= config.total_steps or bool(budget and elapsed >= budget)
            )
            if evaluated:
                evaluation = {
                    "global_step": global_step,
                    "update": update,
                    "vs": evaluate(net, config, seed=config.seed * 100_003 + update),
                }

            train_wins = collector.win_rates()
            lengths = collector.lengths
            row: dict[str, Any] = {
                "update": update,
                "global_step": global_step,
                "time_s": round(elapsed, 2),
                "samples_per_s": round(samples_per_s, 1),
                "serial_us": round(serial_us, 2),
                "workers_us": round(workers_us, 2),
                "learning_rate": lr,
                **stats,
                "episode_length": float(np.mean(lengths)) if lengths else "",
                "episodes": collector.episodes,
                **{f"train_win_{k}": v for k, v in train_wins.items()},
            }
            scalars = {f"losses/{k}": stats[k] for k in LOSS_TAGS}
            scalars["charts/learning_rate"] = lr
            scalars["charts/samples_per_s"] = samples_per_s
            scalars["charts/serial_us"] = serial_us
            if lengths:
                scalars["charts/episode_length"] = float(np.mean(lengths))
            scalars.update({f"charts/train_win_rate_{k}": v for k, v in train_wins.items()})
            if evaluated:
                eval_fields, eval_scalars = evaluation_row(evaluation["vs"])
                row.update(eval_fields)
                scalars.update(eval_scalars)
            log.write(row, scalars, global_step)

            postfix = {"sps": f"{samples_per_s:.0f}", "ent": f"{stats['entropy']:.2f}"}
            for k, result in evaluation.get("vs", {}).items():
                postfix[f"vs_{k}"] = f"{result['win_rate']:.2f}"
            bar.set_postfix(postfix, refresh=False)
            bar.update(min(len(batch), max(0, config.total_steps - bar.n)))

            if evaluated:
                save_policy(run_dir, net, spec, game, config, global_step, update, evaluation)
                save_resume(
                    run_dir / "resume.pt",
                    {
                        "config": config.to_dict(),
                        "model": net.state_dict(),
                        "optimizer": optimizer.state_dict(),
                        "torch_rng": torch.get_rng_state(),
                        "generator": generator.get_state(),
                        "shuffle_rng": json.dumps(shuffle_rng.bit_generator.state, default=int),
                        "collector": collector.state_dict(),
                        "global_step": global_step,
                        "update": update,
                        "elapsed": elapsed,
                        "evaluation": json.dumps(evaluation),
                    },
                )
                plot_curves(
                    log.csv_path,
                    run_dir / "curve.png",
                    title=f"{run_dir.name}: PPO self-play on {config.game}, seed {config.seed}",
                )
    finally:
        bar.close()
        log.close()
        collector.close()
    if not policy_path.exists():  # total_steps already reached when resuming
        save_checkpoint(policy_path, net, spec, game, config, global_step, update, evaluation)
    return policy_path
