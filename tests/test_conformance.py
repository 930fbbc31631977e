"""One conformance suite over every registered game: the shared AEC base and the env() wrapper."""

import ast
import json
import re

import numpy as np
import pettingzoo
import pytest

import envs
from envs.common.aec import StandardWrapper, wrap_pettingzoo_stack
from envs.common.testing import option_sets


def trajectory(env, seed: int, illegal_at: int | None):
    """Play a random game, optionally making an illegal move at decision ``illegal_at``; record everything."""
    env.reset(seed=seed)
    rng = np.random.default_rng(seed)
    log = []
    for k, agent in enumerate(env.agent_iter(5000)):
        obs, reward, term, trunc, info = env.last()
        log.append((agent, obs["observation"].tobytes(), obs["action_mask"].tobytes(), reward, term, trunc))
        if term or trunc:
            env.step(None)
            continue
        mask = obs["action_mask"]
        illegal = np.flatnonzero(mask == 0)
        if k == illegal_at and illegal.size:
            action = int(illegal[0])
        else:
            action = int(rng.choice(np.flatnonzero(mask)))
        env.step(action)
    return log


@pytest.mark.parametrize("game", envs.GAMES)
@pytest.mark.parametrize("illegal_at", [None, 0, 7])
def test_env_wrapper_matches_pettingzoos_standard_stack(game, illegal_at):
    mod = envs.module(game)
    fast = mod.env()
    assert isinstance(fast, StandardWrapper)
    reference = wrap_pettingzoo_stack(mod.raw_env())
    for seed in (0, 1):
        assert trajectory(fast, seed, illegal_at) == trajectory(reference, seed, illegal_at)


@pytest.mark.parametrize("game", envs.GAMES)
def test_order_enforcement_before_reset(game):
    env = envs.module(game).env()
    with pytest.raises(AttributeError, match="before reset"):
        _ = env.agents
    with pytest.raises(AttributeError, match="before reset"):
        _ = env.agent_selection


@pytest.mark.parametrize("game", envs.GAMES)
def test_every_game_is_registered_and_documented(game):
    env = pettingzoo.make("aec", envs.ENV_IDS[game])
    env.reset(seed=0)
    raw = env.unwrapped
    assert raw.metadata["name"] == envs.MODULES[game]
    assert raw.game.name == game
    assert envs.module(game).__doc__ and "Observation" in envs.module(game).__doc__
    obs = env.observe(env.agent_selection)
    assert obs["observation"].shape == raw.game.observation_shape
    assert obs["action_mask"].dtype == np.int8 and obs["action_mask"].any()


def test_every_id_is_in_pettingzoos_registries():
    """Every game's id is in PettingZoo's AEC registry, and every game with a ``parallel_env`` (Boaring) is in
    its parallel registry too: ``make("parallel", id)`` builds a ParallelEnv that passes PettingZoo's
    parallel_api_test."""
    from pettingzoo import ParallelEnv
    from pettingzoo.test import parallel_api_test

    assert set(envs.ENV_IDS.values()) <= set(pettingzoo.aec_registry)
    with_parallel = {game for game in envs.GAMES if hasattr(envs.module(game), "parallel_env")}
    assert with_parallel == set(envs.PARALLEL_GAMES) == {"boaring"}
    for game in with_parallel:
        assert envs.ENV_IDS[game] in pettingzoo.parallel_registry
        par = pettingzoo.make("parallel", envs.ENV_IDS[game], num_players=3)
        assert isinstance(par, ParallelEnv)
        assert par.possible_agents == ["player_0", "player_1", "player_2"]
        parallel_api_test(par, num_cycles=200)


PARALLEL_CASES = [(game, options) for game in envs.PARALLEL_GAMES for options in option_sets(game)]
"""Every game with a Parallel view, with each option set the generic tests play."""


@pytest.mark.parametrize("game,options", PARALLEL_CASES, ids=str)
def test_parallel_env_passes_pettingzoos_parallel_seed_test(game, options):
    """PettingZoo's ``parallel_seed_test`` samples actions from the action space, without the mask. Boaring's
    ``parallel_env`` raised ``IllegalActionError`` at the first unmasked bid, on every option set; wrapped as
    ``env()`` is, the unmasked action ends the game (-1 to its sender) and both copies end alike."""
    from pettingzoo.test import parallel_seed_test

    parallel_seed_test(lambda: envs.module(game).parallel_env(**options), num_cycles=100)
    parallel_seed_test(lambda: pettingzoo.make("parallel", envs.ENV_IDS[game], **options), num_cycles=100)


