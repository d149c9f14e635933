"""Loading a trained policy for evaluation (``ttr rl-eval POLICY``) or as an opponent.

A POLICY is one of:

- ``package.module:name`` or ``path/to/file.py:name``: a callable ``policy(observation, mask) -> index``
  (observation in the format given by ``--observation``, mask an int8 array over the action space).
  If ``name`` is a zero-argument factory instead, mark it with ``:name()``: it is called once and its
  result is the policy (to build a network, load weights, ...).
- ``path/to/model.zip``: a Stable-Baselines3 / sb3-contrib model saved with ``model.save(...)``
  (``MaskablePPO`` by default, ``--algo`` for another class); the observation format follows the model's
  observation space (a ``Box`` means ``flat``, a ``Dict`` means ``dict``).
"""

from __future__ import annotations

import importlib
import importlib.util
import sys
from pathlib import Path
from typing import Any

from ..errors import TTRError

SB3_ALGOS = {
    "maskable_ppo": ("sb3_contrib", "MaskablePPO"),
    "ppo": ("stable_baselines3", "PPO"),
    "a2c": ("stable_baselines3", "A2C"),
    "dqn": ("stable_baselines3", "DQN"),
}


class PolicyLoadError(TTRError):
    """A POLICY argument that names nothing usable."""


def _import_target(target: str) -> Any:
    if target.endswith(".py") or "/" in target:
        path = Path(target)
        if not path.is_file():
            raise PolicyLoadError(f"no such file: {target}")
        name = f"_ttr_policy_{abs(hash(path.resolve()))}"
        spec = importlib.util.spec_from_file_location(name, path)
        assert spec is not None and spec.loader is not None
        module = importlib.util.module_from_spec(spec)
        sys.modules[name] = module
        spec.loader.exec_module(module)
        return module
    try:
        return importlib.import_module(target)
    except ImportError as exc:
        raise PolicyLoadError(f"cannot import {target!r}: {exc}") from exc


def load_policy(spec: str, observation: str = "dict", algo: str = "maskable_ppo") -> tuple[Any, str]:
    """(policy callable, observation format it expects) for a POLICY argument."""
    if spec.endswith(".zip"):
        return load_sb3(spec, algo)
    target, sep, name = spec.rpartition(":")
    if not sep or not target or not name:
        raise PolicyLoadError(f"POLICY must be module:callable, file.py:callable or model.zip, not {spec!r}")
    factory = name.endswith("()")
    name = name.removesuffix("()")
    module = _import_target(target)
    try:
        obj = getattr(module, name)
    except AttributeError:
        raise PolicyLoadError(f"{target} has no attribute {name!r}") from None
    if factory:
        obj = obj()
    if not callable(obj):
        raise PolicyLoadError(f"{spec} is not callable")
    return obj, observation


def load_sb3(path: str, algo: str = "maskable_ppo") -> tuple[Any, str]:
    from gymnasium import spaces

    from .selfplay import sb3_policy_callable

    if not Path(path).is_file():
        raise PolicyLoadError(f"no such file: {path}")
    if algo not in SB3_ALGOS:
        raise PolicyLoadError(f"unknown --algo {algo!r} (known: {', '.join(SB3_ALGOS)})")
    module_name, cls_name = SB3_ALGOS[algo]
    try:
        cls = getattr(importlib.import_module(module_name), cls_name)
    except ImportError as exc:
        raise PolicyLoadError(f"{cls_name} needs {module_name}: pip install -e '.[rl-train]' ({exc})") from exc
    model = cls.load(path, device="cpu")
    obs = "flat" if isinstance(model.observation_space, spaces.Box) else "dict"
    return sb3_policy_callable(model.policy, deterministic=False), obs
