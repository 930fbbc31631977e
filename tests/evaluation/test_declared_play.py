"""``agent:PATH``: a checkpoint played as its sidecar declares (``barnyard declare``), the bare path staying the
network alone; the shipped checkpoints' declarations; the web page's listing and seat check of such specs."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from tests.evaluation.test_sampled_policy import CHECKPOINT, decisions
from training.arena.declare import declare_play
from training.arena.declare import main as declare_main
from training.arena.players import UnknownPolicyError, make_policy
from training.checkpoint import CheckpointError, declared_spec, load_network

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture
def copy(tmp_path: Path) -> Path:
    """The shipped Beasty Borders checkpoint copied (weights and sidecar), without a declaration."""
    for suffix in (".pt", ".json"):
        shutil.copy(CHECKPOINT.with_suffix(suffix), tmp_path / f"policy{suffix}")
    meta = json.loads((tmp_path / "policy.json").read_text())
    meta.pop("play", None)
    (tmp_path / "policy.json").write_text(json.dumps(meta))
    return tmp_path / "policy.pt"


def test_agent_plays_the_declared_spec(copy: Path):
    found = decisions(40)
    network = [make_policy(str(copy), "beasty_borders").act(d) for d in found]
    assert declared_spec(copy) == str(copy)  # nothing declared: the network alone
    assert [make_policy(f"agent:{copy}", "beasty_borders", seed=3).act(d) for d in found] == network
    declare_play(copy, "sample:1.5")
    assert declared_spec(copy) == f"sample:{copy}:1.5"
    sampled = [make_policy(f"sample:{copy}:1.5", "beasty_borders", seed=3).act(d) for d in found]
    assert [make_policy(f"agent:{copy}", "beasty_borders", seed=3).act(d) for d in found] == sampled
    assert sampled != network
    assert [make_policy(str(copy), "beasty_borders").act(d) for d in found] == network  # the bare path: unchanged
    load_network(copy)  # the weights' checksum still holds: only the sidecar's "play" changed


@pytest.mark.parametrize("play", ["bogus", "sample:0", "sample:hot", "agent", "guided:x", "mcts:0:1"])
def test_a_bad_declaration_is_refused_and_changes_nothing(copy: Path, play: str):
    before = copy.with_suffix(".json").read_bytes()
    with pytest.raises((CheckpointError, ValueError)):
        declare_play(copy, play)
    assert copy.with_suffix(".json").read_bytes() == before


def test_a_damaged_declaration_is_a_clear_error(copy: Path):
    meta = json.loads(copy.with_suffix(".json").read_text())
    meta["play"] = "agent:elsewhere.pt"
    copy.with_suffix(".json").write_text(json.dumps(meta))
    with pytest.raises(UnknownPolicyError, match="'play' must be one of"):
        make_policy(f"agent:{copy}", "beasty_borders")
    with pytest.raises(UnknownPolicyError, match="does not exist"):
        make_policy("agent:no/such/policy.pt", "beasty_borders")


def test_declare_command(copy: Path, capsys: pytest.CaptureFixture[str]):
    declare_main([str(copy), "sample"])
    assert f"agent:PATH = sample:{copy}" in capsys.readouterr().out
    with pytest.raises(SystemExit, match="temperature"):
        declare_main([str(copy), "sample:-1"])
    assert declared_spec(copy) == f"sample:{copy}"


@pytest.mark.parametrize("game", ["battle_sheep", "bestiarium", "beasty_borders", "boaring"])
def test_every_shipped_agent_declares_how_it_is_played(game: str):
    path = ROOT / "checkpoints" / game / "policy.pt"
    meta = json.loads(path.with_suffix(".json").read_text())
    assert "play" in meta, f"{path}: no declared play (barnyard declare {path} PLAY)"
    policy = make_policy(f"agent:{path}", game, seed=0)
    assert policy is not None
