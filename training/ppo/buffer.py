"""Complete transitions of the learner's seats in preallocated arrays, and the batch an update trains on.

A *stream* is one seat of one env over time (across its games). A transition is one decision of a learner seat
and what followed it until that seat's next decision: it is *complete* once it knows the value of the state where
the seat decides next (``next_value``), or that the game ended (``done``), or that the game was cut by a ply cap
(``cut``: ``next_value`` is the value of the seat's observation at the cut, and the advantage chain stops there).
The credit assignment that completes them is :mod:`training.ppo.credit`; this buffer holds only complete ones, a
row each, appended a step's worth at a time by :meth:`RolloutBuffer.add` (whole arrays, no object per sample).

:meth:`RolloutBuffer.build` lays the rows out stream after stream (the streams in the order of their first row,
each stream's rows in time order: the order the minibatch shuffle sees), marks which sample's successor is the
next one (``chained``) and runs GAE over the whole batch (:func:`training.ppo.maths.gae`).

Masks are stored bit-packed (``np.packbits``): Battle Sheep's 25k-action mask is 3 kB instead of 25 kB a sample.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

import numpy as np
import torch

from training.distribution import LegalActions
from training.ppo.maths import gae


@dataclass
class Transition:
    """One row of the buffer (or one pending decision of :mod:`training.ppo.credit`), as a readable record: for
    tests and measurement scripts, never built on the training path."""

    obs: np.ndarray
    packed_mask: np.ndarray
    """``np.packbits`` of the legal-action mask."""
    action: int
    logp: float
    """log pi(action | obs) under the policy that acted."""
    value: float
    """V(obs) under the policy that acted."""
    reward: float = 0.0
    """Sum of the seat's rewards from this decision until its next one (or the end), the shaping included."""
    done: bool = False
    """The game ended before the seat decided again."""
    next_value: float = 0.0
    """V at the seat's next decision (0 when ``done``; V at the cut when ``cut``)."""
    potential: float = 0.0
    """The seat's shaping potential where it decided (0 without shaping)."""
    cut: bool = False
    """The game was cut by a ply cap before the seat decided again (not an end: ``done`` stays false)."""


def pack_masks(masks: np.ndarray) -> np.ndarray:
    """Bit-pack each row of ``(B, A)`` int8/bool legal-action masks into ``(B, ceil(A / 8))`` uint8."""
    return np.packbits(masks.astype(bool, copy=False), axis=1)


def unpack_masks(packed: np.ndarray, num_actions: int) -> np.ndarray:
    """Bool masks ``(B, num_actions)`` from packed rows ``(B, ceil(num_actions / 8))``."""
    return np.unpackbits(packed, axis=1, count=num_actions).view(bool)


@dataclass
class Batch:
    """One update's samples: the small columns as tensors in the batch's order; the observations and the packed
    masks stay in the rows the buffer wrote them to (``rows[t]``: sample ``t``'s row), read per minibatch, so the
    largest arrays are never copied whole. Valid until the buffer is written again (the next collection)."""

    stored_obs: np.ndarray
    stored_packed: np.ndarray
    rows: np.ndarray
    actions: torch.Tensor
    logp: torch.Tensor
    values: torch.Tensor
    advantages: torch.Tensor
    returns: torch.Tensor
    num_actions: int

    def __len__(self) -> int:
        return int(self.actions.shape[0])

    def observations(self, index: np.ndarray) -> torch.Tensor:
        """The observations of the samples at ``index``."""
        return torch.from_numpy(self.stored_obs[self.rows[index]])

    def legal(self, index: np.ndarray) -> LegalActions:
        """The legal actions of the samples at ``index`` (read from the packed masks without unpacking them)."""
        return LegalActions.from_packed(self.stored_packed[self.rows[index]], self.num_actions)

    @property
    def obs(self) -> torch.Tensor:
        """Every sample's observation, in the batch's order (a copy)."""
        return self.observations(np.arange(len(self)))


COLUMNS: dict[str, Any] = {
    "env": np.int64,
    "seat": np.int64,
    "action": np.int64,
    "logp": np.float32,
    "value": np.float32,
    "reward": np.float64,
    "done": bool,
    "next_value": np.float32,
    "potential": np.float64,
    "cut": bool,
}
"""The per-sample columns besides the observation and the packed mask, with their dtypes. Rewards and potentials
stay float64 (sums of the env's rewards and the shaping, as paid) until the batch is built."""


