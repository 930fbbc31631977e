"""Seeded play through every engine of Pig (the AEC env, the batched engine with its compiled greedy, "search"
against "greedy", the search's root restricted and counted), digested (``envs.common.testing.engine_digests``): a
change of the rules, the engines or the search that alters any game fails here. A deliberate change of play
re-records them and says why in its commit."""

from __future__ import annotations

from typing import Any

import pytest

from envs.common.testing import engine_digests

RECORDED: list[tuple[dict[str, Any], dict[str, str]]] = [
    (
        {},
        {
            "aec": "fbf03419d049344932f94e4a26fc8f18f5f223b5be86bd23f2dd35731e8fc953",
            "vector": "639ccd556b970c2e4386810f28915b66b950161d7a89e2531ce546e797af3a69",
            "search": "4a0db32a335cc48cb5a721491c3bb7d4dd27b665ad9ab14deb4110fe13532004",
            "root": "574020bb71b7901214102b3303b00b6efac77a99bbb67eb2ad22540793174de2",
            "visits": "d0fb1163ab6e45a659b8b91bc82f0bf0f4d8f2e6ec9b715f768904ee77e9ef64",
        },
    ),
    (
        {"target": 50},
        {
            "aec": "5fdd38c358386a129c2461a87e90c9f928d00e11ed8bb6cefe697b1a8506c897",
            "vector": "bf146af87487e9e826652cf0ef18bb7d685f1f8bd1ac57f08af049c22948ae1f",
            "search": "4cf64d2edbadf1744ba99ebe7b2127688939518746a85d9869564b8e811c5c1e",
            "root": "30a734ff46892b827ba25d22fbdbcd64eb0887c96ffaf9573f4bbb86418fb607",
            "visits": "44c0bc370b900c406d858a86377ff8edc86ed429b4f37614c05df54a556eef4c",
        },
    ),
]


@pytest.mark.parametrize(("options", "recorded"), RECORDED, ids=[repr(o) for o, _ in RECORDED])
def test_seeded_play_digests_unchanged(options: dict[str, Any], recorded: dict[str, str]) -> None:
    assert engine_digests("pig", options) == recorded
