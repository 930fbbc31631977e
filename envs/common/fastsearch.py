"""The compiled tree search, written once: UCT over any game's batched engine, specialised per game by numba.

The ``search`` baseline of every game (and ``guided:``'s restricted search, ``training/alphazero/guided.py``) is the
algorithm of :class:`envs.common.mcts.MCTSPolicy` run in one numba kernel (:func:`search_kernel`): open loop (each
simulation starts again from the root position, chance sampled by the engine inside ``apply``), expand one untried
child per simulation (drawn uniformly), else descend by ``value / visits + exploration * sqrt(log(avail) / visits)``
for the player to move (ISMCTS availability counts; ties to the first candidate), value the leaf, add the values
along the path. The answer is the most visited root child among the legal ones (ties to the child expanded first).

What a game gives, in its own folder:

* ``kernels.py``, the compiled rules: the state declared once (:mod:`envs.common.state`: a ``NamedTuple`` of arrays,
  first axis = game row, a ``rng`` field of ``uint64`` SplitMix64 states, :mod:`envs.common.fastrng`), a tables
  ``NamedTuple`` of constants (and the engine's work buffers where its kernels need some: one call at a time per
  engine), and public row functions with the same meaning in every game (``fast.py``, the batched engine,
  re-exports them) (:data:`ROW_FUNCTIONS`): ``mover_row(st, tab, b)``, ``legal_row(st, tab, b, out)``,
  ``apply_row(st, tab, b, a)``, ``returns_row(st, tab, b, out)``, ``copy_row(st, tab, src, dst)``,
  ``random_action_row(st, tab, b)``.
* ``search.py``, only what is the game's own: a search context ``NamedTuple`` (its playout parameters and work
  buffers), the tree's candidate actions at a node (the legal actions, or a pruned set), the leaf value (its one
  playout, then a value per seat), and, for a game with hidden information, how a simulation starts (a
  determinization). It registers them for its context class with :func:`register`, and its ``CompiledSearch``
  subclasses :class:`CompiledSearch`.

numba compiles the tree once per registered context class and caches it on disk. The game's functions are found
by the context's type (``numba.extending.overload``) rather than passed as arguments: a jitted function that takes
other jitted functions as arguments is compiled anew in every process (numba 0.68: its disk cache never hits), which
would cost every new process the whole search's compile time. Each game gets its own copy of the tree's dispatcher
(:func:`kernels`), so its own cache file: numba loads a cache index whole, types included, and one shared index
would make every game's search fail to load after a game registered from another package (a plugin, the tests'
example game) had been compiled into it and its package was gone. The copy's name carries a digest of the game
package's files (``search.py``, ``kernels.py``, ``fast.py``, ...): numba watches only the tree's own file, and an
edit of the game's must not leave the search running the old code. (numba's cache has the same blind spot one level
down: a ``search.py`` kernel cached with ``kernels.py`` functions compiled into it does not
notice an edit of ``kernels.py``; clear the game's ``__pycache__`` after one.)
"""

from __future__ import annotations

import hashlib
import sys
import types
from collections.abc import Callable
from pathlib import Path
from typing import Any, NamedTuple

import numpy as np
from numba import njit
from numba.extending import overload

from envs.common.fastrng import below
from envs.common.jit import NO_REFCOUNT, REFCOUNT, refcount_jit

ROW_FUNCTIONS = ("mover_row", "legal_row", "apply_row", "returns_row", "copy_row", "random_action_row")
"""The public row functions every ``envs/<game>/kernels.py`` defines (``tests/test_game_folders.py`` checks them):

* ``mover_row(st, tab, b) -> int``: the seat to move in row ``b``, -1 when the game is over or cut (truncated);
* ``legal_row(st, tab, b, out) -> int``: the mover's legal mask into ``out`` (bool, one per action; all False
  when over), returns how many are legal;
* ``apply_row(st, tab, b, a)``: play the legal action ``a`` in live row ``b`` (chance from ``st.rng[b]``);
* ``returns_row(st, tab, b, out)``: the returns of finished row ``b`` per seat into ``out`` (float64);
* ``copy_row(st, tab, src, dst)``: row ``src`` of every field but the generator into row ``dst``;
* ``random_action_row(st, tab, b) -> int``: a uniformly random legal action of live row ``b`` (``st.rng[b]``).
"""


