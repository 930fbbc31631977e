"""The Beasty Borders modules import one way: ``rules`` -> ``observation`` -> ``state`` (no cycle, not even one
hidden behind ``TYPE_CHECKING``). Read with ``ast`` from the source, so nothing is imported to find out."""

from __future__ import annotations

import ast
from pathlib import Path

import envs.beasty_borders

PACKAGE = Path(envs.beasty_borders.__file__).parent
PREFIX = "envs.beasty_borders."


def _imports(module: str) -> set[str]:
    """Modules of this package that ``module`` imports anywhere in its source (function bodies and
    ``if TYPE_CHECKING:`` blocks included)."""
    tree = ast.parse((PACKAGE / f"{module}.py").read_text())
    found = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.module:
            if node.module.startswith(PREFIX):
                found.add(node.module[len(PREFIX) :].split(".")[0])
            elif node.module == "envs.beasty_borders":
                found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.Import):
            found.update(a.name[len(PREFIX) :].split(".")[0] for a in node.names if a.name.startswith(PREFIX))
    return found


def test_package_import_graph_has_no_cycle():
    modules = sorted(p.stem for p in PACKAGE.glob("*.py") if p.stem != "__init__")
    graph = {m: _imports(m) & set(modules) for m in modules}
    assert "observation" not in graph["state"] and "rules" not in graph["state"]
    assert "rules" not in graph["observation"]
    done: set[str] = set()

    def visit(module: str, path: list[str]) -> None:
        assert module not in path, f"import cycle: {' -> '.join(path + [module])}"
        if module in done:
            return
        for dep in sorted(graph[module]):
            visit(dep, path + [module])
        done.add(module)

    for m in modules:
        visit(m, [])
