"""Each documented extra brings what its docs use, on its own (issue 50: ``pip install -e ".[openspiel]"`` gave
``No module named 'tree'`` at docs/openspiel.md's NFSP example, hidden in CI by the other extras it installs).

For each extra, the distributions a fresh install of it would hold are worked out from pyproject.toml's extras and
the installed distributions' own requirements (markers and extras followed, as pip resolves them: this
environment has every documented extra installed); a folder of links then shows only those distributions' files,
and a child interpreter started without this environment's site-packages (``-S``), with that folder as its only
one, imports what the extra's docs import (the ``python`` blocks of its page, its examples). A dependency the
extra forgets is simply not there, as on a fresh install, in seconds rather than the minutes a venv per extra
would take to build and fill.
"""

from __future__ import annotations

import ast
import functools
import json
import re
import subprocess
import sys
import sysconfig
import tomllib
from importlib import metadata
from pathlib import Path

import pytest

packaging_requirements = pytest.importorskip("packaging.requirements")

ROOT = Path(__file__).resolve().parents[1]
PROJECT = "barnyard-rl"

DOCS: dict[str, list[tuple[str, str | None]]] = {
    "openspiel": [("docs/openspiel.md", None), ("examples/openspiel_strength.py", None)],
    "sb3": [("docs/frameworks.md", "## Stable-Baselines3")],
    "torchrl": [("docs/frameworks.md", "## TorchRL")],
    "rllib": [("docs/frameworks.md", "## RLlib"), ("examples/rllib_scale.py", None)],
}
"""Each documented extra's pages (a markdown page, or the section of it under a heading) and examples, whose
imports it must provide."""
COMMANDS: dict[str, list[str]] = {
    "web": ["training.play.web.serve", "training.play.web.app", "uvicorn"],  # barnyard serve (docs/play.md)
    "web-test": ["starlette.testclient", "httpx2", "playwright.sync_api"],  # tests/web
    # llm: policies, barnyard mcp (docs/llm.md)
    "llm": [
        "openai",
        "mcp",
        "mcp.client.stdio",
        "mcp.server.mcpserver",
        "training.play.mcp_server",
        "training.arena.llm",
    ],
    "train": ["torch", "tqdm", "torch.utils.tensorboard", "matplotlib.pyplot", "training.ppo.loop"],  # train, evaluate
}
"""What the extras without a page of code use: the modules their commands import (some only when they run)."""

IMPORT = r"""
import importlib, json, site, sys

site.addsitedir(sys.argv[1])  # the extra's site-packages: what a fresh install of it holds (its .pth files too)
failed = {}
for module, names in json.loads(sys.argv[2]):
    try:  # import module / from module import name, name...
        found = importlib.import_module(module)
        for name in names:
            if not hasattr(found, name):
                importlib.import_module(f"{module}.{name}")
    except Exception as err:
        failed[module] = f"{type(err).__name__}: {err}"
print(json.dumps(failed))
"""


def normal(name: str) -> str:
    return re.sub(r"[-_.]+", "-", name).lower()


def project_extras() -> tuple[list[str], dict[str, list[str]]]:
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    return project["dependencies"], project["optional-dependencies"]


def distributions_of(extra: str) -> set[str]:
    """The distributions ``pip install ".[extra]"`` installs: the project's dependencies and the extra's, and theirs,
    from the installed distributions' metadata. Fails on one that is not installed here (every documented extra
    is: README's test command installs them)."""
    base, extras = project_extras()
    found: set[str] = {normal(PROJECT)}
    seen: set[tuple[str, frozenset[str]]] = set()
    todo: list[tuple[str, str]] = [(r, "") for r in base + extras[extra]]
    while todo:
        text, context = todo.pop()
        req = packaging_requirements.Requirement(text)
        if req.marker is not None and not req.marker.evaluate({"extra": context}):
            continue
        name = normal(req.name)
        key = (name, frozenset(req.extras))
        if key in seen:
            continue
        seen.add(key)
        if name == normal(PROJECT):  # barnyard-rl[train,test]: this project's own extras
            todo += [(r, "") for e in req.extras for r in extras[e]]
            continue
        found.add(name)
        try:
            requires = metadata.distribution(req.name).requires or []
        except metadata.PackageNotFoundError:
            pytest.fail(f"{req.name} (of the {extra} extra) is not installed here: pip install -e '.[{extra}]'")
        for sub in requires:
            todo += [(sub, e) for e in ("", *req.extras)]
    return found


