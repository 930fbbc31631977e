"""The policy over legal actions: a categorical distribution restricted to the legal actions, and a network's
distribution and value for a batch of observations (:func:`masked_policy`).

Every learner and every player of a network uses it: PPO's rollouts and update (:mod:`training.ppo`), the
evaluation games (:mod:`training.run.opponents`), and the checkpoint policy (:mod:`training.checkpoint`).
"""

from __future__ import annotations

import math
from typing import Any

import numba
import numpy as np
import torch
from torch import nn

MASK_LOGIT = -1e9
"""Logit of the padding entries: exp(-1e9 - max) is exactly 0 in float32, and 0 * -1e9 stays finite."""

DENSE_ACTIONS = 64
"""Up to this many actions (Beasty Borders' 4, Boaring's 23) a distribution keeps every action's logit and masks
the illegal ones, instead of gathering the legal ones into padded rows: a few whole-tensor operations in place of
the index bookkeeping, which cost more than the MLP's forward pass at a rollout's batch sizes."""


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


class LegalActions:
    """The legal actions of a batch as ``(row, action)`` pairs, row by row, actions ascending: the sparse form of a
    ``(B, A)`` mask (Battle Sheep: a few hundred legal of 25k actions), found once per batch."""

    def __init__(self, rows: torch.Tensor, cols: torch.Tensor, batch: int, num_actions: int):
        self.rows, self.cols = rows, cols
        self.batch, self.num_actions = int(batch), int(num_actions)

    @classmethod
    def from_mask(cls, mask: Any, device: Any = None) -> LegalActions:
        """From a ``(B, A)`` mask, torch or numpy (numpy's nonzero is several times faster on the CPU)."""
        if isinstance(mask, np.ndarray):
            rows, cols = np.nonzero(mask)
            return cls(torch.from_numpy(rows).to(device), torch.from_numpy(cols).to(device), *mask.shape)
        rows, cols = mask.to(device).nonzero(as_tuple=True)
        return cls(rows, cols, *mask.shape)

    @classmethod
    def from_packed(cls, packed: np.ndarray, num_actions: int) -> LegalActions:
        """From bit-packed mask rows ``(B, ceil(A / 8))`` (``np.packbits(..., axis=1)``), reading only the bytes
        that hold a legal action."""
        rows, byte = np.nonzero(packed)
        bits = np.unpackbits(packed[rows, byte][:, None], axis=1)
        hit, bit = np.nonzero(bits)
        return cls(torch.from_numpy(rows[hit]), torch.from_numpy(byte[hit] * 8 + bit), packed.shape[0], num_actions)

    def to(self, device: Any) -> LegalActions:
        return LegalActions(self.rows.to(device), self.cols.to(device), self.batch, self.num_actions)


