"""``ttr train`` at a tiny budget: it runs, checkpoints, resumes exactly, and the exported numpy
network computes what the torch model computes."""

from __future__ import annotations

import importlib.util
import json
import os

import numpy as np
import pytest

from ttr.learn.value import ValueNet

if importlib.util.find_spec("torch") is None:
    if os.environ.get("TTR_REQUIRE_TORCH") == "1":
        raise ImportError("TTR_REQUIRE_TORCH=1 but torch is missing: pip install -e '.[rl-train]'")
    pytest.skip("torch missing: pip install -e '.[rl-train]' (CPU wheels: docs/rl.md)", allow_module_level=True)

import torch

from ttr.learn.train import TrainConfig, build_model, run_training, to_value_net

POP = ("hard", "racer", "easy")


def test_numpy_inference_matches_torch() -> None:
    torch.manual_seed(0)
    model = build_model(760, (32, 16))
    net = to_value_net(model, "usa")
    x = torch.rand(6, 760)
    with torch.no_grad():
        want = torch.sigmoid(model(x)).squeeze(-1).numpy()
    assert np.allclose(net(x.numpy()), want, atol=1e-5)


def test_train_runs_checkpoints_and_resumes(tmp_path) -> None:
    cfg = dict(games=6, chunk=3, sample=0.3, batch=64, hidden=(16,), seed=3, population=POP)
    a = tmp_path / "a"
    run_training(TrainConfig(out=str(a), epochs=2, **cfg))
    ck = torch.load(a / "checkpoint.pt", weights_only=False)
    assert ck["epoch"] == 2
    summary = run_training(TrainConfig(out=str(a), epochs=3, **cfg))  # resumes: one more epoch
    assert summary["generations"][0]["games_seconds"] < 1.0  # the games were not replayed
    log = json.loads((a / "log.json").read_text())
    assert [r["epoch"] for r in log["logs"][0]["epochs"]] == [1, 2, 3]
    b = tmp_path / "b"
    run_training(TrainConfig(out=str(b), epochs=3, **cfg))  # uninterrupted
    na, nb = ValueNet.load(a / "value-usa.npz"), ValueNet.load(b / "value-usa.npz")
    for (wa, ba), (wb, bb) in zip(na.layers, nb.layers, strict=True):
        assert np.allclose(wa, wb, atol=1e-6) and np.allclose(ba, bb, atol=1e-6)
    x = np.random.default_rng(1).random((4, 760), dtype=np.float32)
    assert np.isfinite(na(x)).all()


def test_second_generation_plays_the_snapshot(tmp_path) -> None:
    cfg = TrainConfig(out=str(tmp_path), games=4, chunk=4, sample=0.3, epochs=1, hidden=(8,), generations=2, population=POP)
    summary = run_training(cfg)
    assert (tmp_path / "value-usa-gen0.npz").is_file() and (tmp_path / "value-usa-gen1.npz").is_file()
    assert len(summary["generations"]) == 2
