"""PPO: the update maths as importable functions, and the self-play training loop ``train(config) -> path``.

Read top to bottom:

1. :class:`MaskedCategorical` - the policy distribution over legal actions only (illegal logits removed before
   sampling and in the update; entropy over the legal actions).
2. :func:`gae` - generalised advantage estimation over per-seat streams.
3. :func:`ppo_loss` - clipped surrogate, clipped value loss, entropy bonus; approximate KL and clip fraction.
4. :func:`ppo_update` - epochs of shuffled minibatches, advantage normalisation, global grad-norm clipping.
5. :func:`train` - seeding, rollouts (``training.selfplay``), updates, learning-rate annealing, logging
   (progress bar, TensorBoard, CSV, PNG), evaluation against the baselines, checkpoints and exact resume.
"""

from __future__ import annotations

import csv
import json
import math
import random
import time
from pathlib import Path
from typing import Any

import numpy as np
import torch
from torch import nn

MASK_LOGIT = -1e9
"""Logit of the padding entries: exp(-1e9 - max) is exactly 0 in float32, and 0 * -1e9 stays finite."""


# ----- 1. the masked distribution ------------------------------------------------------------------------
class MaskedCategorical:
    """A categorical distribution over the actions where ``mask`` is true.

    Each row's logits are first restricted to its legal actions (``index``: the legal action ids, padded to the
    longest row; ``valid`` marks the real entries), and padding gets :data:`MASK_LOGIT`, so illegal actions have
    probability exactly 0: sampling never returns them, and the entropy sums over legal actions only. The
    restriction is the same distribution as masking the full logit vector, and far cheaper when a few hundred
    of Battle Sheep's 25k actions are legal. Every row needs a legal action to sample.
    """

    def __init__(self, logits: torch.Tensor, mask: torch.Tensor, columns: torch.Tensor | None = None):
        """``logits`` ``(B, A)``; or, with ``columns`` ``(A,)``, raw scores ``(B, R)`` of which action ``a``'s
        logit is column ``columns[a]`` (a per-cell head's planes: only the legal actions' logits are gathered,
        never all ``A``)."""
        mask = mask.bool()
        rows, cols = mask.nonzero(as_tuple=True)
        counts = torch.bincount(rows, minlength=mask.shape[0])  # legal actions per row (a bool sum would
        # first copy the whole mask to int64)
        width = max(1, int(counts.max()) if counts.numel() else 1)
        position = torch.arange(rows.numel()) - (counts.cumsum(0) - counts)[rows]
        self.num_actions = logits.shape[-1] if columns is None else columns.shape[0]
        self.index = torch.zeros(logits.shape[0], width, dtype=torch.long)
        self.index[rows, position] = cols
        self.valid = torch.zeros(logits.shape[0], width, dtype=torch.bool)
        self.valid[rows, position] = True
        padding = torch.full(self.index.shape, MASK_LOGIT, dtype=logits.dtype)
        source = self.index if columns is None else columns[self.index]
        legal = torch.where(self.valid, logits.gather(1, source), padding)
        self.legal_log_probs = legal - legal.logsumexp(dim=-1, keepdim=True)
        """``(B, width)`` log-probabilities of the actions in ``index``."""

    @property
    def probs(self) -> torch.Tensor:
        """Dense probabilities ``(B, A)``, exactly 0 on illegal actions."""
        p = torch.where(self.valid, self.legal_log_probs.exp(), torch.zeros_like(self.legal_log_probs))
        return torch.zeros(self.index.shape[0], self.num_actions, dtype=p.dtype).scatter_add(1, self.index, p)

    def sample(self, generator: torch.Generator | None = None) -> torch.Tensor:
        """One action per row (never an illegal one)."""
        if not bool(self.valid[:, 0].all()):
            raise ValueError("a row of the action mask has no legal action")
        p = torch.where(self.valid, self.legal_log_probs.exp(), torch.zeros_like(self.legal_log_probs))
        choice = torch.multinomial(p, 1, generator=generator)
        return self.index.gather(1, choice).squeeze(-1)

    def mode(self) -> torch.Tensor:
        """The most likely legal action per row."""
        best = torch.where(self.valid, self.legal_log_probs, torch.full_like(self.legal_log_probs, -math.inf))
        return self.index.gather(1, best.argmax(dim=-1, keepdim=True)).squeeze(-1)

    def log_prob(self, actions: torch.Tensor) -> torch.Tensor:
        """log pi(action) per row (-inf for an illegal action)."""
        hit = (self.index == actions.long().unsqueeze(-1)) & self.valid
        lp = self.legal_log_probs.gather(1, hit.to(torch.int8).argmax(dim=-1, keepdim=True)).squeeze(-1)
        return torch.where(hit.any(dim=-1), lp, torch.full_like(lp, -math.inf))

    def entropy(self) -> torch.Tensor:
        """Entropy over the legal actions only."""
        p_log_p = self.legal_log_probs.exp() * self.legal_log_probs
        return -torch.where(self.valid, p_log_p, torch.zeros_like(p_log_p)).sum(dim=-1)