class MaskedCategorical:
    """A categorical distribution over the actions where ``mask`` is true.

    Each row's logits are first restricted to its legal actions (``index``: the legal action ids, padded to the
    longest row; ``valid`` marks the real entries), and padding gets :data:`MASK_LOGIT`, so illegal actions have
    probability exactly 0: sampling never returns them, and the entropy sums over legal actions only. The
    restriction is the same distribution as masking the full logit vector, and far cheaper when a few hundred
    of Battle Sheep's 25k actions are legal. Every row needs a legal action to sample.
    """

    def __init__(self, logits: torch.Tensor, mask: Any, columns: Any = None):
        """``logits`` ``(B, A)``; or, with ``columns`` ``(A,)``, raw scores ``(B, R)`` of which action ``a``'s
        logit is column ``columns[a]`` (or per row: :func:`action_positions`): a per-cell head's planes, of which
        only the legal actions' logits are gathered, never all ``A``. ``mask``: ``(B, A)`` (torch or numpy) or
        :class:`LegalActions`."""
        legal = mask if isinstance(mask, LegalActions) else LegalActions.from_mask(mask, logits.device)
        if columns is None and legal.num_actions <= DENSE_ACTIONS:
            self._build_dense(legal, logits)
            return
        picked = logits[legal.rows, action_positions(columns, legal.cols, legal.rows)]
        self._build(legal, picked)

    @classmethod
    def from_legal(cls, legal: LegalActions, logits: torch.Tensor) -> MaskedCategorical:
        """The distribution whose legal actions are ``legal``'s pairs and whose logits are ``logits`` ``(K,)``, one
        per pair (a network that scores only the legal actions: ``legal_logits``)."""
        dist = cls.__new__(cls)
        dist._build(legal, logits)
        return dist

    def _build_dense(self, legal: LegalActions, logits: torch.Tensor) -> None:
        """Every action a column (``index`` the identity): illegal ones get :data:`MASK_LOGIT`."""
        batch, width = logits.shape
        self.dense = True
        self.num_actions = legal.num_actions
        self.index = torch.arange(width, device=logits.device).expand(batch, width)
        self.valid = torch.zeros(batch, width, dtype=torch.bool, device=logits.device)
        self.valid[legal.rows, legal.cols] = True
        scores = logits.masked_fill(~self.valid, MASK_LOGIT)
        self.legal_log_probs = scores - scores.logsumexp(dim=-1, keepdim=True)

    def _build(self, legal: LegalActions, picked: torch.Tensor) -> None:
        self.dense = False
        device = picked.device
        rows, cols = legal.rows, legal.cols
        counts = torch.bincount(rows, minlength=legal.batch)
        width = max(1, int(counts.max()) if counts.numel() else 1)
        position = torch.arange(rows.numel(), device=device) - (counts.cumsum(0) - counts)[rows]
        self.num_actions = legal.num_actions
        self.index = torch.zeros(legal.batch, width, dtype=torch.long, device=device)
        self.index[rows, position] = cols
        self.valid = torch.zeros(legal.batch, width, dtype=torch.bool, device=device)
        self.valid[rows, position] = True
        scores = torch.full(self.index.shape, MASK_LOGIT, dtype=picked.dtype, device=device)
        scores = scores.index_put((rows, position), picked)
        self.legal_log_probs = scores - scores.logsumexp(dim=-1, keepdim=True)
        """``(B, width)`` log-probabilities of the actions in ``index``."""

    @property
    def probs(self) -> torch.Tensor:
        """Dense probabilities ``(B, A)``, exactly 0 on illegal actions."""
        p = torch.where(self.valid, self.legal_log_probs.exp(), torch.zeros_like(self.legal_log_probs))
        return torch.zeros(self.index.shape[0], self.num_actions, dtype=p.dtype, device=p.device).scatter_add(
            1, self.index, p
        )

    def sample(self, generator: torch.Generator | None = None) -> torch.Tensor:
        """One action per row (never an illegal one)."""
        if not bool((self.valid.any(dim=-1) if self.dense else self.valid[:, 0]).all()):
            raise ValueError("a row of the action mask has no legal action")
        p = torch.where(self.valid, self.legal_log_probs.exp(), torch.zeros_like(self.legal_log_probs))
        # inverse CDF, one uniform a row, drawn on the CPU with the (CPU) generator wherever the network runs: the
        # same seed, the same draws, whatever the padding (an illegal entry adds 0 to the CDF: never chosen)
        cdf = p.detach().cpu().cumsum(dim=-1)
        u = torch.rand(cdf.shape[0], 1, generator=generator, dtype=cdf.dtype) * cdf[:, -1:]
        last = (cdf < cdf[:, -1:]).sum(dim=-1, keepdim=True)  # the last entry with probability > 0
        choice = torch.minimum(torch.searchsorted(cdf, u, right=True), last).to(p.device)
        return choice.squeeze(-1) if self.dense else self.index.gather(1, choice).squeeze(-1)

    def mode(self) -> torch.Tensor:
        """The most likely legal action per row."""
        best = torch.where(self.valid, self.legal_log_probs, torch.full_like(self.legal_log_probs, -math.inf))
        return self.index.gather(1, best.argmax(dim=-1, keepdim=True)).squeeze(-1)

    def log_prob(self, actions: torch.Tensor) -> torch.Tensor:
        """log pi(action) per row (-inf for an illegal action)."""
        if self.dense:
            actions = actions.long().unsqueeze(-1)
            inside = (actions >= 0) & (actions < self.index.shape[1])
            column = actions.clamp(0, self.index.shape[1] - 1)
            lp = self.legal_log_probs.gather(1, column).squeeze(-1)
            legal = self.valid.gather(1, column).squeeze(-1) & inside.squeeze(-1)
            return torch.where(legal, lp, torch.full_like(lp, -math.inf))
        hit = (self.index == actions.long().unsqueeze(-1)) & self.valid
        lp = self.legal_log_probs.gather(1, hit.to(torch.int8).argmax(dim=-1, keepdim=True)).squeeze(-1)
        return torch.where(hit.any(dim=-1), lp, torch.full_like(lp, -math.inf))

    def entropy(self) -> torch.Tensor:
        """Entropy over the legal actions only."""
        p_log_p = self.legal_log_probs.exp() * self.legal_log_probs
        return -torch.where(self.valid, p_log_p, torch.zeros_like(p_log_p)).sum(dim=-1)


