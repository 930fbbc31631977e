"""The project's networks as an RLlib ``RLModule``, and its export to Barnyard's checkpoint format.

:class:`BarnyardRLModule` holds exactly the network ``barnyard train`` builds for the game
(:func:`training.networks.network_spec` over the game's PPO defaults: the hex network for Battle Sheep, the conv
network with per-cell head for Bestiarium, MLPs for Beasty Borders and Boaring), reads the dict observation of
:class:`training.scale.rllib_env.BarnyardMultiAgentEnv` (``observations`` and ``action_mask``) and sets every
illegal action's logit to the float minimum, so that RLlib's categorical distribution never draws one. Its value
head answers RLlib's ``ValueFunctionAPI`` (PPO's critic) from the same forward pass.

``model_config``: ``game`` (required), ``options`` (the game's options), ``network`` (a network spec; default: the
game's ``barnyard train`` network) and ``train`` (``TrainConfig`` overrides that shape the default network, e.g.
``{"hidden": 128}``, and ``init_from``: start from a Barnyard checkpoint's weights, as ``barnyard train
--init-from`` does).

:func:`export_policy` writes the module's network as ``policy.pt`` + ``policy.json`` (the sidecar with the game,
options, spaces and network spec), which every ``barnyard`` command takes (``evaluate``, ``rate``, ``exploit``,
``play``, ``serve``); :func:`export_rllib_checkpoint` does it from an RLlib checkpoint folder
(``algo.save_to_path()``), and ``python -m training.scale.rllib_module RLLIB_CHECKPOINT OUT [--module main]``
from the shell.
"""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

import torch
from ray.rllib.core.columns import Columns
from ray.rllib.core.rl_module.apis.value_function_api import ValueFunctionAPI
from ray.rllib.core.rl_module.rl_module import RLModuleSpec
from ray.rllib.core.rl_module.torch.torch_rl_module import TorchRLModule

import envs
from training.checkpoint import init_weights_from, save_checkpoint
from training.config import TrainConfig, make_config
from training.networks import build_network, network_spec
from training.scale.rllib_env import MASK_KEY, OBS_KEY

ILLEGAL_LOGIT = torch.finfo(torch.float32).min
"""The logit of a masked-out action (RLlib's masking convention, ``FLOAT_MIN``): its probability is exactly 0."""


def module_network(model_config: dict[str, Any]) -> tuple[dict[str, Any], TrainConfig]:
    """``(network spec, the TrainConfig it came from)`` of a module's ``model_config`` (module docstring)."""
    game_name = model_config.get("game")
    if game_name not in envs.GAMES:
        raise ValueError(f"model_config needs 'game' (one of {', '.join(envs.GAMES)}), got {game_name!r}")
    options = dict(model_config.get("options") or {})
    config = make_config(game_name, env_options=options, **dict(model_config.get("train") or {}))
    spec = model_config.get("network") or network_spec(config, envs.make_game(game_name, **options))
    return dict(spec), config


class BarnyardRLModule(TorchRLModule, ValueFunctionAPI):
    """A Barnyard network behind RLlib's RLModule API (module docstring)."""

    def setup(self) -> None:
        config = dict(self.model_config or {})
        self.network_spec, self.train_config = module_network(config)
        self.game_name = str(config["game"])
        self.game_options = dict(config.get("options") or {})
        game = envs.make_game(self.game_name, **self.game_options)
        self.net = build_network(self.network_spec, game)
        if self.train_config.init_from:  # a warm start, as barnyard train's --init-from
            init_weights_from(
                self.net, self.network_spec, self.train_config.init_from, self.game_name, self.game_options
            )

    def _scores(self, batch: dict[str, Any]) -> tuple[torch.Tensor, torch.Tensor]:
        obs = batch[Columns.OBS]
        logits, value = self.net(obs[OBS_KEY].to(torch.float32))
        legal = obs[MASK_KEY] > 0
        return logits.masked_fill(~legal, ILLEGAL_LOGIT), value

    def _forward(self, batch: dict[str, Any], **kwargs: Any) -> dict[str, Any]:
        logits, _ = self._scores(batch)
        return {Columns.ACTION_DIST_INPUTS: logits}

    def _forward_train(self, batch: dict[str, Any], **kwargs: Any) -> dict[str, Any]:
        # The value rides along as the "embeddings", so that PPO's critic needs no second pass (compute_values).
        logits, value = self._scores(batch)
        return {Columns.ACTION_DIST_INPUTS: logits, Columns.EMBEDDINGS: value}

    def compute_values(self, batch: dict[str, Any], embeddings: Any = None) -> torch.Tensor:
        if embeddings is not None:
            return embeddings
        return self.net(batch[Columns.OBS][OBS_KEY].to(torch.float32))[1]


def module_spec(game: str, options: dict[str, Any] | None = None, train: dict[str, Any] | None = None) -> RLModuleSpec:
    """The ``RLModuleSpec`` of a :class:`BarnyardRLModule` for ``game`` (spaces from the env at build time)."""
    return RLModuleSpec(
        module_class=BarnyardRLModule,
        model_config={"game": game, "options": dict(options or {}), "train": dict(train or {})},
    )


def export_policy(module: BarnyardRLModule, path: str | Path, steps: int = 0, updates: int = 0) -> Path:
    """Write ``module``'s network as a Barnyard checkpoint (``<path>.pt`` + ``<path>.json``); returns the ``.pt``."""
    if not isinstance(module, BarnyardRLModule):
        raise TypeError(f"export_policy takes a BarnyardRLModule, got {type(module).__name__}")
    game = envs.make_game(module.game_name, **module.game_options)
    net = module.net.to("cpu").eval()
    return save_checkpoint(path, net, module.network_spec, game, module.train_config, int(steps), int(updates))


def export_rllib_checkpoint(checkpoint: str | Path, out: str | Path, module_id: str = "main") -> Path:
    """Export module ``module_id`` of an RLlib algorithm checkpoint folder (``algo.save_to_path()``) to ``out``."""
    from ray.rllib.core.rl_module.rl_module import RLModule

    root = Path(checkpoint)
    candidates = [
        root / "learner_group" / "learner" / "rl_module" / module_id,
        root / "rl_module" / module_id,
        root,
    ]
    folder = next((c for c in candidates if (c / "class_and_ctor_args.pkl").is_file()), None)
    if folder is None:
        raise FileNotFoundError(f"{checkpoint}: no RLlib checkpoint of module {module_id!r} there")
    module = RLModule.from_checkpoint(folder)
    if not isinstance(module, BarnyardRLModule):
        raise ValueError(f"{folder}: module {module_id!r} is a {type(module).__name__}, not a BarnyardRLModule")
    return export_policy(module, out)


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description="Export an RLlib checkpoint's Barnyard module as policy.pt + .json")
    parser.add_argument("checkpoint", help="the RLlib checkpoint folder (algo.save_to_path())")
    parser.add_argument("out", help="the Barnyard checkpoint to write (policy.pt and its sidecar policy.json)")
    parser.add_argument("--module", default="main", help="the module id (default: main)")
    args = parser.parse_args(argv)
    print(export_rllib_checkpoint(args.checkpoint, args.out, args.module))


if __name__ == "__main__":
    main()