def masked_policy(net: nn.Module, obs: torch.Tensor,
                  mask: torch.Tensor) -> tuple[MaskedCategorical, torch.Tensor]:
    """``(distribution over the legal actions, value)`` of ``net`` (a :mod:`training.networks` network) for a
    batch of observations and their action masks; gathers only the legal actions' logits."""
    scores, values, columns = net.scores(obs)
    return MaskedCategorical(scores, mask, columns), values


# ----- 2. advantages ----------------------------------------------------------------------------------------
def gae(rewards: np.ndarray, values: np.ndarray, next_values: np.ndarray, dones: np.ndarray,
        chained: np.ndarray, gamma: float, gae_lambda: float) -> tuple[np.ndarray, np.ndarray]:
    """Generalised advantage estimation over samples laid out stream after stream.

    For sample ``t``: ``delta_t = r_t + gamma * (1 - done_t) * V'_t - V_t`` with ``V'_t`` the value at the same
    seat's next decision, and ``A_t = delta_t + gamma * lambda * (1 - done_t) * chained_t * A_{t+1}``, where
    ``chained_t`` says that sample ``t + 1`` is that next decision (false at the end of a stream's samples: the
    chain is cut there and ``V'_t`` bootstraps). Returns ``(advantages, returns = advantages + values)``.
    """
    advantages = np.zeros(len(rewards), dtype=np.float32)
    last = 0.0
    for t in reversed(range(len(rewards))):
        nonterminal = 0.0 if dones[t] else 1.0
        delta = rewards[t] + gamma * nonterminal * next_values[t] - values[t]
        last = delta + gamma * gae_lambda * nonterminal * (1.0 if chained[t] else 0.0) * last
        advantages[t] = last
    return advantages, (advantages + values).astype(np.float32)


# ----- 3. the loss ------------------------------------------------------------------------------------------
def ppo_loss(new_logp: torch.Tensor, old_logp: torch.Tensor, advantages: torch.Tensor, entropy: torch.Tensor,
             new_values: torch.Tensor, old_values: torch.Tensor, returns: torch.Tensor, clip_coef: float = 0.2,
             vf_coef: float = 0.5, ent_coef: float = 0.01, clip_vloss: bool = True,
             norm_adv: bool = True) -> tuple[torch.Tensor, dict[str, float]]:
    """The PPO loss of one minibatch and its diagnostics.

    ``loss = clipped surrogate - ent_coef * entropy + vf_coef * value loss``; the value loss is
    ``0.5 * max((V - R)^2, (V_old + clip(V - V_old, -eps, eps) - R)^2)`` with ``clip_vloss``. Diagnostics:
    ``approx_kl`` = mean((ratio - 1) - log ratio) (the low-variance estimator), ``old_approx_kl`` = mean(-log ratio),
    ``clipfrac`` = share of samples with ``|ratio - 1| > eps``.
    """
    logratio = new_logp - old_logp
    ratio = logratio.exp()
    with torch.no_grad():
        old_approx_kl = (-logratio).mean()
        approx_kl = ((ratio - 1) - logratio).mean()
        clipfrac = ((ratio - 1.0).abs() > clip_coef).float().mean()
    if norm_adv and advantages.numel() > 1:
        advantages = (advantages - advantages.mean()) / (advantages.std() + 1e-8)
    pg_loss = torch.max(-advantages * ratio, -advantages * ratio.clamp(1 - clip_coef, 1 + clip_coef)).mean()
    if clip_vloss:
        v_unclipped = (new_values - returns) ** 2
        v_clipped = old_values + (new_values - old_values).clamp(-clip_coef, clip_coef)
        v_loss = 0.5 * torch.max(v_unclipped, (v_clipped - returns) ** 2).mean()
    else:
        v_loss = 0.5 * ((new_values - returns) ** 2).mean()
    entropy_loss = entropy.mean()
    loss = pg_loss - ent_coef * entropy_loss + vf_coef * v_loss
    stats = {"policy_loss": pg_loss.item(), "value_loss": v_loss.item(), "entropy": entropy_loss.item(),
             "approx_kl": approx_kl.item(), "old_approx_kl": old_approx_kl.item(), "clipfrac": clipfrac.item()}
    return loss, stats


