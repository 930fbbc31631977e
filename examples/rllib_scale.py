"""Train a Barnyard game with RLlib's PPO; the same code runs on one process, many workers, or a Ray cluster.

    pip install -e ".[rllib]"
    python examples/rllib_scale.py --game bestiarium --iterations 20                        # sample in this process
    python examples/rllib_scale.py --game bestiarium --iterations 20 --num-env-runners 8    # 8 sampling workers

How it scales: the learner seat of every game is a ``SingleAgentEnv`` (envs/common/gym_view.py) whose opponents
are played inside the env, with the action mask in the observation (``MaskInObservation``) for RLlib's
``ActionMaskingTorchRLModule``. ``--num-env-runners N`` starts N EnvRunner actors that sample in parallel
(``--envs-per-runner`` vectorises inside each); ``--num-learners`` adds learner actors (data-parallel updates,
one per GPU when there are GPUs). Nothing else changes between a laptop and a cluster.

On a Ray cluster: install this package on every node (or ship it with ``--working-dir .``, which sets Ray's
``runtime_env={"working_dir": ...}``), start the head with ``ray start --head`` and the workers with
``ray start --address=<head>:6379``, then run this script on the head with ``--address auto``; Ray places the
EnvRunners and learners across the nodes. ``ray job submit --working-dir . -- python examples/rllib_scale.py
--address auto ...`` does the same from outside the cluster.

Without ``--address`` the script starts a local Ray bound to 127.0.0.1 only (``RAY_ENABLE_WINDOWS_OR_OSX_CLUSTER=0``,
which Ray reads when it is imported, so Ray is imported after the arguments are parsed); with ``--address`` Ray
keeps its cluster networking.
"""

from __future__ import annotations

import argparse
import json
import os
import time
from typing import TYPE_CHECKING, Any

import envs
from envs.common.gym_view import MaskInObservation, SingleAgentEnv

if TYPE_CHECKING:
    from ray.rllib.algorithms.ppo import PPOConfig


def make_env(config: dict[str, Any]) -> MaskInObservation:
    """One learner seat (a random one each game) against ``config["opponents"]``; RLlib passes ``env_config``."""
    view = SingleAgentEnv(
        config["game"], config.get("options"), learner_seat="random", opponents=config.get("opponents") or ["random"]
    )
    return MaskInObservation(view, flatten=True)


def build_config(
    game: str,
    options: dict[str, Any] | None = None,
    opponents: list[str] | None = None,
    num_env_runners: int = 0,
    envs_per_runner: int = 1,
    num_learners: int = 0,
    batch: int = 4000,
    minibatch: int = 512,
    epochs: int = 4,
    hidden: int = 256,
    seed: int = 0,
) -> PPOConfig:
    """The PPO config; only ``num_env_runners`` / ``envs_per_runner`` / ``num_learners`` change with scale."""
    from ray.rllib.algorithms.ppo import PPOConfig
    from ray.rllib.core.rl_module.rl_module import RLModuleSpec
    from ray.rllib.examples.rl_modules.classes.action_masking_rlm import ActionMaskingTorchRLModule
    from ray.tune.registry import register_env

    register_env("barnyard", make_env)
    return (
        PPOConfig()
        .environment("barnyard", env_config={"game": game, "options": options or {}, "opponents": opponents})
        .env_runners(num_env_runners=num_env_runners, num_envs_per_env_runner=envs_per_runner)
        .learners(num_learners=num_learners)
        .training(
            train_batch_size_per_learner=batch,
            minibatch_size=min(minibatch, batch),
            num_epochs=epochs,
            lr=3e-4,
            entropy_coeff=0.01,
        )
        .rl_module(
            rl_module_spec=RLModuleSpec(
                module_class=ActionMaskingTorchRLModule, model_config={"fcnet_hiddens": [hidden, hidden]}
            )
        )
        .debugging(seed=seed)
    )


def main(argv: list[str] | None = None) -> list[dict[str, Any]]:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--game", choices=envs.GAMES, default="bestiarium")
    parser.add_argument(
        "--options", type=json.loads, default={}, help="game options as JSON, e.g. '{\"num_players\": 4}'"
    )
    parser.add_argument(
        "--opponents",
        nargs="*",
        default=["random"],
        help="policy specs for the other seats (random, greedy, search:200, a checkpoint path)",
    )
    parser.add_argument(
        "--num-env-runners", type=int, default=0, help="parallel sampling workers (0: sample in this process)"
    )
    parser.add_argument("--envs-per-runner", type=int, default=1)
    parser.add_argument("--num-learners", type=int, default=0, help="learner actors (0: learn in this process)")
    parser.add_argument("--iterations", type=int, default=10)
    parser.add_argument("--batch", type=int, default=4000, help="env steps per training iteration")
    parser.add_argument("--minibatch", type=int, default=512)
    parser.add_argument("--hidden", type=int, default=256)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--address", default=None, help="Ray cluster address ('auto' on a cluster node)")
    parser.add_argument("--working-dir", default=None, help="ship this folder to the cluster's workers")
    parser.add_argument("--checkpoint", default=None, help="save the trained algorithm here")
    args = parser.parse_args(argv)

    if args.address is None:  # a local Ray: loopback only (must precede Ray's import)
        os.environ.setdefault("RAY_ENABLE_WINDOWS_OR_OSX_CLUSTER", "0")
    import ray

    runtime_env = {"working_dir": args.working_dir} if args.working_dir else None
    ray.init(address=args.address, runtime_env=runtime_env, ignore_reinit_error=True, include_dashboard=False)
    config = build_config(
        args.game,
        args.options,
        args.opponents,
        args.num_env_runners,
        args.envs_per_runner,
        args.num_learners,
        args.batch,
        args.minibatch,
        hidden=args.hidden,
        seed=args.seed,
    )
    algo = config.build_algo()
    history = []
    try:
        for i in range(args.iterations):
            start = time.perf_counter()
            result = algo.train()
            runners = result.get("env_runners", {})
            row = {
                "iteration": i + 1,
                "seconds": round(time.perf_counter() - start, 2),
                "env_steps": runners.get("num_env_steps_sampled_lifetime"),
                "episode_return_mean": runners.get("episode_return_mean"),
            }
            history.append(row)
            print(json.dumps(row), flush=True)
        if args.checkpoint:
            print("saved", algo.save_to_path(args.checkpoint))
    finally:
        algo.stop()
    return history


if __name__ == "__main__":
    main()
