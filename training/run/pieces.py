"""The pieces a training run is built from, shared by both learners (:mod:`training.ppo.loop`,
:mod:`training.alphazero.selfplay`); they know nothing of either algorithm:

* :func:`seed_everything`, :func:`resolve_device`, :func:`run_directory` - seeding in one place, the torch
  device, ``runs/<game>-s<seed>`` by default;
* :class:`RunLog` - one row per update in ``log.csv`` and TensorBoard scalars under stable tags;
* :func:`progress_bar` - tqdm over the run's samples;
* :func:`evaluation_due`, :func:`evaluate`, :func:`evaluation_columns`, :func:`evaluation_row` - the periodic
  evaluation of the greedy network against the baselines (:mod:`training.run.opponents`) and how it is logged;
* :func:`save_policy` - ``policy.pt`` and, with ``keep_checkpoints``, a copy per evaluation;
* :func:`training.charts.plot_curves` - the learning curve from ``log.csv``.
"""

from __future__ import annotations

import csv
import random
from pathlib import Path
from typing import Any

import numpy as np
import torch
from torch import nn

from envs.common.game import Game
from training.checkpoint import save_checkpoint
from training.config import TrainConfig, eval_opponent_kinds
from training.run.opponents import available_kinds, play_against


def seed_everything(seed: int) -> None:
    """Seed Python's, numpy's and torch's global generators (the run's own generators derive from ``seed``), and
    have torch use its deterministic algorithms: with two or more threads the CPU backward of an index (the hex
    and canvas networks' gathers) otherwise sums in an order that varies from run to run, so the same seed gave
    other weights (measured: Battle Sheep, default threads, differing from the first update; the cost: none for
    Battle Sheep's training speed, 4% for Bestiarium's). ``warn_only``: an op without a deterministic version
    (some CUDA kernels) warns instead of stopping the run."""
    random.seed(seed)
    np.random.seed(seed % 2**32)
    torch.manual_seed(seed)
    torch.use_deterministic_algorithms(True, warn_only=True)


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


def run_directory(config: TrainConfig) -> Path:
    """The run directory (``config.out``, or ``runs/<game>-s<seed>``), created if missing."""
    run_dir = Path(config.out or f"runs/{config.game}-s{config.seed}")
    run_dir.mkdir(parents=True, exist_ok=True)
    return run_dir


class RunLog:
    """A run's log: ``log.csv`` (one row per update, ``columns`` fixed when the run starts; missing values
    empty) and TensorBoard events, both in the run directory. A resumed run appends to both."""

    def __init__(self, run_dir: Path, columns: list[str], resumed: bool = False, texts: dict[str, str] | None = None):
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


def progress_bar(config: TrainConfig, done: int = 0) -> Any:
    """A tqdm bar over ``config.total_steps`` samples starting at ``done`` (hidden unless ``config.progress``)."""
    from tqdm import tqdm

    return tqdm(
        total=config.total_steps,
        initial=min(done, config.total_steps),
        unit="sample",
        disable=not config.progress,
        dynamic_ncols=True,
    )


def evaluation_kinds(config: TrainConfig) -> list[str]:
    """The baselines of ``config.eval_opponents`` that the game offers; ValueError (from
    :func:`training.config.eval_opponent_kinds`) for one that cannot be played."""
    return available_kinds(config.game, eval_opponent_kinds(config))


def evaluation_due(config: TrainConfig, update: int, final: bool) -> bool:
    """Whether update ``update`` evaluates and saves: every ``eval_every`` updates and at the end."""
    return final or bool(config.eval_every and update % config.eval_every == 0)


def evaluate(net: nn.Module, config: TrainConfig, seed: int) -> dict[str, dict[str, float]]:
    """The greedy network against each baseline of :func:`evaluation_kinds` (``eval_games`` games each):
    ``{kind: {"games", "win_rate", "mean_reward"}}``. ``net`` is any :mod:`training.networks` network."""
    return {
        k: play_against(
            net,
            config.game,
            config.env_options,
            k,
            config.eval_games,
            seed,
            spec=getattr(config, "opponent_policy", ""),
        )
        for k in evaluation_kinds(config)
    }


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


def save_policy(
    run_dir: Path,
    net: nn.Module,
    spec: dict[str, Any],
    game: Game,
    config: TrainConfig,
    global_step: int,
    update: int,
    evaluation: dict[str, Any],
) -> Path:
    """Write ``run_dir/policy.pt`` (+ sidecar) and, with ``config.keep_checkpoints``, the same policy as
    ``run_dir/checkpoints/policy-<update>.pt``; returns the ``policy.pt`` path."""
    path = save_checkpoint(run_dir / "policy.pt", net, spec, game, config, global_step, update, evaluation)
    if config.keep_checkpoints:
        save_checkpoint(
            run_dir / "checkpoints" / f"policy-{update:06d}.pt",
            net,
            spec,
            game,
            config,
            global_step,
            update,
            evaluation,
        )
    return path
