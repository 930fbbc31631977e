"""The policy over legal actions: a categorical distribution restricted to the legal actions, and a network's
distribution and value for a batch of observations (:func:`masked_policy`).

Every learner and every player of a network uses it: PPO's rollouts and update (:mod:`training.ppo`), the
evaluation games (:mod:`training.run.opponents`), and the checkpoint policy (:mod:`training.checkpoint`).
"""

from __future__ import annotations

import math
from typing import Any

import torch
from torch import nn

MASK_LOGIT = -1e9
"""Logit of the padding entries: exp(-1e9 - max) is exactly 0 in float32, and 0 * -1e9 stays finite."""


def action_positions(columns: Any, actions: torch.Tensor, rows: torch.Tensor | None = None) -> torch.Tensor:
    """The columns of a network's scores (``scores()``'s first result) that hold ``actions``' logits: the actions
    themselves (``columns`` None), a fixed table (a tensor), or per row (``training.networks.CellColumns``, or
    anything with ``positions(actions, rows)``). ``actions`` ``(B, w)``, row ``b``'s in row ``b``; or any shape
    with ``rows`` of the same shape."""
    if columns is None:
        return actions
    if isinstance(columns, torch.Tensor):
        return columns[actions]
    return columns.positions(actions, rows)


class MaskedCategorical:
    """A categorical distribution over the actions where ``mask`` is true.

    Each row's logits are first restricted to its legal actions (``index``: the legal action ids, padded to the
    longest row; ``valid`` marks the real entries), and padding gets :data:`MASK_LOGIT`, so illegal actions have
    probability exactly 0: sampling never returns them, and the entropy sums over legal actions only. The
    restriction is the same distribution as masking the full logit vector, and far cheaper when a few hundred
    of Battle Sheep's 25k actions are legal. Every row needs a legal action to sample.
    """

    def __init__(self, logits: torch.Tensor, mask: torch.Tensor, columns: Any = None):
        """``logits`` ``(B, A)``; or, with ``columns`` ``(A,)``, raw scores ``(B, R)`` of which action ``a``'s
        logit is column ``columns[a]`` (or per row: :func:`action_positions`) (a per-cell head's planes: only the legal actions' logits are gathered,
        never all ``A``)."""
        mask = mask.bool()
        device = logits.device
        rows, cols = mask.nonzero(as_tuple=True)
        counts = torch.bincount(rows, minlength=mask.shape[0])  # legal actions per row (a bool sum would
        # first copy the whole mask to int64)
        width = max(1, int(counts.max()) if counts.numel() else 1)
        position = torch.arange(rows.numel(), device=device) - (counts.cumsum(0) - counts)[rows]
        self.num_actions = logits.shape[-1] if columns is None else int(columns.shape[0])
        self.index = torch.zeros(logits.shape[0], width, dtype=torch.long, device=device)
        self.index[rows, position] = cols
        self.valid = torch.zeros(logits.shape[0], width, dtype=torch.bool, device=device)
        self.valid[rows, position] = True
        padding = torch.full(self.index.shape, MASK_LOGIT, dtype=logits.dtype, device=device)
        source = action_positions(columns, self.index)
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