class TreeArgs(NamedTuple):
    """One decision's settings of :func:`search_kernel` (built by :meth:`CompiledSearch.__call__`)."""

    budget: int
    """Simulations."""
    exploration: float
    """The UCT constant."""
    num_players: int
    """Seats (the width of a leaf's values)."""
    rng: np.ndarray
    """(R,) uint64: the generator of the tree's own draws (untried children)."""
    rng_row: int
    """Which of ``rng``'s states the tree draws from; -1: the simulation's own row of the state (``rng`` is then
    ``st.rng``), so the tree's draws and the engine's chance share one stream."""
    root_actions: np.ndarray
    """int64: when not empty, the root's only children, in this order (legal, distinct), instead of the game's
    candidates."""
    root_legal: np.ndarray
    """bool, one per action: the root children the answer may be."""
    root_visits: np.ndarray
    """int64, one per action: receives the root children's visit counts (0 for actions without a child)."""


# ----- what a game registers ------------------------------------------------------------------------------------
_GAMES: dict[type, dict[str, Any]] = {}


def register(
    context: type,
    *,
    mover: Callable[..., int],
    apply: Callable[..., None],
    candidates: Callable[..., int],
    leaf: Callable[..., None],
    copy: Callable[..., None] | None = None,
    start: Callable[..., int] | None = None,
    fixed_candidates: bool = False,
) -> None:
    """Make :func:`search_kernel` search a game whose search context is a ``context`` (a ``NamedTuple`` class).

    ``mover``, ``apply``, ``copy``: the engine's ``mover_row``, ``apply_row``, ``copy_row``. The game's own, all
    jitted:

    * ``candidates(st, tab, ctx, b, player, out) -> n``: the tree's actions at the node of row ``b`` (``player``
      to move) into ``out[:n]``, in the order the tree tries and compares them;
    * ``leaf(st, tab, ctx, b, out)``: the leaf's value per seat into ``out`` (float64, ``num_players``); row
      ``b`` may be played on (a playout) and may be over or cut already;
    * ``start(st, tab, ctx, i) -> row`` (optional): prepare simulation ``i`` and return the row it runs on.
      Default: the root is row 0, every simulation a copy of it (``copy``) on the state's last row.

    ``fixed_candidates``: a node's candidates are the same each time a simulation reaches it (no chance, no hidden
    information), so they are listed once, when the node is first reached; otherwise they are listed on every visit
    and matched to the node's children by action.
    """
    if start is None and copy is None:
        raise ValueError("register: give copy (the engine's copy_row) or start")
    _GAMES[context] = {
        "mover": mover,
        "apply": apply,
        "candidates": candidates,
        "leaf": leaf,
        "copy": copy,
        "start": start,
        "fixed": bool(fixed_candidates),
    }


def _game(ctx: Any, name: str) -> Any:
    entry = _GAMES.get(getattr(ctx, "instance_class", type(None)))
    if entry is None:
        raise TypeError(f"no game's search is registered for {ctx} (envs.common.fastsearch.register)")
    return entry[name]


# The game's functions, found by the context's type when numba compiles the kernel (plain Python calls raise).
def _not_compiled(*args: Any) -> Any:
    raise TypeError("only callable inside a numba kernel")


def sim_start(st: Any, tab: Any, ctx: Any, i: int) -> int:
    return _not_compiled()


def sim_mover(st: Any, tab: Any, ctx: Any, b: int) -> int:
    return _not_compiled()


def sim_candidates(st: Any, tab: Any, ctx: Any, b: int, player: int, out: np.ndarray) -> int:
    return _not_compiled()


def sim_apply(st: Any, tab: Any, ctx: Any, b: int, a: int) -> None:
    _not_compiled()


def sim_leaf(st: Any, tab: Any, ctx: Any, b: int, out: np.ndarray) -> None:
    _not_compiled()


def fixed_candidates(ctx: Any) -> bool:
    return _not_compiled()


