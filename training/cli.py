"""The ``barnyard`` command (also ``python -m training``): train, evaluate, exploit, play, replay, serve, bench.

Commands:
  train      self-play training on one game      (barnyard train --game battle_sheep)
  evaluate   a tournament between policies       (barnyard evaluate --game battle_sheep --policies random greedy)
  rate       a policy's rating on the game's fixed scale (barnyard rate --game bestiarium --policy greedy)
  exploit    train a learner against a policy and measure how often it beats it
             (barnyard exploit --game boaring --policy greedy --minutes 15)
  play       play against a policy, or --watch   (barnyard play --game bestiarium --opponent greedy)
  declare    how a checkpoint is played as agent:PATH (barnyard declare checkpoints/x/policy.pt sample)
  replay     replay a saved game, or make a GIF  (barnyard replay game.json --gif game.gif)
  serve      a local web page to play, watch and replay  (barnyard serve --port 8000)
  mcp        the games as an MCP tool server for language-model agents, on stdio or --http  (barnyard mcp)
  bench      speed of random legal play          (barnyard bench all --seconds 3; same as python -m envs.benchmark)
  bench train  training speed per game, PPO against the network alone and sb3  (barnyard bench train --seconds 60)

`barnyard COMMAND --help` lists a command's options. train, evaluate, exploit, play and replay need the `train` extra
(torch), serve the `web` extra, mcp the `llm` extra; bench needs only the environments.
"""

from __future__ import annotations

import importlib
import sys

from training.cli_errors import fail

COMMANDS: dict[str, str] = {
    "train": "training.train_cli",
    "evaluate": "training.arena.tournament",
    "rate": "training.arena.rating",
    "exploit": "training.measure.exploit",
    "play": "training.play.terminal",
    "declare": "training.arena.declare",
    "replay": "training.arena.records",
    "serve": "training.play.web.serve",
    "mcp": "training.play.mcp_server",
    "bench": "envs.benchmark",
    "bench train": "training.measure.train_speed",
}
"""Each command and the module whose ``main(argv)`` runs it."""


def main(argv: list[str] | None = None) -> None:
    """Run ``barnyard COMMAND [ARGS]``: dispatch to the command's module; print the help for none or -h."""
    argv = list(sys.argv[1:] if argv is None else argv)
    if not argv or argv[0] in ("-h", "--help"):
        print(__doc__)
        return
    if " ".join(argv[:2]) in COMMANDS:  # a two-word command: bench train
        argv = [" ".join(argv[:2]), *argv[2:]]
    if argv[0] not in COMMANDS:
        print(__doc__, file=sys.stderr)
        fail(f"unknown command {argv[0]!r}; choose from {', '.join(COMMANDS)}")
    module = importlib.import_module(COMMANDS[argv[0]])
    module.main(argv[1:])


if __name__ == "__main__":
    main()