@pytest.mark.parametrize("game", envs.PARALLEL_GAMES)
def test_parallel_env_ends_the_game_on_an_illegal_action_as_env_does(game):
    """``env()``'s convention (PettingZoo's ``TerminateIllegalWrapper``), for a parallel step: each agent whose
    action is not in its mask gets -1, the others 0, every agent is terminated and truncated, ``agents`` is
    empty, and the game is left as it was. An action outside the action space is an AssertionError, as in
    ``env()``; the unwrapped Parallel env still raises ``IllegalActionError``."""
    from envs.common.game import IllegalActionError

    mod = envs.module(game)
    for senders in (["player_1"], ["player_0", "player_2"]):
        par = mod.parallel_env(num_players=3)
        obs, _ = par.reset(seed=5)
        raw = par.unwrapped
        before = json.dumps(raw.game.state_to_json(raw.game_state), sort_keys=True)
        actions = {a: int(np.flatnonzero(o["action_mask"])[0]) for a, o in obs.items()}
        with pytest.raises(IllegalActionError):
            raw.step({**actions, senders[0]: int(np.flatnonzero(obs[senders[0]]["action_mask"] == 0)[0])})
        with pytest.raises(AssertionError, match="not in action space"):
            par.step({**actions, senders[0]: raw.game.num_actions})
        illegal = {a: int(np.flatnonzero(obs[a]["action_mask"] == 0)[0]) for a in senders}
        after, rewards, terminations, truncations, infos = par.step({**actions, **illegal})
        assert rewards == {a: -1.0 if a in senders else 0.0 for a in raw.possible_agents}
        assert all(terminations.values()) and all(truncations.values()) and len(terminations) == 3
        assert par.agents == [] and after.keys() == obs.keys()
        assert json.dumps(raw.game.state_to_json(raw.game_state), sort_keys=True) == before
        obs, _ = par.reset(seed=5)
        assert par.agents == raw.possible_agents


def test_unknown_game_is_a_clear_error():
    with pytest.raises(ValueError, match="unknown game 'chess'"):
        envs.module("chess")


@pytest.mark.parametrize("game", envs.GAMES)
def test_state_is_pettingzoos_global_state_and_changes_nothing(game):
    """``env.state()`` is PettingZoo's global state method (no longer shadowed by the engine state, which is
    ``env.unwrapped.game_state``): player_0's observation followed by a one-hot of the seat to move, inside
    ``state_space`` (PettingZoo's state tests pass); Boaring (hidden hands) adds every hand and face-down card,
    a privileged view (tests/boaring/test_boaring_global_state.py checks those blocks). Calling it at every
    decision changes nothing: the game plays exactly as one where nobody called it."""
    from pettingzoo.test.state_test import test_state, test_state_space

    mod = envs.module(game)
    probe, plain = mod.env(), mod.env()
    probe.reset(seed=3)
    raw = probe.unwrapped
    assert raw.game_state is not None and not callable(raw.game_state)
    assert raw.game.perfect_information or raw.game.privileged_global_state
    test_state_space(probe)
    test_state(mod.env(), num_cycles=50)
    log_probe, log_plain = [], []
    for env, log in ((probe, log_probe), (plain, log_plain)):
        env.reset(seed=3)
        rng = np.random.default_rng(3)
        for agent in env.agent_iter(5000):
            if env is probe:
                before = json_snapshot(env)
                state = env.state()
                assert env.state_space.contains(state) and state.dtype == raw.game.observation_dtype
                assert state.shape == raw.game.global_state_shape
                channels = raw.game.observation_shape[0]
                assert np.array_equal(state[:channels], env.observe("player_0")["observation"])
                seat = raw.game.current_player(raw.game_state)
                cells = int(np.prod(raw.game.observation_shape[1:], dtype=int))
                to_move = state[channels : channels + raw.game.num_players * cells].reshape(raw.game.num_players, -1)
                expected = np.zeros(raw.game.num_players)
                if seat >= 0:
                    expected[seat] = 1
                assert np.array_equal(to_move.min(axis=1), expected)
                assert np.array_equal(to_move.max(axis=1), expected)
                assert json_snapshot(env) == before
            obs, reward, term, trunc, _ = env.last()
            log.append((agent, obs["observation"].tobytes(), reward, term, trunc))
            env.step(None if term or trunc else int(rng.choice(np.flatnonzero(obs["action_mask"]))))
    assert log_probe == log_plain