@overload(sim_start, jit_options=NO_REFCOUNT)
def _sim_start(st, tab, ctx, i):
    start = _game(ctx, "start")
    if start is not None:
        return lambda st, tab, ctx, i: start(st, tab, ctx, i)
    copy = _game(ctx, "copy")

    def default(st, tab, ctx, i):
        work = st.rng.shape[0] - 1  # run-time rows: a literal row number compiles every callee once more
        copy(st, tab, 0, work)
        return work

    return default


@overload(sim_mover, jit_options=NO_REFCOUNT)
def _sim_mover(st, tab, ctx, b):
    mover = _game(ctx, "mover")
    return lambda st, tab, ctx, b: mover(st, tab, b)


@overload(sim_candidates, jit_options=NO_REFCOUNT)
def _sim_candidates(st, tab, ctx, b, player, out):
    candidates = _game(ctx, "candidates")
    return lambda st, tab, ctx, b, player, out: candidates(st, tab, ctx, b, player, out)


@overload(sim_apply, jit_options=NO_REFCOUNT)
def _sim_apply(st, tab, ctx, b, a):
    apply = _game(ctx, "apply")
    return lambda st, tab, ctx, b, a: apply(st, tab, b, a)


@overload(sim_leaf, jit_options=NO_REFCOUNT)
def _sim_leaf(st, tab, ctx, b, out):
    leaf = _game(ctx, "leaf")
    return lambda st, tab, ctx, b, out: leaf(st, tab, ctx, b, out)


@overload(fixed_candidates, jit_options=NO_REFCOUNT)
def _fixed_candidates(ctx):
    if _game(ctx, "fixed"):
        return lambda ctx: True
    return lambda ctx: False


