"""Boaring: feed the animals of the savanna with hidden, simultaneous food bids (2-10 players).

=====================  ==========================================================================================
Import                 ``from envs import boaring_v0``; ``boaring_v0.env(num_players=4)``; the parallel view
                       ``boaring_v0.parallel_env(num_players=4)`` (one step = one simultaneous bid)
Options                ``num_players``, ``reward``, ``render_mode``: the Options section below
Agents                 ``player_0 .. player_{n-1}`` in clockwise order; ``player_0`` is the first active player
Action space           ``Discrete(14 + 3 (n - 1))``: 0-9 play food value 1-10; 10 do not eat; 11-13 a living
                       hyena eats a boar / hyena / lion from its owner's graveyard; 14 + 3 (o - 1) + t a living
                       lion eats type t from the savanna of the player o seats after the eater (clockwise)
Observation            ``{"observation": float32[68 + 22 n], "action_mask": int8[num_actions]}`` from the
                       observer's seat (others in turn order after it): own hand, own pending card, phase,
                       animal, requirement, who is active / to move / has committed (not what), the last reveal,
                       every player's savanna, graveyard, hand size and score, discard counts, animals left,
                       eaten animals, food pile size. Nothing of another player's hand or pending card.
Turn order (AEC)       Each round: the active player commits a card first, then the others clockwise; no
                       observation shows a committed card until all are in, then all are revealed together. A
                       living hyena / lion with a target gives its receiver one extra eat decision.
Rewards                terminal only, zero-sum. ``"pairwise"``: each seat gets (seats it beats - seats that beat
                       it) / (n - 1) over rank keys (score, savanna boars, lions, hyenas), so a sole winner gets
                       +1 and tied seats share. ``"score"``: final score minus the mean score.
Notation               ``play 7``, ``no eat``, ``eat boar`` (hyena), ``eat lion of p2`` (lion; absolute seat)
Global state           ``env.state()`` (AEC and Parallel; ``state_space``): **privileged**, for centralised
                       critics only: player_0's observation, a one-hot of the seat to move, every seat's hand
                       (n x 10, / 7) and face-down card of the round (n x 10 one-hot); float32[68 + 43 n]
=====================  ==========================================================================================

Options
    .. options: generated from OPTIONS in rules.py by ``python -m envs.common.options``; do not edit
    ``num_players``: 2 .. 10; default ``4``. Players, in clockwise order.
    ``reward``: ``"pairwise"`` | ``"score"``; default ``"pairwise"``. "pairwise": each seat gets (seats it beats - seats
        that beat it) / (n-1) over the rank keys (score, savanna boars, lions, hyenas); "score": final score minus the
        mean score.
    ``render_mode`` (the env only): ``None`` (default) | ``"human"`` | ``"ansi"`` | ``"rgb_array"``.
    .. end of options

The observation's blocks, in order (relative seat k is the player k seats after the observer, clockwise; the
details and scales in ``envs/boaring/observation.py``):

================  ======  ==============================================================================
block             size    content
================  ======  ==============================================================================
hand              10      my food cards: count of value v at index v-1, / 7
my_pending        10      one-hot of the card I committed this round
phase             3       one-hot bid, eat, game over
animal            3       one-hot type of the animal on the table
requirement       10      one-hot value of the turned food card
active            n       one-hot relative seat of the active player (once over: the last round's)
to_move           n       one-hot relative seat of the player to act
committed         n       1 per relative seat that has committed a card this round (not what)
last_played       n x 10  the last reveal: row k one-hot of the card of relative seat k
last_animal       3       one-hot type of the animal of the last reveal
last_outcome      2       one-hot lived, died
last_receiver     n       one-hot relative seat that received the last animal
last_requirement  10      one-hot food card value of the last revealed round
players           n x 8   per relative seat: savanna boars, hyenas, lions, graveyard boars, hyenas, lions,
                          hand size, score
discard           10      discard pile count per value / 7
animals_left      3       animal deck by type
eaten             3       eaten animals by type
pile_size         1       food pile size / 70
================  ======  ==============================================================================

``raw_env`` raises :class:`~envs.common.game.IllegalActionError` on an illegal action; ``env()`` adds
PettingZoo's standard wrappers (an illegal move ends the game with -1 to the mover), and ``parallel_env()`` the
same convention for a parallel step. The rules as implemented,
every reading and the encodings in detail: ``envs/boaring/RULES.md``.

Version history:

=======  ==========  ===================================================================================
version  package     changes
=======  ==========  ===================================================================================
v0       0.1.0       first release
v0       unreleased  ``state()`` returns the privileged global state (it raised NotImplementedError);
                     observations, actions, rewards and dynamics unchanged, so the version stays v0
v0       unreleased  ``parallel_env()`` ends the game with -1 to the sender of an action outside its mask
                     (it raised ``IllegalActionError``), as ``env()`` does; legal play unchanged, so the
                     version stays v0
=======  ==========  ===================================================================================
"""

