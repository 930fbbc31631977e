"""End to end: a tiny training run, reproducibility, exact resume, checkpoints as policies and their checks."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
import torch

import envs
from envs.common.policies import decision_from_state
from training.checkpoint import CheckpointError, load_policy
from training.config import make_config
from training.ppo.loop import train
from training.train_cli import main as train_main

TINY = dict(
    env_options={"canvas_radius": 6},
    num_envs=4,
    num_steps=16,
    total_steps=128,
    conv_channels=8,
    conv_layers=1,
    hidden=32,
    update_epochs=2,
    num_minibatches=2,
    eval_games=2,
    eval_every=0,
    eval_opponents="random",
    opponent_fraction=0.5,
    opponent_mix="snapshot:1,random:1",
    snapshot_every=1,
    pool_size=2,
    progress=False,
    num_workers=0,
)


def tiny(tmp_path: Path, name: str, **overrides) -> object:
    return make_config("battle_sheep", **{**TINY, "out": str(tmp_path / name), **overrides})


def params(path: Path) -> dict[str, torch.Tensor]:
    return torch.load(path, weights_only=True)["model"]


@pytest.fixture(scope="module")
def run(tmp_path_factory) -> Path:
    """One tiny run through the CLI (shared by the checkpoint tests)."""
    out = tmp_path_factory.mktemp("run") / "bs"
    args = [
        "--game",
        "battle_sheep",
        "--seed",
        "3",
        "--total-steps",
        "128",
        "--out",
        str(out),
        "--env-option",
        "canvas_radius=6",
    ]
    for key, value in TINY.items():
        if key not in ("env_options", "total_steps"):
            args += ["--" + key.replace("_", "-"), str(value)]
    assert train_main(args) == 0
    return out


def test_tiny_run_writes_logs_and_a_checkpoint(run: Path):
    for name in ("policy.pt", "policy.json", "resume.pt", "log.csv", "curve.png"):
        assert (run / name).exists(), name
    assert list(run.glob("events.out.tfevents.*"))
    meta = json.loads((run / "policy.json").read_text())
    assert meta["game"] == "battle_sheep" and meta["options"]["canvas_radius"] == 6
    assert meta["spaces"]["num_actions"] == 94 * 127 and meta["steps"] >= 128
    assert meta["config"]["seed"] == 3 and meta["network"]["head"] == "cell"
    assert set(meta["evaluation"]["vs"]) == {"random"}
    rows = (run / "log.csv").read_text().splitlines()
    assert len(rows) >= 3 and rows[0].startswith("update,global_step")


def test_checkpoint_is_a_policy_that_plays_legal_moves(run: Path):
    policy = load_policy(run / "policy.pt", game="battle_sheep", options={"canvas_radius": 6}, seed=1)
    sampled = load_policy(run / "policy.json", greedy=False, seed=1)
    game = envs.make_game("battle_sheep", canvas_radius=6)
    rng = np.random.default_rng(0)
    state = game.initial_state(rng)
    while not game.is_terminal(state):
        decision = decision_from_state(game, state)
        action = policy.act(decision) if rng.random() < 0.5 else sampled.act(decision)
        assert decision.action_mask[action] == 1
        game.apply(state, action, rng)


def test_checkpoint_round_trip_gives_the_same_network(run: Path, tmp_path: Path):
    from training.checkpoint import load_network, save_checkpoint
    from training.config import TrainConfig

    net, meta, game = load_network(run / "policy.pt")
    save_checkpoint(
        tmp_path / "copy",
        net,
        meta["network"],
        game,
        TrainConfig.from_dict(meta["config"]),
        meta["steps"],
        meta["updates"],
        meta["evaluation"],
    )
    again, _, _ = load_network(tmp_path / "copy.pt")
    for (k, a), (_, b) in zip(net.state_dict().items(), again.state_dict().items()):
        assert torch.equal(a, b), k


def test_checkpoint_rejects_another_game_and_other_options(run: Path):
    with pytest.raises(CheckpointError, match="battle_sheep.*not for 'bestiarium'"):
        load_policy(run / "policy.pt", game="bestiarium")
    with pytest.raises(CheckpointError, match="options"):
        load_policy(run / "policy.pt", game="battle_sheep", options={"canvas_radius": 7})
    with pytest.raises(CheckpointError, match="options"):
        load_policy(run / "policy.pt", game="battle_sheep", options={})  # the default canvas is larger


def test_checkpoint_rejects_mismatched_spaces_and_damaged_files(run: Path, tmp_path: Path):
    # spaces: a checkpoint whose recorded signature no longer matches the game (e.g. an engine change)
    bad = tmp_path / "spaces"
    bad.mkdir()
    data = torch.load(run / "policy.pt", weights_only=True)
    data["spaces"] = {**data["spaces"], "num_actions": data["spaces"]["num_actions"] + 1}
    torch.save(data, bad / "policy.pt")
    meta = json.loads((run / "policy.json").read_text())
    meta["spaces"] = data["spaces"]
    meta.pop("weights_sha256")
    (bad / "policy.json").write_text(json.dumps(meta))
    with pytest.raises(CheckpointError, match="spaces"):
        load_policy(bad / "policy.pt")
    # damaged weights
    broken = tmp_path / "broken"
    broken.mkdir()
    shutil.copy(run / "policy.json", broken / "policy.json")
    (broken / "policy.pt").write_bytes((run / "policy.pt").read_bytes()[:1000])
    with pytest.raises(CheckpointError, match="damaged"):
        load_policy(broken / "policy.pt")
    meta = json.loads((run / "policy.json").read_text())
    meta.pop("weights_sha256")
    (broken / "policy.json").write_text(json.dumps(meta))
    with pytest.raises(CheckpointError, match="damaged"):
        load_policy(broken / "policy.pt")
    # damaged sidecar, missing sidecar
    (broken / "policy.json").write_text("{not json")
    with pytest.raises(CheckpointError, match="sidecar.*damaged"):
        load_policy(broken / "policy.pt")
    with pytest.raises(CheckpointError, match="missing"):
        load_policy(tmp_path / "nowhere.pt")


def test_same_seed_same_first_updates(tmp_path: Path):
    a = train(tiny(tmp_path, "a", total_steps=128))
    b = train(tiny(tmp_path, "b", total_steps=128))
    c = train(tiny(tmp_path, "c", total_steps=128, seed=2))
    pa, pb, pc = params(a), params(b), params(c)
    assert all(torch.equal(pa[k], pb[k]) for k in pa)
    assert not all(torch.equal(pa[k], pc[k]) for k in pa)


def test_resume_continues_exactly(tmp_path: Path):
    straight = train(tiny(tmp_path, "straight", total_steps=192, anneal_lr=False))
    first = train(tiny(tmp_path, "split", total_steps=64, anneal_lr=False))
    args = ["--resume", str(first.parent), "--total-steps", "192"]
    assert train_main(args) == 0
    p1, p2 = params(straight), params(first.parent / "policy.pt")
    assert all(torch.equal(p1[k], p2[k]) for k in p1)
    m1 = json.loads(straight.with_suffix(".json").read_text())
    m2 = json.loads((first.parent / "policy.json").read_text())
    assert m1["steps"] == m2["steps"] and m1["updates"] == m2["updates"]


def test_init_from_starts_from_the_checkpoint_weights(run: Path, tmp_path: Path):
    """With the learning rate at 0 a warm-started run ends with exactly the checkpoint's weights (a fresh
    network would not), its sidecar records where it started, and a checkpoint that does not fit is refused."""
    source = run / "policy.pt"
    warm = train(tiny(tmp_path, "warm", seed=5, init_from=str(source), learning_rate=0.0, total_steps=64))
    p0, p1 = params(source), params(warm)
    assert all(torch.equal(p0[k], p1[k]) for k in p0)
    cold = params(train(tiny(tmp_path, "cold", seed=5, learning_rate=0.0, total_steps=64)))
    assert not all(torch.equal(p0[k], cold[k]) for k in p0)
    assert json.loads(warm.with_suffix(".json").read_text())["config"]["init_from"] == str(source)
    with pytest.raises(CheckpointError, match="network"):
        train(tiny(tmp_path, "wider", init_from=str(source), hidden=64))
    with pytest.raises(CheckpointError, match="options"):
        train(tiny(tmp_path, "bigger", init_from=str(source), env_options={"canvas_radius": 7}))
    with pytest.raises(CheckpointError, match="not for 'boaring'"):
        train(make_config("boaring", init_from=str(source), out=str(tmp_path / "boaring"), progress=False))


@pytest.mark.parametrize("game", [g for g in envs.GAMES if g != "battle_sheep"])
def test_one_tiny_update_on_every_other_game(game: str, tmp_path: Path):
    config = make_config(
        game,
        num_envs=2,
        num_steps=8,
        total_steps=16,
        hidden=16,
        conv_channels=4,
        conv_layers=1,
        update_epochs=1,
        num_minibatches=1,
        eval_games=1,
        eval_every=0,
        opponent_fraction=0.5,
        progress=False,
        num_workers=0,
        out=str(tmp_path / game),
    )
    path = train(config)
    policy = load_policy(path, game=game)
    engine = envs.make_game(game)
    rng = np.random.default_rng(0)
    state = engine.initial_state(rng)
    decision = decision_from_state(engine, state)
    assert decision.action_mask[policy.act(decision)] == 1


def test_tournament_with_a_checkpoint_over_two_worker_processes(run: Path):
    """Regression: forked workers deadlocked once the parent had loaded a checkpoint (torch threads)."""
    from training.arena.tournament import run_tournament

    result = run_tournament(
        "battle_sheep",
        {"canvas_radius": 6},
        [str(run / "policy.pt"), "random"],
        games=4,
        seed=0,
        workers=2,
        progress=False,
    )
    assert result.pairs[0].games == 4
    single = run_tournament(
        "battle_sheep",
        {"canvas_radius": 6},
        [str(run / "policy.pt"), "random"],
        games=4,
        seed=0,
        workers=1,
        progress=False,
    )
    assert [r.actions for r in result.records] == [r.actions for r in single.records]


def test_keep_checkpoints_saves_every_evaluated_policy(tmp_path: Path):
    config = tiny(tmp_path, "kept", eval_every=2, keep_checkpoints=True, total_steps=256)  # 64 samples an update
    train(config)
    kept = sorted((tmp_path / "kept" / "checkpoints").glob("policy-*.pt"))
    assert [p.name for p in kept] == ["policy-000002.pt", "policy-000004.pt"]
    meta = json.loads(kept[0].with_suffix(".json").read_text())
    assert meta["updates"] == 2 and "random" in meta["evaluation"]["vs"]
    assert load_policy(kept[0], game="battle_sheep", options={"canvas_radius": 6}).name
    # the final policy.pt is the last update's, the kept one is an earlier network
    assert not all(
        torch.equal(a, b) for a, b in zip(params(kept[0]).values(), params(tmp_path / "kept" / "policy.pt").values())
    )


@pytest.mark.parametrize("algo", ["ppo", "alphazero"])
def test_an_evaluation_opponent_that_cannot_play_is_refused_before_any_training(tmp_path: Path, algo: str):
    """``--eval-opponents search`` (a spec, not a kind) and ``policy`` without ``--opponent-policy`` stop the run
    with a clear error before its first update, from the CLI and from ``train`` (neither writes a run)."""
    from training.alphazero.selfplay import train as train_alphazero

    trainer = train_alphazero if algo == "alphazero" else train
    for opponents, message in (("random,search", "unknown evaluation opponent 'search'"), ("policy", "policy spec")):
        out = tmp_path / f"{algo}-{opponents}"
        args = ["--algo", algo, "--game", "beasty_borders", "--eval-opponents", opponents, "--out", str(out)]
        with pytest.raises(SystemExit, match=f"--eval-opponents: .*{message}"):
            train_main(args)
        config = make_config("beasty_borders", algo=algo, eval_opponents=opponents, out=str(out), total_steps=64)
        with pytest.raises(ValueError, match=message):
            trainer(config)
        assert not (out / "log.csv").exists()


@pytest.mark.xdist_group("machine")
def test_same_seed_same_weights_with_two_update_threads(tmp_path: Path):
    """The conv games update on every usable core by default, and with two threads torch's CPU passes over the hex
    network's gathers gave other sums from run to run: two ``barnyard train`` processes, same seed, default
    threads, must end with the same weights (the trainer asks torch for its deterministic algorithms)."""
    if (os.cpu_count() or 1) < 2:
        pytest.skip("needs two cores")
    runs = []
    for name in ("a", "b"):
        out = tmp_path / name
        command = [sys.executable, "-m", "training", "train", "--game", "battle_sheep", "--seed", "4"]
        command += ["--total-steps", "2048", "--eval-every", "0", "--num-workers", "0", "--out", str(out)]
        subprocess.run(command, check=True, capture_output=True, timeout=600)
        runs.append(params(out / "policy.pt"))
    assert all(torch.equal(runs[0][k], runs[1][k]) for k in runs[0])


def test_same_seed_same_weights_whatever_threads_ran_before(tmp_path: Path):
    """Two runs in one process, torch at two threads before the first and at one before the second: the same
    weights (the network's initialisation rounded differently with the caller's thread count)."""
    config = dict(num_envs=4, num_steps=16, total_steps=64, hidden=32, eval_every=0, progress=False, num_workers=0)
    before = torch.get_num_threads()
    try:
        torch.set_num_threads(2)
        a = params(train(make_config("beasty_borders", **config, out=str(tmp_path / "a"))))
        torch.set_num_threads(1)
        b = params(train(make_config("beasty_borders", **config, out=str(tmp_path / "b"))))
    finally:
        torch.set_num_threads(before)
    assert all(torch.equal(a[k], b[k]) for k in a)
