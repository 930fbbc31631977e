"""Each game's options table (``OPTIONS`` in ``envs/<game>/rules.py``) is what the spec pages, the web app's
new-game form and the OpenSpiel game parameters say: every option, its values and its default, nothing else."""

from __future__ import annotations

import importlib
import re
import shutil
from pathlib import Path

import pytest

import envs
from envs.common.options import Option, OptionTable, docstring_section, game_tables, render_docs, stale_docs

ROOT = Path(__file__).resolve().parents[1]
TABLES = {game: envs.game_options(game) for game in envs.GAMES}


# ----- spec pages: env.py's docstring and RULES.md ------------------------------------------------------------
def test_the_options_sections_of_the_spec_pages_are_generated_from_the_tables():
    """``python -m envs.common.options`` rewrites them; run it after changing a table."""
    assert stale_docs(game_tables()) == []


@pytest.mark.parametrize("game", envs.GAMES)
def test_the_public_modules_spec_page_and_rules_md_list_each_option_with_its_values_and_default(game):
    """Read back from the pages themselves (not from the generator): the RULES.md table's rows and the spec page's
    entries name the table's options, in order, with their values and defaults."""
    table = TABLES[game]
    doc = envs.module(game).__doc__
    assert docstring_section(table) in doc
    names = re.findall(r"^    ``(\w+)``(?: \(the env only\))?: ", doc, flags=re.M)
    assert names == [*table.names, "render_mode"]
    rules_md = (envs.game_info(game).folder / "RULES.md").read_text()
    section = rules_md[rules_md.index("## Options") :].split("\n## ")[0]
    rows = [line for line in section.splitlines() if line.startswith("| `")]
    assert [re.match(r"\| `(\w+)`", row).group(1) for row in rows] == list(table.names)
    for option, row in zip(table, rows):
        cells = [c.strip() for c in row.strip("|").split("|")]
        if option.choices is not None:
            assert cells[1] == ", ".join(f'`"{c}"`' if isinstance(c, str) else str(c) for c in option.choices)
        else:
            assert cells[1] == f"{option.low} .. {option.high}"
        default = option.default_text if option.default is None else option.default
        assert cells[2] in (str(default), f'`"{default}"`')


def test_a_changed_table_makes_the_pages_stale_until_they_are_rewritten(tmp_path: Path):
    game_dir = tmp_path / "envs" / "boaring"
    game_dir.mkdir(parents=True)
    for name in ("RULES.md", "env.py"):
        shutil.copy(ROOT / "envs" / "boaring" / name, game_dir / name)
    changed = OptionTable(*TABLES["boaring"], Option("colour", str, "red", "A colour.", choices=("red", "blue")))
    assert stale_docs({game_dir: changed}) == [game_dir / "RULES.md", game_dir / "env.py"]
    stale_docs({game_dir: changed}, write=True)
    assert stale_docs({game_dir: changed}) == []
    assert '| `colour` | `"red"`, `"blue"` | `"red"` | A colour. |' in (game_dir / "RULES.md").read_text()
    (game_dir / "RULES.md").write_text("# no options block\n")
    with pytest.raises(ValueError, match="expected one generated options block, found 0"):
        render_docs(game_dir, changed)


# ----- the web form ------------------------------------------------------------------------------------------
@pytest.mark.parametrize("game", envs.GAMES)
def test_the_web_form_offers_the_tables_values_and_defaults(game):
    from training.play.web.views import view_for

    table = TABLES[game]
    form = view_for(game).options_form
    assert [f["name"] for f in form] == [o.name for o in table if o.in_form]
    for field in form:
        option = table[field["name"]]
        assert field["choices"] == option.values() and field["default"] == option.default
    # every choice the form offers builds a game (Battle Sheep's "splits" with its 2 players, the default)
    for field in form:
        for choice in field["choices"]:
            assert envs.make_game(game, **{field["name"]: choice}).options()[field["name"]] == choice


# ----- the OpenSpiel parameters ------------------------------------------------------------------------------
@pytest.mark.parametrize("game", envs.GAMES)
def test_the_openspiel_parameters_are_the_tables_options(game):
    pyspiel = pytest.importorskip("pyspiel")
    bridge = importlib.import_module("envs.openspiel")
    table = TABLES[game]
    for key, spec in bridge.SPECS.items():
        if spec.game != game:
            continue
        parameters = pyspiel.load_game(bridge.GAME_NAMES[key]).get_type().parameter_specification
        assert sorted(parameters) == sorted(table.names)
        stand_ins = dict(spec.none_options)
        for option in table:
            value = parameters[option.name]
            if option.default is None:
                assert value == stand_ins[option.name]  # a stand-in for "the engine chooses"
            else:
                assert value == option.default and type(value) is option.type
