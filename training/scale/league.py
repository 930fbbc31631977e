"""Self-play on RLlib: one shared policy learning against itself, a league of its frozen snapshots, and the
scripted baselines.

The league, as ``barnyard train`` plays it:

* ``main`` - the learning module (:class:`~training.scale.rllib_module.BarnyardRLModule`), the only one trained;
* ``snapshot_0 .. snapshot_{k-1}`` - frozen copies of ``main``; every ``snapshot_every`` training iterations the
  oldest is overwritten with ``main``'s current weights (:class:`SnapshotLeague`), so the league holds the last
  ``k`` snapshots;
* in a ``snapshot_fraction`` of the games one seat (drawn per game) is ``main`` and every other seat plays one
  snapshot (:class:`LeagueMapping`); in the rest ``main`` takes every seat (pure self-play); scripted seats
  (``scripted={"fraction": f, "mix": "greedy:0.5,random:0.5"}``) are played inside the env
  (:mod:`training.scale.rllib_env`).

RLlib draws the episode ids at random, so which games are league games is not fixed by the seed (RLlib's sampling
is not reproducible from a seed in general); the env's games and the network's initial weights are.

``python -m training.scale.league --game beasty_borders --minutes 8 --out runs/rllib-bb`` trains and writes the
exported Barnyard policy (``policy.pt`` + ``policy.json``) and the RLlib checkpoint (``rllib/``).
"""

from __future__ import annotations

import argparse
import functools
import json
import os
import time
import zlib
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import envs

MAIN = "main"
"""The learning module's id."""


def snapshot_ids(count: int) -> list[str]:
    """The frozen modules' ids."""
    return [f"snapshot_{i}" for i in range(count)]