# ----- 4. one update ------------------------------------------------------------------------------------------
def ppo_update(net: nn.Module, optimizer: torch.optim.Optimizer, batch: Any, config: Any,
               rng: np.random.Generator) -> dict[str, float]:
    """``update_epochs`` passes of shuffled minibatches over ``batch``; returns averaged diagnostics."""
    size = len(batch)
    sums: dict[str, float] = {}
    count = 0
    for _epoch in range(config.update_epochs):
        order = rng.permutation(size)
        for idx in np.array_split(order, min(config.num_minibatches, size)):
            index = torch.from_numpy(idx)
            dist, values = masked_policy(net, batch.obs[index], batch.masks(idx))  # the stored mask, re-applied
            loss, stats = ppo_loss(
                dist.log_prob(batch.actions[index]), batch.logp[index], batch.advantages[index], dist.entropy(),
                values, batch.values[index], batch.returns[index], clip_coef=config.clip_coef,
                vf_coef=config.vf_coef, ent_coef=config.ent_coef, clip_vloss=config.clip_vloss,
                norm_adv=config.norm_adv)
            optimizer.zero_grad()
            loss.backward()
            stats["grad_norm"] = float(nn.utils.clip_grad_norm_(net.parameters(), config.max_grad_norm))
            optimizer.step()
            for k, v in stats.items():
                sums[k] = sums.get(k, 0.0) + v
            count += 1
        if config.target_kl and stats["approx_kl"] > config.target_kl:
            break
    out = {k: v / max(1, count) for k, v in sums.items()}
    values, returns = batch.values.numpy(), batch.returns.numpy()
    var = float(np.var(returns))
    out["explained_variance"] = float("nan") if var == 0 else 1.0 - float(np.var(returns - values)) / var
    return out


# ----- 5. the training loop ----------------------------------------------------------------------------------
CSV_BASE = ["update", "global_step", "time_s", "samples_per_s", "learning_rate", "policy_loss", "value_loss",
            "entropy", "approx_kl", "old_approx_kl", "clipfrac", "grad_norm", "explained_variance",
            "episode_length", "episodes", "train_win_snapshot", "train_win_random", "train_win_greedy"]


def seed_everything(seed: int) -> None:
    """Seed Python's, numpy's and torch's global generators (the run's own generators derive from ``seed``)."""
    random.seed(seed)
    np.random.seed(seed % 2**32)
    torch.manual_seed(seed)


def evaluate(net: nn.Module, config: Any, seed: int) -> dict[str, dict[str, float]]:
    """The greedy learner against each of ``config.eval_opponents`` the game offers (``eval_games`` each)."""
    from training.selfplay import available_kinds, play_against

    kinds = available_kinds(config.game, [k.strip() for k in config.eval_opponents.split(",") if k.strip()])
    return {k: play_against(net, config.game, config.env_options, k, config.eval_games, seed) for k in kinds}