def json_snapshot(env) -> str:
    """The whole env as text (game state, hidden cards and RNG included), for before/after comparisons."""
    return json.dumps(env.unwrapped.snapshot(), sort_keys=True)


def test_boaring_parallel_state_is_the_aec_envs_and_changes_nothing():
    from envs import boaring_v0

    par = boaring_v0.parallel_env(num_players=3)
    with pytest.raises(RuntimeError, match="reset"):
        par.state()
    par.reset(seed=0)
    aec = boaring_v0.env(num_players=3)
    aec.reset(seed=0)
    before = json.dumps(par.game.state_to_json(par.game_state), sort_keys=True)
    assert np.array_equal(par.state(), aec.state()) and par.state_space.contains(par.state())
    assert json.dumps(par.game.state_to_json(par.game_state), sort_keys=True) == before


@pytest.mark.parametrize("game", envs.GAMES)
def test_render_for_gives_each_seat_its_view(game):
    """``render_for(agent)`` draws what that seat may see: in the perfect-information games the whole position
    (the same picture as ``render()``), in Boaring a picture labelled as the seat's own view (its content is
    tested in tests/boaring/test_boaring_info.py). Unknown agents are a ValueError."""
    mod = envs.module(game)
    for mode in ("ansi", "rgb_array"):
        env = mod.env(render_mode=mode)
        env.reset(seed=2)
        raw = env.unwrapped
        for agent in raw.possible_agents:
            view = env.render_for(agent)
            if raw.game.perfect_information:
                assert np.array_equal(view, env.render()) if mode == "rgb_array" else view == env.render()
            elif mode == "ansi":
                assert view.startswith(f"{agent}'s view") and env.render().startswith("spectator view")
            else:
                assert view.dtype == np.uint8 and view.ndim == 3 and view.shape[2] == 3
        with pytest.raises(ValueError, match="unknown agent"):
            env.render_for("bogus")


# ----- the spec pages' observation tables ------------------------------------------------------------------
# Each env's module docstring (its spec page) lists its observation in a reStructuredText simple table:
# a ``=====`` border line, a header row, a border, the rows, a border. Plane observations (C, H, W) use a table
# whose first header cell is ``plane``: each row's first cell is a plane index or an inclusive range ``a .. b``.
# Flat observations use a table with a ``size`` column: each row's cell there is the block's length. Indices
# and sizes are arithmetic over integers and the game's symbols (below): ``+ - *``, ``x`` for a product,
# parentheses, and a number before a symbol multiplies it (``3n``). A row that says ``(only with OPTION=VALUE)``
# counts only under that option. A row continues on lines whose first cell is blank.


def doc_symbols(game: str, engine) -> dict[str, int]:
    """The symbols the game's spec page uses, read from the engine (its descriptor's ``spec_symbols``; default:
    ``n``, the player count)."""
    symbols = envs.game_info(game).spec_symbols
    return dict(symbols(engine)) if symbols is not None else {"n": engine.num_players}


def doc_tables(doc: str) -> list[tuple[list[str], list[list[str]]]]:
    """Every simple table in ``doc`` as (header cells, rows), a row being [first line's cells..., continuation
    text]; cells are cut at the column starts of the border line."""
    lines = doc.splitlines()
    border = re.compile(r"^\s*=+(\s+=+)+\s*$")
    tables = []
    k = 0
    while k + 2 < len(lines):
        if not (border.match(lines[k]) and border.match(lines[k + 2])):
            k += 1
            continue
        starts = [m.start() for m in re.finditer(r"=+", lines[k])]

        def cells(line: str, starts: list[int] = starts) -> list[str]:
            return [line[a:b].strip() for a, b in zip(starts, starts[1:] + [None])]

        header = cells(lines[k + 1])
        rows = []
        j = k + 3
        while j < len(lines) and not border.match(lines[j]):
            row = cells(lines[j])
            if row[0]:
                rows.append(row + [""])
            elif rows and lines[j].strip():
                rows[-1][-1] += " " + lines[j].strip()
            j += 1
        tables.append((header, rows))
        k = j + 1
    return tables


