"""Checkpoints: weights (``.pt``) + a JSON sidecar (``.json``), loading with checks, and the learned policy.

A policy checkpoint is two files side by side::

    policy.pt    torch.save({"format", "game", "spaces", "network", "model"})   loaded with weights_only=True
    policy.json  {"format", "game", "algo", "options", "spaces", "network", "config", "steps", "updates",
                  "evaluation", "weights_sha256", "torch_version", "saved_at"}

``algo`` is the algorithm that trained it (``ppo`` or ``alphazero``; sidecars without it are PPO's).

``spaces`` is the observation/action signature: observation shape and dtype, number of actions, players.
:func:`load_policy` refuses (with :class:`CheckpointError`) a checkpoint for another game, for other options or
spaces, a sidecar that does not belong to its weights, and damaged or missing files. Both files are read once each,
by :func:`training.loader.read_bounded` (regular files only, size caps, optionally confined to folders); the
weights are checked against the sidecar's checksum and loaded from the same bytes.

``resume.pt`` (in a run directory) holds what ``--resume`` needs: weights, optimiser, generators, collector.
"""

from __future__ import annotations

import hashlib
import io
import json
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np
import torch
from torch import nn

import envs
from envs.common.game import Game, Symmetry
from envs.common.policies import Decision
from training.config import TrainConfig
from training.distribution import masked_policy
from training.loader import FORMAT as FORMAT
from training.loader import MAX_WEIGHTS_BYTES, checkpoint_paths, read_bounded
from training.loader import CheckpointError as CheckpointError
from training.loader import checked_play as checked_play
from training.loader import declared_play as declared_play
from training.loader import declared_spec as declared_spec
from training.loader import play_spec as play_spec
from training.loader import read_sidecar as read_sidecar
from training.specs import PLAY_KINDS as PLAY_KINDS


def space_signature(game: Game) -> dict[str, Any]:
    """The observation/action signature a network depends on."""
    return {
        "observation_shape": [int(d) for d in game.observation_shape],
        "observation_dtype": np.dtype(game.observation_dtype).name,
        "num_actions": int(game.num_actions),
        "num_players": int(game.num_players),
    }


_paths = checkpoint_paths


