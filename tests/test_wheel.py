"""The built wheel, installed into a fresh virtual environment, imports, registers and runs a game.

The wheel is built from this checkout with ``pip wheel --no-deps --no-build-isolation`` (the build backend,
setuptools, is the one installed here, so the test needs no network) and installed with ``--no-deps`` into a new
venv whose only view of the dependencies (numpy, pettingzoo, ...) is a ``.pth`` line naming this interpreter's
site-packages. A ``.pth`` inside a directory added that way is not run, so this checkout's editable install stays
invisible: the fresh venv imports ``envs`` from the wheel or fails.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import sysconfig
import zipfile
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]

RUN_A_GAME = r"""
import json, sys
import envs
from pettingzoo import make, aec_registry, parallel_registry

env = make("aec", "barnyard/beasty_borders-v0")
env.reset(seed=0)
steps = 0
for agent in env.agent_iter():
    obs, reward, term, trunc, info = env.last()
    env.step(None if term or trunc else env.action_space(agent).sample(obs["action_mask"]))
    steps += 1
par = make("parallel", "barnyard/boaring-v0", num_players=3)
par.reset(seed=0)
print(json.dumps({
    "envs_file": envs.__file__,
    "games": list(envs.GAMES),
    "aec": sorted(i for i in aec_registry if i.startswith("barnyard/")),
    "parallel": sorted(i for i in parallel_registry if i.startswith("barnyard/")),
    "steps": steps,
    "rules_md": __import__("importlib.resources").resources.files("envs.boaring").joinpath("RULES.md").is_file(),
}))
"""


def run(argv: list[str], cwd: Path, **kwargs) -> subprocess.CompletedProcess:
    """Run ``argv`` (niced), failing the test with its output when it fails."""
    done = subprocess.run(["nice", "-n", "19", *argv], cwd=cwd, capture_output=True, text=True, **kwargs)
    assert done.returncode == 0, f"{argv} failed:\n{done.stdout[-3000:]}\n{done.stderr[-3000:]}"
    return done


@pytest.mark.slow
def test_the_wheel_installs_imports_registers_and_runs_a_game(tmp_path: Path):
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "PIP_REQUIRE_VIRTUALENV", "BARNYARD_GAMES")}
    run(
        [
            sys.executable,
            "-m",
            "pip",
            "wheel",
            "-q",
            "--no-deps",
            "--no-build-isolation",
            "-w",
            str(tmp_path / "dist"),
            str(ROOT),
        ],
        cwd=tmp_path,
        env=env,
        timeout=600,
    )
    (wheel,) = (tmp_path / "dist").glob("barnyard_rl-*.whl")

    names = zipfile.ZipFile(wheel).namelist()
    top_level = {name.split("/")[0] for name in names if not name.split("/")[0].endswith(".dist-info")}
    assert top_level == {"envs", "training"}  # the import names the README states
    assert "envs/__init__.py" in names and "envs/boaring/RULES.md" in names
    assert not any(name.startswith("tests/") for name in names)
    entry_points = next(n for n in names if n.endswith(".dist-info/entry_points.txt"))
    assert "barnyard = training.cli:main" in zipfile.ZipFile(wheel).read(entry_points).decode()

    venv = tmp_path / "fresh"
    run([sys.executable, "-m", "venv", "--without-pip", str(venv)], cwd=tmp_path, env=env, timeout=300)
    python = venv / "bin" / "python"
    fresh_site = Path(
        subprocess.run(
            [str(python), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
            capture_output=True,
            text=True,
            check=True,
        ).stdout.strip()
    )
    deps = {sysconfig.get_paths()["purelib"], sysconfig.get_paths()["platlib"]}
    (fresh_site / "_deps_from_the_test_venv.pth").write_text("\n".join(sorted(deps)) + "\n")
    run(
        [sys.executable, "-m", "pip", "--python", str(python), "install", "-q", "--no-deps", "--no-index", str(wheel)],
        cwd=tmp_path,
        env=env,
        timeout=600,
    )

    done = run([str(python), "-c", RUN_A_GAME], cwd=tmp_path, env=env, timeout=600)
    result = json.loads(done.stdout.strip().splitlines()[-1])
    assert Path(result["envs_file"]).is_relative_to(fresh_site), result["envs_file"]
    import envs

    builtin = [g for g in envs.GAMES if envs.game_info(g).package in envs.BUILTIN_GAMES]  # the wheel's own games
    assert result["games"] == builtin
    assert result["aec"] == sorted(envs.ENV_IDS[g] for g in builtin)
    assert result["parallel"] == ["barnyard/boaring-v0"]
    assert result["steps"] > 20 and result["rules_md"]

    script = run([str(venv / "bin" / "barnyard"), "--help"], cwd=tmp_path, env=env, timeout=300)
    assert "bench" in script.stdout
