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

import numpy as np
import pytest

import envs
from envs.common import fastsearch, registry
from envs.common.aec import BarnyardAECEnv
from envs.common.game import Game
from envs.common.options import OptionTable
from envs.common.state import StateLayout
from envs.common.vector import BatchedGame

ROOT = Path(__file__).resolve().parents[1]

ROOMS = registry.ROOMS
"""The rooms of a game folder (besides ``__init__.py`` and ``RULES.md``), in import order: a room imports only
rooms before it (``actions`` none, ``env`` any but itself)."""

FILES = {f"{room}.py" for room in ROOMS} | {"__init__.py", "RULES.md"}

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
    """The folder of a registered game's package (``envs/<game>`` for the built-in games)."""
    return Path(importlib.import_module(envs.game_info(game).package).__file__).parent


def camel(game: str) -> str:
    """The class-name stem of a game: its rule engine's class name without ``Game`` (``BattleSheep``)."""
    return envs.game_info(game).game_class.removesuffix("Game")


def test_every_registered_game_has_its_descriptor_in_its_package():
    for game in envs.GAMES:
        info = envs.game_info(game)
        assert importlib.import_module(info.package).INFO is info, game


@pytest.mark.parametrize("game", envs.GAMES)
def test_the_folder_holds_exactly_the_rooms(game):
    files = {p.name for p in folder(game).iterdir() if p.is_file() and not p.name.startswith(".")}
    assert files == FILES, f"extra: {sorted(files - FILES)}, missing: {sorted(FILES - files)}"


@pytest.mark.parametrize("game", envs.GAMES)
def test_each_room_provides_the_same_public_names(game):
    camel_ = camel(game)
    info = envs.game_info(game)
    rules = info.room("rules")
    assert issubclass(getattr(rules, f"{camel_}Game"), Game)
    assert isinstance(rules.OPTIONS, OptionTable) and len(rules.OPTIONS) > 0
    assert inspect.isclass(getattr(rules, f"{camel_}State"))

    actions = info.room("actions")
    codec = rules.__dict__[f"{camel_}Game"]().codec
    assert isinstance(codec, actions.ActionCodec)
    for method in CODEC_METHODS:
        assert callable(getattr(actions.ActionCodec, method)), method
    assert codec.num_actions == rules.__dict__[f"{camel_}Game"]().num_actions

    observation = info.room("observation")
    assert list(inspect.signature(observation.observe).parameters) == ["game", "state", "seat"]

    render = info.room("render")
    for name in RENDER_FUNCTIONS:
        assert inspect.isfunction(getattr(render, name)), name
        assert next(iter(inspect.signature(getattr(render, name)).parameters)) == "game", name

    fast = info.room("fast")
    assert issubclass(getattr(fast, f"{camel_}Batched"), BatchedGame)
    assert inspect.isclass(getattr(fast, f"{camel_}BatchedState"))

    search = info.room("search")
    init = list(inspect.signature(search.CompiledSearch.__init__).parameters)
    assert init[:4] == ["self", "game", "budget", "exploration"]
    assert list(inspect.signature(search.CompiledSearch.__call__).parameters)[1:] == list(SEARCH_CALL)

    baselines = info.room("baselines")
    assert {"greedy", "search"} <= set(baselines.POLICIES)

    env = info.room("env")
    assert issubclass(env.raw_env, BarnyardAECEnv)


def room_imports(game: str, room: str) -> set[str]:
    """The rooms of the same game that ``room`` imports anywhere in its source."""
    package = envs.game_info(game).package
    prefix = f"{package}."
    found = set()
    tree = ast.parse((folder(game) / f"{room}.py").read_text())
    for node in ast.walk(tree):  # imports under ``if TYPE_CHECKING:`` count too: no back-import for the type hints
        if isinstance(node, ast.ImportFrom) and node.module:
            if node.module.startswith(prefix):
                found.add(node.module[len(prefix) :].split(".")[0])
            elif node.module == package:
                found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.Import):
            found.update(a.name[len(prefix) :].split(".")[0] for a in node.names if a.name.startswith(prefix))
    return found & set(ROOMS)


@pytest.mark.parametrize("game", envs.GAMES)
def test_rooms_import_one_way(game):
    for k, room in enumerate(ROOMS):
        later = room_imports(game, room) - set(ROOMS[:k])
        assert not later, f"{folder(game) / room}.py imports {sorted(later)}, rooms after it"


