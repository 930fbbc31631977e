"""Past one machine: Barnyard's games and learners on Ray.

* :mod:`training.scale.rllib_env` - every registered game as an RLlib ``MultiAgentEnv`` (turn-based play where
  only the mover acts, simultaneous phases as simultaneous actions, the mask under RLlib's key convention);
* :mod:`training.scale.rllib_module` - the project's networks (:mod:`training.networks`) as a masked RLlib
  ``RLModule``, and the export of a trained module to Barnyard's checkpoint format;
* :mod:`training.scale.league` - the self-play recipe: one shared policy against itself, a league of frozen
  snapshots and the scripted baselines;
* :mod:`training.scale.ray_workers` - ``barnyard train --ray``: PPO's env workers and search-guided self-play's
  generators as Ray actors across a cluster, the learner in the driver.

Nothing here is imported by ``import envs`` or ``import training``, and Ray is imported only by these modules
(the ``rllib`` extra: ``pip install -e ".[rllib]"``).

May import: the shared top-level modules. The learners (:mod:`training.ppo`, :mod:`training.alphazero`) import
:mod:`training.scale.ray_workers` with ``--ray`` and hand it their servers' classes; it imports no learner.
"""
