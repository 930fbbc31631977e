"""Per-seat credit assignment and score shaping over whole arrays: :class:`SeatCredit`.

Each learner seat of each env keeps one *pending* decision (its last one), a row of ``(num_envs, num_players)``
arrays. Every reward the env pays that seat (after every step, whoever moved, terminal rewards included) is added
to it (:meth:`SeatCredit.pay`), until

* the seat decides again (:meth:`SeatCredit.decide`): the pending decision is complete, with ``next_value`` = the
  value of the new decision, and the new decision becomes the pending one;
* or the game ends (:meth:`SeatCredit.end`): complete with ``done``;
* or the game is cut by a ply cap (PettingZoo's truncation; also :meth:`SeatCredit.end`): the game did not end,
  so the decision is complete with ``done`` false, ``cut`` true and ``next_value`` = the value of that seat's
  observation at the cut: the learner bootstraps there.

Rewards paid to a seat before its first decision of a game belong to no decision and are dropped. Opponent seats
never decide here, so their decisions are never trained on. Complete decisions go to the
:class:`~training.ppo.buffer.RolloutBuffer` a step's worth at a time; pending ones stay here across updates (their
log-probability is that of the policy that acted, so PPO's ratio stays correct).

Score shaping (config ``score_shaping`` > 0): each seat has a potential ``Phi`` (its progress against the others',
:func:`training.shaping.relative_potential`), 0 once the game is over. A decision in position ``s`` completed at
the seat's next decision in ``s'`` is paid ``gamma * Phi(s') - Phi(s)`` on top of the env's rewards (``Phi(s')`` = 0
when the game ended; at a cut, the potential there): Ng, Harada & Russell's potential-based shaping over the
seat's own decisions. The discounted shaping of a game sums to ``-Phi(first decision)`` exactly, so the shaping
moves credit to the moves that scored without changing which policy is best.

The arithmetic is the same, operation for operation, as summing the rewards of each transition one report at a
time in float64 (the order the old per-transition code used), so a run's numbers do not depend on this layout.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from training.ppo.buffer import RolloutBuffer, Transition


class SeatCredit:
    """The pending decision of every (env, seat), and the arithmetic that completes it."""

    def __init__(
        self,
        num_envs: int,
        num_players: int,
        obs_shape: tuple[int, ...],
        obs_dtype: np.dtype,
        mask_bytes: int,
        gamma: float,
    ):
        e, n = num_envs, num_players
        self.gamma = float(gamma)
        self.open = np.zeros((e, n), dtype=bool)
        """The seat has a pending decision."""
        self.obs = np.zeros((e, n, *obs_shape), dtype=obs_dtype)
        self.packed = np.zeros((e, n, mask_bytes), dtype=np.uint8)
        self.action = np.zeros((e, n), dtype=np.int64)
        self.logp = np.zeros((e, n), dtype=np.float32)
        self.value = np.zeros((e, n), dtype=np.float32)
        self.potential = np.zeros((e, n), dtype=np.float64)
        """The seat's shaping potential where it decided."""
        self.reward = np.zeros((e, n), dtype=np.float64)
        """The env's rewards paid to the seat since its decision."""

    def pay(self, envs: np.ndarray, rewards: np.ndarray) -> None:
        """Rewards ``(k, n)`` paid to every seat of ``envs`` since the last step (a seat without a pending decision
        collects them too: :meth:`decide` starts its next decision from 0)."""
        self.reward[envs] += rewards

    def end(
        self,
        buffer: RolloutBuffer,
        envs: np.ndarray,
        cut: np.ndarray,
        cut_potential: np.ndarray,
        cut_obs: np.ndarray,
        values: Callable[[np.ndarray], np.ndarray],
    ) -> None:
        """The games of ``envs`` are over: complete every pending decision there. ``cut`` ``(k,)``: the game was cut
        by a ply cap, with every seat's potential ``(k, n)`` and observation ``(k, n, *shape)`` at the cut (rows of
        uncut games unread); ``values(obs)`` gives the learner's values of observations. Ended games' decisions go
        to ``buffer`` first, then the cut ones', each in (env, seat) order."""
        pending = self.open[envs]
        j, s = np.nonzero(pending & ~cut[:, None])  # the game ended: the potential after it is 0
        i = envs[j]
        self._complete(buffer, i, s, self.reward[i, s] - self.potential[i, s], done=True)
        j, s = np.nonzero(pending & cut[:, None])  # cut: bootstrap on the value at the cut, keep the potential
        if j.size:
            i = envs[j]
            reward = self.reward[i, s] + (self.gamma * cut_potential[j, s] - self.potential[i, s])
            self._complete(buffer, i, s, reward, next_value=values(cut_obs[j, s]), cut=True)
        self.open[envs] = False

    def decide(
        self,
        buffer: RolloutBuffer,
        envs: np.ndarray,
        seats: np.ndarray,
        obs: np.ndarray,
        packed: np.ndarray,
        actions: np.ndarray,
        logps: np.ndarray,
        values: np.ndarray,
        potentials: np.ndarray,
    ) -> None:
        """The learner decides for ``seats`` of ``envs`` (one seat per env): each one's pending decision completes
        with the new decision's value and potential, and the new decision is pending."""
        previous = np.flatnonzero(self.open[envs, seats])
        i, s = envs[previous], seats[previous]
        reward = self.reward[i, s] + (self.gamma * potentials[previous] - self.potential[i, s])
        self._complete(buffer, i, s, reward, next_value=values[previous])
        self.open[envs, seats] = True
        self.obs[envs, seats] = obs
        self.packed[envs, seats] = packed
        self.action[envs, seats] = actions
        self.logp[envs, seats] = logps
        self.value[envs, seats] = values
        self.potential[envs, seats] = potentials
        self.reward[envs, seats] = 0.0

    def _complete(
        self,
        buffer: RolloutBuffer,
        i: np.ndarray,
        s: np.ndarray,
        reward: np.ndarray,
        next_value: np.ndarray | float = 0.0,
        done: bool = False,
        cut: bool = False,
    ) -> None:
        """The pending decisions of seats ``s`` of envs ``i`` to the buffer, with their reward and what followed."""
        if len(i) == 0:
            return
        buffer.add(
            self.obs[i, s],
            self.packed[i, s],
            env=i,
            seat=s,
            action=self.action[i, s],
            logp=self.logp[i, s],
            value=self.value[i, s],
            reward=reward,
            done=done,
            next_value=next_value,
            potential=self.potential[i, s],
            cut=cut,
        )

    # ----- reading and saving it ------------------------------------------------------------------------------
    def pending(self) -> dict[tuple[int, int], Transition]:
        """The pending decisions as records, by ``(env, seat)``."""
        return {
            (int(i), int(s)): Transition(
                self.obs[i, s].copy(),
                self.packed[i, s].copy(),
                int(self.action[i, s]),
                float(self.logp[i, s]),
                float(self.value[i, s]),
                float(self.reward[i, s]),
                potential=float(self.potential[i, s]),
            )
            for i, s in zip(*np.nonzero(self.open))
        }

    def restore(self, env: int, seat: int, t: Transition) -> None:
        """Make ``t`` the pending decision of ``seat`` in ``env`` (a resumed run)."""
        self.open[env, seat] = True
        self.obs[env, seat] = t.obs
        self.packed[env, seat] = t.packed_mask
        self.action[env, seat] = t.action
        self.logp[env, seat] = t.logp
        self.value[env, seat] = t.value
        self.potential[env, seat] = t.potential
        self.reward[env, seat] = t.reward
