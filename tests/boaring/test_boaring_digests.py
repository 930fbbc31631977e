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
            "visits": "23d2e7de2ee029970bb5806b188cacb6cdb0144e8d5d9af5022e912a51f70e2c",
            "root": "e33820bacc9879c42afff308c37ba8e01501c3dbdf80de85e06a3687556fc409",
        },
    ),
    (
        {"num_players": 2},
        {
            "aec": "cf3d1430065e9b22909c68513f55a546181a2e01d16d1c16350faa3ded52cba9",
            "vector": "9c186891fe6b7b6119325384a544d84eae6317722cc42e4a19419d7183cf8b1d",
            "search": "8fb4a2485efcf51d854abe294a9d61b8ce15d1399126b5da399e2c08e90d3659",
            "visits": "2eadde155b306b3a6ff54dc0b67c9ad297d2712e94f0dd8e7c1abf536d0b374a",
            "root": "9fe83cbebed3bf14b30abd435709a86d9baf6f80ea2b34eb9fe6a5f40dedb9ec",
        },
    ),
]


@pytest.mark.parametrize(("options", "recorded"), RECORDED, ids=[repr(o) for o, _ in RECORDED])
def test_seeded_play_digests_unchanged(options: dict[str, Any], recorded: dict[str, str]) -> None:
    assert engine_digests("boaring", options) == recorded
