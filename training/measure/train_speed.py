"""Training speed per game, in one run: ``barnyard bench train [--games G,...] [--seconds S] [--device D]``.

For each game at its default training config (``training.config.make_config``) it prints:

* **ppo**: our PPO self-play's learner samples per second: a real ``train`` run of ``--seconds`` (no evaluation),
  measured from its ``log.csv`` over the updates after the run's first fifth (start-up, the workers' loading of
  their compiled kernels and the first update are not counted), and how many cores the run kept busy (CPU time
  of the process and its env workers over the wall time);
* **network alone**: the samples per second the network's work alone allows at that config: per
  ``num_envs * num_steps`` samples, ``num_steps`` forward passes and draws at batch ``num_envs`` (the rollout, as
  the workers draw) and ``update_epochs`` x ``num_minibatches`` forward + backward + Adam steps of the PPO loss
  (the update), on real positions of random games, with the config's torch threads, timed batch by batch (the
  median of 7); the trainer cannot beat it without changing the network or the config;
* **ppo / limit**: the first over the second;
* **serial**: the training process's own work per sample outside the network (us per sample: its main thread's
  CPU time collecting a batch and building it, less the network passes it ran; ``log.csv``'s ``serial_us``), and
  the env workers' CPU time per sample (``log.csv``'s ``workers_us``);
* **projected**: the samples per second this config could reach with N cores, from the model of docs/speed.md:
  the training process runs its serial work and the network's work one after the other, while N - 1 cores run
  the env workers; the slower of the two sets the pace,
  ``samples/s(N) = 1e6 / max(serial + 1e6 / network alone, workers / (N - 1))``, and no number of cores gets past
  ``1e6 / serial`` (the network and the workers free);
* **sb3 MaskablePPO**: sb3-contrib's ``MaskablePPO`` (``MlpPolicy`` with our MLP's widths, ``hidden`` x
  ``mlp_layers``: 256, 256; 4 epochs, as ours, of minibatches of 64 over rollouts of 256 steps) on the
  single-agent view of the same game (``envs.common.gym_view.SingleAgentEnv``, the learner in seat 0 against
  random seats), timesteps per second after its first update (skipped with a note where the ``sb3`` extra is
  not installed);
* **ppo / sb3**: the ratio of the two.

These machines drift from hour to hour, so compare ratios from one run. ``--json PATH`` also writes the rows.
"""

from __future__ import annotations

import argparse
import csv
import json
import os
import resource
import tempfile
import time
from pathlib import Path
from typing import Any

import numpy as np
import torch

import envs
from training.config import TrainConfig, make_config
from training.distribution import LegalActions, masked_policy
from training.networks import build_network, network_spec
from training.ppo.envworkers import draw_actions, rollout_copy
from training.ppo.loop import train
from training.ppo.maths import ppo_loss
from training.workers import set_threads, thread_counts


def _cpu_seconds(who: int = resource.RUSAGE_SELF) -> float:
    """CPU time of this process (``RUSAGE_SELF``) or of its finished children (``RUSAGE_CHILDREN``: the env
    workers, once closed)."""
    usage = resource.getrusage(who)
    return usage.ru_utime + usage.ru_stime


PROJECTED_CORES = (2, 4, 8, 16)
"""The core counts :func:`projected` reports."""


def projected(serial_us: float, limit: float, workers_us: float, cores: int) -> float:
    """Samples/s with ``cores`` cores: the training process's serial work and the network's (``limit`` samples/s
    alone) in sequence, the env workers' work (``workers_us`` CPU us per sample) over the other ``cores - 1``
    cores; the slower sets the pace (docs/speed.md, "The serial figure")."""
    trainer = serial_us + 1e6 / limit
    workers = workers_us / max(1, cores - 1)
    return 1e6 / max(trainer, workers)


def ppo_speed(game: str, seconds: float, device: str = "cpu", **overrides: Any) -> dict[str, float]:
    """Learner samples/s of a ``seconds``-long PPO run at the game's defaults, the cores it kept busy, its serial
    figure (us per sample) and its env workers' CPU us per sample."""
    threads = torch.get_num_threads()
    with tempfile.TemporaryDirectory() as out:
        config = make_config(
            game,
            total_steps=10**9,
            time_budget_min=seconds / 60.0,
            eval_every=0,
            progress=False,
            out=out,
            device=device,
            **overrides,
        )
        own, children, wall = _cpu_seconds(), _cpu_seconds(resource.RUSAGE_CHILDREN), time.perf_counter()
        train(config)
        children = _cpu_seconds(resource.RUSAGE_CHILDREN) - children
        cores = (_cpu_seconds() - own + children) / (time.perf_counter() - wall)
        with open(Path(out) / "log.csv") as f:
            rows = list(csv.DictReader(f))
    torch.set_num_threads(threads)
    # warm-up: the first update, and the updates within the run's first fifth (spawned workers load their
    # compiled kernels, the opponent pool fills)
    start = next((i for i, r in enumerate(rows) if i >= 1 and float(r["time_s"]) >= seconds / 5), len(rows) - 1)
    if start < 1 or start >= len(rows) - 1:
        raise RuntimeError(f"{game}: only {len(rows)} updates in {seconds} s; give more --seconds")
    steps = float(rows[-1]["global_step"]) - float(rows[start - 1]["global_step"])
    spent = float(rows[-1]["time_s"]) - float(rows[start - 1]["time_s"])
    measured = rows[start:]
    sizes = [float(r["global_step"]) - float(p["global_step"]) for p, r in zip(rows[start - 1 :], measured)]
    serial = sum(float(r["serial_us"]) * n for r, n in zip(measured, sizes)) / sum(sizes)
    workers = sum(float(r["workers_us"]) * n for r, n in zip(measured, sizes)) / sum(sizes)
    return {"ppo": steps / spent, "cores": cores, "updates": len(rows), "serial": serial, "workers": workers}


