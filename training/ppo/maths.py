"""PPO's maths as importable, tested functions; the loop that drives them is :mod:`training.ppo.loop`.

Read top to bottom:

1. :func:`gae` - generalised advantage estimation over per-seat streams.
2. :func:`ppo_loss` - clipped surrogate, clipped value loss, entropy bonus; approximate KL and clip fraction.
3. :func:`ppo_update` - epochs of shuffled minibatches, advantage normalisation, global grad-norm clipping.

The policy distribution over legal actions that the update re-applies is :mod:`training.distribution` (shared
with every player of a network). This module imports nothing else from ``training``: rollouts
(:mod:`training.ppo.collect`), the buffer and the loop use it, never the other way round.
"""

from __future__ import annotations

from typing import Any

import numba
import numpy as np
import torch
from torch import nn

from training.config import TrainConfig
from training.distribution import masked_policy, network_device


# ----- 1. advantages ----------------------------------------------------------------------------------------
def gae(
    rewards: np.ndarray,
    values: np.ndarray,
    next_values: np.ndarray,
    dones: np.ndarray,
    chained: np.ndarray,
    gamma: float,
    gae_lambda: float,
) -> tuple[np.ndarray, np.ndarray]:
    """Generalised advantage estimation over samples laid out stream after stream.

    For sample ``t``: ``delta_t = r_t + gamma * (1 - done_t) * V'_t - V_t`` with ``V'_t`` the value at the same
    seat's next decision, and ``A_t = delta_t + gamma * lambda * (1 - done_t) * chained_t * A_{t+1}``, where
    ``chained_t`` says that sample ``t + 1`` is that next decision (false at the end of a stream's samples: the
    chain is cut there and ``V'_t`` bootstraps). Returns ``(advantages, returns = advantages + values)``, float32
    (the arithmetic is float32 throughout; the loop is compiled by numba: :func:`_gae_kernel`).
    """
    advantages = np.zeros(len(rewards), dtype=np.float32)
    _gae_kernel(
        np.ascontiguousarray(rewards, dtype=np.float32),
        np.ascontiguousarray(values, dtype=np.float32),
        np.ascontiguousarray(next_values, dtype=np.float32),
        np.ascontiguousarray(dones, dtype=np.bool_),
        np.ascontiguousarray(chained, dtype=np.bool_),
        np.float32(gamma),
        np.float32(gamma * gae_lambda),
        advantages,
    )
    return advantages, (advantages + values).astype(np.float32)


@numba.njit(cache=True)
def _gae_kernel(
    rewards: np.ndarray,
    values: np.ndarray,
    next_values: np.ndarray,
    dones: np.ndarray,
    chained: np.ndarray,
    gamma: np.float32,
    gamma_lambda: np.float32,
    out: np.ndarray,
) -> None:
    """:func:`gae`'s backward recursion, in float32, into ``out``."""
    zero = np.float32(0.0)
    last = zero
    for t in range(len(rewards) - 1, -1, -1):
        if dones[t]:
            last = rewards[t] + zero * next_values[t] - values[t]
        else:
            delta = rewards[t] + gamma * next_values[t] - values[t]
            last = delta + (gamma_lambda if chained[t] else zero) * last
        out[t] = last


# ----- 2. the loss ------------------------------------------------------------------------------------------
def ppo_loss(
    new_logp: torch.Tensor,
    old_logp: torch.Tensor,
    advantages: torch.Tensor,
    entropy: torch.Tensor,
    new_values: torch.Tensor,
    old_values: torch.Tensor,
    returns: torch.Tensor,
    clip_coef: float = 0.2,
    vf_coef: float = 0.5,
    ent_coef: float = 0.01,
    clip_vloss: bool = True,
    norm_adv: bool = True,
) -> tuple[torch.Tensor, dict[str, float]]:
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
    stats = {
        "policy_loss": pg_loss.item(),
        "value_loss": v_loss.item(),
        "entropy": entropy_loss.item(),
        "approx_kl": approx_kl.item(),
        "old_approx_kl": old_approx_kl.item(),
        "clipfrac": clipfrac.item(),
    }
    return loss, stats


# ----- 3. one update ------------------------------------------------------------------------------------------
def ppo_update(
    net: nn.Module, optimizer: torch.optim.Optimizer, batch: Any, config: TrainConfig, rng: np.random.Generator
) -> dict[str, float]:
    """``update_epochs`` passes of shuffled minibatches over ``batch``; returns averaged diagnostics."""
    size = len(batch)
    sums: dict[str, float] = {}
    count = 0
    device = network_device(net, torch.device("cpu"))
    for _epoch in range(config.update_epochs):
        order = rng.permutation(size)
        for idx in np.array_split(order, min(config.num_minibatches, size)):
            index = torch.from_numpy(idx)
            dist, values = masked_policy(net, batch.observations(idx), batch.legal(idx))  # the stored mask, re-applied
            loss, stats = ppo_loss(
                dist.log_prob(batch.actions[index].to(device)),
                batch.logp[index].to(device),
                batch.advantages[index].to(device),
                dist.entropy(),
                values,
                batch.values[index].to(device),
                batch.returns[index].to(device),
                clip_coef=config.clip_coef,
                vf_coef=config.vf_coef,
                ent_coef=config.ent_coef,
                clip_vloss=config.clip_vloss,
                norm_adv=config.norm_adv,
            )
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
