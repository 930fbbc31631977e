"""The training configuration: one dataclass, one docstring per field, per-game defaults.

``make_config(game, **overrides)`` is the one place defaults are chosen: the dataclass defaults, for
``algo="alphazero"`` then :data:`ALPHAZERO_DEFAULTS`, then the game's own from its descriptor
(``GameInfo.ppo_defaults``, or ``alphazero_defaults``: :func:`game_defaults`), then the caller's overrides. The
CLI (``python -m training train``) exposes every field as ``--field-name value``.
"""

from __future__ import annotations

import dataclasses
import json
from dataclasses import dataclass, field
from typing import Any

import envs


@dataclass
class TrainConfig:
    """Everything a training run depends on (PPO or search-guided self-play). Saved in every checkpoint's
    sidecar."""

    # ----- what and where -------------------------------------------------------------------------------
    algo: str = "ppo"
    """``ppo`` (policy-gradient self-play, :mod:`training.ppo.loop`) or ``alphazero`` (self-play guided by a
    network-guided tree search, :mod:`training.alphazero.selfplay`; perfect-information games only, so not Boaring)."""
    game: str = "battle_sheep"
    """Game id from ``envs.GAMES``."""
    env_options: dict[str, Any] = field(default_factory=dict)
    """Options passed to the game's ``raw_env(**options)`` (e.g. ``{"num_players": 3}``)."""
    seed: int = 1
    """Seeds everything: torch, the envs, opponent draws, minibatch shuffles. Same seed, same run."""
    total_steps: int = 2_000_000
    """Learner decisions (trained samples) to collect over the whole run (alphazero: self-play positions kept
    for training, i.e. searched with the full budget)."""
    time_budget_min: float = 0.0
    """Stop once the run's time (``log.csv``'s ``time_s``: rollouts or self-play and updates, evaluations not
    counted) reaches this many minutes (0: no limit; ``total_steps`` still caps the run, and the learning rate
    anneals over whichever ends it first). A run stopped by the clock depends on the machine's speed: same seed,
    same run holds for ``total_steps``."""
    device: str = "cpu"
    """Where the network runs: ``cpu``, ``cuda``, or ``auto`` (cuda when torch sees a GPU, else cpu)."""
    out: str = ""
    """Run directory (TensorBoard events, CSV, PNG, checkpoints); empty: ``runs/<game>-s<seed>``."""

    # ----- rollouts -------------------------------------------------------------------------------------
    num_envs: int = 32
    """Games played in lockstep; the learner's decisions across them form one batched forward pass (alphazero:
    the games searched together, every simulation step evaluating one leaf of each in one forward pass)."""
    num_steps: int = 64
    """Learner decisions per env per update: an update trains on about ``num_envs * num_steps`` samples."""
    engine: str = "auto"
    """Which rule engine the rollouts step: ``reference`` (each env a raw AEC env on ``rules.py``), ``batched``
    (every env of a worker group one row of the game's compiled batched engine, ``envs/<game>/fast.py``: the same
    rules, observations and credit assignment, chance from each env's own SplitMix64 generator, so other deals
    than ``reference`` from the same seed) or ``auto`` (batched where the game has one). Same seed and engine,
    same run; a resumed run keeps the engine it was saved with."""
    num_workers: int = -1
    """Env worker processes (0: step the envs in this process; -1: by machine, 2 where it has two or more usable
    cores, else 0). With k > 0 the envs are split into k groups, one per worker; each worker steps its group (plays
    its scripted seats, builds its observations) and, with ``policy_in_workers``, runs the network for it (else
    this process runs it for one group while another steps), and the workers take their next step during the
    update, so the rollouts keep two cores busy. alphazero
    (per-game default 1): 0 or -1 searches the games in this process between gradient steps; 1 (or more)
    searches them in one worker process (one torch thread, its own copy of the network, on the CPU) while this
    process takes the gradient steps; the run is the same either way. With a GPU, 0 keeps the search's forward
    passes on it."""
    ray: str = ""
    """Run the env workers (PPO) or the self-play generators (alphazero) as Ray actors on a cluster
    (``training.scale.ray_workers``; the ``rllib`` extra): ``local`` (a Ray started on this machine, bound to
    127.0.0.1), ``auto`` (the cluster this machine belongs to) or the head's ``HOST:PORT``; the learner stays in
    this process. ``num_workers`` -1 then means one actor per cluster CPU (PPO) or one actor (alphazero). Empty:
    local worker processes, and Ray is never imported. The same seed gives the same run as local workers (for
    alphazero with one actor)."""
    policy_in_workers: bool = True
    """PPO with env workers (``num_workers`` > 0): each worker holds a copy of the learner's network and of the
    snapshot pool and answers its group's network seats itself (its own seeded sampling), so the rollouts' forward
    passes run on every worker's core while this process credits the transitions; new weights and snapshots go to
    the workers after each update, and with ``policy_lag`` 0 a decision sampled before an update is sampled again
    with the new weights (every transition's log-probability is the current policy's). False: this process runs
    the passes, one group while the other steps. Paired 40-second runs on 2 cores: +14% samples/s in Bestiarium
    and Battle Sheep, +10% in Beasty Borders, about +5% in Boaring (docs/speed.md). The run is another than
    without it (other draws)."""
    policy_lag: int = -1
    """PPO with ``policy_in_workers``: 1 lets the workers collect the next batch during the update, with the
    weights from before it (each batch is then one update behind the weights it trains: PPO's ratio starts from
    the policy that chose the actions, as it must); 0 collects every batch with the current weights, the workers
    idle during the update; -1 chooses 1 where the update runs on one thread (MLP networks, ``torch_threads``
    -1), leaving the other cores to the workers, and 0 for the conv nets, whose update uses every core. The run
    is the same for a seed and stays so across ``--resume``; lag 1 is another run than lag 0 (docs/speed.md)."""
    torch_threads: int = -1
    """Threads for torch's CPU kernels. -1: one thread for the rollouts' forward passes (the env workers use the
    other cores then), and for the update one thread where the network is an MLP (flat observations: a small
    network's update waits on any busy core; docs/speed.md) or every usable core for the conv nets; k > 0: k
    threads for both; 0: torch's default. The thread count changes the update's rounding, so runs with other
    counts are other runs."""

    # ----- PPO ------------------------------------------------------------------------------------------
    learning_rate: float = 2.5e-4
    """Adam step size at the start (annealed linearly to 0 when ``anneal_lr``)."""
    anneal_lr: bool = True
    """Anneal the learning rate linearly to 0 over ``total_steps``."""
    adam_eps: float = 1e-5
    """Adam's epsilon (1e-5 as in the reference PPO implementations, not torch's 1e-8)."""
    gamma: float = 0.99
    """Discount per decision of the same seat."""
    gae_lambda: float = 0.95
    """GAE's lambda (bias/variance trade-off of the advantage)."""
    update_epochs: int = 4
    """Passes over the batch per update."""
    num_minibatches: int = 4
    """Shuffled minibatches per epoch."""
    norm_adv: bool = True
    """Normalise advantages per minibatch (zero mean, unit std)."""
    clip_coef: float = 0.2
    """PPO's surrogate clipping range epsilon."""
    clip_vloss: bool = True
    """Clip the value update around the rollout's value estimate (same epsilon)."""
    ent_coef: float = 0.01
    """Weight of the entropy bonus (entropy over the legal actions only)."""
    vf_coef: float = 0.5
    """Weight of the value loss."""
    max_grad_norm: float = 0.5
    """Global gradient-norm clip."""
    target_kl: float = 0.0
    """Stop an update's epochs early once the approximate KL exceeds this (0: never)."""

    score_shaping: float = 0.0
    """Potential-based reward shaping (Ng, Harada & Russell 1999) from the game's running score. Each seat's
    potential is ``Phi = score_shaping * (its progress - the mean of the others')`` (``Game.shaping_potential``:
    the score, or a game's better progress measure), 0 once the game is over. A seat's transition, from its
    decision in position s to its next decision in s' (or the end of the game), is paid ``gamma * Phi(s') -
    Phi(s)`` on top of the game's rewards, so the discounted shaping of a seat's game sums to exactly
    ``-Phi(first decision)`` (``python -m lab.shaping_gap`` measures it): the objective stays the result,
    while points scored (or given away) are credited to the move that made them. A game cut by a ply cap keeps
    its potential: the shaping runs to the cut, where the learner bootstraps on its value. 0 turns it off."""

    # ----- network --------------------------------------------------------------------------------------
    network: str = "auto"
    """``auto`` (conv for (C, H, W) observations, MLP otherwise), ``mlp`` or ``conv``."""
    hidden: int = 256
    """Width of the MLP layers and of the conv net's dense layers."""
    mlp_layers: int = 2
    """Hidden layers of the MLP trunk."""
    conv_channels: int = 32
    """Channels of the conv trunk."""
    conv_layers: int = 4
    """3x3 conv layers in the conv trunk (each with a global-pooling bias, residual after the first)."""
    action_head: str = "auto"
    """``auto`` (per-cell when the game's action layout is known), ``cell`` (1x1 conv per cell gathered into
    the flat action order) or ``linear`` (a dense layer over the features)."""
    input_features: str = ""
    """Planes the conv network computes from each observation and reads beside it, by name
    (``BatchedGame.input_features``: Bestiarium's ``consequences``, what each move would do by greedy's key);
    empty: none."""

    # ----- self-play and opponents --------------------------------------------------------------------
    opponent_fraction: float = 0.2
    """Fraction of games in which only one seat is the learner and the others are opponents."""
    opponent_mix: str = "snapshot:0.6,random:0.2,greedy:0.2"
    """Weights of the opponent kinds for those games: ``snapshot`` (a past policy from the pool), ``random``
    (``RandomPolicy``), ``greedy`` (``envs.<game>.baselines.GreedyPolicy``; dropped if the game has none),
    ``policy`` (the frozen policy of ``opponent_policy``)."""
    opponent_policy: str = ""
    """The policy of the ``policy`` opponent kind (in ``opponent_mix`` and ``eval_opponents``): any spec the arena
    seats (a checkpoint path, ``greedy``, ``search:N``, ``guided:PATH``, ``first``). It plays on the reference
    engine (``engine`` ``auto`` picks it), one decision at a time; ``barnyard exploit`` trains against it."""
    snapshot_every: int = 10
    """Updates between snapshots of the learner added to the opponent pool."""
    pool_size: int = 8
    """Most snapshots kept in the pool (the oldest are dropped)."""
    init_from: str = ""
    """Warm start: a policy checkpoint (``policy.pt``) whose weights initialise the network; the optimiser, the
    learning-rate schedule and the counters start fresh (unlike ``--resume``). It must be for this game with
    these options, spaces and network, else :class:`~training.checkpoint.CheckpointError`."""
    imitate_greedy: int = 0
    """PPO warm start: before the first update, fit the network to this many positions of the game's compiled
    ``greedy`` playing itself (its moves by cross-entropy, the games' results as value targets;
    :mod:`training.ppo.warmstart`), so that the policy gradient starts at greedy's level (0: none; not with
    ``init_from`` or a resumed run). Its time counts in the run's time."""
    imitate_epochs: int = 5
    """Passes over the greedy positions of ``imitate_greedy``."""

    # ----- search-guided self-play (algo alphazero; learning_rate, adam_eps, vf_coef, max_grad_norm, anneal_lr,
    # num_envs and the network fields above apply too) -----------------------------------------------------
    search: str = "gumbel"
    """The search that plays and makes the policy targets: ``gumbel`` (Gumbel root with sequential halving, the
    completed-Q improved policy as target) or ``puct`` (AlphaZero: PUCT, Dirichlet root noise, visit counts as
    target); :mod:`training.alphazero.search`."""
    simulations: int = 16
    """Simulations per searched self-play move."""
    full_search_fraction: float = 1.0
    """Share of self-play moves searched with ``simulations`` and kept as training positions; the others are
    searched with ``fast_simulations`` and only played (KataGo's playout cap randomisation: more finished games,
    so more results for the value head, for the same compute). 1: every move is a full search."""
    fast_simulations: int = 0
    """Simulations of the moves that are not full searches (0: decided from the network's evaluation of the
    position alone: Gumbel draws from the policy, PUCT takes or draws from the prior)."""
    max_considered: int = 16
    """Gumbel: actions sampled at the root (Gumbel-top-k) for sequential halving."""
    c_visit: float = 50.0
    """Gumbel: ``sigma(q) = (c_visit + max N) * c_scale * q``'s visit offset."""
    c_scale: float = 0.1
    """Gumbel: ``sigma``'s scale."""
    q_normalisation: str = "minmax"
    """Gumbel: Q-values to [0, 1] before ``sigma``: ``minmax`` (each node's Q-values stretched over [0, 1], as
    mctx does) or ``bounds`` (the value range [-1, 1] mapped linearly, so that a small lead stays a small push).
    Bestiarium side 5, 6 min each, three runs side by side (8 simulations, network alone over 100 games):
    minmax 0.79 vs random / 0.51 vs greedy; bounds 0.63 / 0.32; bounds with c_scale 0.5: 0.70 / 0.47."""
    c_puct: float = 1.25
    """PUCT: exploration constant."""
    dirichlet_alpha: float = 0.3
    """PUCT: concentration of the Dirichlet noise on the root's prior."""
    dirichlet_fraction: float = 0.25
    """PUCT: weight of that noise."""
    temperature_plies: int = 16
    """PUCT: the first plies of every self-play game draw the move in proportion to the visit counts, later ones
    take the most visited (Gumbel explores through its root noise and plays sequential halving's choice)."""
    replay_size: int = 50_000
    """Positions kept in the replay buffer (the oldest are dropped)."""
    train_batch_size: int = 256
    """Positions per gradient step."""
    replay_ratio: float = 4.0
    """Gradient steps are taken so that each self-play position is trained on this many times on average."""
    iteration_moves: int = 8
    """Self-play moves per game between training phases (an iteration: one log row, ``eval_every`` counts
    these)."""
    weight_decay: float = 1e-4
    """AdamW's decoupled weight decay."""
    augment: bool = True
    """Turn each training position by a random symmetry of the board (``Game.symmetries``) where it has some."""
    expert: str = ""
    """Who plays the self-play moves and sets the policy targets: empty for the network-guided search, or a
    baseline of the game (``search`` or ``search:N``: for Battle Sheep and Bestiarium the compiled MCTS baseline,
    milliseconds a move). With a baseline the network learns its moves (one-hot targets) and its games' results:
    Expert Iteration's apprentice step, a fast start that a network-guided run can continue (``--init-from``)."""
    value_target_mix: float = 0.0
    """Value target: ``(1 - mix) * the game's result + mix * the search's value of the position`` (0: the result
    alone)."""

    # ----- evaluation, logging, checkpoints ----------------------------------------------------------
    eval_every: int = 20
    """Updates (alphazero: iterations) between evaluations (the greedy network alone vs each baseline) and
    checkpoints (0: only at the end)."""
    eval_games: int = 100
    """Games per baseline in each evaluation (the learner takes every seat in turn; all games run in lockstep
    with batched forward passes: about 4 s for 100 Battle Sheep games against random)."""
    eval_opponents: str = "random,greedy"
    """Baselines the periodic evaluation plays against (``greedy`` is skipped if the game has none; ``policy``:
    ``opponent_policy``)."""
    keep_checkpoints: bool = False
    """Also keep every evaluated policy as ``checkpoints/policy-<update>.pt`` (+ sidecar with its evaluation), so
    that a run whose strength swings between evaluations can be re-measured at any of them."""
    progress: bool = True
    """Show a tqdm progress bar."""

    def to_dict(self) -> dict[str, Any]:
        """A JSON-safe dict of every field."""
        return json.loads(json.dumps(dataclasses.asdict(self)))

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> TrainConfig:
        """Inverse of :meth:`to_dict`; unknown keys raise ``ValueError``."""
        names = {f.name for f in dataclasses.fields(cls)}
        unknown = set(data) - names
        if unknown:
            raise ValueError(f"unknown config fields: {', '.join(sorted(unknown))}")
        return cls(**data)

    @property
    def batch_size(self) -> int:
        """Samples per update."""
        return self.num_envs * self.num_steps

    @property
    def minibatch_size(self) -> int:
        """Samples per minibatch."""
        return max(1, self.batch_size // self.num_minibatches)


ALGOS = ("ppo", "alphazero")

POLICY = "policy"
"""The opponent kind of a frozen policy named by a spec (config ``opponent_policy``): anything the arena seats."""
SCRIPTED_KINDS = ("random", "greedy", POLICY)
"""The opponent kinds a run's ``opponent_mix`` and ``eval_opponents`` may name (played by
:mod:`training.run.opponents`)."""


def eval_opponent_kinds(config: TrainConfig) -> list[str]:
    """The kinds named by ``config.eval_opponents``; ValueError for one that cannot be played (not one of
    :data:`SCRIPTED_KINDS`, or ``policy`` without ``opponent_policy``). The CLI and both trainers call it before
    the first update, so a bad spelling stops the run there and not at its first evaluation."""
    kinds = [k.strip() for k in config.eval_opponents.split(",") if k.strip()]
    unknown = [k for k in kinds if k not in SCRIPTED_KINDS]
    if unknown:
        raise ValueError(
            f"unknown evaluation opponent {unknown[0]!r}; allowed: {', '.join(SCRIPTED_KINDS)} (a policy such as "
            f"search:N plays as 'policy' with opponent_policy set to its spec)"
        )
    if POLICY in kinds and not config.opponent_policy:
        raise ValueError("evaluation opponent 'policy' needs a policy spec (config opponent_policy)")
    return kinds


ALPHAZERO_DEFAULTS: dict[str, Any] = {
    "learning_rate": 1e-3,
    "num_workers": 1,
    "torch_threads": 1,
    "train_batch_size": 128,
    "replay_ratio": 16,
}
"""Search-guided self-play's departures from the dataclass defaults (which are PPO's where both read a field),
shared by every game; a game's descriptor (``GameInfo.alphazero_defaults``) holds only what differs for it (its
network and games searched together). 16 Gumbel simulations; each position trained on 16 times in batches of 128
(Bestiarium side 5, 6 min: replay ratio 16 and 8 gave 0.69-0.79 vs random, within the noise of 100 games); the
games are searched in one worker process while the trainer takes its gradient steps, one torch thread each."""


def game_defaults(game: str, algo: str = "ppo") -> dict[str, Any]:
    """A game's departures from the dataclass defaults for ``algo``: for ``alphazero`` :data:`ALPHAZERO_DEFAULTS`
    updated by the descriptor's ``alphazero_defaults``, for PPO the descriptor's ``ppo_defaults`` (tuned so that each
    game learns on two CPU cores; why each value: ``envs/<game>/__init__.py``). A ValueError for an unknown game."""
    info = envs.game_info(game)
    if algo == "alphazero":
        return {**ALPHAZERO_DEFAULTS, **(info.alphazero_defaults or {})}
    return dict(info.ppo_defaults)


def make_config(game: str = "battle_sheep", **overrides: Any) -> TrainConfig:
    """The config for ``game``: dataclass defaults, then the algorithm's and the game's own (:func:`game_defaults`
    for ``overrides.get("algo", "ppo")``), then ``overrides``."""
    values = game_defaults(game, overrides.get("algo", "ppo"))
    values.update(overrides)
    values["game"] = game
    return TrainConfig.from_dict(values)