def random_positions(config: TrainConfig, count: int, seed: int = 0) -> tuple[np.ndarray, np.ndarray]:
    """Observations and masks of ``count`` decisions of random games (every position from its mover's view)."""
    env = envs.module(config.game).raw_env(**config.env_options)
    rng = np.random.default_rng(seed)
    obs, masks = [], []
    game_seed = seed
    while len(obs) < count:
        env.reset(seed=game_seed)
        game_seed += 1
        for _agent in env.agent_iter():
            seen, _, term, trunc, _ = env.last()
            if term or trunc:
                env.step(None)
                continue
            obs.append(seen["observation"])
            masks.append(seen["action_mask"].astype(bool))
            env.step(int(rng.choice(np.flatnonzero(seen["action_mask"]))))
            if len(obs) >= count:
                break
    return np.stack(obs), np.stack(masks)


def network_limit(game: str, device: str = "cpu", repeats: int = 7, **overrides: Any) -> float:
    """Samples/s that the network's work alone allows at the game's PPO config (see the module docstring): the
    median of ``repeats`` batches timed one by one (these machines drift within seconds)."""
    config = make_config(game, device=device, **overrides)
    threads = torch.get_num_threads()
    torch.manual_seed(0)
    engine = envs.make_game(game, **config.env_options)
    spec = network_spec(config, engine)
    rollout_threads, update_threads = thread_counts(config.torch_threads, small_network=spec["kind"] == "mlp")
    net = build_network(spec, engine).to(device)
    optimizer = torch.optim.Adam(net.parameters(), lr=config.learning_rate, eps=config.adam_eps)
    obs_np, masks = random_positions(config, config.batch_size)
    obs = torch.from_numpy(obs_np)
    packed = np.packbits(masks, axis=1)  # as the rollout buffer keeps them
    rng = np.random.default_rng(0)
    with torch.no_grad():
        actions_all = torch.cat(
            [
                masked_policy(net, obs[i : i + config.num_envs], masks[i : i + config.num_envs])[0].sample()
                for i in range(0, config.batch_size, config.num_envs)
            ]
        )

    generator = torch.Generator().manual_seed(0)

    def one_batch() -> None:
        set_threads(rollout_threads)
        acting = rollout_copy(net, masks.shape[1])  # as the workers act, a copy per update
        with torch.no_grad():
            for i in range(config.num_steps):
                start = (i * config.num_envs) % config.batch_size
                draw_actions(
                    acting or net,
                    obs_np[start : start + config.num_envs],
                    packed[start : start + config.num_envs],
                    masks.shape[1],
                    generator,
                )  # the rollouts' own draw
        set_threads(update_threads)
        for _ in range(config.update_epochs):
            for idx in np.array_split(rng.permutation(config.batch_size), config.num_minibatches):
                index = torch.from_numpy(idx)
                d, v = masked_policy(net, obs[index], LegalActions.from_packed(packed[idx], masks.shape[1]))
                new_logp = d.log_prob(actions_all[index].to(v.device))
                loss, _ = ppo_loss(
                    new_logp,
                    new_logp.detach(),
                    torch.randn(len(idx), device=v.device),
                    d.entropy(),
                    v,
                    v.detach(),
                    torch.randn(len(idx), device=v.device),
                )
                optimizer.zero_grad()
                loss.backward()
                torch.nn.utils.clip_grad_norm_(net.parameters(), config.max_grad_norm)
                optimizer.step()

    one_batch()  # warm-up
    seconds = []
    for _ in range(repeats):
        start = time.perf_counter()
        one_batch()
        seconds.append(time.perf_counter() - start)
    torch.set_num_threads(threads)
    return config.batch_size / float(np.median(seconds))


