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
    ci_lines = [line for line in (ROOT / ".ci" / "run").read_text().splitlines()
                if line and not line.startswith(("#", "set ", "cd "))]
    assert len(ci_lines) == 1
    assert any(ci_lines[0] == block.strip() for block in bash_blocks(readme))


def test_readme_lists_every_game_and_its_rules():
    readme = (ROOT / "README.md").read_text()
    for game in envs.GAMES:
        assert f"`envs.{envs.MODULES[game]}`" in readme
        assert f"envs/{game}/RULES.md" in readme and (ROOT / "envs" / game / "RULES.md").exists()


DOCS = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]


def python_blocks(text: str) -> list[str]:
    return re.findall(r"```python\n(.*?)```", text, flags=re.S)


def training_commands() -> list[tuple[str, list[str]]]:
    """Every ``python -m training ...`` command in the bash blocks of README.md and docs/*.md, as argv lists."""
    found = []
    for path in DOCS:
        for block in bash_blocks(path.read_text()):
            for line in block.splitlines():
                for part in line.split("&&"):
                    words = shlex.split(part, comments=True)
                    if len(words) > 3 and words[0].endswith("python") and words[1:3] == ["-m", "training"]:
                        found.append((path.name, words[3:]))
    return found


class _Parsed(Exception):
    """Raised instead of running a command once its arguments have parsed."""


def test_the_docs_have_training_commands():
    commands = training_commands()
    assert {argv[0] for _, argv in commands} >= {"train", "evaluate", "play", "replay", "serve"}


@pytest.mark.parametrize("where,argv", training_commands(), ids=lambda x: " ".join(x) if isinstance(x, list) else x)
def test_every_documented_training_command_parses(where, argv, monkeypatch):
    """The flags the docs show exist (the command is parsed, not run)."""
    import training.__main__ as cli

    parse = argparse.ArgumentParser.parse_args

    def parse_then_stop(self, args=None, namespace=None):
        raise _Parsed(parse(self, args, namespace))

    monkeypatch.setattr(argparse.ArgumentParser, "parse_args", parse_then_stop)
    with pytest.raises(_Parsed):
        cli.main(argv)


@pytest.mark.parametrize("path", [p for p in DOCS if python_blocks(p.read_text()) and p.name != "frameworks.md"],
                         ids=lambda p: p.name)
def test_python_blocks_run(path, capsys):
    """The README's and docs' runnable Python blocks (those that import something) run as printed
    (docs/frameworks.md's train for minutes: tests/frameworks/ runs them with smaller sizes)."""
    ran = 0
    for block in python_blocks(path.read_text()):
        if block.lstrip().startswith(("import ", "from ")):
            namespace: dict = {}
            exec(compile(block, f"{path.name} block", "exec"), namespace)
            ran += 1
    assert ran > 0
