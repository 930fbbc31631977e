"""Every game folder ``envs/<game>/`` has the same rooms, each room offers the same public names in every game, the
rooms import one way, every Game class stays short, and the web page's views hold no game knowledge.

Read from the source with :mod:`ast` where that is enough (file lists, imports, class lengths); the public names
are checked on the imported modules, so that a name that only looks defined fails too.
"""

from __future__ import annotations

import ast
import importlib
import inspect
import sys
from pathlib import Path

import pytest

import envs
from envs.common.aec import BarnyardAECEnv
from envs.common.game import Game
from envs.common.options import OptionTable
from envs.common.vector import BatchedGame

ROOT = Path(__file__).resolve().parents[1]

ROOMS: tuple[str, ...] = (
    "actions",
    "observation",
    "render",
    "rules",
    "fast",
    "search",
    "baselines",
    "env",
)
"""The rooms of a game folder (besides ``__init__.py`` and ``RULES.md``), in import order: a room imports only
rooms before it (``actions`` none, ``env`` any but itself)."""

FILES = {f"{room}.py" for room in ROOMS} | {"__init__.py", "RULES.md"}

CAMEL = {
    "battle_sheep": "BattleSheep",
    "bestiarium": "Bestiarium",
    "boaring": "Boaring",
    "beasty_borders": "BeastyBorders",
}

RENDER_FUNCTIONS = (
    "render_ansi",
    "render_rgb",
    "state_to_json",
    "state_from_json",
    "seat_names",
    "board_data",
    "move_data",
    "hidden_from",
    "hidden_text",
    "result_note",
    "events",
)
"""What ``render.py`` provides: the text and the picture, the snapshots, and what the web page is sent."""

CODEC_METHODS = ("decode", "to_str", "parse")
SEARCH_CALL = ("state", "rng", "root_actions", "budget", "root_visits")
"""``CompiledSearch.__call__``'s parameters (``envs/common/fastsearch.py``)."""

MAX_GAME_CLASS_LINES = 400


def folder(game: str) -> Path:
    return ROOT / "envs" / game


def test_every_game_is_checked():
    assert set(CAMEL) == set(envs.GAMES)


@pytest.mark.parametrize("game", envs.GAMES)
def test_the_folder_holds_exactly_the_rooms(game):
    files = {p.name for p in folder(game).iterdir() if p.is_file() and not p.name.startswith(".")}
    assert files == FILES, f"extra: {sorted(files - FILES)}, missing: {sorted(FILES - files)}"


@pytest.mark.parametrize("game", envs.GAMES)
def test_each_room_provides_the_same_public_names(game):
    camel = CAMEL[game]
    rules = importlib.import_module(f"envs.{game}.rules")
    assert issubclass(getattr(rules, f"{camel}Game"), Game)
    assert isinstance(rules.OPTIONS, OptionTable) and len(rules.OPTIONS) > 0
    assert inspect.isclass(getattr(rules, f"{camel}State"))

    actions = importlib.import_module(f"envs.{game}.actions")
    codec = rules.__dict__[f"{camel}Game"]().codec
    assert isinstance(codec, actions.ActionCodec)
    for method in CODEC_METHODS:
        assert callable(getattr(actions.ActionCodec, method)), method
    assert codec.num_actions == rules.__dict__[f"{camel}Game"]().num_actions

    observation = importlib.import_module(f"envs.{game}.observation")
    assert list(inspect.signature(observation.observe).parameters) == ["game", "state", "seat"]

    render = importlib.import_module(f"envs.{game}.render")
    for name in RENDER_FUNCTIONS:
        assert inspect.isfunction(getattr(render, name)), name
        assert next(iter(inspect.signature(getattr(render, name)).parameters)) == "game", name

    fast = importlib.import_module(f"envs.{game}.fast")
    assert issubclass(getattr(fast, f"{camel}Batched"), BatchedGame)
    assert inspect.isclass(getattr(fast, f"{camel}BatchedState"))

    search = importlib.import_module(f"envs.{game}.search")
    init = list(inspect.signature(search.CompiledSearch.__init__).parameters)
    assert init[:4] == ["self", "game", "budget", "exploration"]
    assert list(inspect.signature(search.CompiledSearch.__call__).parameters)[1:] == list(SEARCH_CALL)

    baselines = importlib.import_module(f"envs.{game}.baselines")
    assert {"greedy", "search"} <= set(baselines.POLICIES)

    env = importlib.import_module(f"envs.{game}.env")
    assert issubclass(env.raw_env, BarnyardAECEnv)


def room_imports(game: str, room: str) -> set[str]:
    """The rooms of the same game that ``room`` imports anywhere in its source."""
    prefix = f"envs.{game}."
    found = set()
    for node in ast.walk(ast.parse((folder(game) / f"{room}.py").read_text())):
        if isinstance(node, ast.ImportFrom) and node.module:
            if node.module.startswith(prefix):
                found.add(node.module[len(prefix) :].split(".")[0])
            elif node.module == f"envs.{game}":
                found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.Import):
            found.update(a.name[len(prefix) :].split(".")[0] for a in node.names if a.name.startswith(prefix))
    return found & set(ROOMS)


@pytest.mark.parametrize("game", envs.GAMES)
def test_rooms_import_one_way(game):
    for k, room in enumerate(ROOMS):
        later = room_imports(game, room) - set(ROOMS[:k])
        assert not later, f"envs/{game}/{room}.py imports {sorted(later)}, rooms after it"


def test_the_room_order_catches_a_wrong_import(tmp_path, monkeypatch):
    monkeypatch.setattr(sys.modules[__name__], "folder", lambda game: tmp_path)
    (tmp_path / "actions.py").write_text("from envs.toy.rules import ToyGame\n")
    assert room_imports("toy", "actions") == {"rules"}


@pytest.mark.parametrize("game", envs.GAMES)
def test_the_game_class_is_short(game):
    tree = ast.parse((folder(game) / "rules.py").read_text())
    classes = [n for n in tree.body if isinstance(n, ast.ClassDef) and n.name == f"{CAMEL[game]}Game"]
    assert len(classes) == 1
    lines = classes[0].end_lineno - classes[0].lineno + 1
    assert lines <= MAX_GAME_CLASS_LINES, f"{CAMEL[game]}Game is {lines} lines"


def test_the_web_views_hold_no_game_knowledge():
    """``views.py`` imports no game module (only ``envs``' registry, for the option forms), no regular expressions
    and no hex geometry, and its per-game views define no methods: what the page draws comes from each game's
    ``render.py``."""
    path = ROOT / "training" / "play" / "web" / "views.py"
    tree = ast.parse(path.read_text())
    imported = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom):
            imported.add(node.module or "")
        elif isinstance(node, ast.Import):
            imported.update(a.name for a in node.names)
    assert imported <= {"__future__", "importlib", "collections.abc", "typing", "envs", "envs.common.game"}, imported
    views = [n for n in tree.body if isinstance(n, ast.ClassDef) and n.name != "GameView"]
    assert {v.name for v in views} == {"BattleSheepView", "BestiariumView", "BeastyBordersView", "BoaringView"}
    for view in views:
        methods = [n.name for n in view.body if isinstance(n, ast.FunctionDef)]
        assert methods == [], f"{view.name} defines {methods}"