def test_the_room_order_catches_a_wrong_import(tmp_path, monkeypatch):
    monkeypatch.setattr(sys.modules[__name__], "folder", lambda game: tmp_path)
    (tmp_path / "actions.py").write_text("from envs.boaring.rules import BoaringGame\n")
    assert room_imports("boaring", "actions") == {"rules"}
    (tmp_path / "kernels.py").write_text(
        "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from envs.boaring import observation\n"
    )
    assert room_imports("boaring", "kernels") == {"observation"}


VIEW_METHODS = (
    "observation",
    "observation_and_mask",
    "symmetries",
    "cell_graph",
    "action_layout",
    "global_state",
    "global_state_shape",
    "global_state_bounds",
    "state_to_json",
    "state_from_json",
    "render_ansi",
    "render_rgb",
    "render_for",
    "action_to_str_for",
)
"""The Game's methods that show a state (``envs.common.game.Game``): the base class finds them in the game's view
rooms through its descriptor (``Game.views``), so no Game class forwards them itself."""


@pytest.mark.parametrize("game", envs.GAMES)
def test_the_game_class_forwards_no_view(game):
    tree = ast.parse((folder(game) / "rules.py").read_text())
    name = envs.game_info(game).game_class
    (cls,) = [n for n in tree.body if isinstance(n, ast.ClassDef) and n.name == name]
    defined = {n.name for n in cls.body if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef))}
    assert not defined & set(VIEW_METHODS), sorted(defined & set(VIEW_METHODS))


def written_roots(tree: ast.AST) -> list[tuple[int, str]]:
    """(line, name) of every assignment, augmented assignment or deletion whose target is an attribute or an item
    reached from the name ``game`` (``game.view.pasture[:] = ...``)."""
    found = []
    for node in ast.walk(tree):
        targets = []
        if isinstance(node, ast.Assign):
            targets = node.targets
        elif isinstance(node, (ast.AugAssign, ast.AnnAssign)):
            targets = [node.target]
        elif isinstance(node, ast.Delete):
            targets = node.targets
        for target in targets:
            root = target
            while isinstance(root, (ast.Attribute, ast.Subscript)):
                root = root.value
            if root is not target and isinstance(root, ast.Name) and root.id == "game":
                found.append((node.lineno, ast.unparse(target)))
    return found


@pytest.mark.parametrize("game", envs.GAMES)
def test_no_view_writes_the_game(game):
    """The views (``observation.py``, ``render.py``) read the Game; its tables and caches are the rules' to keep."""
    for room in ("observation", "render"):
        found = written_roots(ast.parse((folder(game) / f"{room}.py").read_text()))
        assert not found, f"{room}.py writes {found}"


def test_the_view_write_check_sees_a_write():
    tree = ast.parse("def f(game, state):\n    game.view.pasture[:] = 1\n    state.x = 2\n    game.n += 1\n")
    assert written_roots(tree) == [(2, "game.view.pasture[:]"), (4, "game.n")]


@pytest.mark.parametrize("game", envs.GAMES)
def test_the_game_class_is_short(game):
    tree = ast.parse((folder(game) / "rules.py").read_text())
    name = envs.game_info(game).game_class
    classes = [n for n in tree.body if isinstance(n, ast.ClassDef) and n.name == name]
    assert len(classes) == 1
    lines = classes[0].end_lineno - classes[0].lineno + 1
    assert lines <= MAX_GAME_CLASS_LINES, f"{name} is {lines} lines"


def test_the_web_views_hold_no_game_knowledge():
    """``views.py`` imports no game module (only ``envs``' registry, for the descriptors and the option forms), no
    regular expressions and no hex geometry, and holds one view for every game: what the page draws comes from
    each game's ``render.py`` and its descriptor."""
    path = ROOT / "training" / "play" / "web" / "views.py"
    tree = ast.parse(path.read_text())
    imported = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom):
            imported.add(node.module or "")
        elif isinstance(node, ast.Import):
            imported.update(a.name for a in node.names)
    allowed = {"__future__", "collections.abc", "functools", "pathlib", "typing", "envs", "envs.common.game"}
    assert imported <= allowed, imported
    assert [n.name for n in tree.body if isinstance(n, ast.ClassDef)] == ["GameView"]


