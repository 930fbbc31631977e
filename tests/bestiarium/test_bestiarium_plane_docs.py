"""The observation's plane table on the spec pages (RULES.md and the env docstring) says what the code does.

Both tables are read from the docs and checked against ``envs.bestiarium.observation``' plane constants and against
an observation: the plane the docs name for "the opponent's stones that some stone of mine could eat" must hold
exactly those stones on a hand-played position."""

from __future__ import annotations

import re
from pathlib import Path

import numpy as np
import pytest

import envs.bestiarium.env as spec_page
from envs.bestiarium import observation as F
from envs.bestiarium.rules import BestiariumGame

ROOT = Path(__file__).resolve().parents[2]


def rules_md_planes() -> dict[int, str]:
    """RULES.md's observation table: plane -> content (``10 / 11`` rows give ``my`` / ``the opponent's``)."""
    text = (ROOT / "envs" / "bestiarium" / "RULES.md").read_text()
    table = text.split("## Observation", 1)[1]
    planes: dict[int, str] = {}
    for first, second, content in re.findall(r"^\|\s*(\d+)(?:\s*/\s*(\d+))?\s*\|\s*(.+?)\s*\|\s*$", table, re.M):
        if second:
            mine, theirs = (
                content.replace("my / the opponent's", "my"),
                content.replace("my / the opponent's", "the opponent's"),
            )
            planes[int(first)], planes[int(second)] = mine, theirs
        else:
            planes[int(first)] = content
    return planes


def docstring_planes() -> dict[int, str]:
    """The env docstring's table (``plane  content`` rows; continuation lines joined)."""
    planes: dict[int, str] = {}
    last = None
    for line in (spec_page.__doc__ or "").splitlines():
        match = re.match(r"^\s{4}(\d+)(?:\s*\.\.\s*\d+)?\s{2,}(\S.*)$", line)
        if match:
            last = int(match.group(1))
            planes[last] = match.group(2).strip()
        elif last is not None and re.match(r"^\s{15}\S", line):
            planes[last] += " " + line.strip()
        elif line.strip().startswith("==="):
            last = None
    return planes


TABLES = {"RULES.md": rules_md_planes, "env.py docstring": docstring_planes}


@pytest.mark.parametrize("where", TABLES)
def test_prey_planes_in_the_docs_match_the_constants(where):
    planes = TABLES[where]()
    assert F.MY_PREY == 16 and F.OPP_PREY == 17
    # MY_PREY: my stones the opponent could eat (the prey of the opponent's eat plane); OPP_PREY: the reverse
    assert planes[F.MY_PREY].startswith("my stones that some stone of the opponent could eat"), planes[F.MY_PREY]
    assert planes[F.OPP_PREY].startswith("the opponent's stones that some stone of mine could eat"), planes[F.OPP_PREY]
    assert str(F.OPP_EAT) in planes[F.MY_PREY] and str(F.MY_EAT) in planes[F.OPP_PREY]
    assert "mine added here" in planes[F.MY_EAT]
    for mine, theirs in ((F.MY_FAUNA, F.OPP_FAUNA), (F.MY_TWIN, F.OPP_TWIN)):
        assert planes[mine].startswith("my stones") and planes[theirs].startswith("the opponent's stones")


@pytest.mark.parametrize("where", TABLES)
def test_the_documented_prey_planes_hold_those_stones(where):
    """Board size 5, fixed shapes, d5 e5 a1 e6: White's e5 and e6 are what Black could eat at once."""
    planes = TABLES[where]()
    opp_prey = next(p for p, text in planes.items() if text.startswith("the opponent's stones that some stone of mine"))
    my_prey = next(p for p, text in planes.items() if text.startswith("my stones that some stone of the opponent"))
    game = BestiariumGame(board_size=5, shape_equivalence="fixed")
    state = game.initial_state(np.random.default_rng(0))
    for move in ("d5", "e5", "a1", "e6"):
        game.apply(state, game.str_to_action(state, move), np.random.default_rng(0))
    assert game.current_player(state) == 0  # Black (seat 0) to move
    obs = game.observation(state, 0)
    r = game.board_size - 1
    white = set()
    for name in ("e5", "e6"):
        q, row = game.grid.coords[game.codec.parse(state, name)]
        white.add((row + r, q + r))
    assert {(int(i), int(j)) for i, j in zip(*np.nonzero(obs[opp_prey]))} == white
    assert all(obs[1][cell] == 1 for cell in white)  # White's stones
    assert not obs[my_prey].any()