class RolloutBuffer:
    """Complete transitions in preallocated arrays, in the order they completed (a stream's rows in time order);
    :meth:`build` turns them into a :class:`Batch`.

    The arrays take their shapes from the first :meth:`add` and double when full; :meth:`clear` keeps them."""

    def __init__(self, num_actions: int, capacity: int = 1024):
        self.num_actions = num_actions
        self.capacity = int(capacity)
        self.size = 0
        self.obs: np.ndarray | None = None
        self.packed: np.ndarray | None = None
        self.columns: dict[str, np.ndarray] = {name: np.zeros(self.capacity, dtype) for name, dtype in COLUMNS.items()}

    def __len__(self) -> int:
        return self.size

    def add(self, obs: np.ndarray, packed: np.ndarray, **columns: np.ndarray | float | bool) -> None:
        """Append ``k`` complete transitions: ``obs`` ``(k, *shape)``, ``packed`` ``(k, bytes)`` and every column of
        :data:`COLUMNS` as a ``(k,)`` array or one value for all (streams must be fed in time order)."""
        k = len(obs)
        if k == 0:
            return
        if self.obs is None:
            self.obs = np.zeros((self.capacity, *obs.shape[1:]), obs.dtype)
            self.packed = np.zeros((self.capacity, packed.shape[1]), np.uint8)
        if self.size + k > self.capacity:
            self._grow(self.size + k)
        assert self.packed is not None
        rows = slice(self.size, self.size + k)
        self.obs[rows] = obs
        self.packed[rows] = packed
        for name, column in self.columns.items():
            column[rows] = columns[name]
        self.size += k

    def _grow(self, needed: int) -> None:
        while self.capacity < needed:
            self.capacity *= 2
        assert self.obs is not None and self.packed is not None
        self.obs = _resized(self.obs, self.capacity)
        self.packed = _resized(self.packed, self.capacity)
        self.columns = {name: _resized(column, self.capacity) for name, column in self.columns.items()}

    def clear(self) -> None:
        """Forget every transition (after an update); the arrays are kept for the next batch."""
        self.size = 0

    def order(self) -> tuple[np.ndarray, np.ndarray]:
        """``(rows, chained)``: the rows stream after stream (streams in the order of their first row, each in time
        order), and per sample whether the next sample is the same stream's next decision (false at a stream's
        last sample and after a cut game: the next sample is another game's)."""
        n = self.size
        env, seat, cut = self.columns["env"][:n], self.columns["seat"][:n], self.columns["cut"][:n]
        stream = env * (int(seat.max(initial=0)) + 1) + seat
        _, first_row, inverse = np.unique(stream, return_index=True, return_inverse=True)
        rows = np.lexsort((np.arange(n), first_row[inverse]))
        chained = np.zeros(n, dtype=bool)
        if n > 1:
            chained[:-1] = (stream[rows[1:]] == stream[rows[:-1]]) & ~cut[rows[:-1]]
        return rows, chained

    def arrays(self) -> dict[str, np.ndarray]:
        """Flat arrays in :meth:`order`, with ``chained`` and ``rows`` (each sample's row in the buffer's arrays)."""
        rows, chained = self.order()
        c = self.columns
        out = {
            "rows": rows,
            "actions": c["action"][rows],
            "logp": c["logp"][rows],
            "values": c["value"][rows],
            "rewards": c["reward"][rows].astype(np.float32),
            "dones": c["done"][rows],
            "next_values": c["next_value"][rows],
            "chained": chained,
        }
        if self.obs is not None and self.packed is not None:
            out["obs"], out["packed_masks"] = self.obs[rows], self.packed[rows]
        return out

    def build(self, gamma: float, gae_lambda: float) -> Batch:
        """GAE advantages and returns over every stream; the batch for one update."""
        rows, chained = self.order()
        c = self.columns
        values = c["value"][rows]
        advantages, returns = gae(
            c["reward"][rows].astype(np.float32),
            values,
            c["next_value"][rows],
            c["done"][rows],
            chained,
            gamma,
            gae_lambda,
        )
        assert self.obs is not None and self.packed is not None, "build needs samples"
        return Batch(
            stored_obs=self.obs,
            stored_packed=self.packed,
            rows=rows,
            actions=torch.from_numpy(c["action"][rows]),
            logp=torch.from_numpy(c["logp"][rows]),
            values=torch.from_numpy(values),
            advantages=torch.from_numpy(advantages),
            returns=torch.from_numpy(returns),
            num_actions=self.num_actions,
        )

    # ----- reading it as records (tests, measurement scripts) -------------------------------------------------
    def transition(self, row: int) -> Transition:
        """Row ``row`` as a :class:`Transition`."""
        assert self.obs is not None and self.packed is not None
        c = {name: column[row].item() for name, column in self.columns.items()}
        return Transition(
            self.obs[row].copy(),
            self.packed[row].copy(),
            int(c["action"]),
            float(c["logp"]),
            float(c["value"]),
            float(c["reward"]),
            bool(c["done"]),
            float(c["next_value"]),
            float(c["potential"]),
            bool(c["cut"]),
        )

    @property
    def streams(self) -> dict[tuple[int, int], list[Transition]]:
        """The transitions per ``(env, seat)`` stream, in :meth:`order`."""
        out: dict[tuple[int, int], list[Transition]] = {}
        rows, _ = self.order()
        env, seat = self.columns["env"], self.columns["seat"]
        for row in rows.tolist():
            out.setdefault((int(env[row]), int(seat[row])), []).append(self.transition(row))
        return out

    def __iter__(self) -> Iterator[Transition]:
        for stream in self.streams.values():
            yield from stream


def _resized(a: np.ndarray, capacity: int) -> np.ndarray:
    out = np.zeros((capacity, *a.shape[1:]), a.dtype)
    out[: len(a)] = a
    return out