def train(config: Any, resume: str | Path | None = None) -> Path:
    """Run PPO self-play for ``config``; returns the path of the final policy checkpoint (``policy.pt``).

    With ``resume`` (a run directory or its ``resume.pt``), the run continues exactly where it was saved:
    weights, optimiser, generators, envs mid-game, pending transitions, opponent pool and counters.
    """
    from torch.utils.tensorboard import SummaryWriter
    from tqdm import tqdm

    import envs
    from training.buffer import RolloutBuffer
    from training.checkpoint import init_weights_from, load_resume, save_checkpoint, save_resume
    from training.networks import build_network, network_spec, num_parameters
    from training.selfplay import SelfPlayCollector

    if config.torch_threads:
        torch.set_num_threads(config.torch_threads)
    run_dir = Path(config.out or f"runs/{config.game}-s{config.seed}")
    run_dir.mkdir(parents=True, exist_ok=True)
    game = envs.module(config.game).raw_env(**config.env_options).game
    seed_everything(config.seed)
    spec = network_spec(config, game)
    net = build_network(spec, game)
    if config.init_from and resume is None:
        init_weights_from(net, spec, config.init_from, config.game, config.env_options)
    optimizer = torch.optim.Adam(net.parameters(), lr=config.learning_rate, eps=config.adam_eps)
    generator = torch.Generator().manual_seed(config.seed)
    shuffle_rng = np.random.default_rng([config.seed, 3])
    collector = SelfPlayCollector(config, net, generator)
    buffer = RolloutBuffer(game.num_actions)
    global_step, update, elapsed = 0, 0, 0.0
    evaluation: dict[str, Any] = {}

    if resume is not None:
        state = load_resume(resume, config, game)
        net.load_state_dict(state["model"])
        optimizer.load_state_dict(state["optimizer"])
        torch.set_rng_state(state["torch_rng"])
        generator.set_state(state["generator"])
        shuffle_rng.bit_generator.state = json.loads(state["shuffle_rng"])
        collector.load_state_dict(state["collector"])
        global_step, update = int(state["global_step"]), int(state["update"])
        elapsed = float(state["elapsed"])
        evaluation = json.loads(state["evaluation"])

    csv_path = run_dir / "log.csv"
    from training.selfplay import available_kinds

    eval_kinds = available_kinds(config.game, [k.strip() for k in config.eval_opponents.split(",") if k.strip()])
    columns = CSV_BASE + [f"eval_{k}_{m}" for k in eval_kinds for m in ("win_rate", "mean_reward")]
    if resume is None or not csv_path.exists():
        with csv_path.open("w", newline="") as f:
            csv.writer(f).writerow(columns)
    writer = SummaryWriter(str(run_dir))
    if resume is None:
        writer.add_text("config", "```\n" + json.dumps(config.to_dict(), indent=1) + "\n```")
        writer.add_text("network", f"{spec} ({num_parameters(net)} parameters)")

    bar = tqdm(total=config.total_steps, initial=min(global_step, config.total_steps), unit="sample",
               disable=not config.progress, dynamic_ncols=True)
    policy_path = run_dir / "policy.pt"
    last_sps = 0.0
    try:
        while global_step < config.total_steps:
            start = time.perf_counter()
            lr = config.learning_rate
            if config.anneal_lr:
                lr *= max(0.0, 1.0 - global_step / config.total_steps)
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
            last_sps = len(batch) / seconds

            if config.snapshot_every and update % config.snapshot_every == 0:
                collector.add_snapshot(net)
            final = global_step >= config.total_steps
            evaluated = final or (config.eval_every and update % config.eval_every == 0)
            if evaluated:
                evaluation = {"global_step": global_step, "update": update,
                              "vs": evaluate(net, config, seed=config.seed * 100_003 + update)}

            train_wins = collector.win_rates()
            lengths = collector.lengths
            row: dict[str, Any] = {
                "update": update, "global_step": global_step, "time_s": round(elapsed, 2),
                "samples_per_s": round(last_sps, 1), "learning_rate": lr, **stats,
                "episode_length": float(np.mean(lengths)) if lengths else "", "episodes": collector.episodes,
                **{f"train_win_{k}": v for k, v in train_wins.items()},
            }
            if evaluated:
                for k, result in evaluation["vs"].items():
                    row[f"eval_{k}_win_rate"] = result["win_rate"]
                    row[f"eval_{k}_mean_reward"] = result["mean_reward"]
            with csv_path.open("a", newline="") as f:
                csv.writer(f).writerow([row.get(c, "") for c in columns])
            for k in ("policy_loss", "value_loss", "entropy", "approx_kl", "old_approx_kl", "clipfrac",
                      "explained_variance", "grad_norm"):
                writer.add_scalar(f"losses/{k}", stats[k], global_step)
            writer.add_scalar("charts/learning_rate", lr, global_step)
            writer.add_scalar("charts/samples_per_s", last_sps, global_step)
            if lengths:
                writer.add_scalar("charts/episode_length", float(np.mean(lengths)), global_step)
            for k, v in train_wins.items():
                writer.add_scalar(f"charts/train_win_rate_{k}", v, global_step)
            if evaluated:
                for k, result in evaluation["vs"].items():
                    writer.add_scalar(f"eval/win_rate_vs_{k}", result["win_rate"], global_step)
                    writer.add_scalar(f"eval/mean_reward_vs_{k}", result["mean_reward"], global_step)

            postfix = {"sps": f"{last_sps:.0f}", "ent": f"{stats['entropy']:.2f}"}
            for k, result in evaluation.get("vs", {}).items():
                postfix[f"vs_{k}"] = f"{result['win_rate']:.2f}"
            bar.set_postfix(postfix, refresh=False)
            bar.update(min(len(batch), max(0, config.total_steps - bar.n)))

            if evaluated:
                save_checkpoint(policy_path, net, spec, game, config, global_step, update, evaluation)
                if config.keep_checkpoints:
                    save_checkpoint(run_dir / "checkpoints" / f"policy-{update:06d}.pt", net, spec, game, config,
                                    global_step, update, evaluation)
                save_resume(run_dir / "resume.pt", {
                    "config": config.to_dict(), "model": net.state_dict(), "optimizer": optimizer.state_dict(),
                    "torch_rng": torch.get_rng_state(), "generator": generator.get_state(),
                    "shuffle_rng": json.dumps(shuffle_rng.bit_generator.state, default=int),
                    "collector": collector.state_dict(), "global_step": global_step, "update": update,
                    "elapsed": elapsed, "evaluation": json.dumps(evaluation),
                })
                plot_curves(csv_path, run_dir / "curve.png")
    finally:
        bar.close()
        writer.close()
        collector.close()
    if not policy_path.exists():  # total_steps already reached when resuming
        save_checkpoint(policy_path, net, spec, game, config, global_step, update, evaluation)
    return policy_path