def sb3_speed(game: str, seconds: float) -> float | None:
    """sb3-contrib MaskablePPO's timesteps/s on the single-agent view of ``game`` (None without sb3-contrib)."""
    try:
        from sb3_contrib import MaskablePPO
    except ImportError:
        return None
    from envs.common.gym_view import SingleAgentEnv

    config = make_config(game)
    threads = torch.get_num_threads()
    torch.set_num_threads(max(thread_counts(config.torch_threads)[1], 1))
    env = SingleAgentEnv(game, config.env_options, learner_seat=0, opponents="random", seed=0)
    n_steps = 256
    widths = [config.hidden] * config.mlp_layers  # our MLP's layers (sb3's default is 64, 64)
    model = MaskablePPO(
        "MlpPolicy",
        env,
        n_steps=n_steps,
        batch_size=64,
        n_epochs=4,
        seed=0,
        verbose=0,
        device="cpu",
        policy_kwargs={"net_arch": widths},
    )
    model.learn(n_steps)  # the first rollout and update: start-up
    done, start = 0, time.perf_counter()
    while time.perf_counter() - start < seconds:
        model.learn(n_steps, reset_num_timesteps=False)
        done += n_steps
    elapsed = time.perf_counter() - start
    env.close()
    torch.set_num_threads(threads)
    return done / elapsed


def bench(games: list[str], seconds: float, device: str = "cpu", sb3: bool = True) -> list[dict[str, Any]]:
    """One row per game (see the module docstring)."""
    rows = []
    for game in games:
        row: dict[str, Any] = {"game": game, **ppo_speed(game, seconds, device)}
        row["limit"] = network_limit(game, device)
        row["projected"] = {n: projected(row["serial"], row["limit"], row["workers"], n) for n in PROJECTED_CORES}
        row["sb3"] = sb3_speed(game, max(10.0, seconds / 3)) if sb3 else None
        rows.append(row)
        print(f"  {game}: {format_row(row)}", flush=True)
    return rows


def format_row(row: dict[str, Any]) -> str:
    sb3 = row.get("sb3")
    return (
        f"ppo {row['ppo']:,.0f} samples/s on {row['cores']:.1f} cores, network alone {row['limit']:,.0f} "
        f"({row['ppo'] / row['limit']:.2f}), serial {row['serial']:.1f} us/sample (workers {row['workers']:.1f}), "
        "projected "
        + ", ".join(f"{v:,.0f} on {n}" for n, v in row["projected"].items())
        + f" (at most {1e6 / row['serial']:,.0f}), sb3 MaskablePPO "
        + ("not installed" if sb3 is None else f"{sb3:,.0f} ({row['ppo'] / sb3:.1f}x)")
    )


def table(rows: list[dict[str, Any]]) -> str:
    """The rows as the markdown table of docs/speed.md."""
    cores = " | ".join(f"projected, {n} cores" for n in PROJECTED_CORES)
    lines = [
        "| game | PPO samples/s | cores busy | network alone | PPO / network | serial us/sample | workers us/sample | "
        f"{cores} | sb3 MaskablePPO | PPO / sb3 |",
        "|---|---|---|---|---|---|---|" + "---|" * len(PROJECTED_CORES) + "---|---|",
    ]
    for r in rows:
        sb3 = r.get("sb3")
        lines.append(
            f"| {r['game']} | {r['ppo']:,.0f} | {r['cores']:.1f} | {r['limit']:,.0f} | "
            f"{r['ppo'] / r['limit']:.2f} | {r['serial']:.1f} | {r['workers']:.1f} | "
            + " | ".join(f"{r['projected'][n]:,.0f}" for n in PROJECTED_CORES)
            + " | "
            + ("not installed | |" if sb3 is None else f"{sb3:,.0f} | {r['ppo'] / sb3:.1f}x |")
        )
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="barnyard bench train", description=__doc__.split("\n")[0])
    parser.add_argument("--games", default="all", help="comma-separated game ids, or all (default)")
    parser.add_argument("--seconds", type=float, default=60.0, help="length of each PPO run (default 60)")
    parser.add_argument("--device", default="cpu", help="cpu, cuda or auto (default cpu)")
    parser.add_argument("--no-sb3", action="store_true", help="skip sb3-contrib's MaskablePPO")
    parser.add_argument("--json", default="", help="also write the rows to this JSON file")
    args = parser.parse_args(argv)
    games = list(envs.GAMES) if args.games == "all" else [g.strip() for g in args.games.split(",") if g.strip()]
    unknown = [g for g in games if g not in envs.GAMES]
    if unknown:
        raise SystemExit(f"unknown game(s) {', '.join(unknown)}; choose from {', '.join(envs.GAMES)}")
    print(
        f"training speed, {args.seconds:g} s PPO runs, {os.cpu_count()} CPUs, torch {torch.__version__}, "
        f"device {args.device}",
        flush=True,
    )
    rows = bench(games, args.seconds, args.device, sb3=not args.no_sb3)
    print(table(rows))
    if args.json:
        Path(args.json).write_text(json.dumps(rows, indent=1))


if __name__ == "__main__":
    main()
