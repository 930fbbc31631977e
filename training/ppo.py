"""PPO's maths as importable, tested functions; the loop that drives them is :mod:`training.loop`.

Read top to bottom:

1. :class:`MaskedCategorical` - the policy distribution over legal actions only (illegal logits removed before
   sampling and in the update; entropy over the legal actions).
2. :func:`gae` - generalised advantage estimation over per-seat streams.
3. :func:`ppo_loss` - clipped surrogate, clipped value loss, entropy bonus; approximate KL and clip fraction.
4. :func:`ppo_update` - epochs of shuffled minibatches, advantage normalisation, global grad-norm clipping.

This module imports nothing from ``training``: rollouts (:mod:`training.selfplay`), the buffer and the
checkpoints use it, never the other way round.
"""

from __future__ import annotations

import math
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
        device = logits.device
        rows, cols = mask.nonzero(as_tuple=True)
        counts = torch.bincount(rows, minlength=mask.shape[0])  # legal actions per row (a bool sum would
        # first copy the whole mask to int64)
        width = max(1, int(counts.max()) if counts.numel() else 1)
        position = torch.arange(rows.numel(), device=device) - (counts.cumsum(0) - counts)[rows]
        self.num_actions = logits.shape[-1] if columns is None else columns.shape[0]
        self.index = torch.zeros(logits.shape[0], width, dtype=torch.long, device=device)
        self.index[rows, position] = cols
        self.valid = torch.zeros(logits.shape[0], width, dtype=torch.bool, device=device)
        self.valid[rows, position] = True
        padding = torch.full(self.index.shape, MASK_LOGIT, dtype=logits.dtype, device=device)
        source = self.index if columns is None else columns[self.index]
        legal = torch.where(self.valid, logits.gather(1, source), padding)
        self.legal_log_probs = legal - legal.logsumexp(dim=-1, keepdim=True)
        """``(B, width)`` log-probabilities of the actions in ``index``."""

    @property
    def probs(self) -> torch.Tensor:
        """Dense probabilities ``(B, A)``, exactly 0 on illegal actions."""
        p = torch.where(self.valid, self.legal_log_probs.exp(), torch.zeros_like(self.legal_log_probs))
        return torch.zeros(self.index.shape[0], self.num_actions, dtype=p.dtype, device=p.device).scatter_add(
            1, self.index, p)

    def sample(self, generator: torch.Generator | None = None) -> torch.Tensor:
        """One action per row (never an illegal one)."""
        if not bool(self.valid[:, 0].all()):
            raise ValueError("a row of the action mask has no legal action")
        p = torch.where(self.valid, self.legal_log_probs.exp(), torch.zeros_like(self.legal_log_probs))
        # drawn on the CPU with the (CPU) generator wherever the network runs: the same seed, the same draws
        choice = torch.multinomial(p.cpu(), 1, generator=generator).to(p.device)
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


def network_device(net: nn.Module, default: torch.device) -> torch.device:
    """The device of ``net``'s parameters (``default`` for a network without any)."""
    first = next(net.parameters(), None)
    return default if first is None else first.device


def masked_policy(net: nn.Module, obs: torch.Tensor,
                  mask: torch.Tensor) -> tuple[MaskedCategorical, torch.Tensor]:
    """``(distribution over the legal actions, value)`` of ``net`` (a :mod:`training.networks` network) for a
    batch of observations and their action masks; gathers only the legal actions' logits. Both are moved to the
    network's device (the results live there)."""
    device = network_device(net, obs.device)
    obs, mask = obs.to(device), mask.to(device)
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
    device = network_device(net, torch.device("cpu"))
    for _epoch in range(config.update_epochs):
        order = rng.permutation(size)
        for idx in np.array_split(order, min(config.num_minibatches, size)):
            index = torch.from_numpy(idx)
            dist, values = masked_policy(net, batch.obs[index], batch.masks(idx))  # the stored mask, re-applied
            loss, stats = ppo_loss(
                dist.log_prob(batch.actions[index].to(device)), batch.logp[index].to(device),
                batch.advantages[index].to(device), dist.entropy(), values, batch.values[index].to(device),
                batch.returns[index].to(device), clip_coef=config.clip_coef,
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
