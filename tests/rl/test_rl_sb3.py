"""Stable-Baselines3 / sb3-contrib on the Gymnasium env with no glue (needs the ``rl-train`` extra)."""

from __future__ import annotations

from rl.torch_needed import require_torch

require_torch()

import numpy as np  # noqa: E402
import torch  # noqa: E402
from sb3_contrib import MaskablePPO  # noqa: E402
from sb3_contrib.common.maskable.utils import get_action_masks  # noqa: E402
from stable_baselines3.common.env_util import make_vec_env  # noqa: E402

import ttr.rl  # noqa: E402

USA = ttr.rl.GYM_IDS["usa"]
torch.set_num_threads(1)  # tiny networks on a shared machine: threads only add contention


def test_make_vec_env_with_two_envs() -> None:
    """SB3's make_vec_env passes render_mode="rgb_array": it used to be refused."""
    venv = make_vec_env(USA, n_envs=2, seed=0)
    obs = venv.reset()
    assert obs["observation"].shape == (2, 760)
    frames = venv.get_images()
    assert len(frames) == 2 and frames[0].shape == (640, 800, 3) and frames[0].dtype == np.uint8
    masks = get_action_masks(venv)
    assert masks.shape == (2, 1075) and masks.any(axis=1).all()
    venv.close()


def test_maskable_ppo_mlp_policy_on_flat_observations() -> None:
    venv = make_vec_env(USA, n_envs=2, seed=1, env_kwargs={"observation": "flat", "opponents": "random"})
    model = MaskablePPO("MlpPolicy", venv, n_steps=64, batch_size=64, n_epochs=1, seed=0, device="cpu")
    assert model.observation_space.shape == (760,)
    model.learn(128)
    obs = venv.reset()
    action, _ = model.predict(obs, action_masks=get_action_masks(venv))
    assert all(get_action_masks(venv)[i, a] for i, a in enumerate(action))
    venv.close()


def test_frozen_snapshot_of_the_learner_plays_from_the_pool() -> None:
    from ttr.rl.opponents import OpponentPool
    from ttr.rl.selfplay import sb3_snapshot, selfplay_env

    pool = OpponentPool(["random"])
    env = selfplay_env(pool, edition="usa", players=2, observation="flat")
    model = MaskablePPO("MlpPolicy", env, n_steps=64, batch_size=64, n_epochs=1, seed=0, device="cpu")
    snap = sb3_snapshot(model)
    before = [p.detach().clone() for p in model.policy.parameters()]
    pool.add(snap, name="snapshot-0", weight=1e6)
    model.learn(64)  # trains against the snapshot, which must not move with the learner
    assert any(not torch.equal(a, b) for a, b in zip(before, model.policy.parameters(), strict=True))
    frozen = snap.__closure__  # the snapshot keeps its own copy of the policy
    assert frozen is not None
    obs, info = env.reset(seed=3)
    assert info["opponents"] == ["snapshot-0"]
    assert 0 <= snap(obs, info["action_mask"]) < env.action_space.n


def test_rl_eval_loads_a_saved_maskable_ppo(tmp_path, capsys) -> None:  # type: ignore[no-untyped-def]
    import json

    from ttr.cli import main

    model = MaskablePPO("MlpPolicy", ttr.rl.TicketToRideEnv("usa", observation="flat"), n_steps=32, batch_size=32, seed=0)
    model.save(tmp_path / "tiny.zip")
    assert main(["rl-eval", str(tmp_path / "tiny.zip"), "--against", "random", "--games", "2", "--json"]) == 0
    rows = json.loads(capsys.readouterr().out)["results"]
    assert rows[0]["opponent"] == "random" and rows[0]["games"] == 2
