"""The training loop: PPO self-play :func:`train` (config -> policy checkpoint), and the run pieces it is built from.

The run pieces know nothing of PPO, so that any trainer (a self-play loop over search, say) can use them:

* :func:`seed_everything`, :func:`run_directory` - seeding in one place; ``runs/<game>-s<seed>`` by default;
* :class:`RunLog` - one row per update in ``log.csv`` and TensorBoard scalars under stable tags;
* :func:`progress_bar` - tqdm over the run's samples;
* :func:`evaluation_due`, :func:`evaluate`, :func:`evaluation_columns`, :func:`evaluation_row` - the periodic
  evaluation of the greedy network against the baselines and how it is logged;
* :func:`save_policy` - ``policy.pt`` and, with ``keep_checkpoints``, a copy per evaluation;
* :func:`training.charts.plot_curves` - the learning curve from ``log.csv``.

:func:`train` reads top to bottom: build, (resume,) then per update: anneal the learning rate, collect a batch
(:mod:`training.selfplay`), GAE (:mod:`training.buffer`), PPO update (:mod:`training.ppo`), snapshot, evaluate,
log, checkpoint.
"""

from __future__ import annotations

import csv
import json
import random
import time
from pathlib import Path
from typing import Any

import numpy as np
import torch
from torch import nn

import envs
from envs.common.game import Game
from training.buffer import RolloutBuffer
from training.charts import plot_curves
from training.checkpoint import init_weights_from, load_resume, save_checkpoint, save_resume
from training.networks import build_network, network_spec, num_parameters
from training.ppo import ppo_update
from training.selfplay import SelfPlayCollector, available_kinds, play_against


# ----- the run pieces ------------------------------------------------------------------------------------
def seed_everything(seed: int) -> None:
    """Seed Python's, numpy's and torch's global generators (the run's own generators derive from ``seed``)."""
    random.seed(seed)
    np.random.seed(seed % 2**32)
    torch.manual_seed(seed)


def resolve_device(name: str) -> torch.device:
    """``cpu``, ``cuda`` or ``auto`` (cuda when torch sees a GPU, else cpu) as a torch device; ``ValueError``
    for cuda without a GPU or an unknown name."""
    if name == "auto":
        return torch.device("cuda" if torch.cuda.is_available() else "cpu")
    if name not in ("cpu", "cuda"):
        raise ValueError(f"device={name!r}; allowed: 'auto', 'cpu', 'cuda'")
    if name == "cuda" and not torch.cuda.is_available():
        raise ValueError(f"device='cuda' but torch sees no GPU here (torch {torch.__version__}); use 'cpu' or 'auto'")
    return torch.device(name)


def run_directory(config: Any) -> Path:
    """The run directory (``config.out``, or ``runs/<game>-s<seed>``), created if missing."""
    run_dir = Path(config.out or f"runs/{config.game}-s{config.seed}")
    run_dir.mkdir(parents=True, exist_ok=True)
    return run_dir


class RunLog:
    """A run's log: ``log.csv`` (one row per update, ``columns`` fixed when the run starts; missing values
    empty) and TensorBoard events, both in the run directory. A resumed run appends to both."""

    def __init__(self, run_dir: Path, columns: list[str], resumed: bool = False,
                 texts: dict[str, str] | None = None):
        """``texts``: TensorBoard text entries written once at the start of a fresh run (config, network)."""
        from torch.utils.tensorboard import SummaryWriter

        self.csv_path = Path(run_dir) / "log.csv"
        self.columns = list(columns)
        if not resumed or not self.csv_path.exists():
            self.csv_path.write_text(",".join(self.columns) + "\n")
        self.writer = SummaryWriter(str(run_dir))
        if not resumed:
            for tag, text in (texts or {}).items():
                self.writer.add_text(tag, text)

    def write(self, row: dict[str, Any], scalars: dict[str, float], step: int) -> None:
        """Append ``row`` to the CSV (keys outside ``columns`` are ignored) and ``scalars`` (tag -> value) to
        TensorBoard at ``step``."""
        with self.csv_path.open("a", newline="") as f:
            csv.writer(f).writerow([row.get(c, "") for c in self.columns])
        for tag, value in scalars.items():
            self.writer.add_scalar(tag, value, step)

    def close(self) -> None:
        self.writer.close()


def progress_bar(config: Any, done: int = 0) -> Any:
    """A tqdm bar over ``config.total_steps`` samples starting at ``done`` (hidden unless ``config.progress``)."""
    from tqdm import tqdm

    return tqdm(total=config.total_steps, initial=min(done, config.total_steps), unit="sample",
                disable=not config.progress, dynamic_ncols=True)


def evaluation_kinds(config: Any) -> list[str]:
    """The baselines of ``config.eval_opponents`` that the game offers."""
    return available_kinds(config.game, [k.strip() for k in config.eval_opponents.split(",") if k.strip()])


def evaluation_due(config: Any, update: int, final: bool) -> bool:
    """Whether update ``update`` evaluates and saves: every ``eval_every`` updates and at the end."""
    return final or bool(config.eval_every and update % config.eval_every == 0)


def evaluate(net: nn.Module, config: Any, seed: int) -> dict[str, dict[str, float]]:
    """The greedy network against each baseline of :func:`evaluation_kinds` (``eval_games`` games each):
    ``{kind: {"games", "win_rate", "mean_reward"}}``. ``net`` is any :mod:`training.networks` network."""
    return {k: play_against(net, config.game, config.env_options, k, config.eval_games, seed)
            for k in evaluation_kinds(config)}


def evaluation_columns(kinds: list[str]) -> list[str]:
    """The CSV columns of an evaluation against ``kinds``."""
    return [f"eval_{k}_{m}" for k in kinds for m in ("win_rate", "mean_reward", "games")]