@functools.cache
def installed_files() -> dict[str, list[tuple[str, ...]]]:
    """Every installed distribution's files (from its RECORD), as paths relative to site-packages, by name."""
    files: dict[str, list[tuple[str, ...]]] = {}
    for dist in metadata.distributions():
        name = dist.metadata["Name"]
        if name and normal(name) != normal(PROJECT):  # this checkout is on the path itself (the working folder)
            files.setdefault(normal(name), []).extend(
                parts for f in dist.files or () if (parts := Path(f).parts) and parts[0] != ".."
            )
    return files


def site_of(allowed: set[str], into: Path) -> Path:
    """A site-packages folder that shows only the files of the ``allowed`` distributions: links to this
    environment's, a whole folder at once where no other distribution has files in it."""
    source = Path(sysconfig.get_paths()["purelib"])
    entries = [(name, parts) for name, files in installed_files().items() for parts in files]

    def place(level: list[tuple[str, tuple[str, ...]]], here: Path, depth: int) -> None:
        groups: dict[str, list[tuple[str, tuple[str, ...]]]] = {}
        for name, parts in level:
            groups.setdefault(parts[depth], []).append((name, parts))
        for part, group in groups.items():
            owners = {name for name, _ in group}
            if not owners & allowed:
                continue
            target = source.joinpath(*group[0][1][: depth + 1])
            if owners <= allowed or all(len(parts) == depth + 1 for _, parts in group):
                (here / part).symlink_to(target)
            else:  # a folder shared with a distribution the extra does not bring: go down into it
                (here / part).mkdir()
                place([(n, p) for n, p in group if len(p) > depth + 1], here / part, depth + 1)

    into.mkdir()
    place(entries, into, 0)
    return into


def imports_of(path: str, heading: str | None) -> list[tuple[str, list[str]]]:
    """What a page's ``python`` blocks (under ``heading`` only, if given) or an example file import: each module,
    with the names imported from it."""
    text = (ROOT / path).read_text()
    if path.endswith(".md"):
        if heading is not None:
            text = text[text.index(heading) :]
            following = re.search(r"^## ", text[len(heading) :], re.MULTILINE)
            text = text[: len(heading) + following.start()] if following else text
        sources = re.findall(r"```python\n(.*?)```", text, re.DOTALL)
    else:
        sources = [text]
    modules: list[tuple[str, list[str]]] = []
    for source in sources:
        for node in ast.walk(ast.parse(source)):
            if isinstance(node, ast.Import):
                modules += [(alias.name, []) for alias in node.names]
            elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module not in (None, "__future__"):
                modules.append((str(node.module), [alias.name for alias in node.names]))
    return modules


def test_the_docs_name_each_extra_they_install_and_this_test_covers_them():
    _, extras = project_extras()
    documented = set()
    for page in [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]:
        documented |= {
            e for group in re.findall(r'pip install[^\n`]*"\.\[([^\]]+)\]"', page.read_text()) for e in group.split(",")
        }
    assert documented <= set(extras), documented - set(extras)
    assert {"openspiel", "sb3", "torchrl", "rllib", "web"} <= documented
    assert set(DOCS) | set(COMMANDS) >= documented - {"dev", "frameworks", "test"}, documented
    for extra, pages in DOCS.items():
        assert any(imports_of(*page) for page in pages), (extra, pages)
    assert ("open_spiel.python.pytorch", ["nfsp"]) in imports_of("docs/openspiel.md", None)


@pytest.mark.slow
@pytest.mark.parametrize("extra", [*DOCS, *COMMANDS])
def test_each_extra_brings_what_its_docs_import(extra, tmp_path):
    site = site_of(distributions_of(extra), tmp_path / "site-packages")
    if extra in COMMANDS:
        modules = [(m, []) for m in COMMANDS[extra]]
    else:
        modules = [m for page in DOCS[extra] for m in imports_of(*page)]
    done = subprocess.run(  # -S: none of this environment's site-packages, only the extra's
        [sys.executable, "-S", "-c", IMPORT, str(site), json.dumps(modules)],
        capture_output=True,
        text=True,
        timeout=600,
        cwd=ROOT,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    failed = json.loads(done.stdout.strip().splitlines()[-1])
    assert not failed, f'pip install -e ".[{extra}]" would lack what its docs import: {failed}'