@pytest.mark.parametrize("game", envs.GAMES)
def test_the_web_page_draws_every_game(game):
    """A game's drawing named in its descriptor is a board module of the page; a game without one gets the
    page's generic drawing (its board's text, its moves as buttons)."""
    from training.play.web.views import BOARDS, view_for

    view = view_for(game)
    assert (BOARDS / "generic.js").is_file()
    assert view.drawing is None or (BOARDS / f"{view.drawing}.js").is_file()
    assert view.drawing == envs.game_info(game).web_board or envs.game_info(game).web_board is None


# ----- the compiled half: one contract (envs/common/fastsearch.py) ------------------------------------------------
MAX_KERNEL_PARAMETERS = 10
"""The most parameters a numba function in ``fast.py`` or ``search.py`` takes: kernels take the batched state and
one tables object, never the state's fields one by one."""


JIT_DECORATORS = ("njit", "jit", "row_jit", "inline_jit", "refcount_jit")
"""numba's decorators and fastsearch's compiled styles."""


def jitted_functions(path: Path) -> list[tuple[ast.FunctionDef, str]]:
    """The functions of ``path`` compiled by numba, each with its decorator's source."""
    out = []
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.FunctionDef):
            for deco in node.decorator_list:
                target = deco.func if isinstance(deco, ast.Call) else deco
                if isinstance(target, ast.Name) and target.id in JIT_DECORATORS:
                    out.append((node, ast.unparse(deco)))
    return out


@pytest.mark.parametrize("game", envs.GAMES)
def test_the_compiled_rules_define_the_row_functions(game):
    """Every ``kernels.py`` defines the row functions with one meaning in every game (``fastsearch.ROW_FUNCTIONS``),
    each taking the batched state and the tables first; ``fast.py`` offers them too (the search's imports)."""
    kernels = envs.game_info(game).room("kernels")
    fast = envs.game_info(game).room("fast")
    for name in fastsearch.ROW_FUNCTIONS:
        function = getattr(kernels, name)
        assert hasattr(function, "py_func"), f"{name} is not a numba function"
        assert function.py_func.__module__ == kernels.__name__, f"{name} is defined in {function.py_func.__module__}"
        assert list(inspect.signature(function.py_func).parameters)[:2] == ["st", "tab"], name
        assert getattr(fast, name) is function, name


@pytest.mark.parametrize("game", envs.GAMES)
def test_the_state_is_declared_once(game):
    """``kernels.STATE`` (:class:`envs.common.state.StateLayout`) is the one declaration of the state's fields: the
    batched state type is its type, the batched engine reads it (``state_layout``) and writes no ``new_state`` of its
    own, a reference state class built on it is the game's own, the snapshots hold every reference field, and
    ``copy_row`` copies every declared field but the generator ``rng`` (checked on a state of random values)."""
    info = envs.game_info(game)
    camel_ = camel(game)
    kernels, rules, fast = info.room("kernels"), info.room("rules"), info.room("fast")
    layout = kernels.STATE
    assert isinstance(layout, StateLayout)
    assert getattr(fast, f"{camel_}BatchedState") is layout.batched_type
    batched = getattr(fast, f"{camel_}Batched")
    assert batched.state_layout is layout
    assert "new_state" not in batched.__dict__, "new_state follows from the declaration"
    reference_class = getattr(rules, f"{camel_}State")
    assert layout.reference_class in (None, reference_class)  # a reference class built on it is the game's
    assert set(layout.by_name) >= {"rng"} and not layout.by_name["rng"].copied
    engine = batched()
    reference = engine.reference.initial_state(np.random.default_rng(0))
    assert {f.name for f in layout.reference_fields} <= set(engine.reference.state_to_json(reference))
    state = engine.new_state(2)
    noise = np.random.default_rng(1)
    for column in state:
        low, high = (0, 2) if column.dtype == bool else (max(np.iinfo(column.dtype).min, -100), 100)
        column[...] = noise.integers(low, high, size=column.shape).astype(column.dtype)
    before = [column.copy() for column in state]
    kernels.copy_row(state, engine.tables, 0, 1)
    for f, column, old in zip(layout.fields, state, before):
        assert np.array_equal(column[0], old[0]), f.name
        assert np.array_equal(column[1], old[0] if f.copied else old[1]), f.name


