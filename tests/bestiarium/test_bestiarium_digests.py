"""Seeded play through every engine of Bestiarium (the AEC env, the batched engine with its compiled greedy,
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
            "aec": "3c62f22e0e2aa81dc3c7ac9a7faeb16acb08a740f8aab265590d704e73413eec",
            "vector": "ec42b2056bf4c7c5d9ba09e31534e562612ef31afad84d35f67ab8357dadf516",
            "search": "f8bf4e042c575fa421fe2eddc71bd0671561e01bbf1321a8664309fc5658ef7f",
            "visits": "57bb637cf08c4949db57cf0c4ee91308dc64461a0049810f3d0de8a7f1d933f1",
            "root": "faf9ea078c4fa7e8003f0d6c45ebe9d132631f00cf515fe451da63210a2debc4",
        },
    ),
    (
        {"board_size": 5, "shape_equivalence": "fixed"},
        {
            "aec": "73f017b7aca744bb8e833318b47e4f32ba7510798dd4171b3578a09d0c1385ef",
            "vector": "30140bffce52e79dbf2f797093e8f8f30f9e167f089b61b91407fc5ddf18cfb7",
            "search": "44c2f471bb3c1be5f6ee3216c96e7f8501809490c2417574d3a74ee2069f065d",
            "visits": "d3ac3e0563428b3f5759dd2a4ce187d054cbf65c1c4c2fdda4426c0e55a60c46",
            "root": "fcede9311122ddd539385af119c6d7a07e7cd0605d0c2c80c1f5db657becc037",
        },
    ),
]


@pytest.mark.parametrize(("options", "recorded"), RECORDED, ids=[repr(o) for o, _ in RECORDED])
def test_seeded_play_digests_unchanged(options: dict[str, Any], recorded: dict[str, str]) -> None:
    assert engine_digests("bestiarium", options) == recorded