def evaluation_row(vs: dict[str, dict[str, float]]) -> tuple[dict[str, Any], dict[str, float]]:
    """``(CSV fields, TensorBoard scalars)`` of an evaluation (:func:`evaluate`'s result)."""
    row: dict[str, Any] = {}
    scalars: dict[str, float] = {}
    for k, result in vs.items():
        row[f"eval_{k}_win_rate"] = result["win_rate"]
        row[f"eval_{k}_mean_reward"] = result["mean_reward"]
        row[f"eval_{k}_games"] = result["games"]
        scalars[f"eval/win_rate_vs_{k}"] = result["win_rate"]
        scalars[f"eval/mean_reward_vs_{k}"] = result["mean_reward"]
    return row, scalars


def save_policy(run_dir: Path, net: nn.Module, spec: dict[str, Any], game: Game, config: Any, global_step: int,
                update: int, evaluation: dict[str, Any]) -> Path:
    """Write ``run_dir/policy.pt`` (+ sidecar) and, with ``config.keep_checkpoints``, the same policy as
    ``run_dir/checkpoints/policy-<update>.pt``; returns the ``policy.pt`` path."""
    path = save_checkpoint(run_dir / "policy.pt", net, spec, game, config, global_step, update, evaluation)
    if config.keep_checkpoints:
        save_checkpoint(run_dir / "checkpoints" / f"policy-{update:06d}.pt", net, spec, game, config, global_step,
                        update, evaluation)
    return path


# ----- PPO self-play ---------------------------------------------------------------------------------------
PPO_COLUMNS = ["update", "global_step", "time_s", "samples_per_s", "learning_rate", "policy_loss", "value_loss",
               "entropy", "approx_kl", "old_approx_kl", "clipfrac", "grad_norm", "explained_variance",
               "episode_length", "episodes", "train_win_snapshot", "train_win_random", "train_win_greedy"]
"""``log.csv``'s columns before the evaluation's (:func:`evaluation_columns`)."""

LOSS_TAGS = ("policy_loss", "value_loss", "entropy", "approx_kl", "old_approx_kl", "clipfrac", "explained_variance",
             "grad_norm")
"""Update diagnostics logged to TensorBoard as ``losses/<name>``."""


def train(config: Any, resume: str | Path | None = None) -> Path:
    """Run PPO self-play for ``config``; returns the path of the final policy checkpoint (``policy.pt``).

    With ``resume`` (a run directory or its ``resume.pt``), the run continues exactly where it was saved:
    weights, optimiser, generators, envs mid-game, pending transitions, opponent pool and counters.
    """
    if config.torch_threads:
        torch.set_num_threads(config.torch_threads)
    device = resolve_device(config.device)
    run_dir = run_directory(config)
    game = envs.module(config.game).raw_env(**config.env_options).game
    seed_everything(config.seed)
    spec = network_spec(config, game)
    net = build_network(spec, game)
    if config.init_from and resume is None:
        init_weights_from(net, spec, config.init_from, config.game, config.env_options)
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
    buffer = RolloutBuffer(game.num_actions)
    global_step, update, elapsed = 0, 0, 0.0
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

    log = RunLog(run_dir, PPO_COLUMNS + evaluation_columns(evaluation_kinds(config)), resumed=resume is not None,
                 texts={"config": "```\n" + json.dumps(config.to_dict(), indent=1) + "\n```",
                        "network": f"{spec} ({num_parameters(net)} parameters)"})
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

            collector.collect(buffer, config.batch_size)
            batch = buffer.build(config.gamma, config.gae_lambda)
            buffer.clear()
            stats = ppo_update(net, optimizer, batch, config, shuffle_rng)
            global_step += len(batch)
            update += 1
            seconds = time.perf_counter() - start
            elapsed += seconds
            samples_per_s = len(batch) / seconds

            if config.snapshot_every and update % config.snapshot_every == 0:
                collector.add_snapshot(net)
            evaluated = evaluation_due(config, update, final=global_step >= config.total_steps
                                       or bool(budget and elapsed >= budget))
            if evaluated:
                evaluation = {"global_step": global_step, "update": update,
                              "vs": evaluate(net, config, seed=config.seed * 100_003 + update)}

            train_wins = collector.win_rates()
            lengths = collector.lengths
            row: dict[str, Any] = {
                "update": update, "global_step": global_step, "time_s": round(elapsed, 2),
                "samples_per_s": round(samples_per_s, 1), "learning_rate": lr, **stats,
                "episode_length": float(np.mean(lengths)) if lengths else "", "episodes": collector.episodes,
                **{f"train_win_{k}": v for k, v in train_wins.items()},
            }
            scalars = {f"losses/{k}": stats[k] for k in LOSS_TAGS}
            scalars["charts/learning_rate"] = lr
            scalars["charts/samples_per_s"] = samples_per_s
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
                save_resume(run_dir / "resume.pt", {
                    "config": config.to_dict(), "model": net.state_dict(), "optimizer": optimizer.state_dict(),
                    "torch_rng": torch.get_rng_state(), "generator": generator.get_state(),
                    "shuffle_rng": json.dumps(shuffle_rng.bit_generator.state, default=int),
                    "collector": collector.state_dict(), "global_step": global_step, "update": update,
                    "elapsed": elapsed, "evaluation": json.dumps(evaluation),
                })
                plot_curves(log.csv_path, run_dir / "curve.png",
                            title=f"{run_dir.name}: PPO self-play on {config.game}, seed {config.seed}")
    finally:
        bar.close()
        log.close()
        collector.close()
    if not policy_path.exists():  # total_steps already reached when resuming
        save_checkpoint(policy_path, net, spec, game, config, global_step, update, evaluation)
    return policy_path
