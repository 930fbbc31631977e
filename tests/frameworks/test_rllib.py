"""RLlib (Ray, new API stack): the docs snippet on every game, and examples/rllib_scale.py with a worker process."""

from __future__ import annotations

import runpy
from pathlib import Path

import pytest

pytest.importorskip("ray.rllib")
torch = pytest.importorskip("torch")

import numpy as np  # noqa: E402
import ray  # noqa: E402
from docs_snippets import beyond_loopback, listening_addresses, run_snippet  # noqa: E402

import envs  # noqa: E402

EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "rllib_scale.py"

pytestmark = pytest.mark.xdist_group("machine")  # a local Ray cluster: one worker runs these, one at a time


@pytest.fixture(scope="module", autouse=True)
def ray_session():
    """One local Ray instance for the whole module (starting Ray takes ~10 s)."""
    before = torch.get_num_threads()
    torch.set_num_threads(1)  # the driver samples and learns: one thread on a shared 2-core machine
    ray.init(num_cpus=2, include_dashboard=False, ignore_reinit_error=True, log_to_driver=False)
    yield
    ray.shutdown()
    torch.set_num_threads(before)


def test_local_ray_listens_on_loopback_only():
    """The suite's Ray (tests/conftest.py sets RAY_ENABLE_WINDOWS_OR_OSX_CLUSTER=0 before Ray is imported) takes
    127.0.0.1 as its node address, and no Ray process listens on another address."""
    assert ray.util.get_node_ip_address() == "127.0.0.1"
    assert ray.get_runtime_context().gcs_address.startswith("127.0.0.1:")
    assert {n["NodeManagerAddress"] for n in ray.nodes()} == {"127.0.0.1"}
    sockets = listening_addresses()
    assert any(name.startswith(("gcs_server", "raylet")) for name in sockets.values()), sockets
    assert not beyond_loopback(sockets), f"listening beyond loopback: {beyond_loopback(sockets)}"


@pytest.mark.parametrize("game", envs.GAMES)
def test_docs_snippet_trains_and_plays_legally(game):
    """One PPO iteration of 128 steps in the driver (num_env_runners=0), then a whole game with the trained
    module: the view raises IllegalActionError on an illegal move, and we also check each choice by hand."""
    ns = run_snippet("rllib", GAME=game, ITERATIONS=1, BATCH=128)
    result = ns["result"]
    assert result["env_runners"]["num_env_steps_sampled_lifetime"] >= 128
    assert result["learners"]["default_policy"]["num_module_steps_trained"] > 0
    assert ns["done"]
    # The module's masked logits put every masked-out action at -inf-ish on fresh positions too.
    module, env = ns["module"], ns["make_env"]({"game": game})
    obs, _ = env.reset(seed=5)
    for _ in range(10):
        batch = {"obs": {k: torch.from_numpy(np.expand_dims(v, 0)) for k, v in obs.items()}}
        logits = module.forward_inference(batch)["action_dist_inputs"][0].detach().numpy()
        legal = obs["action_mask"] > 0
        assert int(np.argmax(logits)) in np.flatnonzero(legal)
        assert logits[~legal].max(initial=-np.inf) < -1e30
        obs, _, terminated, truncated, _ = env.step(int(np.argmax(logits)))
        if terminated or truncated:
            obs, _ = env.reset()


def test_scale_example_with_one_env_runner():
    """The scaling example with one EnvRunner actor: sampling happens in another process, then learning here."""
    example = runpy.run_path(str(EXAMPLE), run_name="rllib_scale")
    history = example["main"](
        [
            "--game",
            "beasty_borders",
            "--num-env-runners",
            "1",
            "--iterations",
            "2",
            "--batch",
            "128",
            "--minibatch",
            "64",
            "--hidden",
            "32",
        ]
    )
    assert [row["iteration"] for row in history] == [1, 2]
    assert history[-1]["env_steps"] >= 256
    assert not beyond_loopback(listening_addresses())  # the EnvRunner actor's process too
