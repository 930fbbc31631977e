"""Explicit chance for engines that draw their randomness from an ``np.random.Generator``.

The Barnyard engines take chance (shuffles, dice) only through a generator argument. To turn those draws into
OpenSpiel's explicit chance nodes, the bridge hands the engine a :class:`ScriptedRng` instead: every draw the
engine asks for is broken into uniform choices among ``k`` outcomes (a die roll is one choice among 8, a shuffle
of ``n`` cards is ``n - 1`` choices, Fisher-Yates style), served from a list of outcomes chosen so far. When the
list runs out, the generator raises :class:`NeedChance` naming the next choice's outcome count: that is the next
chance node. Replaying the same transition with one more outcome continues it. The distribution is exact: a
uniform choice at every step gives the uniform permutation, die roll or subset that numpy's generator would.

Only the generator methods the engines use are offered (``integers``, ``permutation``, ``choice`` without
replacement or weights, ``shuffle``); anything else raises :class:`UnsupportedChance`, so an engine that starts
drawing differently fails loudly instead of silently changing the game's distribution.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np


class NeedChance(Exception):
    """The engine asked for a draw beyond the scripted outcomes: a chance node with ``num_outcomes`` outcomes."""

    def __init__(self, num_outcomes: int, label: str, offset: int = 0):
        super().__init__(f"chance node: {label} ({num_outcomes} outcomes)")
        self.num_outcomes = num_outcomes
        self.label = label
        """What is drawn, e.g. ``"integers(1, 9)"`` or ``"permutation(70) position 3"``."""
        self.offset = offset
        """For ``integers(low, high)``: ``low`` (outcome ``i`` is the value ``low + i``); else 0."""

    def describe(self, outcome: int) -> str:
        """Readable text for ``outcome`` at this node."""
        if self.label.startswith("integers"):
            return f"{self.label} -> {self.offset + outcome}"
        return f"{self.label} -> pick {outcome} of {self.num_outcomes}"


class UnsupportedChance(TypeError):
    """The engine used a generator method that has no explicit-chance translation."""


class ScriptedRng:
    """A stand-in for ``np.random.Generator`` that serves scripted uniform choices (see the module docstring).

    ``outcomes[i]`` is the outcome index of the i-th choice with more than one outcome; choices with a single
    outcome take no entry. ``strict_deterministic=True`` makes any real choice an error (deterministic games).
    """

    def __init__(self, outcomes: Sequence[int] = (), strict_deterministic: bool = False):
        self.outcomes = list(outcomes)
        self.used = 0
        self.strict_deterministic = strict_deterministic

    def _pick(self, k: int, label: str, offset: int = 0) -> int:
        """The next scripted choice among ``k`` outcomes (0 when ``k == 1``), or NeedChance."""
        if k < 1:
            raise ValueError(f"{label}: a choice among {k} outcomes")
        if k == 1:
            return 0
        if self.strict_deterministic:
            raise UnsupportedChance(f"{label}: this game is declared deterministic but its engine drew chance")
        if self.used < len(self.outcomes):
            outcome = self.outcomes[self.used]
            if not 0 <= outcome < k:
                raise ValueError(f"{label}: scripted outcome {outcome} is not in [0, {k})")
            self.used += 1
            return outcome
        raise NeedChance(k, label, offset)

    def all_used(self) -> bool:
        """Whether every scripted outcome was consumed (a transition must use exactly its outcomes)."""
        return self.used == len(self.outcomes)

    # ----- the Generator methods the engines call ---------------------------------------------------
    def integers(
        self, low: int, high: int | None = None, size: Any = None, dtype: Any = np.int64, endpoint: bool = False
    ) -> Any:
        """Uniform integers in ``[low, high)`` (``[0, low)`` with one argument), one choice each."""
        if high is None:
            low, high = 0, low
        low, high = int(low), int(high) + (1 if endpoint else 0)
        label = f"integers({low}, {high})"
        if size is None:
            return np.int64(low + self._pick(high - low, label, low))
        count = int(np.prod(size))
        values = [low + self._pick(high - low, label, low) for _ in range(count)]
        return np.asarray(values, dtype=dtype).reshape(size)

    def permutation(self, x: Any) -> np.ndarray:
        """A uniform permutation of ``range(x)`` (an int) or of the array ``x``: ``n - 1`` choices."""
        items = list(range(int(x))) if isinstance(x, (int, np.integer)) else list(np.asarray(x))
        n = len(items)
        out = []
        for position in range(n):
            out.append(items.pop(self._pick(n - position, f"permutation({n}) position {position}")))
        return np.asarray(out, dtype=np.int64) if isinstance(x, (int, np.integer)) else np.asarray(out)

    def shuffle(self, x: Any) -> None:
        """Shuffle the mutable sequence ``x`` in place, uniformly."""
        order = self.permutation(len(x))
        x[:] = [x[i] for i in order.tolist()] if isinstance(x, list) else np.asarray(x)[order]

    def choice(
        self, a: Any, size: Any = None, replace: bool = True, p: Any = None, axis: int = 0, shuffle: bool = True
    ) -> Any:
        """Uniform choice from ``a`` (an int means ``range(a)``): one element, or ``size`` of them without
        replacement. Weighted draws (``p``) and draws with replacement of more than one element are not
        offered (no engine uses them)."""
        if p is not None:
            raise UnsupportedChance("choice(p=...): weighted draws have no explicit-chance translation here")
        pool = list(range(int(a))) if isinstance(a, (int, np.integer)) else list(np.asarray(a))
        if size is None:
            return pool[self._pick(len(pool), f"choice({len(pool)})")]
        count = int(np.prod(size))
        if replace and count > 1:
            raise UnsupportedChance("choice(size>1, replace=True) is not offered")
        total, out = len(pool), []
        for k in range(count):
            out.append(pool.pop(self._pick(len(pool), f"choice({total}, {count}) pick {k}")))
        return np.asarray(out).reshape(size)

    def __getattr__(self, name: str) -> Any:
        raise UnsupportedChance(f"np.random.Generator.{name} is not offered by the explicit-chance bridge")
