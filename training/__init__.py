"""PPO self-play training for the Barnyard games (imports ``envs``, never the reverse).

``python -m training train --game battle_sheep`` trains; :func:`training.checkpoint.load_policy` turns a
checkpoint into an ``envs.common.policies.Policy``. Modules: ``config`` (the dataclass), ``networks``,
``buffer``, ``selfplay`` (rollouts, credit assignment, opponents, evaluation games), ``ppo`` (the maths:
masked distribution, GAE, loss, update), ``loop`` (the training loop and the run pieces: log, evaluation,
checkpoints), ``charts`` (learning curves, tournament heat maps), ``stats``, ``checkpoint``, ``evaluate``
(tournaments), ``play``, ``records``, ``train_cli``, ``shaping_gap`` (measures the score shaping against exact
potential-based shaping).
"""
