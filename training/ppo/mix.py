"""Who sits in each seat of a training game: the opponent mix and the draw of a new game's seat controllers.

Every seat has a *controller*: the learner (the network being trained), a snapshot (a past copy of it from the
pool), or a scripted policy (``random``, ``greedy``, ``policy``: :mod:`training.run.opponents`). Most games are pure
self-play (every seat the learner, each from its own point of view); a fraction ``opponent_fraction`` of games
seat the learner once against opponents of one kind, drawn from the weights of ``opponent_mix``.
"""

from __future__ import annotations

import numpy as np

from training.run.opponents import SCRIPTED_KINDS, available_kinds

LEARNER = "learner"
SNAPSHOT = "snapshot"
NETWORK_KINDS = (LEARNER, SNAPSHOT)
"""The controllers whose decisions the network answers (the others are played inside the env groups)."""

KIND_CODES = {LEARNER: 0, SNAPSHOT: 1, "random": 2, "greedy": 3, "policy": 4}
"""Controllers as small ints (reports and the batched engine's ``(E, n)`` table); >= 2: scripted."""
KIND_NAMES = {code: kind for kind, code in KIND_CODES.items()}


def parse_mix(text: str, game: str) -> dict[str, float]:
    """``"snapshot:0.6,random:0.2,greedy:0.2"`` -> normalised weights of the kinds this game offers."""
    weights: dict[str, float] = {}
    for part in filter(None, (p.strip() for p in text.split(","))):
        kind, _, w = part.partition(":")
        if kind not in (SNAPSHOT, *SCRIPTED_KINDS):
            raise ValueError(f"opponent_mix: unknown kind {kind!r}; allowed: snapshot, random, greedy, policy")
        weights[kind] = float(w) if w else 1.0
    weights = {k: w for k, w in weights.items() if w > 0 and k in available_kinds(game, [k])}
    total = sum(weights.values())
    if total <= 0:
        return {SNAPSHOT: 1.0}
    return {k: w / total for k, w in weights.items()}


class ControllerDraws:
    """The seat controllers of each env's games, drawn per game from the env's own generator."""

    def __init__(self, seeds: list[int], num_players: int, opponent_fraction: float, mix: dict[str, float] | None):
        self.rngs = [np.random.default_rng([int(s), 1]) for s in seeds]
        """Per env: draws of the seat controllers and of the scripted policies' per-game seeds."""
        self.n = num_players
        self.opponent_fraction = float(opponent_fraction)
        mix = mix or {SNAPSHOT: 1.0}
        self.kinds = list(mix)
        self.weights = np.array([mix[k] for k in self.kinds], dtype=np.float64)

    def draw(self, i: int) -> tuple[list[str], int | None]:
        """Env ``i``'s new game: its seat controllers and, when its opponents are scripted, their seed for it."""
        rng = self.rngs[i]
        controllers = [LEARNER] * self.n
        seed = None
        if self.opponent_fraction > 0 and rng.random() < self.opponent_fraction:
            kind = self.kinds[int(rng.choice(len(self.kinds), p=self.weights))]
            controllers = [kind] * self.n
            controllers[int(rng.integers(self.n))] = LEARNER
            if kind in SCRIPTED_KINDS:
                seed = int(rng.integers(2**31))
        return controllers, seed
