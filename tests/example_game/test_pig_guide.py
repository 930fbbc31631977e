"""``docs/adding_a_game.md`` walks through Pig: what it states about the contract is checked here against the code
(the descriptor's fields, the room order, the render functions, the codec, the row functions, the search's call,
the spec page's table), so that the guide fails CI when it drifts. Its runnable Python blocks run in
``tests/test_readme.py``."""

from __future__ import annotations

import dataclasses
import importlib.util
import re
from pathlib import Path

import pig
from pig.env import __doc__ as SPEC_PAGE

from envs.common import fastsearch, registry

ROOT = Path(__file__).resolve().parents[2]
GUIDE = (ROOT / "docs" / "adding_a_game.md").read_text()


def folder_test():
    """``tests/test_game_folders.py``, the contract's checks, as a module."""
    spec = importlib.util.spec_from_file_location("game_folders_contract", ROOT / "tests" / "test_game_folders.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def table_rows(heading: str) -> list[list[str]]:
    """The cells of the first markdown table after ``heading`` in the guide."""
    text = GUIDE[GUIDE.index(heading) :]
    out: list[list[str]] = []
    for line in text.splitlines():
        if line.startswith("|"):
            out.append([c.strip() for c in line.strip("|").split("|")])
        elif out:
            break
    assert len(out) > 2, f"no table after {heading!r}"
    return out[2:]  # after the header and its rule


def test_the_descriptor_table_lists_every_field():
    fields = [row[0].strip("`") for row in table_rows("## The descriptor")]
    assert fields == [f.name for f in dataclasses.fields(registry.GameInfo)]


def test_the_descriptor_snippet_is_pigs():
    block = re.search(r"```python\n(from typing import Any\n\nfrom envs.common.registry.*?)```", GUIDE, re.S)
    namespace: dict = {}
    exec(block.group(1), namespace)
    shown = namespace["INFO"]
    for field in dataclasses.fields(registry.GameInfo):
        if field.name != "openspiel":
            assert getattr(shown, field.name) == getattr(pig.INFO, field.name), field.name
    assert [set(e) for e in shown.openspiel] == [set(e) for e in pig.INFO.openspiel]


def test_the_room_order_is_the_registrys():
    assert " -> ".join(registry.ROOMS) in GUIDE


def test_the_render_table_lists_every_render_function():
    names = [re.match(r"`(\w+)\(game", row[0]).group(1) for row in table_rows("### `render.py`")]
    assert names == list(folder_test().RENDER_FUNCTIONS)


def test_the_codec_methods_and_the_search_call_are_the_contracts():
    contract = folder_test()
    for method in contract.CODEC_METHODS:
        assert f"def {method}(self, " in GUIDE
    assert "search(state, rng, root_actions=None, budget=None, root_visits=None)" in GUIDE
    assert list(contract.SEARCH_CALL) == ["state", "rng", "root_actions", "budget", "root_visits"]
    assert f"at most {contract.MAX_KERNEL_PARAMETERS} parameters" in GUIDE.replace("**", "")
    assert f"at most {contract.MAX_GAME_CLASS_LINES} lines" in GUIDE


def test_the_row_functions_are_fastsearchs():
    shown = re.findall(r"^(\w+_row)\(st, tab", GUIDE, re.M)
    assert shown == list(fastsearch.ROW_FUNCTIONS)


def test_the_spec_page_table_shown_is_pigs():
    table = re.search(r"```\n(=+\s+=+\s+=+\nblock.*?)```", GUIDE, re.S).group(1)
    assert table.strip() in SPEC_PAGE


def test_the_guide_says_ci_runs_the_example():
    assert "tests/example_game/" in GUIDE and "CI fails" in GUIDE