def doc_int(text: str, symbols: dict[str, int]) -> int:
    """The value of a table's index or size expression (see the comment above :func:`doc_symbols`)."""
    expr = re.sub(r"(?<=\w|\))\s+x\s+(?=\w|\()", " * ", text.strip())
    expr = re.sub(r"(\d)\s*([A-Za-z(])", r"\1 * \2", expr)
    try:
        tree = ast.parse(expr, mode="eval")
    except SyntaxError:
        raise ValueError(f"cannot read {text!r} in a spec page's observation table") from None

    def value(node: ast.AST) -> int:
        if isinstance(node, ast.Expression):
            return value(node.body)
        if isinstance(node, ast.Constant) and type(node.value) is int:
            return node.value
        if isinstance(node, ast.Name) and node.id in symbols:
            return symbols[node.id]
        if isinstance(node, ast.BinOp) and isinstance(node.op, (ast.Add, ast.Sub, ast.Mult)):
            a, b = value(node.left), value(node.right)
            return a + b if isinstance(node.op, ast.Add) else a - b if isinstance(node.op, ast.Sub) else a * b
        raise ValueError(f"cannot read {text!r} in a spec page's observation table")

    return value(tree)


def documented_observation(doc: str, options: dict, symbols: dict[str, int]) -> tuple[str, int]:
    """("planes", plane count) or ("size", vector length) as the spec page's observation table says for
    ``options``; AssertionError if it has no such table or its plane rows leave gaps."""
    for header, rows in doc_tables(doc):
        kept = []
        for row in rows:
            only = re.search(r"\(only\s+with\s+(\w+)=(\w+)\)", " ".join(row[1:-1]) + " " + row[-1])
            if only is None or str(options.get(only.group(1))) == only.group(2):
                kept.append(row)
        if header[0] == "plane":
            expected = 0
            for row in kept:
                first, _, last = row[0].partition("..")
                start = doc_int(first, symbols)
                end = doc_int(last, symbols) if last else start
                assert start == expected and end >= start, f"plane rows leave a gap or overlap at {row[0]!r}"
                expected = end + 1
            return "planes", expected
        if "size" in header:
            column = header.index("size")
            return "size", sum(doc_int(row[column], symbols) for row in kept)
    raise AssertionError("the spec page has no observation table (a 'plane' or 'size' simple table)")


def test_doc_table_reader_reads_what_it_is_given():
    doc = """
    =====  =============  =======
    block  size           content
    =====  =============  =======
    a      2n + 1         one
                          more
    b      (3 + 2T) x 4   two (only with
                          variant=x)
    c      9 x (2T + 1)   three
    =====  =============  =======

    =============  ====
    plane          what
    =============  ====
    0              zero
    1 .. 3n        many
    =============  ====
    """
    assert doc_tables(doc)[0][1][0] == ["a", "2n + 1", "one", " more"]
    assert doc_int("(3 + 2T) x 4", {"T": 3}) == 36 and doc_int("3n", {"n": 4}) == 12
    assert documented_observation(doc, {"variant": "x"}, {"n": 2, "T": 1}) == ("size", 5 + 20 + 27)
    assert documented_observation(doc, {"variant": "y"}, {"n": 2, "T": 1}) == ("size", 5 + 27)
    with pytest.raises(ValueError, match="cannot read"):
        doc_int("import os", {})
    gap = doc.replace("1 .. 3n", "2 .. 3n").split("\n\n")[1]
    with pytest.raises(AssertionError, match="gap"):
        documented_observation(gap, {}, {"n": 1})


@pytest.mark.parametrize("game", envs.GAMES)
def test_spec_page_lists_every_plane_of_the_observation(game):
    """Each env's spec page (its module docstring) lists its observation plane by plane (or block by block),
    and the list matches the observation's real shape for every option set tried."""
    mod = envs.module(game)
    for options in option_sets(game):
        raw = mod.raw_env(**options)
        raw.reset(seed=0)
        shape = raw.observe(raw.agent_selection)["observation"].shape
        kind, count = documented_observation(mod.__doc__, raw.game.options(), doc_symbols(game, raw.game))
        if kind == "planes":
            assert len(shape) == 3 and count == shape[0], (options, count, shape)
        else:
            assert len(shape) == 1 and count == shape[0], (options, count, shape)
