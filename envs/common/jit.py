"""The compiled styles of the engines: every jitted function that numba does not inline says whether numba counts
references in it (``_nrt``), so that how a function compiles does not depend on which caller compiled it first.

* :data:`row_jit` / :data:`inline_jit`: no reference counting: the row functions, the rule steps and the search's
  functions, which take the batched state and the tables whole and never allocate;
* :data:`refcount_jit` (or ``njit(..., **REFCOUNT)``): the kernels Python calls and whatever allocates or slices.
"""

from __future__ import annotations

from typing import Any

from numba import njit

NO_REFCOUNT: Any = {"_nrt": False}
"""numba's option for a function compiled without reference counting (passed through a dict: numba's type stubs omit
``_nrt``)."""

row_jit = njit(cache=True, **NO_REFCOUNT)
"""How the engines compile their row functions and the search's own functions: cached, and without numba's reference
counting (numba's ``_nrt=False``; such a function cannot allocate an array: what allocates uses :data:`refcount_jit`). A
function that takes the batched state and the tables whole has numba count a reference to every array in them where
it starts, ends and its branches join, and numba prunes only some of these: measured on numba 0.68.1, the state
tuples of 14-37 arrays made the searches 1.4-2.7x slower than kernels on unpacked arrays. The caller owns the arrays
and keeps them alive for the call, so nothing in such a function needs counting."""

inline_jit = njit(cache=True, inline="always", **NO_REFCOUNT)
""":data:`row_jit`, inlined into its numba callers (numba's IR inliner): small helpers whose call costs more than their
work."""

REFCOUNT: Any = {"_nrt": True}
"""numba's option for a function compiled with reference counting, set explicitly. numba gives a function that does
not set ``_nrt`` the setting of whichever caller compiles it first, and keeps that compilation for the process and
its disk cache: an allocating helper first reached from a :data:`row_jit` caller fails to compile (numba 0.68.1:
"Only accept returning of array passed into the function as argument"; a row slice copy: "NRT required but not
enabled"), and one first reached from a counted caller runs counted. So every jitted function that is not inlined
says which it is (``tests/test_game_folders.py`` checks it) and the order of first calls no longer matters."""

refcount_jit = njit(cache=True, **REFCOUNT)
"""``njit(cache=True)`` with reference counting (:data:`REFCOUNT`): the kernels Python calls, and every function that
allocates an array or takes an array view."""
