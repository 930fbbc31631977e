"""Seeded play through every engine of Battle Sheep (the AEC env, the batched engine with its compiled greedy,
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
            "aec": "d6f4fb9868519e9bb85077010ff00ffe41f6dac26fdb5ac145cce95b2f10971b",
            "vector": "6277f5b56bf8f90ae04687892ca6473b6f0adfc80b57c844f0a8b4a36e950e70",
            "search": "5b7ba7fd16e79dcf36ea06d67959fec5fc146c109eedb233cf9cad8f86dbc77a",
            "root": "d093a347d429f8259530dae5976b50ed6b7dda6fd3b9058f6784285b68b5062f",
            "visits": "fd310afc8c9e4f1703f04592c8d7c3a676c7ec82c708521e3747427f68137ad3",
        },
    ),
    (
        {"num_players": 3},
        {
            "aec": "34df777e420d9eb290a255074ab97ad6c8c77c8adee4344d66ecb88ebf489529",
            "vector": "4f1faa821548608e57f5ba785d320e12d639e8b56bd05e5ba3478577842c828e",
            "search": "eac3c1d275106d640bdc40c651bd4df2063d289bc599b1c8e996771163ae2459",
            "root": "4246cae780d22d493f9f00738e73f7125467ba4c34ab40021227568b32f3e359",
            "visits": "fa591420265b5a80f0c30a0a7a3c9e86848597821310333e09d438a958af1eb6",
        },
    ),
]


@pytest.mark.parametrize(("options", "recorded"), RECORDED, ids=[repr(o) for o, _ in RECORDED])
def test_seeded_play_digests_unchanged(options: dict[str, Any], recorded: dict[str, str]) -> None:
    assert engine_digests("battle_sheep", options) == recorded
