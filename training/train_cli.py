"""``python -m training train``: the command line of :func:`training.ppo.loop.train` (PPO) and
:func:`training.alphazero.selfplay.train` (``--algo alphazero``: search-guided self-play).

::

    python -m training train --game battle_sheep [--seed 1] [--total-steps N] [--out DIR]
                             [--env-option num_players=3 ...] [--<any-config-field> VALUE ...]
    python -m training train --algo alphazero --game bestiarium [--time-budget-min 60] [--device auto]
    python -m training train --resume runs/battle_sheep-s1 [--total-steps N]

Every field of :class:`training.config.TrainConfig` is an option (``learning_rate`` -> ``--learning-rate``);
booleans take ``true``/``false``. Env options are ``key=value`` (values parsed as JSON where they can be:
numbers, ``true``). With ``--resume`` the saved config is used and only the options given here change it
(``--total-steps`` to extend a run; other changes make the continuation differ from an uninterrupted run).
"""

from __future__ import annotations

import argparse
import dataclasses
import sys
from collections.abc import Sequence

from training.config import TrainConfig, make_config


def _bool(text: str) -> bool:
    low = text.strip().lower()
    if low in ("1", "true", "yes", "on"):
        return True
    if low in ("0", "false", "no", "off"):
        return False
    raise argparse.ArgumentTypeError(f"expected true or false, got {text!r}")


def _env_option(text: str) -> str:
    """A ``key=value`` game option, kept as text: its value is read by the game's options table once the game is
    known (:func:`envs.common.options.parse_options`)."""
    if "=" not in text:
        raise argparse.ArgumentTypeError(f"env option {text!r} must look like key=value")
    return text


SPECIAL = {"game", "env_options", "seed", "total_steps", "out"}


def build_parser() -> argparse.ArgumentParser:
    """The ``train`` argument parser (every config field an option, defaults resolved per game later)."""
    parser = argparse.ArgumentParser(
        prog="python -m training train",
        description="Self-play training of one Barnyard game: PPO (default) or --algo alphazero (search-guided).",
    )
    parser.add_argument("--game", default=None, help="game id (default battle_sheep, or the resumed run's)")
    parser.add_argument("--seed", type=int, default=None, help="seed of everything (default 1)")
    parser.add_argument("--total-steps", type=int, default=None, help="learner samples to train on")
    parser.add_argument("--out", default=None, help="run directory (default runs/<game>-s<seed>)")
    parser.add_argument(
        "--resume", default=None, metavar="RUN_DIR", help="continue the run saved in RUN_DIR (or its resume.pt) exactly"
    )
    parser.add_argument(
        "--env-option",
        action="append",
        type=_env_option,
        default=[],
        metavar="KEY=VALUE",
        help="game option, repeatable (e.g. num_players=3)",
    )
    group = parser.add_argument_group("config fields (defaults: training.config, per game)")
    for f in dataclasses.fields(TrainConfig):
        if f.name in SPECIAL:
            continue
        kind = {"int": int, "float": float, "bool": _bool, "str": str}.get(
            f.type if isinstance(f.type, str) else getattr(f.type, "__name__", "str"), str
        )
        default = getattr(TrainConfig(), f.name)
        help_text = f"{_field_doc(f.name)} (default {default!r}, or the game's own: its descriptor's ppo_defaults)"
        group.add_argument(
            "--" + f.name.replace("_", "-"),
            dest=f.name,
            type=kind,
            default=None,
            metavar=kind.__name__.lstrip("_").upper(),
            help=help_text.replace("%", "%%"),
        )
    return parser


def _field_doc(name: str) -> str:
    """The docstring under a config field (read from the source)."""
    import inspect

    source = inspect.getsource(TrainConfig).splitlines()
    for i, line in enumerate(source):
        if line.strip().startswith(f"{name}:"):
            parts = []
            for doc_line in source[i + 1 :]:
                parts.append(doc_line.strip().replace('"""', ""))
                if doc_line.rstrip().endswith('"""'):
                    break
            return " ".join(p for p in parts if p)
    return ""


def config_from_args(args: argparse.Namespace) -> TrainConfig:
    """The config the parsed arguments ask for (a resumed run's, with the given overrides)."""
    overrides = {
        f.name: getattr(args, f.name)
        for f in dataclasses.fields(TrainConfig)
        if f.name not in SPECIAL and getattr(args, f.name, None) is not None
    }
    for name in ("seed", "total_steps", "out"):
        if getattr(args, name) is not None:
            overrides[name] = getattr(args, name)
    if args.resume:
        from training.checkpoint import resume_config

        saved = resume_config(args.resume)
        if args.game is not None and args.game != saved["game"]:
            raise SystemExit(f"--resume: that run trains {saved['game']!r}, not {args.game!r}")
        if args.env_option:
            raise SystemExit("--resume: env options cannot change")
        saved.update(overrides)
        if "out" not in overrides:
            from pathlib import Path

            path = Path(args.resume)
            saved["out"] = str(path if path.is_dir() else path.parent)
        return TrainConfig.from_dict(saved)
    game = args.game or "battle_sheep"
    from envs.common.options import parse_options

    try:
        env_options = parse_options(args.env_option, game) if args.env_option else {}
    except ValueError as err:  # an unknown game or option, a bad value (ConfigError)
        raise SystemExit(f"--env-option: {err}") from None
    return make_config(game, env_options=env_options, **overrides)


def main(argv: Sequence[str] | None = None) -> int:
    """Parse ``argv`` (without the ``train`` word), train, print where the checkpoint is; exit status."""
    args = build_parser().parse_args(list(sys.argv[1:] if argv is None else argv))
    config = config_from_args(args)
    import envs
    from training.config import ALGOS, eval_opponent_kinds

    if config.game not in envs.GAMES:
        raise SystemExit(f"unknown game {config.game!r}; available: {', '.join(envs.GAMES)}")
    if config.algo not in ALGOS:
        raise SystemExit(f"unknown --algo {config.algo!r}; available: {', '.join(ALGOS)}")
    if config.device not in ("auto", "cpu", "cuda"):
        raise SystemExit(f"unknown --device {config.device!r}; available: auto, cpu, cuda")
    try:
        eval_opponent_kinds(config)
    except ValueError as err:
        raise SystemExit(f"--eval-opponents: {err}") from None
    if config.algo == "alphazero":
        from training.alphazero.search import SearchError, check_searchable

        try:
            check_searchable(envs.make_game(config.game, **config.env_options))
        except SearchError as err:
            raise SystemExit(f"--algo alphazero: {err}") from None
        if config.search not in ("gumbel", "puct"):
            raise SystemExit(f"unknown --search {config.search!r}; available: gumbel, puct")
        from training.alphazero.selfplay import check_expert, train

        try:
            check_expert(config.game, config.expert)
        except ValueError as err:
            raise SystemExit(f"--expert: {err}") from None
        if config.expert and config.value_target_mix:
            raise SystemExit("--expert gives no search values: --value-target-mix must be 0")
    else:
        from training.ppo.loop import train

    try:
        path = train(config, resume=args.resume)
    except ValueError as err:
        if "device=" not in str(err):
            raise
        raise SystemExit(f"error: {err}") from None
    print(f"policy checkpoint: {path} (sidecar {path.with_suffix('.json')})")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
