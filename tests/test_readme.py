"""README.md's promises: CI runs its test command, and the commands name things that exist."""

import argparse
import re
import shlex
from pathlib import Path

import pytest

import envs

ROOT = Path(__file__).resolve().parents[1]


def bash_blocks(text: str) -> list[str]:
    return re.findall(r"```bash\n(.*?)```", text, flags=re.S)


def test_ci_runs_the_readme_test_command():
    readme = (ROOT / "README.md").read_text()
    ci_lines = [
        line
        for line in (ROOT / ".ci" / "run").read_text().splitlines()
        if line and not line.startswith(("#", "set ", "cd "))
    ]
    assert len(ci_lines) == 1
    assert any(ci_lines[0] == block.strip() for block in bash_blocks(readme))


def test_readme_lists_every_game_and_its_rules():
    """Every game that ships with Barnyard (``envs.BUILTIN_GAMES``; a game registered from outside, such as the
    tests' example game, is documented where it lives)."""
    readme = (ROOT / "README.md").read_text()
    for game in envs.GAMES:
        info = envs.game_info(game)
        if info.package not in envs.BUILTIN_GAMES:
            continue
        assert f"`envs.{envs.MODULES[game]}`" in readme
        assert f"envs/{game}/RULES.md" in readme and (info.folder / "RULES.md").exists()


DOCS = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]


def python_blocks(text: str) -> list[str]:
    return re.findall(r"```python\n(.*?)```", text, flags=re.S)


def is_barnyard(word: str) -> bool:
    """Whether a command word is the ``barnyard`` console script (bare or a path such as ``.venv/bin/barnyard``)."""
    return word == "barnyard" or word.endswith("/barnyard")


def documented_commands() -> list[tuple[str, list[str]]]:
    """Every ``barnyard ...`` and ``python -m training ...`` command in the bash blocks of README.md and
    docs/*.md, as the argv lists that ``barnyard`` receives."""
    found = []
    for path in DOCS:
        for block in bash_blocks(path.read_text()):
            for line in block.splitlines():
                for part in line.split("&&"):
                    words = shlex.split(part, comments=True)
                    if len(words) > 1 and is_barnyard(words[0]):
                        found.append((path.name, words[1:]))
                    elif len(words) > 3 and words[0].endswith("python") and words[1:3] == ["-m", "training"]:
                        found.append((path.name, words[3:]))
    return found


class _Parsed(Exception):
    """Raised instead of running a command once its arguments have parsed."""


def test_the_docs_have_training_commands():
    commands = documented_commands()
    assert {argv[0] for _, argv in commands} >= {"train", "evaluate", "play", "replay", "serve", "bench"}
    readme = "\n".join(bash_blocks((ROOT / "README.md").read_text()))
    assert "barnyard train " in readme and "python -m training" not in readme  # the docs use the script


@pytest.mark.parametrize("where,argv", documented_commands(), ids=lambda x: " ".join(x) if isinstance(x, list) else x)
def test_every_documented_command_parses(where, argv, monkeypatch):
    """The commands and flags the docs show exist (the command is parsed, not run)."""
    from training.cli import main

    parse = argparse.ArgumentParser.parse_args

    def parse_then_stop(self, args=None, namespace=None):
        raise _Parsed(parse(self, args, namespace))

    monkeypatch.setattr(argparse.ArgumentParser, "parse_args", parse_then_stop)
    with pytest.raises(_Parsed):
        main(argv)


def test_the_barnyard_script_is_declared_and_python_m_training_is_the_same_command():
    import tomllib

    import training.__main__ as module_main
    from training.cli import main

    scripts = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["scripts"]
    assert scripts == {"barnyard": "training.cli:main"}
    assert module_main.main is main


def test_barnyard_help_and_unknown_command(capsys):
    from training.cli import COMMANDS, main

    main(["--help"])
    out = capsys.readouterr().out
    for command in COMMANDS:
        assert f"  {command} " in out
    with pytest.raises(SystemExit, match="unknown command 'nope'"):
        main(["nope"])


def test_the_installed_barnyard_script_prints_its_help():
    """The console script that ``pip install -e`` wrote runs (skipped where the tests run without one)."""
    import shutil
    import subprocess
    import sys

    script = Path(sys.executable).parent / "barnyard"
    if not script.exists():
        script = shutil.which("barnyard")
        if script is None:
            pytest.skip("no barnyard script installed beside this python")
    done = subprocess.run([str(script), "--help"], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert "bench" in done.stdout and "train" in done.stdout


@pytest.mark.parametrize(
    "path", [p for p in DOCS if python_blocks(p.read_text()) and p.name != "frameworks.md"], ids=lambda p: p.name
)
def test_python_blocks_run(path, capsys):
    """The README's and docs' runnable Python blocks (those that import something) run as printed
    (docs/frameworks.md's train for minutes: tests/frameworks/ runs them with smaller sizes)."""
    if path.name == "openspiel.md":
        pytest.importorskip("pyspiel")  # the openspiel extra (installed by the README's test command)
    ran = 0
    for block in python_blocks(path.read_text()):
        if block.lstrip().startswith(("import ", "from ")):
            namespace: dict = {}
            exec(compile(block, f"{path.name} block", "exec"), namespace)
            ran += 1
    assert ran > 0


def test_the_ids_in_the_readme_are_registered():
    """Every ``barnyard/<game>-v<N>`` id README.md names is one that ``import envs`` registers."""
    named = set(re.findall(r"barnyard/[a-z_]+-v\d+", (ROOT / "README.md").read_text()))
    assert named, "README names no id"
    assert named <= set(envs.ENV_IDS.values()), sorted(named - set(envs.ENV_IDS.values()))


def test_the_readme_stays_short():
    """README.md is the front page: at most 10,000 characters, the detail in docs/."""
    assert len((ROOT / "README.md").read_text()) <= 10_000
