"""Barnyard on a real two-node Ray cluster on loopback: RLlib self-play, ``barnyard train --ray`` (PPO and
search-guided self-play) and OpenSpiel games on Ray workers.

The cluster is Ray's own multi-node harness (``ray.cluster_utils.Cluster``): a head and a second node, each its
own raylet, object store and worker pool (the processes ``ray start`` starts), with one CPU each and the second
node's own resource ``second_node``. ``ray start --address`` cannot add a second node on 127.0.0.1 on Linux with
Ray 2.60: with ``RAY_ENABLE_WINDOWS_OR_OSX_CLUSTER=0`` (which keeps Ray on loopback, tests/conftest.py) it refuses
to join, and without it it rewrites 127.0.0.1 to the machine's routable address and listens on every interface.
Every node here listens on 127.0.0.1 only (checked below)."""

from __future__ import annotations

import ast
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

pytest.importorskip("ray.rllib")
torch = pytest.importorskip("torch")

import ray  # noqa: E402
from ray.cluster_utils import Cluster  # noqa: E402

pytestmark = pytest.mark.xdist_group("machine")  # a Ray cluster: one xdist worker runs these, one at a time

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "tests" / "frameworks"))
from docs_snippets import beyond_loopback, listening_addresses, run_snippet  # noqa: E402


@pytest.fixture(scope="module")
def cluster():
    """A head and a second node (one CPU each) on 127.0.0.1, this process connected as the driver."""
    before = torch.get_num_threads()
    torch.set_num_threads(1)
    if ray.is_initialized():
        ray.shutdown()
    nodes = Cluster(
        initialize_head=True,
        head_node_args={"num_cpus": 1, "include_dashboard": False, "object_store_memory": 150 * 2**20},
    )
    nodes.add_node(num_cpus=1, resources={"second_node": 1}, object_store_memory=150 * 2**20)
    nodes.wait_for_nodes()
    ray.init(address=nodes.address, log_to_driver=False)
    yield nodes
    ray.shutdown()
    nodes.shutdown()
    torch.set_num_threads(before)


def test_two_nodes_on_loopback_only(cluster):
    nodes = [n for n in ray.nodes() if n["Alive"]]
    assert len(nodes) == 2
    assert {n["NodeManagerAddress"] for n in nodes} == {"127.0.0.1"}
    assert ray.cluster_resources().get("second_node") == 1
    assert not beyond_loopback(listening_addresses())


def test_ppo_env_groups_spread_over_both_nodes(cluster):
    """Two env groups as Ray actors land on the two nodes and answer as the local group does."""
    import envs
    from training.ppo.envworkers import GroupServer
    from training.ppo.mix import parse_mix
    from training.scale.ray_workers import RayEnvGroup

    mix = parse_mix("random:1", "beasty_borders")
    args = [("beasty_borders", {}, [seed, seed + 1], 0.5, mix, 0.0, "") for seed in (1, 3)]
    groups = [RayEnvGroup(GroupServer, "batched", a) for a in args]
    try:
        assert len({g.node_id() for g in groups}) == 2
        for group, a in zip(groups, args):
            group.send("reset")
            remote = group.recv()
            local = GroupServer("batched", a).serve("reset", None)
            assert (remote.obs == local.obs).all() and (remote.packed == local.packed).all()
        assert envs.GAMES  # the driver's registry is untouched
    finally:
        for group in groups:
            group.close()