def _sha256(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def save_checkpoint(
    path: str | Path,
    net: nn.Module,
    spec: dict[str, Any],
    game: Game,
    config: TrainConfig,
    steps: int,
    updates: int,
    evaluation: dict[str, Any] | None = None,
) -> Path:
    """Write ``<path>.pt`` and ``<path>.json``; returns the ``.pt`` path."""
    weights, sidecar = _paths(path)
    weights.parent.mkdir(parents=True, exist_ok=True)
    signature = space_signature(game)
    settings = config.to_dict() if hasattr(config, "to_dict") else dict(config)
    state = {k: v.detach().clone() for k, v in net.state_dict().items()}
    tmp = weights.with_suffix(".pt.tmp")
    torch.save({"format": FORMAT, "game": game.name, "spaces": signature, "network": spec, "model": state}, tmp)
    tmp.replace(weights)
    meta = {
        "format": FORMAT,
        "game": game.name,
        "algo": settings.get("algo", "ppo"),
        "options": game.options(),
        "spaces": signature,
        "network": spec,
        "config": settings,
        "steps": int(steps),
        "updates": int(updates),
        "evaluation": evaluation or {},
        "weights_sha256": _sha256(weights),
        "torch_version": torch.__version__,
        "saved_at": time.strftime("%Y-%m-%dT%H:%M:%S"),
    }
    write_sidecar(sidecar, meta)
    return weights


def write_sidecar(path: str | Path, meta: dict[str, Any]) -> None:
    """Write ``meta`` as the JSON sidecar of the checkpoint at ``path`` (either file, or their stem)."""
    _paths(path)[1].write_text(json.dumps(meta, indent=1) + "\n")


def load_network(
    path: str | Path,
    game: str | None = None,
    options: dict[str, Any] | None = None,
    folders: Sequence[Path] | None = None,
) -> tuple[nn.Module, dict[str, Any], Game]:
    """``(network in eval mode, sidecar, game)`` of a checkpoint, checked against ``game`` and ``options``.

    ``options`` (partial ones are completed with the game's defaults) must give the options it was trained
    with; ``None`` takes the checkpoint's own. Both files are read by :func:`training.loader.read_bounded`
    (``folders``: only from inside them, both files, as named and once every link is followed).
    """
    from training.networks import build_network

    weights, _ = _paths(path)
    meta = read_sidecar(path, folders)
    name = meta.get("game")
    if game is not None and game != name:
        raise CheckpointError(f"{weights} is a checkpoint for {name!r}, not for {game!r}")
    raw = read_bounded(weights, MAX_WEIGHTS_BYTES, "checkpoint weights file", folders)
    if meta.get("weights_sha256") and meta["weights_sha256"] != hashlib.sha256(raw).hexdigest():
        raise CheckpointError(f"{weights} does not match its sidecar (checksum differs): damaged or swapped")
    try:
        data = torch.load(io.BytesIO(raw), map_location="cpu", weights_only=True)
    except Exception as err:  # torch raises many kinds for a damaged file
        raise CheckpointError(f"checkpoint weights {weights} are damaged: {err}") from err
    if not isinstance(data, dict) or data.get("format") != FORMAT or "model" not in data:
        raise CheckpointError(f"{weights} is not a Barnyard checkpoint (format {FORMAT})")
    if data.get("game") != name or data.get("spaces") != meta.get("spaces"):
        raise CheckpointError(f"{weights} and its sidecar disagree on the game or the spaces")
    if name not in envs.GAMES:
        raise CheckpointError(f"{weights}: unknown game {name!r}; available: {', '.join(envs.GAMES)}")
    wanted = meta.get("options", {}) if options is None else options
    try:
        the_game = envs.make_game(name, **wanted)
    except (TypeError, ValueError) as err:
        raise CheckpointError(f"{weights}: options {wanted!r} are not valid for {name}: {err}") from err
    normal = json.loads(json.dumps(the_game.options()))
    if options is not None and normal != meta.get("options"):
        raise CheckpointError(f"{weights} was trained on {name} with options {meta.get('options')!r}, not {normal!r}")
    if space_signature(the_game) != data["spaces"]:
        raise CheckpointError(
            f"{weights} expects spaces {data['spaces']!r} but {name} with options {normal!r} "
            f"has {space_signature(the_game)!r}"
        )
    try:
        net = build_network(data["network"], the_game)
        net.load_state_dict(data["model"])
    except (KeyError, TypeError, ValueError, RuntimeError) as err:
        raise CheckpointError(f"{weights}: the weights do not fit the network {data.get('network')!r}: {err}") from err
    net.eval()
    return net, meta, the_game


def init_weights_from(
    net: nn.Module, spec: dict[str, Any], path: str | Path, game: str, options: dict[str, Any]
) -> dict[str, Any]:
    """Warm start: copy the weights of the checkpoint at ``path`` into ``net`` (built from ``spec``).

    The checkpoint must be for ``game`` with ``options`` (checked as by :func:`load_network`) and have the same
    network spec; returns its sidecar.
    """
    source, meta, _ = load_network(path, game, options)
    if meta.get("network") != json.loads(json.dumps(spec)):
        raise CheckpointError(f"{path} holds the network {meta.get('network')!r}, this run builds {spec!r}")
    net.load_state_dict(source.state_dict())
    return meta


class CheckpointPolicy:
    """A trained network as an ``envs.common.policies.Policy``: reads ``Decision.observation`` and
    ``Decision.action_mask``; greedy (argmax over legal actions) or sampled from its seeded generator, at
    ``temperature`` (the legal probabilities raised to ``1 / temperature`` and renormalised; 1: as trained). A
    sampled policy is harder to exploit than the argmax of a game without chance, which always plays one line.

    ``symmetric``: where the game declares symmetries for the decision (``Game.symmetries``), the policy's
    probabilities are averaged over the position seen under each of them (one batched forward pass) before the
    argmax or the draw: test-time augmentation, the same weights. Spec ``sym:PATH`` in the harness.
    """

    def __init__(
        self,
        net: nn.Module,
        game: Game,
        greedy: bool = True,
        seed: int | None = None,
        name: str = "ppo",
        symmetric: bool = False,
        temperature: float = 1.0,
    ):
        if not (temperature > 0.0 and np.isfinite(temperature)):
            raise ValueError(f"temperature={temperature!r}; a sampled policy needs a finite temperature above 0")
        self.net = net
        self.game = game
        self.greedy = greedy
        self.temperature = float(temperature)
        self.name = name
        self.symmetric = symmetric
        self.generator = torch.Generator()
        self.reset(seed if seed is not None else 0)

    def reset(self, seed: int | None = None) -> None:
        if seed is not None:
            self.generator.manual_seed(int(seed) % 2**63)

    @torch.no_grad()
    def action_probs(self, decision: Decision) -> np.ndarray:
        """The policy's probabilities over all actions (0 on illegal ones), averaged over the symmetries if
        the policy is symmetric."""
        symmetries = self._symmetries(decision)
        if symmetries:
            return self._averaged_probs(decision, symmetries)
        return self._dist(decision).probs[0].numpy()

    def _symmetries(self, decision: Decision) -> Sequence[Symmetry]:
        if decision.game.name != self.game.name:
            raise ValueError(f"policy {self.name} plays {self.game.name}, not {decision.game.name}")
        return decision.game.symmetries(decision.info_state) if self.symmetric else ()

    def _dist(self, decision: Decision) -> Any:
        obs = torch.as_tensor(np.asarray(decision.observation, dtype=np.float32))[None]
        mask = torch.as_tensor(np.asarray(decision.action_mask)).bool()[None]
        return masked_policy(self.net, obs, mask)[0]

    def _averaged_probs(self, decision: Decision, symmetries: Sequence[Symmetry]) -> np.ndarray:
        """Mean over the symmetries of the policy's probabilities in the turned position, mapped back."""
        obs = np.asarray(decision.observation, dtype=np.float32)
        mask = np.asarray(decision.action_mask)
        turned_obs = torch.as_tensor(np.stack([sym.observation(obs) for sym in symmetries]))
        turned_mask = torch.as_tensor(np.stack([sym.mask(mask) for sym in symmetries])).bool()
        probs = masked_policy(self.net, turned_obs, turned_mask)[0].probs.numpy()
        return np.mean([probs[i][sym.actions] for i, sym in enumerate(symmetries)], axis=0)

    @torch.no_grad()
    def act(self, decision: Decision) -> int:
        symmetries = self._symmetries(decision)
        if symmetries:
            probs = torch.as_tensor(self._averaged_probs(decision, symmetries), dtype=torch.float64)
            if self.greedy:
                return int(probs.argmax())
            return int(torch.multinomial(self._tempered(probs), 1, generator=self.generator)[0])
        dist = self._dist(decision)
        if self.greedy:
            return int(dist.mode()[0])
        if self.temperature == 1.0:
            return int(dist.sample(self.generator)[0])
        probs = torch.as_tensor(dist.probs[0], dtype=torch.float64)
        return int(torch.multinomial(self._tempered(probs), 1, generator=self.generator)[0])

    def _tempered(self, probs: torch.Tensor) -> torch.Tensor:
        """``probs ** (1 / temperature)``, renormalised (in log space: a low temperature does not underflow to
        all zeros); illegal actions (probability 0) stay 0."""
        if self.temperature == 1.0:
            return probs
        logits = torch.where(probs > 0, torch.log(probs) / self.temperature, torch.full_like(probs, -torch.inf))
        return torch.softmax(logits, dim=0)


def load_policy(
    path: str | Path,
    game: str | None = None,
    options: dict[str, Any] | None = None,
    greedy: bool = True,
    seed: int | None = None,
    symmetric: bool = False,
    temperature: float = 1.0,
    folders: Sequence[Path] | None = None,
) -> CheckpointPolicy:
    """The policy of a checkpoint (``.pt``, ``.json`` or their stem). ``game``/``options``: what the caller
    will play; a checkpoint for anything else raises :class:`CheckpointError`. ``symmetric``: average over the
    game's symmetries (:class:`CheckpointPolicy`); a game that declares none raises :class:`CheckpointError`.
    ``greedy=False``: sampled at ``temperature``. ``folders``: as :func:`load_network`'s."""
    net, meta, the_game = load_network(path, game, options, folders)
    if symmetric and not the_game.has_symmetries:
        raise CheckpointError(f"{the_game.name} declares no symmetries to average a policy over")
    prefix = ("ppo-sym" if symmetric else "ppo") + ("" if greedy else f"-sampled@{temperature:g}")
    return CheckpointPolicy(
        net,
        the_game,
        greedy=greedy,
        seed=seed,
        symmetric=symmetric,
        name=f"{prefix}:{Path(path).with_suffix('').name}",
        temperature=temperature,
    )


# ----- resume files ---------------------------------------------------------------------------------------
def save_resume(path: str | Path, payload: dict[str, Any]) -> None:
    """Write a resume file atomically."""
    path = Path(path)
    tmp = path.with_suffix(".pt.tmp")
    torch.save({"format": FORMAT, **payload}, tmp)
    tmp.replace(path)


def _read_resume(path: str | Path) -> tuple[Path, dict[str, Any]]:
    """Load a resume file (or a run directory holding ``resume.pt``); CheckpointError if it is not one."""
    path = Path(path)
    if path.is_dir():
        path = path / "resume.pt"
    try:
        data = torch.load(path, map_location="cpu", weights_only=True)
    except FileNotFoundError as err:
        raise CheckpointError(f"no resume file at {path}") from err
    except Exception as err:
        raise CheckpointError(f"resume file {path} is damaged: {err}") from err
    if not isinstance(data, dict) or data.get("format") != FORMAT or "config" not in data:
        raise CheckpointError(f"{path} is not a Barnyard resume file")
    return path, data


def load_resume(path: str | Path, config: TrainConfig, game: Game) -> dict[str, Any]:
    """A resume file (or a run directory holding ``resume.pt``), checked against ``config``'s game/options."""
    path, data = _read_resume(path)
    saved = data["config"]
    if saved.get("game") != config.game:
        raise CheckpointError(f"{path} resumes a {saved.get('game')!r} run, not {config.game!r}")
    saved_game = envs.make_game(config.game, **saved.get("env_options", {}))
    if saved_game.options() != game.options():
        raise CheckpointError(f"{path} was trained with options {saved_game.options()!r}, not {game.options()!r}")
    return data


def resume_config(path: str | Path) -> dict[str, Any]:
    """The config dict saved in a resume file (or run directory)."""
    _, data = _read_resume(path)
    return dict(data["config"])
