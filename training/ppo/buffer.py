"""Transitions of the learner's seats, grouped in per-seat streams, and the batch an update trains on.

A *stream* is one seat of one env over time (across its games). A :class:`Transition` is born when the seat
decides; it collects every reward that the env pays that seat until the seat's next decision (or the end of the
game) and then becomes *complete*: it knows the value of the state where the seat decides next (``next_value``),
or that the game ended (``done``), or that the game was cut by a ply cap (``cut``: ``next_value`` is the value
of the seat's observation at the cut, and the advantage chain stops there). Only complete transitions are
trained on; a transition still waiting at update time carries over to the next batch (its log-probability is
that of the policy that acted, so PPO's ratio stays correct).

Masks are stored bit-packed (``np.packbits``): Battle Sheep's 25k-action mask is 3 kB instead of 25 kB a sample.
"""

from __future__ import annotations

from collections.abc import Hashable, Iterator
from dataclasses import dataclass

import numpy as np
import torch

from training.distribution import LegalActions
from training.ppo.maths import gae


@dataclass
class Transition:
    """One decision of a learner seat and what followed it until that seat's next decision."""

    obs: np.ndarray
    packed_mask: np.ndarray
    """``np.packbits`` of the legal-action mask."""
    action: int
    logp: float
    """log pi(action | obs) under the policy that acted."""
    value: float
    """V(obs) under the policy that acted."""
    reward: float = 0.0
    """Sum of the seat's rewards from this decision until its next one (or the end)."""
    done: bool = False
    """The game ended before the seat decided again."""
    next_value: float = 0.0
    """V at the seat's next decision (0 when ``done``; V at the cut when ``cut``)."""
    potential: float = 0.0
    """The seat's shaping potential where it decided (0 without shaping); the shaping paid when the transition
    completes is ``gamma * potential there - potential``."""
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
    """One update's samples as tensors (masks stay packed until a minibatch needs them)."""

    obs: torch.Tensor
    packed_masks: np.ndarray
    actions: torch.Tensor
    logp: torch.Tensor
    values: torch.Tensor
    advantages: torch.Tensor
    returns: torch.Tensor
    num_actions: int

    def __len__(self) -> int:
        return int(self.actions.shape[0])

    def legal(self, index: np.ndarray) -> LegalActions:
        """The legal actions of the samples at ``index`` (read from the packed masks without unpacking them)."""
        return LegalActions.from_packed(self.packed_masks[index], self.num_actions)


class RolloutBuffer:
    """Complete transitions per stream, in time order; :meth:`build` turns them into a :class:`Batch`."""

    def __init__(self, num_actions: int):
        self.num_actions = num_actions
        self.streams: dict[Hashable, list[Transition]] = {}
        self.size = 0

    def add(self, stream: Hashable, transition: Transition) -> None:
        """Append a complete transition to its stream (streams must be fed in time order)."""
        self.streams.setdefault(stream, []).append(transition)
        self.size += 1

    def __len__(self) -> int:
        return self.size

    def __iter__(self) -> Iterator[Transition]:
        for stream in self.streams.values():
            yield from stream

    def clear(self) -> None:
        """Forget every transition (after an update)."""
        self.streams = {}
        self.size = 0

    def arrays(self) -> dict[str, np.ndarray]:
        """Flat arrays, stream after stream; ``chained[t]`` says that sample t+1 is t's successor."""
        items = list(self)
        chained = np.zeros(len(items), dtype=bool)
        pos = 0
        for stream in self.streams.values():
            # within a stream, consecutive complete transitions follow each other (nothing is skipped), except
            # across a cut game: the next sample is another game's
            chained[pos : pos + len(stream) - 1] = [not t.cut for t in stream[:-1]]
            pos += len(stream)
        return {
            "obs": np.stack([t.obs for t in items]),
            "packed_masks": np.stack([t.packed_mask for t in items]),
            "actions": np.array([t.action for t in items], dtype=np.int64),
            "logp": np.array([t.logp for t in items], dtype=np.float32),
            "values": np.array([t.value for t in items], dtype=np.float32),
            "rewards": np.array([t.reward for t in items], dtype=np.float32),
            "dones": np.array([t.done for t in items], dtype=bool),
            "next_values": np.array([t.next_value for t in items], dtype=np.float32),
            "chained": chained,
        }

    def build(self, gamma: float, gae_lambda: float) -> Batch:
        """GAE advantages and returns over every stream; the batch for one update."""
        a = self.arrays()
        advantages, returns = gae(
            a["rewards"], a["values"], a["next_values"], a["dones"], a["chained"], gamma, gae_lambda
        )
        return Batch(
            obs=torch.from_numpy(a["obs"]),
            packed_masks=a["packed_masks"],
            actions=torch.from_numpy(a["actions"]),
            logp=torch.from_numpy(a["logp"]),
            values=torch.from_numpy(a["values"]),
            advantages=torch.from_numpy(advantages),
            returns=torch.from_numpy(returns),
            num_actions=self.num_actions,
        )
