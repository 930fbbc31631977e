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
* Input features (the spec's ``input_features``, a name of ``BatchedGame.input_features``): planes the game's
  batched engine computes from the observation batch (Bestiarium's ``consequences``: what each move would do),
  read by the trunk beside the observation's per-cell planes and by the per-cell policy head beside the trunk's
  output.

Initialisation as in the reference PPO implementations: orthogonal weights (gain sqrt(2) in the trunk, 0.01
on the policy output, 1 on the value output), zero biases.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np
import torch
from torch import nn

from envs.common.game import FeaturePlanes, Game
from envs.common.vector import BatchedGame, batched_game_class
from training.config import TrainConfig


def layer_init(layer: nn.Module, std: float = math.sqrt(2), bias: float = 0.0) -> nn.Module:
    """Orthogonal weights with gain ``std``, constant bias: the PPO reference initialisation."""
    nn.init.orthogonal_(layer.weight, std)
    nn.init.constant_(layer.bias, bias)
    return layer


class PlaneFeatures:
    """A network's input features (:class:`~envs.common.game.FeaturePlanes`) computed on the CPU from a batch of
    observations. Each copy has its own computer (its own work buffers): a ``deepcopy`` of a network (a frozen
    snapshot) makes a fresh one."""

    def __init__(self, planes: FeaturePlanes):
        self.planes = planes
        self.num_planes = int(planes.num_planes)
        self.compute = planes.make()

    def __deepcopy__(self, memo: dict[int, Any]) -> PlaneFeatures:
        return PlaneFeatures(self.planes)

    def __call__(self, obs: torch.Tensor) -> torch.Tensor:
        out = self.compute(obs.detach().to("cpu", torch.float32).numpy())
        return torch.from_numpy(out).to(obs.device)


# ----- action layouts ------------------------------------------------------------------------------------
def action_layout(game: Game) -> np.ndarray | None:
    """``game.action_layout()`` checked against the observation, or None when the game has no per-cell layout."""
    layout = game.action_layout()
    if layout is None:
        return None
    layout = np.asarray(layout, dtype=np.int64)
    shape = tuple(game.observation_shape)
    if (
        layout.shape != (game.num_actions, 2)
        or len(shape) != 3
        or layout[:, 0].min() < -1
        or layout[:, 0].max() >= shape[1] * shape[2]
        or layout[:, 1].min() < 0
    ):
        raise ValueError(
            f"{game.name}: action layout of shape {layout.shape} does not fit "
            f"{game.num_actions} actions over observation {shape}"
        )
    return layout


# ----- networks ------------------------------------------------------------------------------------------
class MLPNet(nn.Module):
    """Flattened observation -> ReLU MLP -> policy logits and value."""

    def __init__(
        self, obs_shape: tuple[int, ...], num_actions: int, hidden: int = 256, layers: int = 2, value_outputs: int = 1
    ):
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


class NumpyMLP:
    """:class:`MLPNet`'s forward pass in numpy float32, a snapshot of its weights: the env workers' rollouts run
    the small networks on a few rows at a time (Boaring: about 27 learner rows a step, and one or two rows for each
    of several snapshot opponents), where torch's per-operation overhead was most of the pass (one Boaring
    network, 2 rows: 66 us in torch, 23 us here; 27 rows: 145 us, 66 us). The same arithmetic in float32 (the
    logits agree with torch's to about 1e-6)."""

    def __init__(self, net: MLPNet):
        linears = [m for m in net.trunk if isinstance(m, nn.Linear)]
        self.trunk = [(_numpy(m.weight).T.copy(), _numpy(m.bias).copy()) for m in linears]
        self.num_actions = net.policy.out_features
        self.value_outputs = net.value_outputs
        self.head_weight = np.concatenate([_numpy(net.policy.weight), _numpy(net.value.weight)]).T.copy()
        self.head_bias = np.concatenate([_numpy(net.policy.bias), _numpy(net.value.bias)])

    def scores(self, obs: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """``(logits (B, A), value (B,) or (B, value_outputs))`` float32 of observations ``(B, ...)``."""
        h = np.asarray(obs, dtype=np.float32).reshape(len(obs), -1)
        for weight, bias in self.trunk:
            h = h @ weight
            h += bias
            np.maximum(h, 0.0, out=h)
        out = h @ self.head_weight
        out += self.head_bias
        values = out[:, self.num_actions :]
        return out[:, : self.num_actions], values[:, 0] if self.value_outputs == 1 else values


def numpy_forward(net: nn.Module) -> NumpyMLP | None:
    """A :class:`NumpyMLP` of ``net``'s current weights where it is an :class:`MLPNet` on the CPU, else None."""
    if isinstance(net, MLPNet) and net.policy.weight.device.type == "cpu":
        return NumpyMLP(net)
    return None


def _numpy(t: torch.Tensor) -> np.ndarray:
    return t.detach().cpu().numpy().astype(np.float32, copy=False)


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

    def forward(self, x: torch.Tensor, bias: torch.Tensor | None = None) -> torch.Tensor:
        """``x`` (B, C, H, W) in channels-last memory, the result likewise; ``bias`` (B, channels) is added to every
        cell before the ReLU. The per-cell adds and the pooling run on ``(B, H*W, C)`` views of that memory: CPU
        elementwise kernels are several times faster on them than on broadcasts over channels-last NCHW tensors."""
        pre = self.conv(x)
        batch, channels, height, width = pre.shape
        cells = pre.permute(0, 2, 3, 1).reshape(batch, height * width, channels)
        if bias is not None:
            cells = cells + bias[:, None, :]
        cells = torch.relu(cells)
        cells = cells + self.pool_bias(cells.mean(dim=1))[:, None, :]
        if self.residual:
            cells = x.permute(0, 2, 3, 1).reshape(batch, height * width, channels) + cells
        return cells.view(batch, height, width, channels).permute(0, 3, 1, 2)


class ConvNet(nn.Module):
    """Conv trunk over (C, H, W) planes; a per-cell policy head (with a layout) or a dense one."""

    def __init__(
        self,
        obs_shape: tuple[int, ...],
        num_actions: int,
        channels: int = 32,
        layers: int = 4,
        hidden: int = 256,
        layout: np.ndarray | None = None,
        value_outputs: int = 1,
        global_planes: int = 0,
        global_input: str = "conv",
        features: FeaturePlanes | None = None,
    ):
        super().__init__()
        c_in, height, width = obs_shape
        self.features = PlaneFeatures(features) if features is not None else None
        """Input features computed from the observation: the trunk reads them after the per-cell planes, and the
        per-cell policy head beside the trunk's output (a move's logit starts from what it would do)."""
        num_extra = self.features.num_planes if self.features is not None else 0
        c_in += num_extra
        self.value_outputs = value_outputs
        self.global_planes = int(global_planes)
        """The observation's last ``global_planes`` planes are constants (a game's global features, e.g.
        Bestiarium's scoring cascade): read as one vector, they go straight into the value head and the global
        (pass) logits beside the pooled trunk features, and into the trunk (``global_input``)."""
        if global_input not in ("conv", "bias"):
            raise ValueError(f"global_input={global_input!r}; allowed: 'conv', 'bias'")
        self.global_bias = None
        """``global_input="bias"``: the global vector enters the trunk through one linear map added to every cell
        of the first layer (what a 3x3 conv of a constant plane computes away from the border), and the first
        convolution reads only the per-cell planes: Bestiarium's 38 constant planes of 56 were most of its first
        layer's work. ``"conv"`` (specs without the key): every plane through the first convolution."""
        if global_input == "bias" and self.global_planes:
            c_in -= self.global_planes
            self.global_bias = layer_init(nn.Linear(self.global_planes, channels))
        pooled_width = 2 * channels + self.global_planes
        self.trunk = nn.Sequential(*[ConvLayer(c_in if i == 0 else channels, channels) for i in range(layers)])
        self.per_cell = layout is not None
        if layout is not None:
            on_cell = layout[:, 0] >= 0
            choices = int(layout[on_cell, 1].max()) + 1
            self.policy = layer_init(nn.Conv2d(channels + num_extra, choices, 1), std=0.01)
            num_global = int(layout[~on_cell, 1].max()) + 1 if (~on_cell).any() else 0
            self.global_policy = layer_init(nn.Linear(pooled_width, num_global), std=0.01) if num_global else None
            # flat index of each action (in action order) into the cell-major (H*W, choices) logits followed by
            # the global logits
            index = np.where(on_cell, layout[:, 0] * choices + layout[:, 1], choices * height * width + layout[:, 1])
            self.register_buffer("action_index", torch.as_tensor(index, dtype=torch.long), persistent=False)
        else:
            self.policy = nn.Sequential(
                layer_init(nn.Conv2d(channels, 8, 1)),
                nn.ReLU(),
                nn.Flatten(),
                layer_init(nn.Linear(8 * height * width, hidden)),
                nn.ReLU(),
                layer_init(nn.Linear(hidden, num_actions), std=0.01),
            )
        self.value = nn.Sequential(
            layer_init(nn.Linear(pooled_width, hidden)),
            nn.ReLU(),
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
        extra = self.features(obs) if self.features is not None else None
        glob = obs[:, -self.global_planes :].mean(dim=(2, 3)) if self.global_planes else None
        bias = None
        if self.global_bias is not None:
            obs, bias = obs[:, : -self.global_planes], self.global_bias(glob)
        if extra is not None:
            obs = torch.cat([obs, extra], dim=1)
        h = obs.contiguous(memory_format=torch.channels_last)
        for i, layer in enumerate(self.trunk):
            h = layer(h, bias if i == 0 else None)
        cells = h.permute(0, 2, 3, 1).flatten(1, 2)  # (B, H*W, C): a view of the channels-last trunk output
        # max over cells by index (its gradient goes to one cell per channel): amax's gradient, shared among tied
        # cells, cost several full-size passes over the trunk's output
        parts = [cells.mean(dim=1), cells.max(dim=1).values]
        if glob is not None:
            parts.append(glob)
        pooled = torch.cat(parts, dim=1)
        value = _values(self.value(pooled), self.value_outputs)
        if not self.per_cell:
            return self.policy(h), value, None
        head_in = h if extra is None else torch.cat([h, extra], dim=1)
        flat = self.policy(head_in.contiguous(memory_format=torch.channels_last)).permute(0, 2, 3, 1).flatten(1)
        if self.global_policy is not None:
            flat = torch.cat([flat, self.global_policy(pooled)], dim=1)
        return flat, value, self.action_index

    def forward(self, obs: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        """``(logits (B, A), value (B,))``."""
        scores, value, columns = self.scores(obs)
        return (scores if columns is None else scores.index_select(1, columns)), value


class CellColumns:
    """Where each action's logit lies in a :class:`HexNet`'s scores: per row, since each row has its own cells.

    A row's scores are its cells' per-cell logits, cell after cell (``(width, choices)``, padded to the batch's
    widest row), then the global (pass) logits, then one constant 0 (for an action whose cell is outside the
    row's support: never a legal one, see :class:`~envs.common.game.CellGraph`)."""

    def __init__(
        self,
        local: torch.Tensor,
        action_cell: torch.Tensor,
        action_choice: torch.Tensor,
        choices: int,
        global_base: int,
        outside: int,
    ):
        self.local = local
        """``(B, H * W + 1)``: each cell's position among its row's support cells, -1 outside (last: no cell)."""
        self.action_cell, self.action_choice = action_cell, action_choice
        self.choices, self.global_base, self.outside = choices, global_base, outside
        self.shape = action_cell.shape

    def positions(self, actions: torch.Tensor, rows: torch.Tensor | None = None) -> torch.Tensor:
        """The score columns of ``actions``: ``(B, w)`` (row ``b``'s actions) or, with ``rows``, one per entry."""
        if rows is None:
            rows = torch.arange(actions.shape[0], device=actions.device)[:, None].expand_as(actions)
        cell = self.action_cell[actions]
        choice = self.action_choice[actions]
        local = self.local[rows, cell]
        on_cell = local * self.choices + choice
        column = torch.where(cell < self.local.shape[1] - 1, on_cell, self.global_base + choice)
        return torch.where((cell < self.local.shape[1] - 1) & (local < 0), self.outside, column)


class HexLayer(nn.Module):
    """A convolution over a graph of cells: each cell's features and its ``k`` neighbours' (zeros where a
    neighbour is absent), in a fixed direction order, through one linear layer, a ReLU and a global-pooling bias
    (the mean over the row's cells through a linear layer); residual when the width is unchanged. On a hex grid
    with six neighbours this is a hex convolution."""

    def __init__(self, in_channels: int, channels: int, neighbours: int):
        super().__init__()
        self.linear = layer_init(nn.Linear((neighbours + 1) * in_channels, channels))
        self.pool_bias = layer_init(nn.Linear(channels, channels), std=1.0)
        self.residual = in_channels == channels
        self.norm = nn.LayerNorm(in_channels) if self.residual else None
        """Pre-norm residual layers (the layer reads its input normalised per cell): without it the residual
        stream grew until PPO diverged at Battle Sheep's learning rate."""

    def forward(self, x: torch.Tensor, graph: CellBatch) -> torch.Tensor:
        y = x if self.norm is None else self.norm(x)
        h = torch.relu(self.linear(GatherNeighbours.apply(y, graph.neighbours, graph.senders)))
        h = h + self.pool_bias(graph.mean(h))[graph.rows]
        return x + h if self.residual else h


class GatherNeighbours(torch.autograd.Function):
    """``(T, C)`` -> ``(T, k * C)``: each cell's ``k`` neighbours' features (zeros where absent; the first
    "neighbour" is the cell itself, so that one gather builds a layer's whole input). Its gradient is a
    gather too (the neighbour relation is symmetric: ``j`` is ``i``'s neighbour in direction ``d`` exactly when
    ``i`` is ``j``'s in the opposite direction), where autograd's own would scatter-add, several times slower on
    the CPU."""

    @staticmethod
    def forward(ctx: Any, x: torch.Tensor, neighbours: torch.Tensor, senders: torch.Tensor) -> torch.Tensor:
        ctx.save_for_backward(senders)
        padded = torch.cat([x, x.new_zeros(1, x.shape[1])])
        return padded.index_select(0, neighbours.flatten()).view(x.shape[0], -1)

    @staticmethod
    def backward(ctx: Any, grad: torch.Tensor) -> tuple[torch.Tensor, None, None]:
        (senders,) = ctx.saved_tensors
        total, k = senders.shape
        width = grad.shape[1] // k
        padded = torch.cat([grad.reshape(total * k, width), grad.new_zeros(1, width)])
        return padded.index_select(0, senders.flatten()).view(total, k, width).sum(dim=1), None, None


def opposite_directions(table: np.ndarray) -> np.ndarray:
    """``(k,)``: for each direction ``d`` of a neighbour table, the direction ``e`` with ``table[table[c, d], e]
    == c`` for every cell ``c`` that has a neighbour in direction ``d``; ValueError when the relation is not
    symmetric in that way."""
    k = table.shape[1]
    opposite = np.full(k, -1, dtype=np.int64)
    for d in range(k):
        cells = np.flatnonzero(table[:, d] >= 0)
        for e in range(k):
            if cells.size == 0 or np.array_equal(table[table[cells, d], e], cells):
                opposite[d] = e
                break
        if opposite[d] < 0:
            raise ValueError(f"neighbour direction {d} has no opposite direction: the cell graph is not symmetric")
    return opposite


class CellBatch:
    """The support cells of a batch of observations, flattened over the batch (row by row), with their
    neighbours' positions in that flat list (``total`` for an absent neighbour)."""

    def __init__(self, obs: torch.Tensor, table: torch.Tensor, opposite: torch.Tensor, board: Any):
        batch, _, height, width = obs.shape
        area = height * width
        planes = obs.flatten(2)
        support = planes[:, board.cell_plane] > 0.5
        if board.grow_plane >= 0:
            grow = planes[:, board.grow_plane].amax(dim=1) > 0.5
            if bool(grow.any()):
                grown = support.clone()
                if board.seed_cell >= 0:
                    grown[:, board.seed_cell] = True
                padded_table = torch.where(table >= 0, table, area)
                for _ in range(board.grow_steps):
                    ext = torch.cat([grown, grown.new_zeros(batch, 1)], dim=1)
                    grown = grown | ext[:, padded_table].any(dim=2)
                support = torch.where(grow[:, None], grown, support)
        self.rows, self.cells = support.nonzero(as_tuple=True)
        self.batch = batch
        self.total = int(self.rows.numel())
        self.counts = torch.bincount(self.rows, minlength=batch)
        lookup = torch.full((batch, area + 1), -1, dtype=torch.long, device=obs.device)
        lookup[self.rows, self.cells] = torch.arange(self.total, device=obs.device)
        self.lookup = lookup
        nb = table[self.cells]
        found = lookup[self.rows[:, None], torch.where(nb >= 0, nb, area)]
        itself = torch.arange(self.total, device=obs.device)[:, None]
        self.neighbours = torch.cat([itself, torch.where(found >= 0, found, self.total)], dim=1)
        """``(T, 1 + k)``: each cell's own position in the flat list, then its neighbours' (``T``: absent)."""
        k = 1 + opposite.numel()
        opposite = torch.cat([opposite.new_zeros(1), opposite + 1])  # the cell itself is its own opposite
        back = self.neighbours[:, opposite]
        self.senders = torch.where(back < self.total, back * k + torch.arange(k, device=obs.device), self.total * k)
        """``(T, 1 + k)``: where cell ``i``'s features went in the gathered ``(T * (1 + k))`` rows: to itself, and
        to each neighbour ``j`` in the direction opposite to ``d``, which took it as its neighbour ``d``
        (``T * (1 + k)``: nowhere)."""
        channels = planes.shape[1]
        flat = (self.rows * (channels * area) + self.cells)[:, None] + torch.arange(channels, device=obs.device) * area
        self.features = planes.reshape(-1)[flat]
        """``(T, C)``: the observation's planes at the support cells."""

    def mean(self, h: torch.Tensor) -> torch.Tensor:
        """``(B, C)``: the mean of each row's cells (0 for a row without cells)."""
        return torch.segment_reduce(h, "mean", lengths=self.counts, axis=0, unsafe=True, initial=0.0)

    def max(self, h: torch.Tensor) -> torch.Tensor:
        """``(B, C)``: the maximum over each row's cells (0 for a row without cells)."""
        top = torch.segment_reduce(h, "max", lengths=self.counts, axis=0, unsafe=True)
        return torch.where(self.counts[:, None] > 0, top, torch.zeros_like(top))

    def local(self) -> torch.Tensor:
        """``(B, H * W + 1)``: each cell's position among its row's cells, -1 where it is not one."""
        starts = self.counts.cumsum(0) - self.counts
        return torch.where(self.lookup >= 0, self.lookup - starts[:, None], -1)


class HexNet(nn.Module):
    """The conv net's design on a game's cells alone (:class:`~envs.common.game.CellGraph`): graph convolutions
    over the cells that can matter (Battle Sheep: the pasture, and around it while it is built), a per-cell
    policy head, pooled value and global heads. On Battle Sheep's 23 x 23 canvas the pasture is 32 of 529 cells
    (2 players): the network's work is on those cells, where :class:`ConvNet` convolves the whole canvas.

    A row's result depends on its own observation only: cells outside its support are absent (zero neighbours,
    not pooled), whatever else is in the batch."""

    def __init__(
        self,
        obs_shape: tuple[int, ...],
        num_actions: int,
        board: Any,
        layout: np.ndarray,
        channels: int = 32,
        layers: int = 4,
        hidden: int = 256,
        value_outputs: int = 1,
    ):
        super().__init__()
        c_in, height, width = obs_shape
        self.board = board
        self.value_outputs = value_outputs
        table = np.asarray(board.neighbours, dtype=np.int64)
        if table.shape[0] != height * width:
            raise ValueError(f"cell graph of {table.shape[0]} cells does not fit planes {obs_shape}")
        self.register_buffer("table", torch.as_tensor(table), persistent=False)
        self.register_buffer("opposite", torch.as_tensor(opposite_directions(table)), persistent=False)
        k = table.shape[1]
        self.trunk = nn.ModuleList([HexLayer(c_in if i == 0 else channels, channels, k) for i in range(layers)])
        self.out_norm = nn.LayerNorm(channels)
        on_cell = layout[:, 0] >= 0
        self.choices = int(layout[on_cell, 1].max()) + 1
        self.num_global = int(layout[~on_cell, 1].max()) + 1 if (~on_cell).any() else 0
        self.policy = layer_init(nn.Linear(channels, self.choices), std=0.01)
        self.global_policy = layer_init(nn.Linear(2 * channels, self.num_global), std=0.01) if self.num_global else None
        cell = np.where(on_cell, layout[:, 0], height * width)
        self.register_buffer("action_cell", torch.as_tensor(cell, dtype=torch.long), persistent=False)
        self.register_buffer("action_choice", torch.as_tensor(layout[:, 1], dtype=torch.long), persistent=False)
        self.value = nn.Sequential(
            layer_init(nn.Linear(2 * channels, hidden)),
            nn.ReLU(),
            layer_init(nn.Linear(hidden, value_outputs), std=1.0),
        )

    def _trunk(self, obs: torch.Tensor) -> tuple[CellBatch, torch.Tensor, torch.Tensor, torch.Tensor]:
        """``(cells, their features (T, C), pooled (B, 2C), value)``."""
        graph = CellBatch(obs, self.table, self.opposite, self.board)
        h = graph.features
        for layer in self.trunk:
            h = layer(h, graph)
        h = self.out_norm(h)
        pooled = torch.cat([graph.mean(h), graph.max(h)], dim=1)
        return graph, h, pooled, _values(self.value(pooled), self.value_outputs)

    def legal_logits(
        self, obs: torch.Tensor, rows: torch.Tensor, actions: torch.Tensor
    ) -> tuple[torch.Tensor, torch.Tensor]:
        """``(logits (K,), value)``: the logits of the ``K`` pairs (row ``rows[k]``, action ``actions[k]``) alone
        (a policy over the legal actions needs only those, a few hundred of Battle Sheep's 25k a position); 0
        for an action whose cell is outside its row's support (never a legal one)."""
        graph, h, pooled, value = self._trunk(obs)
        cell = self.action_cell[actions]
        choice = self.action_choice[actions]
        on_board = cell < graph.lookup.shape[1] - 1
        at = graph.lookup[rows, cell]
        found = on_board & (at >= 0)
        picked = torch.where(found, at, 0)
        logits = (h[picked] * self.policy.weight[choice]).sum(dim=1) + self.policy.bias[choice]
        logits = torch.where(found, logits, torch.zeros_like(logits))
        if self.global_policy is not None:
            global_logits = self.global_policy(pooled)[rows, torch.where(on_board, 0, choice)]
            logits = torch.where(on_board, logits, global_logits)
        return logits, value

    def scores(self, obs: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor, CellColumns]:
        """``(scores (B, width * choices + globals + 1), value, columns)``: a row's legal actions' logits are at
        ``action_positions(columns, actions)`` (:class:`CellColumns`)."""
        graph, h, pooled, value = self._trunk(obs)
        width = int(graph.counts.max()) if graph.batch else 0
        local = graph.local()
        cells = h.new_zeros(graph.batch, width, self.choices)
        cells = cells.index_put((graph.rows, local[graph.rows, graph.cells]), self.policy(h))
        parts = [cells.flatten(1)]
        if self.global_policy is not None:
            parts.append(self.global_policy(pooled))
        parts.append(h.new_zeros(graph.batch, 1))
        columns = CellColumns(
            local,
            self.action_cell,
            self.action_choice,
            self.choices,
            global_base=width * self.choices,
            outside=width * self.choices + self.num_global,
        )
        return torch.cat(parts, dim=1), value, columns

    def forward(self, obs: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        """``(logits (B, A), value)``: every action's logit (0 for actions outside a row's cells)."""
        scores, value, columns = self.scores(obs)
        actions = torch.arange(columns.shape[0], device=obs.device).expand(obs.shape[0], -1)
        return scores.gather(1, columns.positions(actions)), value


# ----- choosing and rebuilding --------------------------------------------------------------------------
def network_spec(config: TrainConfig, game: Game, value_outputs: int = 1) -> dict[str, Any]:
    """The architecture for ``game`` under ``config`` (network, action_head, sizes) as a JSON-safe dict.

    ``value_outputs``: 1 (a scalar value, PPO's) or one value per seat (search-guided training with more than two
    players); recorded in the spec only when it is not 1, so that specs (and checkpoints) without it still
    mean a scalar value."""
    spec = _architecture(config, game)
    if value_outputs != 1:
        spec["value_outputs"] = int(value_outputs)
    return spec


def _architecture(config: TrainConfig, game: Game) -> dict[str, Any]:
    shape = tuple(game.observation_shape)
    kind = config.network
    if kind == "auto":
        kind = "mlp" if len(shape) != 3 else "hex" if _has_cell_graph(game) else "conv"
    if kind not in ("mlp", "conv", "hex"):
        raise ValueError(f"network={config.network!r}; allowed: 'auto', 'mlp', 'conv', 'hex'")
    if config.input_features and kind != "conv":
        raise ValueError(f"input_features={config.input_features!r} needs network='conv' (this run builds {kind!r})")
    if kind == "hex":
        if not _has_cell_graph(game):
            raise ValueError(
                f"network='hex' needs a game with a cell graph and a per-cell action layout; {game.name} has none"
            )
        if config.action_head == "linear":
            raise ValueError("network='hex' has a per-cell action head; action_head='linear' needs 'conv'")
        return {
            "kind": "hex",
            "channels": config.conv_channels,
            "layers": config.conv_layers,
            "hidden": config.hidden,
            "head": "cell",
        }
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
    spec = {
        "kind": "conv",
        "channels": config.conv_channels,
        "layers": config.conv_layers,
        "hidden": config.hidden,
        "head": "cell" if per_cell else "linear",
    }
    global_planes = int(getattr(game, "global_planes", 0))
    if global_planes:
        spec["global_planes"] = global_planes  # absent in older specs: no global vector
        spec["global_input"] = "bias"  # absent in older specs: "conv"
    if config.input_features:
        _input_features(game, config.input_features)
        spec["input_features"] = config.input_features  # absent in older specs: none
    return spec


def _has_cell_graph(game: Game) -> bool:
    return len(tuple(game.observation_shape)) == 3 and game.cell_graph() is not None and action_layout(game) is not None


def build_network(spec: dict[str, Any], game: Game) -> nn.Module:
    """The network of ``spec`` (from :func:`network_spec`) for ``game``'s spaces, freshly initialised."""
    shape = tuple(game.observation_shape)
    value_outputs = int(spec.get("value_outputs", 1))
    if spec["kind"] == "mlp":
        return MLPNet(
            shape, game.num_actions, hidden=spec["hidden"], layers=spec["layers"], value_outputs=value_outputs
        )
    if spec["kind"] == "hex":
        layout = action_layout(game)
        board = game.cell_graph()
        if layout is None or board is None:
            raise ValueError(f"{game.name} has no cell graph and per-cell action layout for a 'hex' network")
        return HexNet(
            shape,
            game.num_actions,
            board,
            layout,
            channels=spec["channels"],
            layers=spec["layers"],
            hidden=spec["hidden"],
            value_outputs=value_outputs,
        )
    if spec["kind"] == "conv":
        layout = action_layout(game) if spec["head"] == "cell" else None
        if spec["head"] == "cell" and layout is None:
            raise ValueError(f"{game.name} exposes no action layout for a per-cell head")
        global_planes = int(spec.get("global_planes", 0))
        if not 0 <= global_planes <= shape[0]:
            raise ValueError(f"global_planes={global_planes} does not fit {shape[0]} observation planes")
        return ConvNet(
            shape,
            game.num_actions,
            channels=spec["channels"],
            layers=spec["layers"],
            hidden=spec["hidden"],
            layout=layout,
            value_outputs=value_outputs,
            global_planes=global_planes,
            global_input=str(spec.get("global_input", "conv")),
            features=_input_features(game, spec.get("input_features")),
        )
    raise ValueError(f"unknown network kind {spec.get('kind')!r}")


def _input_features(game: Game, name: Any) -> FeaturePlanes | None:
    """The game's input features of that name (None: none asked for); ValueError naming the choices otherwise."""
    if not name:
        return None
    engine = _batched_engine(game)
    offered = engine.input_features() if engine is not None else {}
    if name not in offered:
        choices = ", ".join(offered) or "none"
        raise ValueError(f"input_features={name!r}: {game.name} offers {choices}")
    return offered[name]


def _batched_engine(game: Any) -> Any:
    """The game's batched engine (``game`` itself when it is one), which offers the input features; None if the
    game has none."""
    if isinstance(game, BatchedGame):
        return game
    engine_class = batched_game_class(game.name)
    return engine_class(**game.options()) if engine_class is not None else None


def num_parameters(net: nn.Module) -> int:
    """Trainable parameter count."""
    return sum(p.numel() for p in net.parameters() if p.requires_grad)