# ----- the tree ---------------------------------------------------------------------------------------------------
def _search_tree(st, tab, ctx, args):
    """UCT with ``args.budget`` simulations (:class:`TreeArgs`); returns the most visited root child that
    ``args.root_legal`` allows (ties to the one expanded first), -1 if there is none. Fills ``args.root_visits``.

    The tree: per node its visits, availability count and summed values per seat, and a list of edges (action,
    child). With fixed candidates a node's edges are its candidates, listed once (child -1 while untried); else
    an edge is added when its child is expanded, and each visit matches the listed candidates to them by action."""
    n_actions = args.root_legal.shape[0]
    nodes = args.budget + 1
    visits = np.zeros(nodes, dtype=np.int64)
    avail = np.zeros(nodes, dtype=np.int64)
    value = np.zeros((nodes, args.num_players), dtype=np.float64)
    first = np.full(nodes, -1, dtype=np.int64)  # a node's first edge
    count = np.zeros(nodes, dtype=np.int64)  # fixed: its number of edges (contiguous from first)
    capacity = nodes + n_actions
    edge_action = np.empty(capacity, dtype=np.int64)
    edge_child = np.empty(capacity, dtype=np.int64)
    edge_next = np.empty(capacity, dtype=np.int64)  # not fixed: the node's next edge, -1 at the end
    edges = 0
    fixed = fixed_candidates(ctx)
    acts = np.empty(n_actions, dtype=np.int64)
    cand_edge = np.empty(n_actions, dtype=np.int64)  # the edge of each listed candidate, -1 without one
    untried = np.empty(n_actions, dtype=np.int64)
    slot = np.full(0 if fixed else n_actions, -1, dtype=np.int64)  # action -> edge, at the node being visited
    path = np.empty(nodes + 1, dtype=np.int64)
    leaf = np.zeros(args.num_players, dtype=np.float64)
    rng = args.rng
    used = 1
    for i in range(args.budget):
        row = sim_start(st, tab, ctx, i)
        rng_row = row if args.rng_row < 0 else args.rng_row
        node = 0
        path[0] = 0
        length = 1
        while True:
            player = sim_mover(st, tab, ctx, row)
            if player < 0:
                break
            # the node's candidates (acts[:m]) and their edges
            if fixed and first[node] >= 0:
                m = count[node]
                for k in range(m):
                    acts[k] = edge_action[first[node] + k]
                    cand_edge[k] = first[node] + k
            else:
                if node == 0 and args.root_actions.shape[0] > 0:
                    m = args.root_actions.shape[0]
                    acts[:m] = args.root_actions
                else:
                    m = sim_candidates(st, tab, ctx, row, player, acts)
                if m == 0:  # a live node without candidates (a game's bug): valued as a leaf, never expanded
                    break
                if fixed:
                    if edges + m > capacity:
                        capacity = 2 * capacity + m
                        edge_action = _grown(edge_action, edges, capacity)
                        edge_child = _grown(edge_child, edges, capacity)
                    first[node] = edges
                    count[node] = m
                    for k in range(m):
                        edge_action[edges + k] = acts[k]
                        edge_child[edges + k] = -1
                        cand_edge[k] = edges + k
                    edges += m
                else:
                    e = first[node]
                    while e >= 0:
                        slot[edge_action[e]] = e
                        e = edge_next[e]
                    for k in range(m):
                        cand_edge[k] = slot[acts[k]]
                    e = first[node]
                    while e >= 0:
                        slot[edge_action[e]] = -1
                        e = edge_next[e]
            # expand one untried candidate, drawn uniformly; the others count one more time they were available
            free = 0
            for k in range(m):
                e = cand_edge[k]
                if e >= 0 and edge_child[e] >= 0:
                    avail[edge_child[e]] += 1
                else:
                    untried[free] = k
                    free += 1
            if free > 0:
                k = untried[below(rng, rng_row, free)]
                child = used
                used += 1
                avail[child] = 1
                if fixed:
                    edge_child[cand_edge[k]] = child
                else:
                    edge_action[edges] = acts[k]
                    edge_child[edges] = child
                    edge_next[edges] = first[node]
                    first[node] = edges
                    edges += 1
                sim_apply(st, tab, ctx, row, acts[k])
                path[length] = child
                length += 1
                break
            best = -1
            best_score = -np.inf
            for k in range(m):
                child = edge_child[cand_edge[k]]
                score = value[child, player] / visits[child] + args.exploration * np.sqrt(
                    np.log(avail[child]) / visits[child]
                )
                if score > best_score:
                    best = k
                    best_score = score
            sim_apply(st, tab, ctx, row, acts[best])
            node = edge_child[cand_edge[best]]
            path[length] = node
            length += 1
        sim_leaf(st, tab, ctx, row, leaf)
        for k in range(length):
            visits[path[k]] += 1
            for s in range(args.num_players):
                value[path[k], s] += leaf[s]
    # the answer: the most visited legal root child, ties to the child expanded first
    args.root_visits[:] = 0
    best_action = -1
    best_child = -1
    e = first[0]
    end = first[0] + count[0] if fixed else -1
    while e >= 0 and e != end:
        child = edge_child[e]
        a = edge_action[e]
        if child >= 0:
            args.root_visits[a] = visits[child]
            if args.root_legal[a] and (
                best_child < 0
                or visits[child] > visits[best_child]
                or (visits[child] == visits[best_child] and child < best_child)
            ):
                best_action = a
                best_child = child
        e = e + 1 if fixed else edge_next[e]
    return best_action


@refcount_jit
def _grown(values, used, capacity):
    out = np.empty(capacity, dtype=values.dtype)
    out[:used] = values[:used]
    return out


def _flat_values(st, tab, ctx, rollouts, root_legal, num_players, out):
    """Flat Monte Carlo: for every action that ``root_legal`` allows, the mean over ``rollouts`` simulations (each
    started as the search's, the action played, the leaf valued as the search's) of the mover's leaf value, into
    ``out`` (NaN elsewhere)."""
    leaf = np.zeros(num_players, dtype=np.float64)
    for a in range(root_legal.shape[0]):
        out[a] = np.nan
        if not root_legal[a]:
            continue
        total = 0.0
        for i in range(rollouts):
            row = sim_start(st, tab, ctx, i)
            player = sim_mover(st, tab, ctx, row)
            sim_apply(st, tab, ctx, row, a)
            sim_leaf(st, tab, ctx, row, leaf)
            total += leaf[player]
        out[a] = total / rollouts


_KERNELS: dict[type, tuple[Any, Any]] = {}


