"""A new state field touches only the state declaration and the rules that use it (``envs.common.state``).

The test copies the example game to a package of its own (``pig_plus``: the copy's imports and names renamed, nothing
else), then adds a field the way the guide shows (``docs/adding_a_game.md``, "Adding a state field"): ``rolls``, the
dice rolled this turn, one ``Field`` line in ``kernels.py`` plus the lines of both engines' rules that keep it
(``rules.py``'s ``apply`` and ``kernels.py``'s ``apply_row``). It checks that only those two files changed, and, in a
fresh interpreter, that everything else carries the field unedited: a fresh state and a reset row hold it, the two
engines agree on it move by move (``to_reference`` / ``from_reference``), ``copy_row`` and the compiled search copy
it, the snapshots write and read it and refuse one without it.
"""

from __future__ import annotations

import re
import shutil
import subprocess
import sys
import textwrap
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[1]

FIELD_EDITS = {
    "kernels.py": [
        (
            '    Field("plies", np.int32, batched_only=True',
            '    Field("rolls", np.int16, doc="Dice rolled this turn by the player to move."),\n'
            '    Field("plies", np.int32, batched_only=True',
        ),
        ("        st.last_roll[b] = face\n", "        st.last_roll[b] = face\n        st.rolls[b] += 1\n"),
        ("            st.turn_total[b] = 0\n", "            st.turn_total[b] = 0\n            st.rolls[b] = 0\n"),
        ("    st.last_roll[b] = 0\n", "    st.last_roll[b] = 0\n    st.rolls[b] = 0\n"),
    ],
    "rules.py": [
        ("            state.last_roll = face\n", "            state.last_roll = face\n            state.rolls += 1\n"),
        (
            "                state.turn_total = 0\n",
            "                state.turn_total = 0\n                state.rolls = 0\n",
        ),
        ("        state.last_roll = 0\n", "        state.last_roll = 0\n        state.rolls = 0\n"),
    ],
}
"""The field's line and the rule lines that keep it, by file: (anchor, replacement), each anchor found once."""

CHECKS = """
import json
import numpy as np
import envs
import pig_plus
envs.register_game(pig_plus.INFO)
from pig_plus.fast import PigBatched
from envs.common.fastrng import MirrorRng, seed_states
from envs.common.game import TERMINAL, SnapshotError
from envs.common.policies import decision_from_state, make_baseline

fast = PigBatched(target=20)
ref = fast.reference
rows = 8
batch = fast.new_state(rows)
assert batch.rolls.shape == (rows,) and batch.rolls.dtype == np.int16
assert ref.initial_state(None).rolls == 0
batch.rng[:] = seed_states(3, rows)
batch.rolls[:] = 7
fast.reset_rows(batch, np.arange(rows))
assert (batch.rolls == 0).all(), "the reset row's field is fresh"
refs = [ref.initial_state(None) for _ in range(rows)]
pick = np.random.default_rng(0)
mask = np.zeros((rows, 2), dtype=bool)
actions = np.zeros(rows, dtype=np.int64)
finished = seen = 0
while finished < 40:
    fast.legal_mask(batch, mask)
    for b in range(rows):
        assert fast.to_reference(batch, b) == refs[b], (b, fast.to_reference(batch, b), refs[b])
        legal = np.flatnonzero(mask[b])
        actions[b] = legal[pick.integers(legal.size)]
    before = batch.rng.copy()
    fast.apply(batch, actions)
    for b in range(rows):
        ref.apply(refs[b], int(actions[b]), MirrorRng(before[b]))
        assert int(batch.rolls[b]) == refs[b].rolls
        seen = max(seen, refs[b].rolls)
    done = np.flatnonzero(fast.current_player(batch) == TERMINAL)
    finished += done.size
    for b in done:
        refs[b] = ref.initial_state(None)
    fast.reset_rows(batch, done)
assert seen >= 3, seen  # the field moved

live = next(b for b in range(rows) if refs[b].rolls > 0)
other = fast.new_state(2)
fast.from_reference(refs[live], other, 0)
assert int(other.rolls[0]) == refs[live].rolls
from pig_plus.kernels import copy_row
copy_row(other, fast.tables, 0, 1)
assert int(other.rolls[1]) == refs[live].rolls, "copy_row copies the new field"

data = ref.state_to_json(refs[live])
assert data["rolls"] == refs[live].rolls
back = ref.state_from_json(json.loads(json.dumps(data)))
assert back == refs[live] and back.rolls == refs[live].rolls
del data["rolls"]
try:
    ref.state_from_json(data)
except SnapshotError as error:
    assert "rolls" in str(error)
else:
    raise AssertionError("a snapshot without the new field was accepted")

search = make_baseline("pig_plus", "search:64", engine=ref, seed=0)
state = ref.initial_state(None)
for _ in range(6):  # the compiled search copies rows of the declared state (copy_row) every simulation
    if ref.current_player(state) == TERMINAL:
        break
    ref.apply(state, search.act(decision_from_state(ref, state)), np.random.default_rng(0))
print("ok", seen)
"""


def copy_example_game(target: Path) -> Path:
    """The example game as package ``pig_plus`` (with its public module ``pig_plus_v0``) under ``target``: the
    package's imports and the game's id renamed, nothing else."""
    package = target / "pig_plus"
    shutil.copytree(HERE / "pig", package, ignore=shutil.ignore_patterns("__pycache__"))
    for path in [*package.glob("*.py"), target / "pig_plus_v0.py"]:
        source = (HERE / "pig_v0.py").read_text() if path.name == "pig_plus_v0.py" else path.read_text()
        source = re.sub(r"\bfrom pig(\.| import)", r"from pig_plus\1", source)
        source = source.replace('name="pig"', 'name="pig_plus"').replace('package="pig"', 'package="pig_plus"')
        source = source.replace('    name = "pig"\n', '    name = "pig_plus"\n')
        path.write_text(source)
    return package


def add_the_field(package: Path) -> None:
    for name, edits in FIELD_EDITS.items():
        path = package / name
        source = path.read_text()
        for anchor, replacement in edits:
            assert source.count(anchor) == 1, (name, anchor)
            source = source.replace(anchor, replacement)
        path.write_text(source)


def test_a_new_state_field_needs_only_its_declaration_and_its_rules(tmp_path):
    before = copy_example_game(tmp_path / "before")
    after = copy_example_game(tmp_path / "after")
    add_the_field(after)
    files = [p for p in after.glob("*") if p.is_file()]
    changed = sorted(p.name for p in files if p.read_bytes() != (before / p.name).read_bytes())
    assert changed == ["kernels.py", "rules.py"]
    script = tmp_path / "checks.py"
    script.write_text(textwrap.dedent(CHECKS))
    run = subprocess.run(
        [sys.executable, str(script)],
        cwd=ROOT,
        env={"PYTHONPATH": f"{tmp_path / 'after'}:{ROOT}", "PATH": "/usr/bin:/bin", "BARNYARD_GAMES": ""},
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert run.returncode == 0, run.stderr[-4000:]
    assert run.stdout.startswith("ok"), run.stdout
