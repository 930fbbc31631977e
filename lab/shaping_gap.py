"""Measure how far the trainer's score shaping is from exact potential-based shaping.

With potential ``Phi`` (``score_shaping * (my progress - the others' mean)``, 0 once the game is over) and a seat's
decisions ``k = 0 .. K-1`` in one game, exact shaping (Ng, Harada & Russell 1999) pays the seat's transitions
amounts whose discounted sum ``sum_k gamma^k shaping_k`` is ``-Phi(first decision)``: the shaping then changes no
policy's ranking. This script plays random games through the trainer's own collector
(:class:`training.ppo.collect.SelfPlayCollector`, every seat the learner, a network that plays uniformly over the
legal actions), twice with the same seeds: with the game's default ``score_shaping`` and with none. The shaping
part of each transition's reward is the difference of the two runs' rewards; per seat and game the *gap* is
``|sum_k gamma^k shaping_k + Phi(first decision)|``, with ``Phi`` recomputed here from
``Game.shaping_potential`` at each of the seat's decisions. Games cut by a ply cap are counted apart (their
shaping stops at the cut, where the learner bootstraps).

``python -m lab.shaping_gap [--games 20] [--game GAME ...] [--score-shaping C]``
"""

from __future__ import annotations

import argparse
from dataclasses import dataclass
from typing import Any

import numpy as np
import torch
from torch import nn

import envs
from training.config import make_config
from training.ppo.buffer import RolloutBuffer
from training.ppo.collect import SelfPlayCollector


class UniformNet(nn.Module):
    """Scores 0 for every action and value 0: the masked policy is uniform over the legal actions."""

    def __init__(self, num_actions: int):
        super().__init__()
        self.num_actions = num_actions

    def scores(self, obs: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor, None]:
        return torch.zeros(obs.shape[0], self.num_actions), torch.zeros(obs.shape[0]), None


def recording_env(game: str, score_shaping: float) -> type:
    """The game's raw env class, extended to log every game: per ply the seat to move and every seat's
    shaping potential, and how the game ended."""
    base = envs.module(game).raw_env

    class Recording(base):  # type: ignore[misc, valid-type]
        def __init__(self, *args: Any, **kwargs: Any):
            super().__init__(*args, **kwargs)
            self.games: list[dict[str, Any]] = []

        def reset(self, *args: Any, **kwargs: Any) -> None:
            super().reset(*args, **kwargs)
            self.games.append({"movers": [], "potentials": [], "end": None})

        def step(self, action: Any) -> None:
            agent = self.agent_selection
            if not (self.terminations[agent] or self.truncations[agent]):
                progress = np.asarray(self.game.shaping_potential(self.game_state), dtype=np.float64)
                n = len(progress)
                others = (progress.sum() - progress) / max(1, n - 1)
                record = self.games[-1]
                record["movers"].append(self.seat_of[agent])
                record["potentials"].append(score_shaping * (progress - others))
            super().step(action)
            if all(self.terminations.values()):
                self.games[-1]["end"] = "terminated"
            elif all(self.truncations.values()):
                self.games[-1]["end"] = "truncated"

    return Recording


@dataclass
class GapReport:
    game: str
    score_shaping: float
    gamma: float
    gaps: list[float]
    """One per (finished, not truncated game, seat with at least one decision)."""
    shaping_paid: list[float]
    """Per seat-game as ``gaps``: the sum of the absolute shaping payments (how much shaping there was)."""
    truncated_games: int

    @property
    def mean(self) -> float:
        return float(np.mean(self.gaps)) if self.gaps else 0.0

    @property
    def max(self) -> float:
        return float(np.max(self.gaps)) if self.gaps else 0.0


def measure(game: str, games: int = 20, seed: int = 0, score_shaping: float | None = None) -> GapReport:
    """The shaping gap per seat and game over ``games`` random games of ``game`` (default config; ``score_shaping``
    overrides the game's default)."""
    config_kwargs: dict[str, Any] = dict(num_envs=1, num_workers=0, opponent_fraction=0.0, seed=seed)
    base = make_config(game, **config_kwargs)
    shaping = base.score_shaping if score_shaping is None else float(score_shaping)
    runs = []
    for c in (shaping, 0.0):
        config = make_config(game, **config_kwargs, score_shaping=c)
        env_class = recording_env(game, shaping)
        engine = env_class(**config.env_options).game
        collector = SelfPlayCollector(
            config, UniformNet(engine.num_actions), torch.Generator().manual_seed(seed), make_env=env_class
        )
        runs.append((collector, RolloutBuffer(engine.num_actions)))

    def finished(collector: SelfPlayCollector) -> int:
        env = collector.handles[0].slots.envs[0]
        return sum(1 for g in env.games if g["end"] is not None)

    # a game's transitions are closed when the collector reads the report of its end, before any later game
    # can end: wait for one game more than measured
    while finished(runs[0][0]) <= games:
        for collector, buffer in runs:
            collector.collect(buffer, len(buffer) + 64)
    (shaped, shaped_buffer), (plain, plain_buffer) = runs
    record = shaped.handles[0].slots.envs[0].games
    if [g["movers"] for g in record] != [g["movers"] for g in plain.handles[0].slots.envs[0].games]:
        raise RuntimeError("the shaped and the plain run played different games")
    n = shaped.handles[0].slots.n
    gaps: list[float] = []
    paid: list[float] = []
    truncated = 0
    position = [0] * n  # per seat: transitions of the games before this one
    streams_shaped, streams_plain = shaped_buffer.streams, plain_buffer.streams
    for g in record[:games]:
        truncated += g["end"] == "truncated"
        for seat in range(n):
            decisions = [k for k, mover in enumerate(g["movers"]) if mover == seat]
            start, position[seat] = position[seat], position[seat] + len(decisions)
            if not decisions or g["end"] != "terminated":
                continue
            stream_shaped = streams_shaped[(0, seat)][start : position[seat]]
            stream_plain = streams_plain[(0, seat)][start : position[seat]]
            assert len(stream_shaped) == len(stream_plain) == len(decisions) and stream_shaped[-1].done
            discounted = sum(
                shaped.config.gamma**k * (a.reward - b.reward)
                for k, (a, b) in enumerate(zip(stream_shaped, stream_plain))
            )
            gaps.append(abs(discounted + g["potentials"][decisions[0]][seat]))
            paid.append(sum(abs(a.reward - b.reward) for a, b in zip(stream_shaped, stream_plain)))
    return GapReport(game, shaping, shaped.config.gamma, gaps, paid, int(truncated))


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(
        prog="python -m lab.shaping_gap",
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("--game", nargs="+", default=list(envs.GAMES))
    parser.add_argument("--games", type=int, default=20, help="random games per game")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument(
        "--score-shaping",
        type=float,
        default=None,
        help="instead of each game's default (games without shaping by default report 0)",
    )
    args = parser.parse_args(argv)
    print("| game | score_shaping | gamma | seat-games | mean gap | max gap | mean shaping paid | truncated games |")
    print("|---|---|---|---|---|---|---|---|")
    for game in args.game:
        r = measure(game, args.games, args.seed, args.score_shaping)
        print(
            f"| {game} | {r.score_shaping} | {r.gamma} | {len(r.gaps)} | {r.mean:.3g} | {r.max:.3g} | "
            f"{np.mean(r.shaping_paid) if r.shaping_paid else 0.0:.3g} | {r.truncated_games} |"
        )


if __name__ == "__main__":
    main()
