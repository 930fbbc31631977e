"""Policy/value networks, chosen from the observation's shape and the game's action layout.

* Flat observations: an MLP trunk with a dense policy head and a value head.
* The value head gives one value (PPO; search-guided training of two-player zero-sum games) or, with the spec's
  ``value_outputs`` = number of seats, one value per seat in the observation's seat order (me first).
* ``(C, H, W)`` planes (hex canvases in their square embedding, grids): a conv trunk. Each layer is a 3x3 conv,
  a ReLU, and a *global-pooling bias* (the layer's channel means through a linear layer, added to every cell),
  so that a cell's features also see the whole board (a slide along a hex ray can cross the board). The value
  head reads the channel means and maxima, and the game's global features where it has them (``global_planes``:
  the observation's last planes are constants, read as a vector).
* Per-cell action head: where the flat action space is cells x choices, a 1x1 conv gives ``K`` logits per cell
  and a fixed index table gathers them into the flat action order. The table comes from
  :func:`action_layout`: ``(num_actions, 2)`` rows of (cell index into the flattened ``H x W`` plane, channel);
  a row ``(-1, j)`` marks an action that belongs to no cell (a pass), scored from the pooled features.
  This keeps Battle Sheep's 25k-action head at 3k weights, where a dense layer would need millions.

Initialisation as in the reference PPO implementations: orthogonal weights (gain sqrt(2) in the trunk, 0.01
on the policy output, 1 on the value output), zero biases.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np
import torch
from torch import nn

from envs.common.game import Game


def layer_init(layer: nn.Module, std: float = math.sqrt(2), bias: float = 0.0) -> nn.Module:
    """Orthogonal weights with gain ``std``, constant bias: the PPO reference initialisation."""
    nn.init.orthogonal_(layer.weight, std)
    nn.init.constant_(layer.bias, bias)
    return layer


# ----- action layouts ------------------------------------------------------------------------------------
def action_layout(game: Game) -> np.ndarray | None:
    """``game.action_layout()`` checked against the observation, or None when the game has no per-cell layout."""
    layout = game.action_layout()
    if layout is None:
        return None
    layout = np.asarray(layout, dtype=np.int64)
    shape = tuple(game.observation_shape)
    if layout.shape != (game.num_actions, 2) or len(shape) != 3 or layout[:, 0].min() < -1 \
            or layout[:, 0].max() >= shape[1] * shape[2] or layout[:, 1].min() < 0:
        raise ValueError(f"{game.name}: action layout of shape {layout.shape} does not fit "
                         f"{game.num_actions} actions over observation {shape}")
    return layout


# ----- networks ------------------------------------------------------------------------------------------
class MLPNet(nn.Module):
    """Flattened observation -> ReLU MLP -> policy logits and value."""

    def __init__(self, obs_shape: tuple[int, ...], num_actions: int, hidden: int = 256, layers: int = 2,
                 value_outputs: int = 1):
        super().__init__()
        size = int(np.prod(obs_shape))
        trunk: list[nn.Module] = [nn.Flatten()]
        for _ in range(layers):
            trunk += [layer_init(nn.Linear(size, hidden)), nn.ReLU()]
            size = hidden
        self.trunk = nn.Sequential(*trunk)
        self.policy = layer_init(nn.Linear(size, num_actions), std=0.01)
        self.value = layer_init(nn.Linear(size, value_outputs), std=1.0)
        self.value_outputs = value_outputs

    def forward(self, obs: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        """``(logits (B, A), value (B,))``; with ``value_outputs`` k > 1 the values are ``(B, k)``."""
        h = self.trunk(obs)
        return self.policy(h), _values(self.value(h), self.value_outputs)

    def scores(self, obs: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor, None]:
        """``(logits, value, None)``: the interface of :meth:`ConvNet.scores` (here the scores are the logits)."""
        logits, value = self(obs)
        return logits, value, None


def _values(out: torch.Tensor, value_outputs: int) -> torch.Tensor:
    """``(B,)`` for a single value output (PPO's scalar value), else ``(B, value_outputs)``."""
    return out.squeeze(-1) if value_outputs == 1 else out


class ConvLayer(nn.Module):
    """3x3 conv + ReLU + a global-pooling bias; residual when the channel count is unchanged."""

    def __init__(self, in_channels: int, channels: int):
        super().__init__()
        self.conv = layer_init(nn.Conv2d(in_channels, channels, 3, padding=1))
        self.pool_bias = layer_init(nn.Linear(channels, channels), std=1.0)
        self.residual = in_channels == channels

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        h = torch.relu(self.conv(x))
        h = h + self.pool_bias(h.mean(dim=(2, 3)))[:, :, None, None]
        return x + h if self.residual else h


class ConvNet(nn.Module):
    """Conv trunk over (C, H, W) planes; a per-cell policy head (with a layout) or a dense one."""

    def __init__(self, obs_shape: tuple[int, ...], num_actions: int, channels: int = 32, layers: int = 4,
                 hidden: int = 256, layout: np.ndarray | None = None, value_outputs: int = 1,
                 global_planes: int = 0):
        super().__init__()
        c_in, height, width = obs_shape
        self.value_outputs = value_outputs
        self.global_planes = int(global_planes)
        """The observation's last ``global_planes`` planes are constants (a game's global features, e.g.
        Bestiarium's scoring cascade): read as one vector, they go straight into the value head and the global
        (pass) logits beside the pooled trunk features, as well as through the trunk's convolutions."""
        pooled_width = 2 * channels + self.global_planes
        self.trunk = nn.Sequential(*[ConvLayer(c_in if i == 0 else channels, channels) for i in range(layers)])
        self.per_cell = layout is not None
        if layout is not None:
            on_cell = layout[:, 0] >= 0
            choices = int(layout[on_cell, 1].max()) + 1
            self.policy = layer_init(nn.Conv2d(channels, choices, 1), std=0.01)
            num_global = int(layout[~on_cell, 1].max()) + 1 if (~on_cell).any() else 0
            self.global_policy = (layer_init(nn.Linear(pooled_width, num_global), std=0.01)
                                  if num_global else None)
            # flat index of each action (in action order) into the cell-major (H*W, choices) logits followed by
            # the global logits
            index = np.where(on_cell, layout[:, 0] * choices + layout[:, 1],
                             choices * height * width + layout[:, 1])
            self.register_buffer("action_index", torch.as_tensor(index, dtype=torch.long), persistent=False)
        else:
            self.policy = nn.Sequential(
                layer_init(nn.Conv2d(channels, 8, 1)), nn.ReLU(), nn.Flatten(),
                layer_init(nn.Linear(8 * height * width, hidden)), nn.ReLU(),
                layer_init(nn.Linear(hidden, num_actions), std=0.01),
            )
        self.value = nn.Sequential(
            layer_init(nn.Linear(pooled_width, hidden)), nn.ReLU(),
            layer_init(nn.Linear(hidden, value_outputs), std=1.0),
        )

    def scores(self, obs: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor | None]:
        """``(scores, value (B,) or (B, value_outputs), columns)``: action ``a``'s logit is
        ``scores[:, columns[a]]`` (``columns`` None: the scores are the logits). With the per-cell head the
        scores are the per-cell logits, cell-major ``(H*W, choices)``, then the global logits, so a caller that
        needs only the legal actions' logits gathers those few instead of all of Battle Sheep's 25k (see
        :func:`training.distribution.masked_policy`).

        The trunk runs in channels-last memory order: oneDNN's convolutions (forward and backward) are about
        twice as fast on CPU that way for these small channel counts."""
        h = self.trunk(obs.contiguous(memory_format=torch.channels_last))
        parts = [h.mean(dim=(2, 3)), h.amax(dim=(2, 3))]
        if self.global_planes:
            parts.append(obs[:, -self.global_planes:].mean(dim=(2, 3)))
        pooled = torch.cat(parts, dim=1)
        value = _values(self.value(pooled), self.value_outputs)
        if not self.per_cell:
            return self.policy(h), value, None
        flat = self.policy(h).permute(0, 2, 3, 1).flatten(1)  # cell-major: a view of channels-last planes
        if self.global_policy is not None:
            flat = torch.cat([flat, self.global_policy(pooled)], dim=1)
        return flat, value, self.action_index

    def forward(self, obs: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        """``(logits (B, A), value (B,))``."""
        scores, value, columns = self.scores(obs)
        return (scores if columns is None else scores.index_select(1, columns)), value


# ----- choosing and rebuilding --------------------------------------------------------------------------
def network_spec(config: Any, game: Game, value_outputs: int = 1) -> dict[str, Any]:
    """The architecture for ``game`` under ``config`` (network, action_head, sizes) as a JSON-safe dict.

    ``value_outputs``: 1 (a scalar value, PPO's) or one value per seat (search-guided training with more than two
    players); recorded in the spec only when it is not 1, so that specs (and checkpoints) without it still
    mean a scalar value."""
    spec = _architecture(config, game)
    if value_outputs != 1:
        spec["value_outputs"] = int(value_outputs)
    return spec


def _architecture(config: Any, game: Game) -> dict[str, Any]:
    shape = tuple(game.observation_shape)
    kind = config.network
    if kind == "auto":
        kind = "conv" if len(shape) == 3 else "mlp"
    if kind not in ("mlp", "conv"):
        raise ValueError(f"network={config.network!r}; allowed: 'auto', 'mlp', 'conv'")
    if kind == "conv" and len(shape) != 3:
        raise ValueError(f"network='conv' needs (C, H, W) observations; {game.name} has shape {shape}")
    head = config.action_head
    if head not in ("auto", "cell", "linear"):
        raise ValueError(f"action_head={head!r}; allowed: 'auto', 'cell', 'linear'")
    if kind == "mlp":
        if head == "cell":
            raise ValueError("action_head='cell' needs the conv network")
        return {"kind": "mlp", "hidden": config.hidden, "layers": config.mlp_layers}
    has_layout = action_layout(game) is not None
    if head == "cell" and not has_layout:
        raise ValueError(f"action_head='cell': {game.name} exposes no action layout")
    per_cell = has_layout if head == "auto" else head == "cell"
    spec = {"kind": "conv", "channels": config.conv_channels, "layers": config.conv_layers,
            "hidden": config.hidden, "head": "cell" if per_cell else "linear"}
    global_planes = int(getattr(game, "global_planes", 0))
    if global_planes:
        spec["global_planes"] = global_planes  # absent in older specs: no global vector
    return spec


def build_network(spec: dict[str, Any], game: Game) -> nn.Module:
    """The network of ``spec`` (from :func:`network_spec`) for ``game``'s spaces, freshly initialised."""
    shape = tuple(game.observation_shape)
    value_outputs = int(spec.get("value_outputs", 1))
    if spec["kind"] == "mlp":
        return MLPNet(shape, game.num_actions, hidden=spec["hidden"], layers=spec["layers"],
                      value_outputs=value_outputs)
    if spec["kind"] == "conv":
        layout = action_layout(game) if spec["head"] == "cell" else None
        if spec["head"] == "cell" and layout is None:
            raise ValueError(f"{game.name} exposes no action layout for a per-cell head")
        global_planes = int(spec.get("global_planes", 0))
        if not 0 <= global_planes <= shape[0]:
            raise ValueError(f"global_planes={global_planes} does not fit {shape[0]} observation planes")
        return ConvNet(shape, game.num_actions, channels=spec["channels"], layers=spec["layers"],
                       hidden=spec["hidden"], layout=layout, value_outputs=value_outputs,
                       global_planes=global_planes)
    raise ValueError(f"unknown network kind {spec.get('kind')!r}")


def num_parameters(net: nn.Module) -> int:
    """Trainable parameter count."""
    return sum(p.numel() for p in net.parameters() if p.requires_grad)