@dataclass(frozen=True)
class LeagueMapping:
    """RLlib's ``policy_mapping_fn``: which module plays ``agent_id`` in ``episode`` (module docstring).

    The choice is a function of the episode's id (CRC-32, stable across processes), so every agent of one episode
    agrees on whether it is a league game, on the learner's seat and on the snapshot."""

    num_players: int
    snapshots: int
    snapshot_fraction: float

    def __call__(self, agent_id: str, episode: Any = None, **kwargs: Any) -> str:
        if self.snapshots <= 0 or self.snapshot_fraction <= 0 or episode is None:
            return MAIN
        h = zlib.crc32(str(episode.id_).encode())
        if (h % 10_000) / 10_000 >= self.snapshot_fraction:
            return MAIN
        h //= 10_000
        learner_seat = h % self.num_players
        seat = int(str(agent_id).rsplit("_", 1)[1])
        if seat == learner_seat:
            return MAIN
        return snapshot_ids(self.snapshots)[(h // self.num_players) % self.snapshots]


@functools.cache
def snapshot_league_class() -> type:
    """The :class:`SnapshotLeague` callback class, made on first use: this module imports no Ray, so that
    :func:`main` can keep a local Ray on loopback (``RAY_ENABLE_WINDOWS_OR_OSX_CLUSTER`` is read when Ray is
    imported)."""
    from ray.rllib.callbacks.callbacks import RLlibCallback

    class SnapshotLeague(RLlibCallback):
        """Keeps the league's snapshots: all of them ``main``'s weights at the start, then the oldest replaced by
        ``main``'s every ``every`` iterations; logs ``main``'s results against the snapshots and in self-play."""

        def __init__(self, snapshots: int = 4, every: int = 10):
            super().__init__()
            self.snapshots = int(snapshots)
            self.every = max(1, int(every))
            self.next_slot = 0

        def _copy_main(self, algorithm: Any, slots: list[str]) -> None:
            if not slots:
                return
            state = algorithm.learner_group.get_state(components=f"learner/rl_module/{MAIN}")
            main_state = state["learner"]["rl_module"][MAIN]
            algorithm.set_state({"learner_group": {"learner": {"rl_module": {s: main_state for s in slots}}}})

        def on_algorithm_init(self, *, algorithm: Any, metrics_logger: Any = None, **kwargs: Any) -> None:
            self._copy_main(algorithm, snapshot_ids(self.snapshots))

        def on_train_result(self, *, algorithm: Any, metrics_logger: Any = None, result: dict, **kwargs: Any) -> None:
            if self.snapshots and algorithm.iteration % self.every == 0:
                slot = snapshot_ids(self.snapshots)[self.next_slot]
                self.next_slot = (self.next_slot + 1) % self.snapshots
                self._copy_main(algorithm, [slot])
                result["league_snapshot_refreshed"] = slot

        def on_episode_end(self, *, episode: Any, metrics_logger: Any = None, **kwargs: Any) -> None:
            if metrics_logger is None:
                return
            modules = {agent: episode.module_for(agent) for agent in episode.agent_ids}
            mains = [a for a, m in modules.items() if m == MAIN]
            if len(mains) != 1 or len(modules) < 2:
                return  # self-play or scripted opponents: no league result
            mine = episode.get_rewards().get(mains[0])
            if mine is None or len(mine) == 0:
                return
            total = float(sum(mine))
            metrics_logger.log_value("league_main_win_vs_snapshots", float(total > 0), reduce="mean", window=200)

    return SnapshotLeague


def main_samples(result: dict[str, Any]) -> int:
    """The learning module's decisions sampled so far (``barnyard train``'s samples), from a training result."""
    sampled = result.get("env_runners", {}).get("num_module_steps_sampled_lifetime", {})
    return int(sampled.get(MAIN, 0)) if isinstance(sampled, dict) else 0


def barnyard_recipe(game: str, train: dict[str, Any] | None = None) -> dict[str, Any]:
    """``barnyard train``'s PPO recipe for ``game`` in :func:`selfplay_config`'s terms: the game's
    :func:`~training.config.make_config` (its descriptor's ``ppo_defaults``, then ``train``) read as RLlib's
    settings, and its ``opponent_fraction`` / ``opponent_mix`` split into league games (the ``snapshot`` share)
    and scripted seats played inside the env (the rest: ``greedy``, ``random``, ``policy``).

    The env draws its scripted games first, then the league mapping its league games among every game, so the
    league's fraction is raised to give the recipe's share of all games; a game that is both is played by a
    snapshot against the scripted seats (a few percent of the games, no samples for ``main``)."""
    from training.config import make_config
    from training.scale.rllib_env import parse_mix

    config = make_config(game, **dict(train or {}))
    weights = parse_mix(config.opponent_mix)
    snapshot_share = config.opponent_fraction * weights.pop("snapshot", 0.0)
    scripted_share = config.opponent_fraction - snapshot_share
    names = {"policy": config.opponent_policy}
    kept = sum(w for w in weights.values() if w > 0) or 1.0
    mix = {names.get(kind, kind): w / kept for kind, w in weights.items() if w > 0}
    scripted = {"fraction": scripted_share, "mix": mix} if scripted_share > 0 and mix else None
    league_share = snapshot_share / (1.0 - scripted_share) if scripted_share < 1.0 else 0.0
    return {
        "snapshot_every": config.snapshot_every,
        "snapshot_fraction": min(1.0, league_share),
        "scripted": scripted,
        "batch": config.batch_size,
        "minibatch": config.minibatch_size,
        "epochs": config.update_epochs,
        "lr": config.learning_rate,
        "gamma": config.gamma,
        "lambda_": config.gae_lambda,
        "entropy_coeff": config.ent_coef,
        "clip_param": config.clip_coef,
        "vf_loss_coeff": config.vf_coef,
        "grad_clip": config.max_grad_norm,
        "score_shaping": config.score_shaping,
        "kl_coeff": 0.0,  # barnyard train's loss has no KL penalty (RLlib's PPO adds one, 0.2, unless told not to)
    }


def selfplay_config(
    game: str,
    options: dict[str, Any] | None = None,
    *,
    train: dict[str, Any] | None = None,
    snapshots: int = 4,
    num_env_runners: int = 0,
    envs_per_runner: int = 8,
    seed: int = 0,
    **overrides: Any,
) -> Any:
    """The PPO config of the league (module docstring). Its settings are ``barnyard train``'s for the game
    (:func:`barnyard_recipe`, ``train``: ``TrainConfig`` overrides, which shape the network too, e.g.
    ``{"hidden": 128}``), then ``overrides`` by :func:`barnyard_recipe`'s keys (``lr=3e-4``, ``scripted=None``,
    ``snapshot_fraction=0.5``, ...). Only ``num_env_runners`` / ``envs_per_runner`` change with the cluster."""

    from ray.rllib.algorithms.ppo import PPOConfig
    from ray.rllib.core.rl_module.multi_rl_module import MultiRLModuleSpec

    from training.scale.rllib_env import ENV_NAME, register_rllib_env
    from training.scale.rllib_module import module_spec

    recipe = barnyard_recipe(game, train)
    unknown = sorted(set(overrides) - set(recipe))
    if unknown:
        raise TypeError(f"selfplay_config got unknown setting(s) {unknown}; allowed: {', '.join(sorted(recipe))}")
    recipe.update(overrides)
    register_rllib_env()
    num_players = int(envs.make_game(game, **(options or {})).num_players)
    env_config: dict[str, Any] = {
        "game": game,
        "options": dict(options or {}),
        "seed": seed,
        "score_shaping": float(recipe["score_shaping"]),
        "gamma": float(recipe["gamma"]),
    }
    if recipe["scripted"]:
        env_config["scripted"] = dict(recipe["scripted"])
        if envs.game_info(game).parallel:
            env_config["simultaneous"] = False  # scripted seats play turn by turn
    spec = module_spec(game, options, train)
    modules = {MAIN: spec, **{s: spec for s in snapshot_ids(snapshots)}}
    batch = int(recipe["batch"])
    return (
        PPOConfig()
        .environment(ENV_NAME, env_config=env_config)
        .env_runners(num_env_runners=num_env_runners, num_envs_per_env_runner=envs_per_runner)
        .multi_agent(
            policies=set(modules),
            policy_mapping_fn=LeagueMapping(num_players, snapshots, float(recipe["snapshot_fraction"])),
            policies_to_train=[MAIN],
        )
        .rl_module(rl_module_spec=MultiRLModuleSpec(rl_module_specs=modules))
        .training(
            train_batch_size_per_learner=batch,
            minibatch_size=min(int(recipe["minibatch"]), batch),
            num_epochs=int(recipe["epochs"]),
            lr=float(recipe["lr"]),
            gamma=float(recipe["gamma"]),
            lambda_=float(recipe["lambda_"]),
            entropy_coeff=float(recipe["entropy_coeff"]),
            clip_param=float(recipe["clip_param"]),
            vf_loss_coeff=float(recipe["vf_loss_coeff"]),
            grad_clip=float(recipe["grad_clip"]),
            use_kl_loss=float(recipe["kl_coeff"]) > 0,
            kl_coeff=float(recipe["kl_coeff"]),
        )
        .callbacks(functools.partial(snapshot_league_class(), snapshots=snapshots, every=int(recipe["snapshot_every"])))
        .debugging(seed=seed)
    )


def main(argv: list[str] | None = None) -> dict[str, Any]:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--game", choices=envs.GAMES, required=True)
    parser.add_argument("--options", type=json.loads, default={}, help="game options as JSON")
    parser.add_argument("--minutes", type=float, default=8.0, help="stop after this many minutes of training")
    parser.add_argument("--total-steps", type=int, default=0, help="stop after main's samples reach this (0: no limit)")
    parser.add_argument("--snapshots", type=int, default=4, help="frozen snapshots in the league")
    parser.add_argument("--train", type=json.loads, default={}, help="TrainConfig overrides (network and recipe)")
    parser.add_argument("--num-env-runners", type=int, default=0)
    parser.add_argument("--envs-per-runner", type=int, default=8)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--address", default=None, help="a Ray cluster's address (default: a local Ray)")
    parser.add_argument("--out", required=True, help="folder for policy.pt/.json and the RLlib checkpoint")
    recipe = parser.add_argument_group("the recipe (default: barnyard train's for the game, after --train)")
    recipe.add_argument("--snapshot-every", type=int, help="training iterations between snapshot refreshes")
    recipe.add_argument("--snapshot-fraction", type=float, help="share of the games main plays against snapshots")
    recipe.add_argument("--scripted", help="scripted seats, 'greedy:0.5,random:0.5@0.3' (mix @ fraction); 'none'")
    recipe.add_argument("--batch", type=int, help="env steps per iteration")
    recipe.add_argument("--minibatch", type=int)
    recipe.add_argument("--epochs", type=int)
    recipe.add_argument("--lr", type=float)
    recipe.add_argument("--score-shaping", type=float)
    args = parser.parse_args(argv)
    overrides: dict[str, Any] = {
        key: getattr(args, key)
        for key in ("snapshot_every", "snapshot_fraction", "batch", "minibatch", "epochs", "lr", "score_shaping")
        if getattr(args, key) is not None
    }
    if args.scripted is not None:
        mix, _, fraction = args.scripted.partition("@")
        overrides["scripted"] = None if mix == "none" else {"mix": mix, "fraction": float(fraction or 1.0)}

    if args.address is None:
        os.environ.setdefault("RAY_ENABLE_WINDOWS_OR_OSX_CLUSTER", "0")  # a local Ray on loopback only
    import ray

    from training.scale.rllib_module import export_policy

    ray.init(address=args.address, include_dashboard=False, ignore_reinit_error=True, log_to_driver=False)
    config = selfplay_config(
        args.game,
        args.options,
        train=args.train,
        snapshots=args.snapshots,
        num_env_runners=args.num_env_runners,
        envs_per_runner=args.envs_per_runner,
        seed=args.seed,
        **overrides,
    )
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    algo = config.build_algo()
    start = time.perf_counter()
    steps = 0
    try:
        while True:
            result = algo.train()
            steps = int(result["env_runners"]["num_env_steps_sampled_lifetime"])
            row = {
                "iteration": algo.iteration,
                "minutes": round((time.perf_counter() - start) / 60, 2),
                "env_steps": steps,
                "main_samples": main_samples(result),
                "win_vs_snapshots": result["env_runners"].get("league_main_win_vs_snapshots"),
            }
            print(json.dumps(row), flush=True)
            done = args.total_steps and main_samples(result) >= args.total_steps
            if time.perf_counter() - start > args.minutes * 60 or done:
                break
        algo.save_to_path(str((out / "rllib").resolve()))
        samples = main_samples(result)
        policy = export_policy(algo.get_module(MAIN), out / "policy", steps=samples, updates=algo.iteration)
    finally:
        algo.stop()
    summary = {
        "policy": str(policy),
        "env_steps": steps,
        "main_samples": main_samples(result),
        "minutes": round((time.perf_counter() - start) / 60, 2),
    }
    print(json.dumps(summary), flush=True)
    return summary


if __name__ == "__main__":
    main()
