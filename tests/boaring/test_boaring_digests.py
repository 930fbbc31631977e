"""Seeded play through every engine of Boaring (the AEC env, the batched engine with its compiled greedy,
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
            "aec": "1f3a1ee1920d85533e03a748eafd96c1e1ee1715f5132deb85e251cdd480bc53",
            "vector": "14196765c07eedc2341dc9f7bc63708e2f68a910f26e84de9cd0ae85ceff09b7",
            "search": "bbf5e7e92f75d698ce8f7e4557a04808c1b4dd37ed10def659e8c635660ec582",
            "visits": "none",
            "root": "none",
        },
    ),
    (
        {"num_players": 2},
        {
            "aec": "cf3d1430065e9b22909c68513f55a546181a2e01d16d1c16350faa3ded52cba9",
            "vector": "9c186891fe6b7b6119325384a544d84eae6317722cc42e4a19419d7183cf8b1d",
            "search": "8fb4a2485efcf51d854abe294a9d61b8ce15d1399126b5da399e2c08e90d3659",
            "visits": "none",
            "root": "none",
        },
    ),
]


@pytest.mark.parametrize(("options", "recorded"), RECORDED, ids=[repr(o) for o, _ in RECORDED])
def test_seeded_play_digests_unchanged(options: dict[str, Any], recorded: dict[str, str]) -> None:
    assert engine_digests("boaring", options) == recorded
