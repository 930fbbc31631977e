"""The options tables (``envs/common/options.py``, one ``OPTIONS`` per game) and ``envs.make_game``."""

from __future__ import annotations

import numpy as np
import pytest

import envs
from envs.common.game import ConfigError
from envs.common.options import Option, OptionTable, UnknownOptionError, parse_options

TOY = OptionTable(
    Option("num_players", int, 2, "Players.", low=2, high=4, label="players"),
    Option("mode", str, "a", "The mode.", choices=("a", "b")),
    Option("size", int, None, "A size.", low=3, high=9, default_text="5 for two players", in_form=False),
)


# ----- the shared module -------------------------------------------------------------------------------------
@pytest.mark.parametrize(
    "name, value, fragment",
    [
        ("num_players", 5, "num_players=5 is not valid; allowed: an integer from 2 to 4"),
        ("num_players", True, "num_players=True is not valid"),
        ("num_players", 3.0, "num_players=3.0 is not valid"),
        ("num_players", "3", "num_players='3' is not valid"),
        ("mode", "c", "mode='c' is not valid; allowed: 'a', 'b'"),
        ("mode", 1, "mode=1 is not valid; allowed: 'a', 'b'"),
        ("size", 10, "size=10 is not valid; allowed: an integer from 3 to 9"),
    ],
)
def test_a_bad_value_names_the_option_and_what_is_allowed(name, value, fragment):
    with pytest.raises(ConfigError) as error:
        TOY[name].check(value)
    assert fragment in str(error.value)


def test_good_values_pass_and_numpy_integers_become_int():
    assert TOY["num_players"].check(np.int64(3)) == 3 and type(TOY["num_players"].check(np.int64(3))) is int
    assert TOY["mode"].check("b") == "b"
    assert TOY["size"].check(None) is None  # a None default: the engine chooses
    with pytest.raises(ConfigError):
        TOY["num_players"].check(None)  # but not where the default is a value


def test_a_table_rejects_unknown_options_naming_its_own():
    with pytest.raises(UnknownOptionError, match="toy has no option 'colour'; its options: num_players, mode, size"):
        TOY.check({"colour": 1}, "toy")
    assert issubclass(UnknownOptionError, TypeError)  # like an unexpected keyword argument
    assert TOY.check({"mode": "b"}) == {"num_players": 2, "mode": "b", "size": None}


def test_a_badly_declared_option_is_refused():
    with pytest.raises(ValueError, match="either choices or low and high"):
        Option("x", int, 1, "X.")
    with pytest.raises(ValueError, match="default_text"):
        Option("x", int, None, "X.", low=1, high=2)
    with pytest.raises(ConfigError):  # the default itself must be allowed
        Option("x", int, 5, "X.", low=1, high=2)
    with pytest.raises(ValueError, match="unique"):
        OptionTable(Option("x", int, 1, "X.", low=1, high=2), Option("x", int, 1, "X.", low=1, high=2))


def test_parse_options_reads_each_value_as_its_options_type():
    assert parse_options(["num_players=3", "mode=b", "size=none"], TOY) == {"num_players": 3, "mode": "b", "size": None}
    with pytest.raises(ConfigError, match="num_players='three' is not valid"):
        parse_options(["num_players=three"], TOY)
    with pytest.raises(ConfigError, match="num_players=7 is not valid"):
        parse_options(["num_players=7"], TOY)
    with pytest.raises(UnknownOptionError, match="no option 'colour'"):
        parse_options(["colour=red"], TOY)
    assert parse_options(["num_players=3"], "boaring") == {"num_players": 3}  # a game id: its table
    with pytest.raises(UnknownOptionError, match="bestiarium has no option 'num_players'; its options: board_size"):
        parse_options(["num_players=3"], "bestiarium")
    with pytest.raises(ValueError, match="unknown game 'chess'"):
        parse_options([], "chess")
    with pytest.raises(ConfigError, match="key=value"):
        parse_options(["num_players"], TOY)
    # without a table: JSON where it parses, else the text
    assert parse_options(["a=3", "b=x", "c=1.5"]) == {"a": 3, "b": "x", "c": 1.5}


def test_the_form_offers_every_value_and_the_default():
    assert TOY.form() == [
        {"name": "num_players", "label": "players", "choices": [2, 3, 4], "default": 2},
        {"name": "mode", "label": "mode", "choices": ["a", "b"], "default": "a"},
    ]


# ----- every game's table ------------------------------------------------------------------------------------
def engine_classes(game: str) -> list[type]:
    """Both engines of ``game``: the rule engine (``rules.py``) and the batched one (``fast.py``, where it has one)."""
    from envs.common.vector import batched_game_class

    batched = batched_game_class(game)
    return [envs.module(game).raw_env.game_class, *([batched] if batched is not None else [])]


