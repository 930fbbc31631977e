"""Imports point one way: every module of ``envs/``, ``training/`` and the lab (``lab/``) imports on its own, their
import graph has no cycles, the installed packages never import the lab, and the rooms of ``training/`` (its
sub-packages, the shared top-level modules and the commands) import each other only in the directions
:data:`ROOM_IMPORTS` allows.

How the graph is counted (read from the source with :mod:`ast`, nothing is imported for it):

* Every ``import`` and ``from ... import`` statement anywhere in a module counts: at module level, inside a
  function or a class, or in a ``try``. An import deferred into a function is still a dependency; a cycle hidden
  behind one only fails later, at the first call. Imports under ``if TYPE_CHECKING:`` do not count: they never
  run, and they are how Python lets two modules name each other's types (PEP 484): ``observation.py`` and
  ``render.py`` annotate the game with its ``rules.py`` class, which imports them.
* An edge goes from the importing module to the imported one: ``import a.b`` -> ``a.b``; ``from a.b import c`` ->
  ``a.b.c`` when that is a module, else ``a.b`` (``c`` is a name defined there). Relative imports are resolved
  against the importing module's package.
* Only modules of ``envs``, ``training`` and ``lab`` are nodes. No edge is drawn to the parent packages that Python runs
  first (``import a.b`` runs ``a/__init__.py``): a package whose ``__init__`` imports its own submodules is how
  packages are built, not a cycle. An explicit import of a package (``import envs``, ``from envs import
  GAMES``) is an edge to that package's ``__init__``.
* Imports by computed name (``importlib.import_module(f"envs.{game}_v0")``, ``__import__``) are not seen.
"""

from __future__ import annotations

import ast
import importlib.util
import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
PACKAGES = ("envs", "training", "lab")
"""The installed packages and the checkout's lab (hand-run experiments, not installed)."""


def project_modules() -> dict[str, Path]:
    """Dotted module name -> source file, for every module of the packages (a package is its ``__init__``)."""
    modules = {}
    for package in PACKAGES:
        for path in sorted((ROOT / package).rglob("*.py")):
            parts = list(path.relative_to(ROOT).with_suffix("").parts)
            if parts[-1] == "__init__":
                parts.pop()
            modules[".".join(parts)] = path
    return modules


def imported_modules(name: str, path: Path, modules: dict[str, Path]) -> set[str]:
    """The project modules that module ``name`` (source ``path``) imports, counted as the docstring says."""
    is_package = path.name == "__init__.py"
    found: set[str] = set()
    tree = ast.parse(path.read_text(), filename=str(path))
    type_only = {
        id(n)
        for block in ast.walk(tree)
        if isinstance(block, ast.If) and isinstance(block.test, ast.Name) and block.test.id == "TYPE_CHECKING"
        for n in ast.walk(block)
    }
    for node in ast.walk(tree):
        if id(node) in type_only:
            continue
        if isinstance(node, ast.Import):
            targets = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                package = name.split(".") if is_package else name.split(".")[:-1]
                base_parts = package[: len(package) - (node.level - 1)]
                base = ".".join(base_parts + ([node.module] if node.module else []))
            else:
                base = node.module or ""
            targets = [f"{base}.{alias.name}" if f"{base}.{alias.name}" in modules else base for alias in node.names]
        else:
            continue
        found.update(t for t in targets if t in modules)
    found.discard(name)
    return found


def import_graph() -> dict[str, set[str]]:
    modules = project_modules()
    return {name: imported_modules(name, path, modules) for name, path in modules.items()}


def cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected components with more than one module (Tarjan), each sorted."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    components: list[list[str]] = []

    def visit(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        on_stack.add(v)
        for w in sorted(graph[v]):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            component = []
            while True:
                w = stack.pop()
                on_stack.discard(w)
                component.append(w)
                if w == v:
                    break
            if len(component) > 1:
                components.append(sorted(component))

    for v in sorted(graph):
        if v not in index:
            visit(v)
    return sorted(components)


def test_the_graph_reader_counts_every_kind_of_import(tmp_path: Path):
    """The counting rules above, on a hand-made package (a cycle through a function-level import is found)."""
    pkg = tmp_path / "pkg"
    (pkg / "sub").mkdir(parents=True)
    (pkg / "__init__.py").write_text("from pkg import a\n")
    (pkg / "a.py").write_text("import pkg.b\nfrom . import c\n")
    (pkg / "b.py").write_text("X = 1\n")
    (pkg / "c.py").write_text("def later():\n    from pkg.sub.d import thing\n    return thing\n")
    (pkg / "sub" / "__init__.py").write_text("")
    (pkg / "sub" / "d.py").write_text("from ..a import anything\nthing = 1\n")
    modules = {
        "pkg": pkg / "__init__.py",
        "pkg.a": pkg / "a.py",
        "pkg.b": pkg / "b.py",
        "pkg.c": pkg / "c.py",
        "pkg.sub": pkg / "sub" / "__init__.py",
        "pkg.sub.d": pkg / "sub" / "d.py",
    }
    graph = {name: imported_modules(name, path, modules) for name, path in modules.items()}
    assert graph == {
        "pkg": {"pkg.a"},
        "pkg.a": {"pkg.b", "pkg.c"},
        "pkg.b": set(),
        "pkg.c": {"pkg.sub.d"},
        "pkg.sub": set(),
        "pkg.sub.d": {"pkg.a"},
    }
    assert cycles(graph) == [["pkg.a", "pkg.c", "pkg.sub.d"]]
    del graph["pkg.c"]
    graph["pkg.a"].discard("pkg.c")
    assert cycles(graph) == []


def test_the_import_graph_of_envs_and_training_has_no_cycles():
    graph = import_graph()
    assert {"training.ppo.maths", "training.ppo.loop", "envs.common.game"} <= set(graph)
    assert "training.ppo.maths" in graph["training.ppo.loop"]  # the reader sees the project's imports
    assert cycles(graph) == []


def test_the_ppo_maths_import_no_other_training_module():
    """The maths modules import no loop: ``ppo.maths`` needs only the masked distribution and the type of the
    run's settings (``training.config``, a leaf); rollouts, buffer and checkpoints use them."""
    graph = import_graph()
    maths_deps = {m for m in graph["training.ppo.maths"] if m.startswith("training")}
    assert maths_deps == {"training.distribution", "training.config"}
    for leaf in ("training.distribution", "training.config"):
        assert not {m for m in graph[leaf] if m.startswith("training")}
    for user in ("training.ppo.buffer", "training.ppo.collect", "training.checkpoint"):
        assert "training.ppo.loop" not in graph[user]


# ----- the rooms of training/ ----------------------------------------------------------------------------------
SHARED = {
    "training",
    "training.config",
    "training.networks",
    "training.distribution",
    "training.checkpoint",
    "training.loader",
    "training.specs",
    "training.shaping",
    "training.charts",
    "training.stats",
    "training.workers",
    "training.cli_errors",
}
"""The shared top-level modules (and the package itself): every room may import them; they import no room."""

COMMANDS = {"training.__main__", "training.cli", "training.train_cli"}
"""The top-level command modules: ``cli`` dispatches by module name (:data:`training.cli.COMMANDS`, not an import
edge); ``train_cli`` builds a config and calls PPO's or AlphaZero's ``train``."""

ROOM_IMPORTS = {
    "shared": {"shared"},
    "run": {"shared", "run"},
    "scale": {"shared", "scale"},
    "ppo": {"shared", "run", "scale", "ppo"},
    "alphazero": {"shared", "run", "scale", "alphazero"},
    "arena": {"shared", "alphazero", "arena"},
    "play": {"shared", "arena", "play"},
    "commands": {"shared", "ppo", "alphazero", "commands"},
    "measure": {"shared", "run", "ppo", "alphazero", "arena", "commands", "measure"},
}
"""Which rooms the modules of each room may import (each package's ``__init__`` docstring says the same)."""

ALPHAZERO_PLAYERS = {"training.alphazero.search", "training.alphazero.guided"}
"""The only AlphaZero modules the arena may import: the search players (``mcts:``, ``guided:``), not the learner."""


def room(name: str) -> str:
    """The room of a ``training`` module: its sub-package, ``shared`` or ``commands``; KeyError for a top-level
    module that is in neither list (a new one must be placed on purpose)."""
    parts = name.split(".")
    if len(parts) > 1 and (ROOT / "training" / parts[1]).is_dir():
        return parts[1]
    if name in SHARED:
        return "shared"
    if name in COMMANDS:
        return "commands"
    raise KeyError(f"{name} is in no room: put it in a sub-package, or in SHARED or COMMANDS here")


def room_violations(graph: dict[str, set[str]]) -> list[str]:
    """Every import edge between ``training`` modules that the rooms' rules forbid, as ``a -> b (why)``."""
    found = []
    for name, deps in sorted(graph.items()):
        if not name.startswith("training"):
            continue
        for dep in sorted(d for d in deps if d.startswith("training")):
            src, dst = room(name), room(dep)
            if dst not in ROOM_IMPORTS[src]:
                found.append(f"{name} -> {dep} ({src} may not import {dst})")
            elif src == "arena" and dst == "alphazero" and dep not in ALPHAZERO_PLAYERS:
                found.append(f"{name} -> {dep} (the arena imports only AlphaZero's players)")
    return found


def test_every_training_module_has_a_room():
    rooms = {name: room(name) for name in project_modules() if name.split(".")[0] == "training"}
    assert set(rooms.values()) == set(ROOM_IMPORTS)


def test_the_rooms_import_one_way():
    """The allowed directions form no cycle, so no two rooms can import each other."""
    allowed = {r: deps - {r} for r, deps in ROOM_IMPORTS.items()}
    assert cycles(allowed) == []


def test_imports_between_the_rooms_follow_the_rules():
    """Shared modules import no room; ``run`` only the shared modules; the learners ``run`` and never each
    other; the arena AlphaZero's players but no training loop; play the arena; nothing imports ``measure``."""
    assert room_violations(import_graph()) == []


def test_the_room_rules_catch_a_wrong_import():
    graph = {
        "training.checkpoint": {"training.ppo.loop"},
        "training.arena.tournament": {"training.alphazero.selfplay", "training.alphazero.search"},
        "training.ppo.collect": {"training.alphazero.search", "training.run.pieces"},
        "training.run.pieces": {"training.measure.exploit"},
        "training.play.terminal": {"training.arena.players"},
    }
    assert room_violations(graph) == [
        "training.arena.tournament -> training.alphazero.selfplay (the arena imports only AlphaZero's players)",
        "training.checkpoint -> training.ppo.loop (shared may not import ppo)",
        "training.ppo.collect -> training.alphazero.search (ppo may not import alphazero)",
        "training.run.pieces -> training.measure.exploit (run may not import measure)",
    ]
    with pytest.raises(KeyError, match="in no room"):
        room("training.somewhere_new")


def test_each_package_says_what_it_holds_and_may_import():
    """Each sub-package's docstring has a ``May import:`` sentence naming exactly the rooms of the table."""
    for package in sorted(r for r in ROOM_IMPORTS if r not in ("shared", "commands")):
        path = ROOT / "training" / package / "__init__.py"
        doc = ast.get_docstring(ast.parse(path.read_text())) or ""
        match = re.search(r"May import:(.*?)\.(?:\s|$)", doc, flags=re.S)
        assert match, f"training/{package}/__init__.py: no 'May import:' sentence"
        sentence = match.group(1)
        named = {room(m) for m in re.findall(r"training\.\w+", sentence)}
        if "shared" in sentence:
            named.add("shared")
        assert named == ROOM_IMPORTS[package] - {package}, package


def test_the_commands_and_the_entry_point_name_modules_that_exist():
    """``barnyard``'s commands and the ``barnyard.policy_specs`` entry point name modules defining the function."""
    import tomllib

    from training.cli import COMMANDS as CLI_COMMANDS

    modules = project_modules()
    targets = [f"{module}:main" for module in CLI_COMMANDS.values() if module.startswith("training")]
    pyproject = tomllib.loads((ROOT / "pyproject.toml").read_text())
    targets += list(pyproject["project"]["entry-points"]["barnyard.policy_specs"].values())
    targets += list(pyproject["project"]["scripts"].values())
    for target in targets:
        module, _, function = target.partition(":")
        assert module in modules, target
        defined = {
            node.name for node in ast.parse(modules[module].read_text()).body if isinstance(node, ast.FunctionDef)
        }
        assert function in defined, target
    package_data = pyproject["tool"]["setuptools"]["package-data"]
    for package in package_data:
        if package != "*":
            assert (ROOT / package.replace(".", "/") / "__init__.py").exists(), package


IMPORT_EACH_ALONE = """
import importlib, json, sys, traceback
failures = {}
for name in json.loads(sys.argv[1]):
    for loaded in [m for m in sys.modules if m.split(".")[0] in ("envs", "training", "lab")]:
        del sys.modules[loaded]
    try:
        importlib.import_module(name)
    except Exception:
        failures[name] = traceback.format_exc(limit=3)
print(json.dumps(failures))
"""


def python_path() -> str:
    """This checkout first on a subprocess's path, then the suite's own (the example game's folder, which
    ``BARNYARD_GAMES`` names: tests/conftest.py)."""
    return os.pathsep.join(filter(None, (str(ROOT), os.environ.get("PYTHONPATH"))))


OPTIONAL_EXTRAS = {"envs.openspiel": "pyspiel"}
"""Packages that need an optional extra (envs.openspiel: the ``openspiel`` extra). Without it installed they are
left out of the import-alone check, and importing them must fail with a message naming the extra."""


def test_optional_packages_name_their_extra_when_it_is_missing():
    missing = [name for name, dependency in OPTIONAL_EXTRAS.items() if importlib.util.find_spec(dependency) is None]
    if not missing:
        pytest.skip("every optional extra is installed")
    for name in missing:
        done = subprocess.run(
            [sys.executable, "-c", f"import {name}"],
            cwd=ROOT,
            capture_output=True,
            text=True,
            timeout=300,
            env={**os.environ, "PYTHONPATH": python_path()},
        )
        assert done.returncode != 0 and "pip install" in done.stderr and "openspiel" in done.stderr


RETIRED = {"envs.bestiarium_v0"}
"""Retired env versions: importing them raises PettingZoo's DeprecatedEnv by design
(``tests/bestiarium/test_bestiarium_features.py`` checks it)."""


def test_every_module_imports_alone():
    """Each module is imported with no other module of the two packages loaded before it (one interpreter;
    ``sys.modules`` is cleared of ``envs`` and ``training`` before each import), so an import that works only
    in a lucky order fails here."""
    names = sorted(set(project_modules()) - RETIRED)
    optional = {
        name: dependency
        for name in names
        for prefix, dependency in OPTIONAL_EXTRAS.items()
        if name == prefix or name.startswith(prefix + ".")
    }
    missing = {name for name, dependency in optional.items() if importlib.util.find_spec(dependency) is None}
    names = [name for name in names if name not in missing]
    done = subprocess.run(
        [sys.executable, "-c", IMPORT_EACH_ALONE, json.dumps(names)],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=300,
        env={**os.environ, "PYTHONPATH": python_path()},
    )
    assert done.returncode == 0, done.stderr
    failures = json.loads(done.stdout.strip().splitlines()[-1])
    assert failures == {}, "\n".join(f"{k}:\n{v}" for k, v in failures.items())


def test_envs_never_import_training():
    """``training`` uses ``envs``, never the reverse: checkpoint specs reach training's resolver through the
    ``barnyard.policy_specs`` entry point (envs/common/gym_view.py), not through an import."""
    graph = import_graph()
    reverse = {
        name: sorted(m for m in deps if m.startswith("training"))
        for name, deps in graph.items()
        if name.startswith("envs")
    }
    assert {name: deps for name, deps in reverse.items() if deps} == {}


def test_the_installed_packages_never_import_the_lab():
    """``lab/`` (hand-run experiments) uses ``envs`` and ``training``, never the reverse: the lab is not installed,
    so a product module that imported it would fail in an installed wheel."""
    graph = import_graph()
    assert any(name.startswith("lab.") for name in graph)
    found = {
        name: sorted(m for m in deps if m.split(".")[0] == "lab")
        for name, deps in graph.items()
        if name.split(".")[0] in ("envs", "training")
    }
    assert {name: deps for name, deps in found.items() if deps} == {}