def _train(tmp_path: Path, name: str, *args: str) -> dict:
    out = tmp_path / name
    result = subprocess.run(
        [sys.executable, "-m", "training", "train", *args, "--eval-every", "0", "--out", str(out)],
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert result.returncode == 0, result.stderr[-3000:]
    return json.loads((out / "policy.json").read_text())


def test_barnyard_train_ray_gives_the_local_workers_run(cluster, tmp_path):
    """``barnyard train --ray HOST:PORT`` on the two-node cluster trains the very weights that local worker
    processes train from the same seed (two updates of Beasty Borders)."""
    common = ["--game", "beasty_borders", "--num-workers", "2", "--total-steps", "4000", "--seed", "3"]
    on_ray = _train(tmp_path, "ray", *common, "--ray", cluster.address)
    local = _train(tmp_path, "local", *common)
    assert on_ray["config"]["ray"] == cluster.address
    assert on_ray["steps"] == local["steps"] > 0
    assert on_ray["weights_sha256"] == local["weights_sha256"]


def test_alphazero_ray_gives_the_local_worker_run(cluster, tmp_path):
    """Search-guided self-play with one Ray actor plays the games its local worker process plays."""
    common = ["--algo", "alphazero", "--game", "beasty_borders", "--num-envs", "8", "--simulations", "4"]
    common += ["--hidden", "32", "--train-batch-size", "32", "--total-steps", "300", "--seed", "2"]
    on_ray = _train(tmp_path, "az-ray", *common, "--ray", cluster.address, "--num-workers", "1")
    local = _train(tmp_path, "az-local", *common, "--num-workers", "1")
    assert on_ray["algo"] == "alphazero" and on_ray["steps"] == local["steps"] > 0
    assert on_ray["weights_sha256"] == local["weights_sha256"]


def test_rllib_selfplay_recipe_on_the_cluster(cluster, tmp_path):
    """The docs' self-play recipe with two EnvRunners (one per node): the league's snapshots are refreshed, and
    the exported policy loads as a Barnyard checkpoint."""
    from training.checkpoint import load_policy

    ns = run_snippet(
        "rllib-selfplay",
        GAME="bestiarium",
        ITERATIONS=2,
        BATCH=256,
        NUM_ENV_RUNNERS=2,
        SNAPSHOT_EVERY=1,
        OUT=str(tmp_path / "rllib-bestiarium" / "policy"),
    )
    results = ns["results"]
    assert [r["training_iteration"] for r in results] == [1, 2]
    assert results[-1]["env_runners"]["num_env_steps_sampled_lifetime"] >= 512
    assert {r.get("league_snapshot_refreshed") for r in results} == {"snapshot_0", "snapshot_1"}
    assert load_policy(ns["path"], "bestiarium") is not None
    assert not beyond_loopback(listening_addresses())


DRIVER = """
import sys, ray
ray.init(address=sys.argv[1], log_to_driver=False)

@ray.remote(num_cpus=1, scheduling_strategy="SPREAD")
def load(name):
    import pyspiel
    try:
        return ray.get_runtime_context().get_node_id(), pyspiel.load_game(name).get_type().short_name
    except pyspiel.SpielError as err:
        return ray.get_runtime_context().get_node_id(), "unknown game" if "Unknown game" in str(err) else str(err)

print(sorted(set(ray.get([load.remote("barnyard_bestiarium") for _ in range(4)]))))
"""


def test_openspiel_games_reach_ray_workers_through_the_hook(cluster):
    """A Ray worker knows no Barnyard OpenSpiel game by itself; with ``RAY_RUNTIME_ENV_HOOK`` (no line of the
    driver changed) every worker of the job, on both nodes, registers them before it runs anything."""
    pytest.importorskip("pyspiel")

    def run(**env: str) -> list:
        out = subprocess.run(
            [sys.executable, "-c", DRIVER, cluster.address],
            capture_output=True,
            text=True,
            timeout=300,
            env={**os.environ, **env},
        )
        assert out.returncode == 0, out.stderr[-2000:]
        return ast.literal_eval(out.stdout.strip().splitlines()[-1])  # a list of (node id, answer) pairs

    plain = run()
    assert {answer for _, answer in plain} == {"unknown game"}
    hooked = run(RAY_RUNTIME_ENV_HOOK="envs.openspiel.ray_runtime_env_hook")
    assert {answer for _, answer in hooked} == {"barnyard_bestiarium"}
    assert len({node for node, _ in hooked}) == 2