def kernels(context: type) -> tuple[Any, Any]:
    """The compiled tree and flat Monte Carlo of the game registered for ``context`` (its search context class):
    numba dispatchers of their own, made on first use, each cached on disk under the context's name."""
    found = _KERNELS.get(context)
    if found is None:
        if context not in _GAMES:
            raise TypeError(f"no game's search is registered for {context.__name__} (envs.common.fastsearch.register)")
        tag = f"{context.__module__}.{context.__qualname__}".replace(".", "_") + "_" + _source_digest(context)
        found = tuple(_own_copy(f, tag) for f in (_search_tree, _flat_values))
        _KERNELS[context] = found
    return found


def _source_digest(context: type) -> str:
    """A short digest of the source files of the game's package (every room beside its ``search.py``: the row functions
    of ``kernels.py``, the greedy helpers a playout may call from ``fast.py``) and of the modules of its registered
    functions: numba watches only a function's own file, and the tree has the game's functions compiled into it, so
    an edit of the game's files must name a new cache file (the old one is left unused)."""
    home = sys.modules[context.__module__].__file__
    files = {home} | ({str(p) for p in Path(home).parent.glob("*.py")} if home else set())
    for function in _GAMES[context].values():
        module = getattr(getattr(function, "py_func", None), "__module__", None)
        if module in sys.modules:
            files.add(sys.modules[module].__file__)
    digest = hashlib.sha1()
    for name in sorted(f for f in files if f):
        digest.update(Path(name).read_bytes())
    return digest.hexdigest()[:10]


def _own_copy(function: Callable[..., Any], tag: str) -> Any:
    """A jitted copy of ``function`` named ``<name>__<tag>`` (numba names its cache files after the name)."""
    copy = types.FunctionType(function.__code__, function.__globals__, function.__name__, function.__defaults__)
    copy.__qualname__ = f"{function.__qualname__}__{tag}"
    copy.__doc__ = function.__doc__
    return njit(cache=True, nogil=True, **REFCOUNT)(copy)  # nogil: the web app searches in a worker thread


def search_kernel(st: Any, tab: Any, ctx: Any, args: TreeArgs) -> int:
    """The tree search (:func:`_search_tree`, compiled for ``ctx``'s game): the most visited legal root action."""
    return int(kernels(type(ctx))[0](st, tab, ctx, args))


def action_values_kernel(
    st: Any, tab: Any, ctx: Any, rollouts: int, root_legal: np.ndarray, num_players: int, out: np.ndarray
) -> None:
    """Flat Monte Carlo action values (:func:`_flat_values`, compiled for ``ctx``'s game) into ``out``."""
    kernels(type(ctx))[1](st, tab, ctx, rollouts, root_legal, num_players, out)


