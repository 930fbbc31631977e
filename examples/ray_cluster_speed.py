"""Training speed with ``--ray`` against local worker processes, on a Ray cluster of loopback nodes.

    pip install -e ".[rllib]"
    python examples/ray_cluster_speed.py --seconds 60                       # 2 nodes of 1 CPU (a 2-core machine)
    python examples/ray_cluster_speed.py --nodes 2 --cpus-per-node 8 --actors 1 2 4 8 15   # a 16-core machine

It starts the cluster with Ray's multi-node harness (``ray.cluster_utils.Cluster``: each node its own raylet,
object store and workers, all on 127.0.0.1), then runs, alternated, for each actor count ``k``:

* PPO on ``--ppo-game`` (default Beasty Borders) for ``--seconds`` with ``k`` local env worker processes and with
  ``k`` Ray actors (``ray=ADDRESS``), learner samples per second after the first fifth of the run
  (``training.measure.train_speed.ppo_speed``);
* search-guided self-play on ``--az-game`` (default Bestiarium) with one local worker process and with ``k`` Ray
  actors, searched positions per second over the iterations after the first fifth.

Prints a markdown table (docs/speed.md, "Past one machine"). Every number is from one run; take ratios within a
run, never across runs.
"""

from __future__ import annotations

import argparse
import csv
import os
import tempfile
import time
from pathlib import Path
from typing import Any

os.environ.setdefault("RAY_ENABLE_WINDOWS_OR_OSX_CLUSTER", "0")  # loopback only; read when Ray is imported


def alphazero_speed(game: str, seconds: float, **overrides: Any) -> float:
    """Searched positions per second of a ``seconds``-long search-guided run, over its iterations after the first
    fifth (self-play and gradient steps overlapped, as ``time_s`` counts them)."""
    from training.alphazero.selfplay import train
    from training.config import make_config

    with tempfile.TemporaryDirectory() as out:
        config = make_config(
            game,
            algo="alphazero",
            total_steps=10**9,
            time_budget_min=seconds / 60.0,
            eval_every=0,
            progress=False,
            out=out,
            **overrides,
        )
        train(config)
        with open(Path(out) / "log.csv") as f:
            rows = list(csv.DictReader(f))
    start = next((i for i, r in enumerate(rows) if i >= 1 and float(r["time_s"]) >= seconds / 5), len(rows) - 1)
    if start < 1 or start >= len(rows) - 1:
        raise RuntimeError(f"{game}: only {len(rows)} iterations in {seconds} s; give more --seconds")
    steps = float(rows[-1]["global_step"]) - float(rows[start - 1]["global_step"])
    return steps / (float(rows[-1]["time_s"]) - float(rows[start - 1]["time_s"]))


def main(argv: list[str] | None = None) -> list[dict[str, Any]]:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--seconds", type=float, default=60.0, help="length of each training run")
    parser.add_argument("--nodes", type=int, default=2)
    parser.add_argument("--cpus-per-node", type=int, default=1)
    parser.add_argument("--actors", type=int, nargs="+", default=[1, 2], help="actor counts to measure")
    parser.add_argument("--ppo-game", default="beasty_borders")
    parser.add_argument("--az-game", default="bestiarium")
    parser.add_argument("--skip-az", action="store_true")
    args = parser.parse_args(argv)

    import ray
    import torch
    from ray.cluster_utils import Cluster

    from training.measure.train_speed import ppo_speed

    torch.set_num_threads(1)
    cluster = Cluster(initialize_head=True, head_node_args={"num_cpus": args.cpus_per_node, "include_dashboard": False})
    for _ in range(args.nodes - 1):
        cluster.add_node(num_cpus=args.cpus_per_node)
    cluster.wait_for_nodes()
    ray.init(address=cluster.address, log_to_driver=False)
    rows: list[dict[str, Any]] = []
    try:
        for k in args.actors:
            row: dict[str, Any] = {"actors": k}
            for where, extra in (("local", {}), ("ray", {"ray": cluster.address})):
                start = time.perf_counter()
                row[f"ppo_{where}"] = ppo_speed(args.ppo_game, args.seconds, num_workers=k, **extra)["ppo"]
                row[f"ppo_{where}_wall_s"] = round(time.perf_counter() - start, 1)
            if not args.skip_az:
                row["az_local"] = alphazero_speed(args.az_game, args.seconds, num_workers=1)
                row["az_ray"] = alphazero_speed(args.az_game, args.seconds, num_workers=k, ray=cluster.address)
            rows.append(row)
            print(row, flush=True)
    finally:
        ray.shutdown()
        cluster.shutdown()
    print()
    head = f"PPO {args.ppo_game}: local workers | --ray | ratio | search-guided {args.az_game}: local worker"
    print(f"| Ray actors | {head} | --ray | ratio |")
    print("|---|---|---|---|---|---|---|")
    for r in rows:
        az = (
            f"{r['az_local']:,.0f} | {r['az_ray']:,.0f} | {r['az_ray'] / r['az_local']:.2f}"
            if "az_local" in r
            else "- | - | -"
        )
        ppo = f"{r['ppo_local']:,.0f} | {r['ppo_ray']:,.0f} | {r['ppo_ray'] / r['ppo_local']:.2f}"
        print(f"| {r['actors']} | {ppo} | {az} |")
    return rows


if __name__ == "__main__":
    main()