def parameter_faults(path: Path) -> list[str]:
    """The jitted functions of ``path`` that take more than :data:`MAX_KERNEL_PARAMETERS` parameters, or take the
    batched state (``st``) anywhere but first or the tables (``tab``) anywhere but right after it (first when
    there is no state)."""
    found = []
    for function, _ in jitted_functions(path):
        names = [a.arg for a in function.args.args + function.args.kwonlyargs]
        if len(names) > MAX_KERNEL_PARAMETERS:
            found.append(f"{path.name}: {function.name} takes {len(names)} parameters")
        expected = ["st", "tab"] if "st" in names else ["tab"]
        wanted = [n for n in expected if n in names]
        if names[: len(wanted)] != wanted:
            found.append(f"{path.name}: {function.name}({', '.join(names)}) does not start with ({', '.join(wanted)})")
    return found


@pytest.mark.parametrize("game", envs.GAMES)
def test_every_compiled_function_takes_the_state_and_tables_first_and_at_most_ten_parameters(game):
    found = [fault for room in ROOMS for fault in parameter_faults(folder(game) / f"{room}.py")]
    assert not found, found


def test_the_parameter_check_sees_a_long_or_misordered_kernel(tmp_path):
    source = tmp_path / "fast.py"
    source.write_text(
        "@row_jit\ndef a(st, tab, b):\n    pass\n\n@row_jit\ndef c(b, st, tab):\n    pass\n\n"
        "@row_jit\ndef d(st, b, tab):\n    pass\n\n@inline_jit\ndef e(tab, b):\n    pass\n\n"
        "@refcount_jit\ndef f(st, a1, a2, a3, a4, a5, a6, a7, a8, a9, a10):\n    pass\n"
    )
    assert parameter_faults(source) == [
        "fast.py: c(b, st, tab) does not start with (st, tab)",
        "fast.py: d(st, b, tab) does not start with (st, tab)",
        "fast.py: f takes 11 parameters",
    ]


def inline_spelling_faults(path: Path) -> list[str]:
    """The functions of ``path`` inlined by a raw ``njit(inline=...)`` rather than :data:`envs.common.jit.inline_jit`
    (one spelling for inlined helpers)."""
    return [f"{path.name}: {f.name} ({deco})" for f, deco in jitted_functions(path) if "inline=" in deco]


def test_inlined_helpers_have_one_spelling():
    found = [fault for path in engine_files() for fault in inline_spelling_faults(path)]
    assert not found, found


NUMPY_ALLOCATORS = {"empty", "zeros", "full", "ones", "arange", "array", "empty_like", "zeros_like", "full_like"}


def allocates(function: ast.FunctionDef) -> bool:
    """Whether ``function``'s body calls a numpy allocator or an array's ``copy``."""
    for node in ast.walk(function):
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute):
            owner = node.func.value
            if node.func.attr == "copy" or (
                isinstance(owner, ast.Name) and owner.id == "np" and node.func.attr in NUMPY_ALLOCATORS
            ):
                return True
    return False


def engine_files() -> list[Path]:
    """The Python files of every registered game's folder and of ``envs/common``."""
    folders = [folder(g) for g in envs.GAMES] + [ROOT / "envs" / "common"]
    return sorted(p for f in folders for p in f.rglob("*.py"))


def says_reference_counting(deco: str) -> bool:
    """Whether a jit decorator's source fixes numba's ``_nrt`` (``envs.common.jit``) or inlines the function (an
    inlined function compiles inside each caller, with the caller's setting)."""
    return deco in ("row_jit", "inline_jit", "refcount_jit") or "REFCOUNT" in deco or "inline='always'" in deco


def reference_counting_faults(path: Path) -> list[str]:
    """The jitted functions of ``path`` whose reference counting would be decided by their first caller, and the
    ones compiled without it that allocate."""
    found = []
    for function, deco in jitted_functions(path):
        if not says_reference_counting(deco):
            found.append(f"{path.name}: {function.name} ({deco}) leaves _nrt to its first caller")
        elif allocates(function) and deco in ("row_jit", "inline_jit"):
            found.append(f"{path.name}: {function.name} ({deco}) allocates without reference counting")
    return found


def test_every_compiled_function_says_whether_it_counts_references():
    """numba compiles a function that leaves ``_nrt`` unset with the setting of its first caller: an allocating
    helper first reached from a ``row_jit`` function fails to compile, so which test or program ran first would
    decide whether a search compiles (and how fast it runs). Every jitted function that is not inlined says which it
    is (``envs.common.jit``), and a ``row_jit`` / ``inline_jit`` one never allocates."""
    found = [fault for path in engine_files() for fault in reference_counting_faults(path)]
    assert not found, found


