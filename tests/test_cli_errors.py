"""The commands' one-line errors (:mod:`training.cli_errors`): a user's mistake is ``error: ...`` on stderr and
exit status 2, Ctrl-C exit status 130, both without a traceback; outputs are checked before any game."""

from __future__ import annotations

import pytest

from training.cli import main as barnyard
from training.cli_errors import (
    CommandError,
    check_output_file,
    check_output_folder,
    check_seed,
    command_errors,
)


@pytest.mark.parametrize("error", [ValueError("bad spec"), FileNotFoundError(2, "No such file", "x.pt")])
def test_a_users_mistake_is_one_line_and_exit_status_2(error, capsys):
    with pytest.raises(CommandError) as done, command_errors():
        raise error
    assert done.value.code == 2 and str(done.value) == f"error: {error}"
    assert capsys.readouterr().err == f"error: {error}\n"


def test_ctrl_c_is_exit_status_130_and_a_bug_keeps_its_traceback(capsys):
    with pytest.raises(SystemExit) as done, command_errors():
        raise KeyboardInterrupt
    assert done.value.code == 130 and "Traceback" not in capsys.readouterr().err
    with pytest.raises(TypeError), command_errors():  # not a user's mistake: the traceback is wanted
        raise TypeError("a bug")


def test_an_unknown_command_is_exit_status_2(capsys):
    with pytest.raises(SystemExit) as done:
        barnyard(["nope"])
    assert done.value.code == 2
    assert capsys.readouterr().err.splitlines()[-1].startswith("error: unknown command 'nope'; choose from train")


def test_outputs_are_checked_without_being_made(tmp_path):
    (tmp_path / "file").write_text("")
    for bad, message in [
        (tmp_path / "file" / "x", "file is a file, not a folder"),
        (tmp_path / "file" / "x" / "y", "file is a file, not a folder"),
    ]:
        with pytest.raises(ValueError, match=f"--out {bad}: .*{message}"):
            check_output_folder(bad)
        with pytest.raises(ValueError, match=f"--record {bad / 'g.json'}: .*{message}"):
            check_output_file(bad / "g.json", "--record")
    with pytest.raises(ValueError, match="is a folder, not a file"):
        check_output_file(tmp_path, "--record")
    assert check_output_folder(tmp_path / "new" / "run") == tmp_path / "new" / "run"
    assert check_output_file(tmp_path / "new" / "g.json", "--record") == tmp_path / "new" / "g.json"
    assert not (tmp_path / "new").exists()


def test_seeds_are_whole_numbers_from_0_to_2_to_the_32():
    assert check_seed(0) == 0 and check_seed(2**32 - 1) == 2**32 - 1
    for bad in (-1, 2**32):
        with pytest.raises(ValueError, match=f"--seed {bad}: give a whole number from 0 to 4294967295"):
            check_seed(bad)