@pytest.mark.parametrize("game", envs.GAMES)
def test_both_engines_take_their_options_from_the_table_alone(game):
    """Neither engine's signature writes an option, its default or its values: each takes ``**options`` and the
    table fills in the defaults (a ``None`` default is the engine's to resolve, so it is left out here)."""
    import inspect

    table = envs.game_options(game)
    classes = engine_classes(game)
    assert len(classes) == 2, "every registered game has a batched engine"
    for cls in classes:
        params = [p for p in inspect.signature(cls.__init__).parameters.values() if p.name != "self"]
        assert [p.kind for p in params] == [inspect.Parameter.VAR_KEYWORD], f"{cls.__name__}.__init__{params}"
        options = cls().options()
        assert list(options) == list(table.names), cls
        assert {k: v for k, v in options.items() if table[k].default is not None} == {
            o.name: o.default for o in table if o.default is not None
        }, cls


@pytest.mark.parametrize("game", envs.GAMES)
def test_both_engines_accept_every_value_of_the_table_and_refuse_the_rest(game):
    """Each option's smallest and largest value alone (the other options at their defaults) builds both engines,
    which report it; a value past the table's, or an option it does not have, is refused by both, naming it."""
    table = envs.game_options(game)
    for cls in engine_classes(game):
        for option in table:
            values = option.values()
            for value in (values[0], values[-1]):
                assert cls(**{option.name: value}).options()[option.name] == value, (cls, option.name, value)
            bad = "no such value" if option.type is str else (option.high or max(values)) + 1
            with pytest.raises(ConfigError, match=f"{option.name}="):
                cls(**{option.name: bad})
        with pytest.raises(UnknownOptionError, match=f"{game} has no option 'no_such_option'"):
            cls(no_such_option=1)


@pytest.mark.parametrize("game", envs.GAMES)
def test_the_batched_engine_reports_the_rule_engines_options(game):
    """The batched engine is built from the same options as its reference, so both report the same, for every
    option set the generic tests play."""
    from envs.common.testing import option_sets

    rules_class, batched_class = engine_classes(game)
    for options in option_sets(game):
        assert batched_class(**options).options() == rules_class(**options).options(), options


# ----- make_game ---------------------------------------------------------------------------------------------
@pytest.mark.parametrize("game", envs.GAMES)
def test_make_game_is_the_aec_envs_engine(game):
    engine = envs.make_game(game)
    assert type(engine) is envs.module(game).raw_env.game_class
    assert engine.options() == envs.module(game).raw_env.game_class().options()
    rng_a, rng_b = np.random.default_rng(3), np.random.default_rng(3)
    assert engine.state_to_json(engine.initial_state(rng_a)) == engine.state_to_json(engine.initial_state(rng_b))


def test_make_game_passes_options_and_refuses_unknown_games_and_options():
    assert envs.make_game("boaring", num_players=3).num_players == 3
    assert envs.make_game("battle_sheep", num_players=3, pasture="random").options()["canvas_radius"] == 13
    with pytest.raises(ValueError, match="unknown game 'chess'; available: battle_sheep"):
        envs.make_game("chess")
    with pytest.raises(ConfigError, match="bestiarium has no option 'num_players'; its options: board_size"):
        envs.make_game("bestiarium", num_players=2)
    with pytest.raises(ConfigError, match="num_players=11 is not valid; allowed: an integer from 2 to 10"):
        envs.make_game("boaring", num_players=11)


# ----- the command lines read the table ----------------------------------------------------------------------
def test_the_train_command_reads_env_options_by_the_games_table():
    from training.train_cli import build_parser, config_from_args

    args = build_parser().parse_args(
        ["--game", "boaring", "--env-option", "num_players=3", "--env-option", "reward=score"]
    )
    assert config_from_args(args).env_options == {"num_players": 3, "reward": "score"}
    for bad, fragment in (("num_players=11", "from 2 to 10"), ("board_size=5", "boaring has no option 'board_size'")):
        args = build_parser().parse_args(["--game", "boaring", "--env-option", bad])
        with pytest.raises(SystemExit, match=fragment):
            config_from_args(args)


def test_the_benchmark_and_demo_commands_refuse_a_bad_option(capsys):
    from envs import benchmark, demo

    for main in (benchmark.main, demo.main):
        with pytest.raises(SystemExit):
            main(["bestiarium", "board_size=8"])
        assert "board_size=8 is not valid; allowed: 5, 6, 7" in capsys.readouterr().err


def test_engines_come_from_make_game_not_from_an_aec_env():
    """Code that needs a game's engine asks ``envs.make_game``; building ``raw_env(...)`` only to read its ``.game``
    is left to each env's own tests (which check that the env wraps the engine)."""
    import re
    from pathlib import Path

    root = Path(__file__).resolve().parents[1]
    pattern = re.compile(r"raw_env\([^()]*\)\.game\b")
    found = []
    for folder in ("envs", "training", "examples", "tests"):
        for path in (root / folder).rglob("*.py"):
            if re.fullmatch(r"test_\w+_env\.py", path.name):
                continue
            found += [
                f"{path.relative_to(root)}:{i}"
                for i, line in enumerate(path.read_text().splitlines(), 1)
                if pattern.search(line)
            ]
    assert not found, found