# ----- the learning-curve picture --------------------------------------------------------------------------
def plot_curves(csv_path: str | Path, png_path: str | Path) -> None:
    """Draw the run's win rates (evaluation: solid; training games: thin) and entropy against samples (PNG)."""
    from PIL import Image, ImageDraw

    with open(csv_path, newline="") as f:
        rows = list(csv.DictReader(f))
    if not rows:
        return
    steps = [float(r["global_step"]) for r in rows]
    x_max = max(steps) or 1.0
    width, height, pad = 900, 560, 60
    image = Image.new("RGB", (width, height), "white")
    draw = ImageDraw.Draw(image)
    panels = [("win rate", 20, 330, 0.0, 1.0), ("entropy", 370, 530, None, None)]
    colors = [(31, 119, 180), (214, 39, 40), (44, 160, 44), (148, 103, 189), (255, 127, 14), (140, 86, 75)]
    win_cols = [c for c in rows[0] if c.endswith("_win_rate") or c.startswith("train_win_")]
    for title, top, bottom, lo, hi in panels:
        cols = win_cols if title == "win rate" else ["entropy"]
        series = {}
        for c in cols:
            pts = [(s, float(r[c])) for s, r in zip(steps, rows) if r.get(c) not in ("", None)
                   and math.isfinite(float(r[c]))]
            if pts:
                series[c] = pts
        if not series:
            continue
        ys = [y for pts in series.values() for _, y in pts]
        y_lo = min(ys) if lo is None else lo
        y_hi = max(ys) if hi is None else hi
        if y_hi - y_lo < 1e-9:
            y_hi = y_lo + 1.0
        draw.rectangle([pad, top, width - 20, bottom], outline="black")
        draw.text((pad + 5, top + 3), title, fill="black")
        draw.text((5, top), f"{y_hi:.2f}", fill="black")
        draw.text((5, bottom - 10), f"{y_lo:.2f}", fill="black")

        def xy(s: float, y: float) -> tuple[float, float]:
            return (pad + (width - 20 - pad) * s / x_max, bottom - (bottom - top) * (y - y_lo) / (y_hi - y_lo))

        for n, (c, pts) in enumerate(series.items()):
            color = colors[n % len(colors)]
            thin = c.startswith("train_")
            if len(pts) > 1:
                draw.line([xy(*p) for p in pts], fill=color, width=1 if thin else 3)
            else:
                x, y = xy(*pts[0])
                draw.ellipse([x - 3, y - 3, x + 3, y + 3], fill=color)
            draw.text((width - 260, top + 5 + 13 * n), c, fill=color)
    draw.text((pad, height - 22), f"samples (0 .. {int(x_max)})", fill="black")
    image.save(png_path)