def draw_dense(
    logits: torch.Tensor | np.ndarray, legal: np.ndarray, generator: torch.Generator
) -> tuple[np.ndarray, np.ndarray]:
    """``(actions, log-probabilities)`` ``(B,)`` of one draw per row from the softmax of ``logits`` ``(B, A)``
    over the ``legal`` ``(B, A)`` actions (bool), in one compiled loop: the rollouts' draws in a game of a few
    actions, where a dozen small torch operations cost more than the network's pass. The same inverse-CDF draw as
    :meth:`MaskedCategorical.sample` (one uniform a row from ``generator``), in float64."""
    if not legal.any(axis=1).all():
        raise ValueError("a row of the action mask has no legal action")
    raw = logits.detach().cpu().numpy() if isinstance(logits, torch.Tensor) else logits
    x = np.ascontiguousarray(raw, dtype=np.float64)
    u = torch.rand(len(x), generator=generator, dtype=torch.float64).numpy()
    actions = np.empty(len(x), dtype=np.int64)
    logp = np.empty(len(x), dtype=np.float64)
    _draw_kernel(x, np.ascontiguousarray(legal), u, actions, logp)
    return actions, logp


@numba.njit(cache=True)
def _draw_kernel(x: np.ndarray, legal: np.ndarray, u: np.ndarray, actions: np.ndarray, logp: np.ndarray) -> None:
    """Per row: the legal actions' softmax, the first action whose cumulative probability passes ``u`` (the last
    legal one with probability > 0 when rounding leaves none), its log-probability."""
    weights = np.empty(x.shape[1])
    for b in range(x.shape[0]):
        top = -np.inf
        for a in range(x.shape[1]):
            if legal[b, a] and x[b, a] > top:
                top = x[b, a]
        total = 0.0
        for a in range(x.shape[1]):
            weights[a] = math.exp(x[b, a] - top) if legal[b, a] else 0.0
            total += weights[a]
        target = u[b] * total
        cumulative = 0.0
        chosen = -1
        for a in range(x.shape[1]):
            if weights[a] > 0.0:
                cumulative += weights[a]
                chosen = a
                if cumulative > target:
                    break
        actions[b] = chosen
        logp[b] = x[b, chosen] - top - math.log(total)


def network_device(net: nn.Module, default: torch.device) -> torch.device:
    """The device of ``net``'s parameters (``default`` for a network without any)."""
    first = next(net.parameters(), None)
    return default if first is None else first.device


def masked_policy(net: nn.Module, obs: torch.Tensor, mask: Any) -> tuple[MaskedCategorical, torch.Tensor]:
    """``(distribution over the legal actions, value)`` of ``net`` (a :mod:`training.networks` network) for a
    batch of observations and their legal actions (a ``(B, A)`` mask, torch or numpy, or :class:`LegalActions`);
    only the legal actions' logits are computed (a network with ``legal_logits``) or gathered. Both are moved
    to the network's device (the results live there)."""
    device = network_device(net, obs.device)
    obs = obs.to(device)
    legal = (mask if isinstance(mask, LegalActions) else LegalActions.from_mask(mask)).to(device)
    if hasattr(net, "legal_logits"):
        logits, values = net.legal_logits(obs, legal.rows, legal.cols)
        return MaskedCategorical.from_legal(legal, logits), values
    scores, values, columns = net.scores(obs)
    return MaskedCategorical(scores, legal, columns), values