from __future__ import annotations

from typing import Any, ClassVar

import numpy as np
from gymnasium import spaces
from gymnasium.utils import seeding
from pettingzoo import ParallelEnv

from envs.boaring import actions as A
from envs.boaring.observation import observation_layout
from envs.boaring.rules import BID, EAT, OVER, BoaringGame, BoaringState
from envs.common.aec import BarnyardAECEnv, agent_name, render_game
from envs.common.game import Game, IllegalActionError


class raw_env(BarnyardAECEnv):
    """The Boaring AEC env without wrappers."""

    metadata: ClassVar[dict] = {**BarnyardAECEnv.metadata, "name": "boaring_v0"}
    game_class = BoaringGame

    @classmethod
    def observation_bounds(cls, game: Game) -> tuple[Any, Any]:
        """Each entry's bounds as the observation layout scales it."""
        layout = observation_layout(game.num_players)
        return layout.low, layout.high


class BoaringParallelEnv(ParallelEnv):
    """A PettingZoo Parallel view of Boaring: one parallel step is one simultaneous bid.

    Boaring's bid is a true simultaneous move, so it maps onto ``ParallelEnv`` directly:

    * bid step: every agent sends one food card (its mask = the values in its own hand); the cards are committed
      to the engine in the AEC order (the active player first, then clockwise) and revealed together, exactly as
      the AEC env would do with the same actions;
    * eat step (only after a living hyena or lion with a target): the receiver chooses what it eats; every other
      agent's mask holds only action 10 (``NO_EAT``), a no-op; their action may also be left out.

    The AEC env (:class:`raw_env`) stays the reference: both drive the same engine, and the same seed and
    the same bids give the same game. Rewards are terminal and zero-sum as in the AEC env; at the end every agent
    is terminated at once and ``agents`` becomes empty. Illegal actions raise
    :class:`~envs.common.game.IllegalActionError` before anything changes; ``parallel_env()`` wraps this class so
    that an illegal action ends the game with -1 to its sender instead, as ``env()`` does
    (:class:`~envs.common.parallel.TerminateIllegalParallelWrapper`).
    """

    metadata: ClassVar[dict[str, Any]] = {
        "render_modes": ["human", "ansi", "rgb_array"],
        "name": "boaring_parallel_v0",
        "is_parallelizable": True,
        "render_fps": 2,
    }

    def __init__(self, render_mode: str | None = None, **options: Any):
        if render_mode is not None and render_mode not in self.metadata["render_modes"]:
            raise ValueError(
                f"render_mode={render_mode!r} is not supported; allowed: None, "
                + ", ".join(repr(m) for m in self.metadata["render_modes"])
            )
        self.render_mode = render_mode
        self.game = game = BoaringGame(**options)
        self.possible_agents = [agent_name(i) for i in range(game.num_players)]
        self.agents: list[str] = []
        self.seat_of = {a: i for i, a in enumerate(self.possible_agents)}
        """Each agent's seat in the engine, as the AEC env's ``seat_of``."""
        layout = observation_layout(game.num_players)
        obs_space = spaces.Dict(
            {
                "observation": spaces.Box(
                    low=layout.low, high=layout.high, shape=game.observation_shape, dtype=np.float32
                ),
                "action_mask": spaces.Box(low=0, high=1, shape=(game.num_actions,), dtype=np.int8),
            }
        )
        self.observation_spaces = {a: obs_space for a in self.possible_agents}
        self.action_spaces = {a: spaces.Discrete(game.num_actions) for a in self.possible_agents}
        low, high = game.global_state_bounds()
        self.state_space = spaces.Box(low=low, high=high, shape=game.global_state_shape, dtype=np.float32)
        """The space of :meth:`state` (the privileged global state)."""
        self._noop_mask = np.zeros(game.num_actions, dtype=np.int8)
        self._noop_mask[A.NO_EAT] = 1
        self.np_random, self.np_random_seed = seeding.np_random(None)
        self.game_state: BoaringState | None = None

    def observation_space(self, agent: str) -> spaces.Space:
        return self.observation_spaces[agent]

    def action_space(self, agent: str) -> spaces.Space:
        return self.action_spaces[agent]

    def _mask(self, seat: int) -> np.ndarray:
        """What ``seat`` may send in the current parallel step."""
        state = self.game_state
        if state.phase == BID:
            mask = np.zeros(self.game.num_actions, dtype=np.int8)
            for i, c in enumerate(state.hands[seat]):
                if c > 0:
                    mask[i] = 1
            return mask
        if state.phase == EAT:
            return self.game.legal_mask(state) if seat == state.eater else self._noop_mask.copy()
        return np.zeros(self.game.num_actions, dtype=np.int8)

    def _observations(self) -> dict[str, dict[str, np.ndarray]]:
        return {
            a: {"observation": self.game.observation(self.game_state, s), "action_mask": self._mask(s)}
            for a, s in self.seat_of.items()
        }

    def reset(self, seed: int | None = None, options: dict[str, Any] | None = None):
        """Start a new game; returns (observations, infos)."""
        if seed is not None:
            self.np_random, self.np_random_seed = seeding.np_random(seed)
        self.game_state = self.game.initial_state(self.np_random)
        self.agents = self.possible_agents[:]
        return self._observations(), {a: {} for a in self.agents}

    def step(self, actions: dict[str, Any]):
        """One simultaneous bid (or one eat decision); returns (obs, rewards, terminations, truncations, infos)."""
        if not self.agents:
            raise IllegalActionError("the game is over; call reset()")
        if not isinstance(actions, dict):
            raise ValueError(f"actions must be a dict from agent name to action, not {type(actions).__name__}")
        unknown = [agent for agent in actions if agent not in self.seat_of]
        if unknown:
            raise ValueError(
                f"unknown agent(s) {', '.join(map(repr, unknown))}; the agents are {', '.join(self.agents)}"
            )
        game, state, n = self.game, self.game_state, self.game.num_players
        if state.phase == BID:
            bids = {}
            for agent in self.agents:
                if actions.get(agent) is None:
                    raise IllegalActionError(f"{agent} must bid a food card in this step")
                action = game.check_action_range(actions[agent])
                if not self._mask(self.seat_of[agent])[action]:
                    raise IllegalActionError(
                        f"{agent}: action {action} ({A.to_str(action, self.seat_of[agent], n)}) is not a card "
                        "in its hand"
                    )
                bids[self.seat_of[agent]] = action
            for k in range(n):  # the AEC commit order: active first, then clockwise
                game.apply(state, bids[(state.active + k) % n], self.np_random)
        else:  # EAT: only the receiver of the living hyena / lion decides
            assert state.phase == EAT
            eater = agent_name(state.eater)
            for agent, action in actions.items():
                if agent != eater and action is not None and game.check_action_range(action) != A.NO_EAT:
                    raise IllegalActionError(f"{agent} does not act in this eat step; send {A.NO_EAT} (no-op)")
            if actions.get(eater) is None:
                raise IllegalActionError(f"{eater} must decide what to eat in this step")
            game.apply(state, actions[eater], self.np_random)
        obs = self._observations()
        done = state.phase == OVER
        returns = game.returns(state)
        rewards = {a: float(returns[s]) for a, s in self.seat_of.items()}
        terminations = {a: done for a in self.possible_agents}
        truncations = {a: False for a in self.possible_agents}
        infos = {a: {} for a in self.possible_agents}
        if done:
            self.agents = []
        return obs, rewards, terminations, truncations, infos

    def state(self) -> np.ndarray:
        """PettingZoo's global state, as in the AEC env: a **privileged** view with every hand and face-down
        card (:meth:`~envs.boaring.rules.BoaringGame.global_state`), for centralised critics only. Reading it
        changes nothing; RuntimeError before reset()."""
        if self.game_state is None:
            raise RuntimeError("call reset() before state()")
        return self.game.global_state(self.game_state)

    def render(self) -> str | np.ndarray | None:
        """The spectator's picture: every hand and face-down bid shown (labelled so)."""
        return render_game(self.game, self.game_state, self.render_mode)

    def render_for(self, agent: str) -> str | np.ndarray | None:
        """The picture ``agent`` may see (its own hand and bid, the public table), in this env's render_mode."""
        if agent not in self.seat_of:
            raise ValueError(f"unknown agent {agent!r}; agents are {', '.join(self.possible_agents)}")
        return render_game(self.game, self.game_state, self.render_mode, observer=self.seat_of[agent])

    def close(self) -> None:
        pass


__all__ = ["BoaringParallelEnv"]