# ----- the Python face --------------------------------------------------------------------------------------------
class CompiledSearch:
    """The one interface of every game's compiled search baseline::

        search = GameSearch(game, budget, exploration, **parameters)   # parameters: the game's own, by keyword
        action = search(state, rng, root_actions=None, budget=None, root_visits=None)

    * ``game``: the reference engine (``rules.py``) whose options the batched engine copies; ``budget``:
      simulations per decision; ``exploration``: the UCT constant.
    * ``state``: the position for the player to move, as that player knows it (``game.information_state``; a plain
      state in the perfect-information games), left unchanged.
    * ``rng``: the caller's ``np.random.Generator``. One draw from it per decision seeds the search's own SplitMix64
      stream, so a seeded caller gets the same decisions every run (not the draws of the same search on
      ``rules.py``).
    * ``root_actions`` (distinct legal action ids): when given, the root's only children, tried and compared in
      that order; ``budget``: this decision's simulations instead of the search's; ``root_visits`` (int64, one
      per action): when given, receives the root children's visit counts.
    * Returns the chosen legal action (the most visited root child), or -1 when the search found none.

    A subclass sets :attr:`engine`, :attr:`game`, :attr:`rows` and :attr:`fixed_context`; :meth:`load` (the
    position in row 0, the simulations on row 1), :meth:`context` (:attr:`fixed_context`), :meth:`draw_seed` and
    :meth:`tree_rng` have defaults that a game with another layout overrides (Boaring).
    """

    engine: Any
    """The game's batched engine (``fast.py``)."""
    game: Any
    """The reference engine (``rules.py``)."""
    rows: Any
    """The kernel's rows: the engine's state of two rows (the default :meth:`load`'s layout)."""
    fixed_context: Any
    """The game's search context, the same for every decision (the default :meth:`context`)."""

    def __init__(self, budget: int, exploration: float):
        self.budget = int(budget)
        self.exploration = float(exploration)

    def load(self, state: Any, budget: int, seed: int) -> Any:
        """The kernel's rows for a decision in ``state`` with ``budget`` simulations, their generators seeded from
        ``seed``. Default: ``state`` in row 0 of :attr:`rows` (the engine's ``from_reference``), the simulations
        on row 1, whose generator is ``seed``."""
        rows = self.rows
        self.engine.from_reference(state, rows, 0)
        rows.rng[1] = np.uint64(seed)
        return rows

    def context(self, state: Any, seed: int) -> Any:
        """The game's search context for a decision in ``state`` (a registered ``NamedTuple``: playout parameters,
        work buffers). Default: :attr:`fixed_context`."""
        return self.fixed_context

    def draw_seed(self, rng: np.random.Generator) -> int:
        """The one draw per decision that seeds the search's stream."""
        return int(rng.integers(1 << 63))

    def tree_rng(self, rows: Any, ctx: Any) -> tuple[np.ndarray, int]:
        """The tree's generator and its row (:attr:`TreeArgs.rng`, :attr:`TreeArgs.rng_row`); default: each
        simulation's own row of the state."""
        return rows.rng, -1

    def root_legal(self, state: Any) -> np.ndarray:
        """The legal mask of ``state``'s mover (bool)."""
        return np.asarray(self.game.legal_mask(state), dtype=np.bool_)

    def __call__(
        self,
        state: Any,
        rng: np.random.Generator,
        root_actions: np.ndarray | None = None,
        budget: int | None = None,
        root_visits: np.ndarray | None = None,
    ) -> int:
        """The most visited legal root action after ``budget`` (default: the search's) simulations from ``state``
        (unchanged) for the player to move, -1 if there is none (see the class docstring)."""
        num_actions = self.engine.num_actions
        legal = self.root_legal(state)
        restrict = np.zeros(0, dtype=np.int64)
        if root_actions is not None:
            restrict = np.asarray(root_actions, dtype=np.int64).reshape(-1)
            if restrict.size and (restrict.min() < 0 or restrict.max() >= num_actions):
                raise ValueError(f"root_actions must be action ids in [0, {num_actions})")
            if restrict.size and not legal[restrict].all():
                raise ValueError(f"root_actions holds illegal actions: {restrict[~legal[restrict]].tolist()}")
            if np.unique(restrict).size != restrict.size:
                raise ValueError("root_actions holds an action twice")
        if root_visits is None:
            root_visits = np.zeros(num_actions, dtype=np.int64)
        elif root_visits.shape != (num_actions,) or root_visits.dtype != np.int64:
            raise ValueError(f"root_visits must be an int64 array of shape ({num_actions},)")
        budget = self.budget if budget is None else int(budget)
        seed = self.draw_seed(rng)
        rows = self.load(state, budget, seed)
        ctx = self.context(state, seed)
        tree_rng, rng_row = self.tree_rng(rows, ctx)
        args = TreeArgs(
            budget,
            self.exploration,
            self.engine.num_players,
            tree_rng,
            rng_row,
            restrict,
            legal,
            root_visits,
        )
        return self.answer(int(search_kernel(rows, self.engine.tables, ctx, args)), legal, tree_rng)

    def answer(self, action: int, legal: np.ndarray, tree_rng: np.ndarray) -> int:
        """The decision from the kernel's ``action`` (-1 when no root child was legal); default: as it is."""
        return action

    def action_values(self, state: Any, rng: np.random.Generator, rollouts: int) -> np.ndarray:
        """Flat Monte Carlo value of every action for the player to move (:func:`action_values_kernel`: ``rollouts``
        of the search's simulations after each legal action; NaN where illegal), float64 (A,)."""
        legal = self.root_legal(state)
        seed = self.draw_seed(rng)
        rows = self.load(state, int(rollouts), seed)
        out = np.empty(self.engine.num_actions, dtype=np.float64)
        action_values_kernel(
            rows, self.engine.tables, self.context(state, seed), int(rollouts), legal, self.engine.num_players, out
        )
        return out
