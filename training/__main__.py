"""``python -m training COMMAND``: train, evaluate (tournaments), and more.

Commands:
  train      PPO self-play on one game        (python -m training train --game battle_sheep)
  evaluate   a tournament between policies    (python -m training evaluate --game battle_sheep --policies random greedy)
  play       play against a policy, or --watch  (python -m training play --game bestiarium --opponent greedy)
  replay     replay a saved game, or make a GIF (python -m training replay game.json --gif game.gif)
  serve      a local web page to play, watch and replay  (python -m training serve --port 8000)
"""

from __future__ import annotations

import sys


def main(argv: list[str] | None = None) -> None:
    argv = list(sys.argv[1:] if argv is None else argv)
    commands = {"train": "training.train_cli", "evaluate": "training.evaluate", "play": "training.play",
                "replay": "training.records", "serve": "training.web.serve"}
    if not argv or argv[0] in ("-h", "--help") or argv[0] not in commands:
        print(__doc__)
        if argv and argv[0] not in ("-h", "--help"):
            raise SystemExit(f"error: unknown command {argv[0]!r}; choose from {', '.join(commands)}")
        return
    module = __import__(commands[argv[0]], fromlist=["main"])
    module.main(argv[1:])


if __name__ == "__main__":
    main()
