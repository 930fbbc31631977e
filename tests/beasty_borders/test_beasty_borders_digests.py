"""Seeded play through every engine of Beasty Borders (the AEC env, the batched engine with its compiled greedy,
"search" against "greedy", the search's root restricted and counted), digested: a change to the rules, the
engines or the search that alters any game fails here (``envs.common.testing.engine_digests``). Recorded on
main at 4030c0a; a deliberate change of play re-records them and says why in its commit."""

from __future__ import annotations

from typing import Any

import pytest

from envs.common.testing import engine_digests

RECORDED: list[tuple[dict[str, Any], dict[str, str]]] = [
    (
        {},
        {
            "aec": "2510230410209b5e72b97fde4041c290eda52e393e13ce45a5b79b78235054b8",
            "vector": "7cdde4fc4b61e2669094eb02e8793d9d883f06b2ee7d3c79c4eb52829c059937",
            "search": "22d14bb8bf2d0e4cfaa751a5eadba4716472c7a4d368e9725bdb36d94dfae4b4",
            "root": "cab90bf267e75613600f30e72bd618510bd79c57dc1227d77542084221575262",
            "visits": "4c30280bb993d4fcead26d2973706aae150a6473c86ea72ad21f9c8ba4ec3368",
        },
    ),
]


@pytest.mark.parametrize(("options", "recorded"), RECORDED, ids=[repr(o) for o, _ in RECORDED])
def test_seeded_play_digests_unchanged(options: dict[str, Any], recorded: dict[str, str]) -> None:
    assert engine_digests("beasty_borders", options) == recorded
