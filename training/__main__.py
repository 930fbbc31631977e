"""``python -m training COMMAND``: the same commands as the ``barnyard`` console script (:mod:`training.cli`)."""

from __future__ import annotations

from training.cli import main

if __name__ == "__main__":
    main()
