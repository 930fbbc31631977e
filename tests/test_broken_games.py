"""A game that does not load, named in ``BARNYARD_GAMES`` or registered directly, leaves the other games playable:
the registry refuses or isolates it with a warning, and asking for it is an error that says why."""

from __future__ import annotations

import importlib.util
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

import envs
from envs import GameInfo

ROOT = Path(__file__).resolve().parent.parent

HOSTILE_MODULES = {
    "ghost.py": 'from envs import GameInfo\nINFO = GameInfo(name="ghost", title="Ghost", package="ghost_rooms")\n',
    "boom.py": 'raise RuntimeError("boom at import")\n',
    "bye.py": "raise SystemExit(0)\n",
    "brokenrules.py": (
        'from envs import GameInfo\nINFO = GameInfo(name="brokenrules", title="Broken", package="brokenrules_pkg")\n'
    ),
    "brokenrules_pkg/__init__.py": "",
    "brokenrules_pkg/rules.py": 'raise RuntimeError("the rules do not import")\n',
    "brokenrules_v0.py": "",
}
"""What the hostile entries were: a descriptor whose package is missing (ghost), a module that raises (boom), one
that calls SystemExit (bye), and a descriptor whose package imports but whose rules raise (brokenrules)."""

ENTRIES = "pig,ghost,boom,bye,nosuchmodule,brokenrules"
"""``BARNYARD_GAMES`` for the subprocesses: a good outside game (the example game Pig) among the broken ones."""

CHECK = """
import json, sys, warnings
warnings.simplefilter("always")
with warnings.catch_warnings(record=True) as caught:
    import envs
    import envs.openspiel as bridge
out = {
    "warnings": [f"{w.category.__name__}: {w.message}" for w in caught],
    "games": list(envs.GAMES),
    "bridge": sorted(bridge.GAME_NAMES),
    "asked": {},
}
for name in ("ghost", "boom", "bye", "nosuchmodule"):
    try:
        envs.make_game(name)
        out["asked"][name] = "made"
    except ValueError as error:
        out["asked"][name] = str(error)
try:
    bridge.load_game("brokenrules")
except ValueError as error:
    out["asked"]["bridge brokenrules"] = str(error)
try:
    from starlette.testclient import TestClient
    from training.play.web.app import create_app
except ImportError:
    out["catalogue"] = None
else:
    with TestClient(create_app(), base_url="http://127.0.0.1", raise_server_exceptions=False) as client:
        answer = client.get("/api/catalogue")
        out["catalogue"] = [answer.status_code, [g["game"] for g in answer.json().get("games", [])]]
print(json.dumps(out))
"""


@pytest.fixture(scope="module")
def hostile_path(tmp_path_factory) -> str:
    """PYTHONPATH for the subprocesses: this checkout, a folder of the hostile modules, the suite's own (Pig)."""
    folder = tmp_path_factory.mktemp("hostile")
    for name, text in HOSTILE_MODULES.items():
        (folder / name).parent.mkdir(parents=True, exist_ok=True)
        (folder / name).write_text(text)
    return os.pathsep.join(filter(None, (str(ROOT), str(folder), os.environ.get("PYTHONPATH"))))


def run(args: list[str], python_path: str) -> subprocess.CompletedProcess:
    env = {**os.environ, "PYTHONPATH": python_path, "BARNYARD_GAMES": ENTRIES}
    return subprocess.run(
        [sys.executable, *args], cwd=ROOT, env=env, capture_output=True, text=True, timeout=600, check=False
    )


@pytest.mark.skipif(importlib.util.find_spec("pyspiel") is None, reason="the bridge needs the openspiel extra")
def test_broken_entries_leave_the_other_games_playable_and_say_why(hostile_path):
    """Before: ``ghost`` registered silently, and then ``/api/catalogue`` answered 500 and ``import envs.openspiel``
    raised ModuleNotFoundError; ``boom`` gave a raw traceback at ``import envs``, ``bye`` exited silently,
    ``nosuchmodule`` raised ImportError. Now each is left out with a warning naming it and why; the built-in games
    and Pig are in ``envs.GAMES``, the bridge and the catalogue; asking for a broken game gives the reason."""
    done = run(["-c", CHECK], hostile_path)
    assert done.returncode == 0, done.stderr[-3000:]
    out = json.loads(done.stdout.strip().splitlines()[-1])
    good = [*(g for g in envs.GAMES if envs.game_info(g).package in envs.BUILTIN_GAMES), "pig"]
    assert out["games"] == [*good, "brokenrules"]  # its package imports: its rules fail only when loaded
    assert set(good) <= set(out["bridge"]) and "brokenrules" not in out["bridge"]
    expected = {
        "ghost": "GameImportError: game 'ghost': its package 'ghost_rooms' does not import",
        "boom": "RuntimeError: boom at import",
        "bye": "SystemExit: 0",
        "nosuchmodule": "ModuleNotFoundError: No module named 'nosuchmodule'",
    }
    for entry, cause in expected.items():
        assert any(
            w.startswith(f"GameLoadWarning: BARNYARD_GAMES entry {entry!r} did not load: {cause}")
            for w in out["warnings"]
        ), (entry, out["warnings"])
        assert out["asked"][entry].startswith(f"game {entry!r} is not available: BARNYARD_GAMES entry {entry!r}")
        assert cause in out["asked"][entry]
    assert any(
        w.startswith("GameLoadWarning: envs.openspiel leaves out game 'brokenrules': RuntimeError: the rules")
        for w in out["warnings"]
    )
    assert "the rules do not import" in out["asked"]["bridge brokenrules"]
    if out["catalogue"] is not None:
        assert out["catalogue"] == [200, good]


def test_a_broken_entry_does_not_break_the_command_line(hostile_path):
    """``barnyard rate --help`` printed a traceback (boom, nosuchmodule) or nothing at all (bye, exit 0)."""
    done = run(["-m", "training", "rate", "--help"], hostile_path)
    assert done.returncode == 0, done.stderr[-3000:]
    assert done.stdout.startswith("usage:") and "--game" in done.stdout
    for entry in ("ghost", "boom", "bye", "nosuchmodule"):
        assert f"BARNYARD_GAMES entry {entry!r} did not load" in done.stderr
    assert "Traceback" not in done.stderr


def test_registering_a_game_that_does_not_import_is_refused_and_registers_nothing():
    """``envs.register_game`` itself refuses a descriptor whose package does not import or whose rules room or
    public module is missing (an ImportError naming the game), and nothing of it is registered."""
    import pettingzoo

    before = envs.GAMES
    cases = [
        (GameInfo(name="ghost_direct", title="Ghost", package="no_such_package_here"), "does not import"),
        (GameInfo(name="ghost_rules", title="Ghost", package="envs.common"), "rules room 'envs.common.rules'"),
        (
            GameInfo(name="ghost_public", title="Ghost", package="envs.boaring", public_module="envs.nope_v0"),
            "public module 'envs.nope_v0'",
        ),
    ]
    for info, reason in cases:
        with pytest.raises(ImportError, match=f"game {info.name!r}: .*{reason}") as caught:
            envs.register_game(info)
        assert type(caught.value).__name__ == "GameImportError" and caught.value.game == info.name
        assert before == envs.GAMES and info.env_id not in pettingzoo.aec_registry
        with pytest.raises(ValueError, match=f"unknown game {info.name!r}"):
            envs.make_game(info.name)
