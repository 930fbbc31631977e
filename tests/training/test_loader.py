"""The one bounded loader of a checkpoint's files (training.loader) and the caps on what a spec or a sidecar asks
for (training.specs), under the hostile inputs of issue 60: links out of the served folder, a FIFO, /dev/zero
and a directory as weights, files over their size caps, a sidecar that sets its own search budget."""

from __future__ import annotations

import json
import os
import shutil
import threading
import time
import tracemalloc
from collections.abc import Iterator
from pathlib import Path

import pytest

from training.arena.players import UnknownPolicyError, make_policy
from training.checkpoint import CheckpointError, load_network, read_sidecar
from training.loader import MAX_SIDECAR_BYTES, MAX_WEIGHTS_BYTES, inside, read_bounded

ROOT = Path(__file__).resolve().parents[2]
SHEEP = ROOT / "checkpoints" / "battle_sheep" / "policy.pt"
SHEEP_OPTIONS = {"num_players": 2}


def copy_checkpoint(folder: Path, name: str, source: Path = SHEEP, **changes: object) -> Path:
    """``source``'s weights and sidecar copied into ``folder`` as ``name``, the sidecar with ``changes``."""
    folder.mkdir(parents=True, exist_ok=True)
    shutil.copy(source, folder / f"{name}.pt")
    meta = json.loads(source.with_suffix(".json").read_text())
    meta.update(changes)
    (folder / f"{name}.json").write_text(json.dumps(meta))
    return folder / f"{name}.pt"


@pytest.fixture
def served(tmp_path: Path) -> Iterator[tuple[Path, Path]]:
    """(a served folder, a folder outside it), the outside one holding a real checkpoint."""
    mine, outside = tmp_path / "mine", tmp_path / "outside"
    copy_checkpoint(outside, "policy")
    mine.mkdir()
    yield mine, outside


def test_a_spec_inside_the_folder_reads_no_file_linked_out_of_it(served: tuple[Path, Path]):
    """A spec naming ``mine/x.json`` loaded ``x.pt`` wherever its link pointed (the rule guarded the spec's path,
    not the files opened); a sidecar linked out was read. Both files, as named and as reached, must be inside."""
    mine, outside = served
    shutil.copy(outside / "policy.json", mine / "x.json")
    (mine / "x.pt").symlink_to(outside / "policy.pt")  # the weights linked out
    shutil.copy(outside / "policy.pt", mine / "y.pt")
    (mine / "y.json").symlink_to(outside / "policy.json")  # the sidecar linked out
    folders = [mine]
    for spec in (
        f"{mine / 'x.json'}",
        f"agent:{mine / 'x.json'}",
        f"sym:{mine / 'x.json'}",
        f"sample:{mine / 'x.json'}",
        f"guided:{mine / 'x.json'}:3:10",
        f"mcts:{mine / 'x.json'}:4",
        f"{mine / 'y.pt'}",
        f"agent:{mine / 'y.pt'}",
    ):
        with pytest.raises(ValueError, match="not under the served checkpoint folders"):
            make_policy(spec, "battle_sheep", SHEEP_OPTIONS, seed=0, folders=folders)
    with pytest.raises(CheckpointError, match="not under"):
        read_sidecar(mine / "y.pt", folders)
    # a path that leaves the folder by name is outside even where it comes back in; a link that stays in is inside
    assert not inside(mine / ".." / "outside" / "policy.pt", [mine])
    assert not inside(outside / ".." / "mine" / "x.json", [outside])
    copy_checkpoint(mine, "real")
    (mine / "alias.pt").symlink_to(mine / "real.pt")
    (mine / "alias.json").symlink_to(mine / "real.json")
    make_policy(str(mine / "alias.pt"), "battle_sheep", SHEEP_OPTIONS, seed=0, folders=folders)
    # without folders (the command line) a link is followed as before
    make_policy(str(mine / "x.json"), "battle_sheep", SHEEP_OPTIONS, seed=0)


def test_a_fifo_as_weights_is_refused_without_blocking(tmp_path: Path):
    """A FIFO linked in as a .pt held the reader until a writer appeared (the web app's four bot-move threads, one
    per new game). It is refused before it is opened. (A writer opens it after 10 s, so that the code before the fix
    fails here instead of hanging.)"""
    copy_checkpoint(tmp_path, "pipe")
    (tmp_path / "pipe.pt").unlink()
    os.mkfifo(tmp_path / "fifo")
    (tmp_path / "pipe.pt").symlink_to(tmp_path / "fifo")
    done = threading.Event()

    def writer() -> None:
        if not done.wait(10):
            with open(tmp_path / "fifo", "wb"):
                pass

    threading.Thread(target=writer, daemon=True).start()
    start = time.monotonic()
    try:
        for folders in (None, [tmp_path]):
            with pytest.raises(CheckpointError, match="not a regular file"):
                load_network(tmp_path / "pipe.json", "battle_sheep", folders=folders)
    finally:
        took = time.monotonic() - start
        done.set()
    assert took < 10