def test_the_reference_counting_check_sees_an_unsaid_or_wrong_function(tmp_path):
    source = tmp_path / "fast.py"
    source.write_text(
        "@njit(cache=True)\ndef f(n):\n    return n\n\n@row_jit\ndef g(n):\n    return np.empty(n)\n\n"
        '@refcount_jit\ndef h(n):\n    return np.empty(n)\n\n@njit(cache=True, inline="always")\ndef k(n):\n'
        "    return n\n"
    )
    assert reference_counting_faults(source) == [
        "fast.py: f (njit(cache=True)) leaves _nrt to its first caller",
        "fast.py: g (row_jit) allocates without reference counting",
    ]


def python_files() -> list[Path]:
    """Every Python file of the packages, the lab, the tests and the examples."""
    return sorted(p for top in ("envs", "training", "lab", "tests", "examples") for p in (ROOT / top).rglob("*.py"))


def game_modules() -> set[str]:
    """The room modules of every registered game (``envs.battle_sheep.fast``, ...)."""
    return {f"{envs.game_info(g).package}.{room}" for g in envs.GAMES for room in ROOMS}


def test_no_module_imports_an_underscored_name_from_a_game_room():
    """A room's underscored names are its own: other modules (other rooms, the tests, training) use the public
    ones (``__doc__``, a public module's spec page, is not a private name)."""
    rooms = game_modules()
    found = []
    for path in python_files():
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.ImportFrom) and node.module in rooms:
                for alias in node.names:
                    if alias.name.startswith("_") and not alias.name.startswith("__"):
                        found.append(f"{path.relative_to(ROOT)}: {node.module}.{alias.name}")
    assert not found, found


def underscored_imports(path: Path, text: str | None = None) -> list[str]:
    """``module.name`` of each underscored name (not a dunder) that the file ``path`` (its source: ``text``, else
    read) imports, relative imports resolved against the file's package."""
    package = list(path.relative_to(ROOT).with_suffix("").parts)[:-1]
    found = []
    for node in ast.walk(ast.parse(path.read_text() if text is None else text)):
        if isinstance(node, ast.ImportFrom):
            base = package[: len(package) - node.level + 1] if node.level else []
            module = ".".join(base + ([node.module] if node.module else []))
            found += [
                f"{module}.{alias.name}"
                for alias in node.names
                if alias.name.startswith("_") and not alias.name.startswith("__")
            ]
    return found


def test_no_underscored_name_is_imported_across_training_modules():
    """The same for ``training/``: a module's underscored names are its own, so no module (the tests and the lab
    included) imports one from a ``training`` module, and no ``training`` module imports one from any module of the
    project. What another module needs is public, with a docstring."""
    project = {"envs", "training", "lab", *(envs.game_info(g).package.split(".")[0] for g in envs.GAMES)}
    found = []
    for path in python_files():
        in_training = path.relative_to(ROOT).parts[0] == "training"
        for name in underscored_imports(path):
            top = name.split(".")[0]
            if top == "training" or (in_training and top in project):
                found.append(f"{path.relative_to(ROOT)}: {name}")
    assert not found, found


def test_the_underscored_import_reader_sees_absolute_and_relative_imports():
    path = ROOT / "training" / "ppo" / "probe.py"
    text = "from training.ppo.slots import Slots, _hidden\nfrom .slots import __doc__, _other\nfrom . import _x\n"
    assert underscored_imports(path, text) == [
        "training.ppo.slots._hidden",
        "training.ppo.slots._other",
        "training.ppo._x",
    ]


@pytest.mark.parametrize("game", envs.GAMES)
def test_only_the_rule_engine_touches_the_game_objects_private_attributes(game):
    """Observation, rendering, the engines and the baselines use the Game's public methods: an underscored
    attribute of ``game`` (or ``self.game``, ``x.game``) is read or written in ``rules.py`` only."""
    found = []
    for room in ROOMS:
        if room == "rules":
            continue
        for node in ast.walk(ast.parse((folder(game) / f"{room}.py").read_text())):
            if isinstance(node, ast.Attribute) and node.attr.startswith("_") and not node.attr.startswith("__"):
                owner = node.value
                if (isinstance(owner, ast.Name) and owner.id == "game") or (
                    isinstance(owner, ast.Attribute) and owner.attr == "game"
                ):
                    found.append(f"{room}.py:{node.lineno} game.{node.attr}")
    assert not found, found
