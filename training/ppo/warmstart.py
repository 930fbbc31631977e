"""A warm start for PPO: the network first imitates the game's compiled ``greedy`` baseline.

Why: PPO from random weights spends most of a short run rediscovering what a one-ply greedy rule already knows
(Beasty Borders: 1M samples from scratch reached 0.22-0.34 against greedy). Behaviour cloning of greedy is a
supervised fit that takes seconds, so the policy gradient starts at greedy's level and spends its samples on what
greedy misses (the warm start of AlphaStar's and many board-game agents' training, here with a scripted teacher).

1. :func:`greedy_demonstrations` plays greedy-against-greedy games on the game's batched engine (one SplitMix64
   generator per row, seeded from the run's seed), a share ``epsilon`` of the moves uniformly random for varied
   positions. Each position is labelled with greedy's move (also where a random move was played) and with the
   mover's PPO value target: the game's result for that seat discounted over its remaining decisions, minus its
   shaping potential (``score_shaping``: what PPO's value head learns under potential-based shaping, whose
   rewards telescope to ``-Phi(s)`` from a decision on).
2. :func:`fit_warm_start` fits the policy head by cross-entropy over the legal actions and the value head by
   squared error (``vf_coef`` weighted), Adam, shuffled minibatches, a few epochs.
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from typing import Any

import numpy as np
import torch
from torch import nn

from envs.common.fastrng import seed_states
from envs.common.game import TERMINAL
from envs.common.vector import batched_game_class, sample_legal
from training.config import TrainConfig
from training.distribution import masked_policy
from training.shaping import relative_potential


@dataclass
class Demonstrations:
    """Greedy's labelled positions: observations, legal masks, greedy's actions and value targets."""

    obs: np.ndarray
    masks: np.ndarray
    actions: np.ndarray
    value_targets: np.ndarray
    games: int
    """Complete games the positions came from (positions of unfinished games are dropped)."""

    def __len__(self) -> int:
        return len(self.actions)


def greedy_demonstrations(
    game: str,
    options: dict[str, Any],
    samples: int,
    seed: int,
    epsilon: float = 0.1,
    gamma: float = 0.99,
    score_shaping: float = 0.0,
    batch: int = 256,
) -> Demonstrations:
    """About ``samples`` positions of epsilon-greedy self-play on ``game``'s batched engine (module docstring).
    Same arguments, same positions. ``ValueError`` for a game without a compiled greedy."""
    make = batched_game_class(game)
    if make is None:
        raise ValueError(f"{game} has no batched engine: no compiled greedy to imitate")
    eng = make(**options)
    if not getattr(eng, "has_greedy_actions", False):
        raise ValueError(f"{game}'s batched engine has no compiled greedy to imitate")
    n, a = eng.num_players, eng.num_actions
    state = eng.new_state(batch)
    state.rng[:] = seed_states(seed, batch)
    greedy_rng, random_rng = seed_states(seed + 1, batch), seed_states(seed + 2, batch)
    coin = np.random.default_rng([seed, 7])
    eng.reset_rows(state, np.arange(batch))
    obs = np.empty((batch, *eng.observation_shape), dtype=np.float32)
    mask = np.empty((batch, a), dtype=bool)
    greedy, played = np.empty(batch, dtype=np.int64), np.empty(batch, dtype=np.int64)

    kept_obs: list[np.ndarray] = []
    kept_masks: list[np.ndarray] = []
    kept_actions: list[np.ndarray] = []
    kept_targets: list[np.ndarray] = []
    # per row, the current game's positions: (observation, mask, greedy action, seat, potential)
    pending: list[list[tuple[np.ndarray, np.ndarray, int, int, float]]] = [[] for _ in range(batch)]
    total, games = 0, 0
    rows = np.arange(batch)
    while total < samples:
        seats = eng.current_player(state)
        cut = eng.truncated(state)
        ended = np.flatnonzero((seats == TERMINAL) | cut)
        if ended.size:
            results = eng.returns(state)
            for b in ended.tolist():
                if not cut[b]:  # a finished game (a cut one has no result to learn from: dropped)
                    positions = pending[b]
                    later = np.zeros(n, dtype=np.int64)
                    targets = np.empty(len(positions), dtype=np.float32)
                    for k in range(len(positions) - 1, -1, -1):
                        seat, potential = positions[k][3], positions[k][4]
                        targets[k] = gamma ** later[seat] * results[b, seat] - potential
                        later[seat] += 1
                    kept_obs.append(np.stack([p[0] for p in positions]))
                    kept_masks.append(np.stack([p[1] for p in positions]))
                    kept_actions.append(np.array([p[2] for p in positions], dtype=np.int64))
                    kept_targets.append(targets)
                    total += len(positions)
                    games += 1
                pending[b] = []
            eng.reset_rows(state, ended)
            continue
        eng.observe(state, seats, obs)
        eng.legal_mask(state, mask)
        eng.greedy_actions(state, greedy_rng, greedy)
        sample_legal(mask, random_rng, played)
        explore = coin.random(batch) < epsilon
        played = np.where(explore, played, greedy)
        potentials = (
            relative_potential(np.asarray(eng.shaping_potential(state), dtype=np.float64), score_shaping)[rows, seats]
            if score_shaping
            else np.zeros(batch)
        )
        for b in range(batch):
            pending[b].append((obs[b].copy(), mask[b].copy(), int(greedy[b]), int(seats[b]), float(potentials[b])))
        eng.apply(state, played)
    return Demonstrations(
        np.concatenate(kept_obs),
        np.concatenate(kept_masks),
        np.concatenate(kept_actions),
        np.concatenate(kept_targets),
        games,
    )


def fit_warm_start(
    net: nn.Module,
    demos: Demonstrations,
    epochs: int,
    seed: int,
    learning_rate: float = 1e-3,
    minibatch: int = 256,
    vf_coef: float = 0.5,
) -> dict[str, float]:
    """Fit ``net`` to ``demos`` (module docstring); returns the last epoch's mean losses, greedy's-move accuracy
    and the seconds taken."""
    start = time.perf_counter()
    optimizer = torch.optim.Adam(net.parameters(), lr=learning_rate, eps=1e-5)
    order_rng = np.random.default_rng([seed, 11])
    obs_t = torch.from_numpy(demos.obs)
    actions_t = torch.from_numpy(demos.actions)
    targets_t = torch.from_numpy(demos.value_targets)
    stats: dict[str, float] = {}
    for _ in range(epochs):
        order = order_rng.permutation(len(demos))
        sums = np.zeros(3)
        for lo in range(0, len(order), minibatch):
            idx = order[lo : lo + minibatch]
            dist, values = masked_policy(net, obs_t[idx], demos.masks[idx])
            policy_loss = -dist.log_prob(actions_t[idx]).mean()
            value_loss = 0.5 * ((values - targets_t[idx]) ** 2).mean()
            loss = policy_loss + vf_coef * value_loss
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            with torch.no_grad():
                hits = (dist.mode() == actions_t[idx]).float().mean()
            sums += np.array([policy_loss.item(), value_loss.item(), hits.item()]) * len(idx)
        stats = dict(zip(("policy_loss", "value_loss", "accuracy"), (sums / len(order)).tolist()))
    stats["seconds"] = time.perf_counter() - start
    return stats


def imitate_greedy(net: nn.Module, config: TrainConfig) -> dict[str, float]:
    """The trainer's warm start (config ``imitate_greedy`` positions, ``imitate_epochs`` passes): positions from
    :func:`greedy_demonstrations` with the run's discount and shaping, seeded from the run's seed, then
    :func:`fit_warm_start`; returns the fit's figures plus ``positions``, ``games``
    and ``seconds`` (both steps)."""
    start = time.perf_counter()
    demos = greedy_demonstrations(
        config.game,
        config.env_options,
        config.imitate_greedy,
        seed=config.seed * 7919 + 17,
        gamma=config.gamma,
        score_shaping=config.score_shaping,
    )
    stats = fit_warm_start(net, demos, config.imitate_epochs, config.seed, vf_coef=config.vf_coef)
    stats.update(positions=float(len(demos)), games=float(demos.games), seconds=time.perf_counter() - start)
    return stats