def test_dev_zero_as_weights_is_refused_before_anything_is_read(tmp_path: Path):
    """/dev/zero linked in as a .pt grew the reader without bound (3.0 GB in 18 s: the checksum read the whole
    file). A device is no regular file: refused, nothing read."""
    copy_checkpoint(tmp_path, "zero")
    (tmp_path / "zero.pt").unlink()
    (tmp_path / "zero.pt").symlink_to("/dev/zero")
    tracemalloc.start()
    try:
        with pytest.raises(CheckpointError, match="not a regular file"):
            load_network(tmp_path / "zero.json", "battle_sheep")
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert peak < 10 * 2**20


def test_a_directory_or_an_oversized_file_is_refused_before_it_is_read(tmp_path: Path):
    """A directory as the checkpoint gave a traceback (IsADirectoryError); files over the size caps were read
    whole. Both are refused from os.stat, before a byte is read (the oversized files here are sparse)."""
    copy_checkpoint(tmp_path, "dir")
    (tmp_path / "dir.pt").unlink()
    (tmp_path / "dir.pt").mkdir()
    with pytest.raises(CheckpointError, match="is a directory"):
        make_policy(str(tmp_path / "dir.pt"), "battle_sheep", SHEEP_OPTIONS)
    big = copy_checkpoint(tmp_path, "big")
    with open(big, "r+b") as f:
        f.truncate(MAX_WEIGHTS_BYTES + 1)
    with pytest.raises(CheckpointError, match=f"over the {MAX_WEIGHTS_BYTES:,} read at most"):
        load_network(big, "battle_sheep")
    wide = copy_checkpoint(tmp_path, "wide")
    with open(wide.with_suffix(".json"), "r+b") as f:
        f.truncate(MAX_SIDECAR_BYTES + 1)
    with pytest.raises(CheckpointError, match=f"over the {MAX_SIDECAR_BYTES:,} read at most"):
        read_sidecar(wide)
    assert read_bounded(SHEEP, SHEEP.stat().st_size, "weights") == SHEEP.read_bytes()
    with pytest.raises(CheckpointError, match="over"):
        read_bounded(SHEEP, SHEEP.stat().st_size - 1, "weights")


def test_a_sidecar_cannot_set_its_own_search_budget(tmp_path: Path):
    """``mcts:PATH`` without N, and ``agent:PATH`` declaring ``mcts``, took the simulations from the sidecar's
    training config (10**9: 5.1 GB in 20 s of one game); a declared ``guided:999999999:999999999`` passed the
    kind-and-length check and ran out of memory. Every budget is capped where it is parsed, spec or sidecar, with
    an error that names the cap, before the weights are read."""
    config = json.loads(SHEEP.with_suffix(".json").read_text())["config"] | {"simulations": 10**9}
    huge = copy_checkpoint(tmp_path, "huge", algo="alphazero", config=config, play="mcts")
    for spec in (f"mcts:{huge}", f"agent:{huge}"):
        with pytest.raises(ValueError, match="1000000000 simulations a move; mcts:PATH takes at most 1,000"):
            make_policy(spec, "battle_sheep", SHEEP_OPTIONS, seed=0)
    assert make_policy(f"mcts:{huge}:8", "battle_sheep", SHEEP_OPTIONS, seed=0).config.simulations == 8
    greedy = copy_checkpoint(tmp_path, "guided", play="guided:999999999:999999999")
    with pytest.raises(UnknownPolicyError, match="from 1 to 1,000"):
        make_policy(f"agent:{greedy}", "battle_sheep", SHEEP_OPTIONS, seed=0)
    for spec, cap in (
        (f"guided:{SHEEP}:24:999999999", "N, simulations. takes a whole number from 1 to 10,000"),
        (f"guided:{SHEEP}:999999999:20", "K, moves searched. takes a whole number from 1 to 1,000"),
        (f"mcts:{SHEEP}:1001", "mcts:PATH:N takes a whole number from 1 to 1,000"),
        (f"mcts:{SHEEP}:{'9' * 5000}", "from 1 to 1,000"),
    ):
        with pytest.raises(UnknownPolicyError, match=cap):
            make_policy(spec, "battle_sheep", SHEEP_OPTIONS, seed=0)


@pytest.mark.parametrize(
    ("spec", "message"),
    [
        ("search:0", "search:N takes a whole number from 1 to 10,000, not '0'"),
        ("search:10001", "from 1 to 10,000"),
        ("search:1e20", "from 1 to 10,000, not '1e20'"),
        ("search:" + "9" * 5000, "from 1 to 10,000"),
        ("search:", "from 1 to 10,000"),
        ("random:7", "random takes no argument"),
        ("first:1", "first takes no argument"),
        ("greedy:3", "greedy takes no budget"),
    ],
)
def test_bad_baseline_arguments_are_refused_as_they_are_parsed(spec: str, message: str):
    """``search:0`` and ``random:7`` were accepted, ``search:1e20`` answered with Python's text, ``greedy:3``
    with a traceback (TypeError)."""
    with pytest.raises(UnknownPolicyError, match=message):
        make_policy(spec, "bestiarium", {"board_size": 5})
    assert make_policy("search:10000", "bestiarium", {"board_size": 5}).name.startswith("search")
