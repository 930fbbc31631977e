"""The scripted opponents a training run plays, and the evaluation games against them.

* :data:`SCRIPTED_KINDS`, :func:`make_scripted`, :func:`available_kinds` - ``random``, the game's ``greedy``
  baseline (``envs.<game>.baselines.GreedyPolicy``) and ``policy`` (a frozen policy given by its spec: a
  checkpoint, ``search:N``, ...), as opponents in PPO's opponent mix and in evaluation;
* :func:`outcome` - one game's result for one seat (1 win, 0.5 shared first place, 0 otherwise);
* :func:`play_against` - a network (argmax over legal actions) against a scripted opponent in every other seat,
  the games in lockstep with batched forward passes: the periodic evaluation of both learners.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import torch
from torch import nn

import envs
from envs.common.policies import Policy, RandomPolicy
from training.config import POLICY, SCRIPTED_KINDS
from training.distribution import masked_policy


# ----- scripted opponents ---------------------------------------------------------------------------------
def greedy_class(game: str) -> type | None:
    """The game's ``baselines.GreedyPolicy`` if it has one, else None."""
    try:
        return envs.game_info(game).room("baselines").GreedyPolicy
    except (ImportError, AttributeError):
        return None


def make_scripted(game: str, kind: str, seed: int | None = None, engine: Any = None, spec: str = "") -> Policy:
    """A scripted policy of ``kind`` (``random``, ``greedy`` or ``policy``) for ``game`` (``engine``: its Game
    object). ``policy``: the frozen policy of ``spec`` (``random``, a baseline, a checkpoint path, ``search:N``,
    ``guided:...``: resolved by :func:`envs.common.gym_view.resolve_policy`, which hands checkpoint specs to the
    arena through the ``barnyard.policy_specs`` entry point); ValueError without a spec."""
    if kind == POLICY:
        if not spec:
            raise ValueError("opponent kind 'policy' needs a policy spec (config opponent_policy)")
        from envs.common.gym_view import resolve_policy

        return resolve_policy(spec, game, engine.options() if engine is not None else None, seed=seed)
    if kind == "random":
        return RandomPolicy(seed)
    if kind == "greedy":
        cls = greedy_class(game)
        if cls is None:
            raise ValueError(f"{game} has no envs.{game}.baselines.GreedyPolicy")
        return cls(engine, seed=seed)
    raise ValueError(f"unknown scripted policy {kind!r}; allowed: {', '.join(SCRIPTED_KINDS)}")


def available_kinds(game: str, kinds: list[str]) -> list[str]:
    """``kinds`` without ``greedy`` when ``game`` has no greedy baseline."""
    return [k for k in kinds if k != "greedy" or greedy_class(game) is not None]


def outcome(returns: np.ndarray, seat: int) -> float:
    """1 if ``seat`` alone has the best return, 0.5 if it shares the best, else 0."""
    best = returns.max()
    if returns[seat] < best:
        return 0.0
    return 1.0 if (returns == best).sum() == 1 else 0.5


# ----- evaluation games ------------------------------------------------------------------------------------
@torch.no_grad()
def play_against(
    net: nn.Module,
    game: str,
    options: dict[str, Any],
    opponent: str,
    games: int,
    seed: int,
    greedy: bool = True,
    spec: str = "",
) -> dict[str, float]:
    """Play ``games`` games of ``net`` (argmax over legal actions) against a scripted ``opponent`` in every
    other seat, the learner taking seat ``g % n`` in game ``g``; all games run in lockstep with batched
    forward passes. ``spec``: the policy of the ``policy`` kind. Returns ``{"games", "win_rate" (shared first
    counts half), "mean_reward"}``."""
    module = envs.module(game)
    env_list = [module.raw_env(**options) for _ in range(games)]
    n = env_list[0].game.num_players
    gen = torch.Generator().manual_seed(seed)
    opponents = [
        make_scripted(game, opponent, seed + 7919 * (g + 1), engine=env_list[g].game, spec=spec) for g in range(games)
    ]
    returns = np.zeros((games, n))
    for g, env in enumerate(env_list):
        env.reset(seed=seed + g)
    live = list(range(games))
    was_training = net.training
    net.eval()
    while live:
        waiting = []
        for g in live:
            env = env_list[g]
            while True:
                agent = env.agent_selection
                if env.terminations[agent] or env.truncations[agent]:
                    break
                seat = env.seat_of[agent]
                if seat == g % n:
                    waiting.append(g)
                    break
                env.step(int(opponents[g].act(env.decision(agent))))
                for s, a in enumerate(env.possible_agents):
                    returns[g, s] += env.rewards.get(a, 0.0)
        if waiting:
            seen = [env_list[g].observe(env_list[g].agent_selection) for g in waiting]
            dist, _ = masked_policy(
                net,
                torch.from_numpy(np.stack([s["observation"] for s in seen])),
                torch.from_numpy(np.stack([s["action_mask"] for s in seen])),
            )
            chosen = dist.mode() if greedy else dist.sample(gen)
            for g, action in zip(waiting, chosen.tolist()):
                env = env_list[g]
                env.step(int(action))
                for s, a in enumerate(env.possible_agents):
                    returns[g, s] += env.rewards.get(a, 0.0)
        live = waiting
    net.train(was_training)
    scores = [outcome(returns[g], g % n) for g in range(games)]
    mine = [returns[g, g % n] for g in range(games)]
    return {"games": games, "win_rate": float(np.mean(scores)), "mean_reward": float(np.mean(mine))}
