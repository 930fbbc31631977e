"""README.md's promises: CI runs its test command, and the commands name things that exist."""

import re
from pathlib import Path

import envs

ROOT = Path(__file__).resolve().parents[1]


def bash_blocks(text: str) -> list[str]:
    return re.findall(r"```bash\n(.*?)```", text, flags=re.S)


def test_ci_runs_the_readme_test_command():
    readme = (ROOT / "README.md").read_text()
    ci_lines = [l for l in (ROOT / ".ci" / "run").read_text().splitlines() if l and not l.startswith(("#", "set ", "cd "))]
    assert len(ci_lines) == 1
    assert any(ci_lines[0] == block.strip() for block in bash_blocks(readme))


def test_readme_lists_every_game_and_its_rules():
    readme = (ROOT / "README.md").read_text()
    for game in envs.GAMES:
        assert f"`envs.{game}_v0`" in readme
        assert f"envs/{game}/RULES.md" in readme and (ROOT / "envs" / game / "RULES.md").exists()
