"""Imports point one way: every module of ``envs/`` and ``training/`` imports on its own, and the import graph of
the two packages has no cycles.

How the graph is counted (read from the source with :mod:`ast`, nothing is imported for it):

* Every ``import`` and ``from ... import`` statement anywhere in a module counts: at module level, inside a
  function or a class, under ``if TYPE_CHECKING:`` or in a ``try``. An import deferred into a function is still a
  dependency; a cycle hidden behind one only fails later, at the first call.
* An edge goes from the importing module to the imported one: ``import a.b`` -> ``a.b``; ``from a.b import c`` ->
  ``a.b.c`` when that is a module, else ``a.b`` (``c`` is a name defined there). Relative imports are resolved
  against the importing module's package.
* Only modules of ``envs`` and ``training`` are nodes. No edge is drawn to the parent packages that Python runs
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
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
PACKAGES = ("envs", "training")


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
    for node in ast.walk(ast.parse(path.read_text(), filename=str(path))):
        if isinstance(node, ast.Import):
            targets = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                package = name.split(".") if is_package else name.split(".")[:-1]
                base_parts = package[: len(package) - (node.level - 1)]
                base = ".".join(base_parts + ([node.module] if node.module else []))
            else:
                base = node.module or ""
            targets = [f"{base}.{alias.name}" if f"{base}.{alias.name}" in modules else base
                       for alias in node.names]
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
    modules = {"pkg": pkg / "__init__.py", "pkg.a": pkg / "a.py", "pkg.b": pkg / "b.py", "pkg.c": pkg / "c.py",
               "pkg.sub": pkg / "sub" / "__init__.py", "pkg.sub.d": pkg / "sub" / "d.py"}
    graph = {name: imported_modules(name, path, modules) for name, path in modules.items()}
    assert graph == {"pkg": {"pkg.a"}, "pkg.a": {"pkg.b", "pkg.c"}, "pkg.b": set(), "pkg.c": {"pkg.sub.d"},
                     "pkg.sub": set(), "pkg.sub.d": {"pkg.a"}}
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
    """The maths modules import no loop: ``ppo.maths`` needs only the masked distribution; rollouts, buffer and
    checkpoints use them."""
    graph = import_graph()
    assert {m for m in graph["training.ppo.maths"] if m.startswith("training")} == {"training.distribution"}
    assert not {m for m in graph["training.distribution"] if m.startswith("training")}
    for user in ("training.ppo.buffer", "training.ppo.collect", "training.checkpoint"):
        assert "training.ppo.loop" not in graph[user]


IMPORT_EACH_ALONE = """
import importlib, json, sys, traceback
failures = {}
for name in json.loads(sys.argv[1]):
    for loaded in [m for m in sys.modules if m.split(".")[0] in ("envs", "training")]:
        del sys.modules[loaded]
    try:
        importlib.import_module(name)
    except Exception:
        failures[name] = traceback.format_exc(limit=3)
print(json.dumps(failures))
"""


OPTIONAL_EXTRAS = {"envs.openspiel": "pyspiel"}
"""Packages that need an optional extra (envs.openspiel: the ``openspiel`` extra). Without it installed they are
left out of the import-alone check, and importing them must fail with a message naming the extra."""


def test_optional_packages_name_their_extra_when_it_is_missing():
    missing = [name for name, dependency in OPTIONAL_EXTRAS.items() if importlib.util.find_spec(dependency) is None]
    if not missing:
        pytest.skip("every optional extra is installed")
    for name in missing:
        done = subprocess.run([sys.executable, "-c", f"import {name}"], cwd=ROOT, capture_output=True, text=True,
                              timeout=300, env={**os.environ, "PYTHONPATH": str(ROOT)})
        assert done.returncode != 0 and "pip install" in done.stderr and "openspiel" in done.stderr


RETIRED = {"envs.bestiarium_v0"}
"""Retired env versions: importing them raises PettingZoo's DeprecatedEnv by design
(``tests/bestiarium/test_bestiarium_features.py`` checks it)."""


def test_every_module_imports_alone():
    """Each module is imported with no other module of the two packages loaded before it (one interpreter;
    ``sys.modules`` is cleared of ``envs`` and ``training`` before each import), so an import that works only
    in a lucky order fails here."""
    names = sorted(set(project_modules()) - RETIRED)
    optional = {name: dependency for name in names for prefix, dependency in OPTIONAL_EXTRAS.items()
                if name == prefix or name.startswith(prefix + ".")}
    missing = {name for name, dependency in optional.items() if importlib.util.find_spec(dependency) is None}
    names = [name for name in names if name not in missing]
    done = subprocess.run([sys.executable, "-c", IMPORT_EACH_ALONE, json.dumps(names)], cwd=ROOT,
                          capture_output=True, text=True, timeout=300,
                          env={**os.environ, "PYTHONPATH": str(ROOT)})
    assert done.returncode == 0, done.stderr
    failures = json.loads(done.stdout.strip().splitlines()[-1])
    assert failures == {}, "\n".join(f"{k}:\n{v}" for k, v in failures.items())


def test_envs_never_import_training():
    """``training`` uses ``envs``, never the reverse: checkpoint specs reach training's resolver through the
    ``barnyard.policy_specs`` entry point (envs/common/gym_view.py), not through an import."""
    graph = import_graph()
    reverse = {name: sorted(m for m in deps if m.startswith("training"))
               for name, deps in graph.items() if name.startswith("envs")}
    assert {name: deps for name, deps in reverse.items() if deps} == {}
