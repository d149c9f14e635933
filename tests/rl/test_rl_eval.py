"""ttr rl-eval: a policy callable against bots, win rates with the Wilson intervals of ttr.sim."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from ttr.cli import main
from ttr.sim.stats import wilson

POLICY = """
import numpy as np

def first_legal(obs, mask):
    return int(np.flatnonzero(mask)[0])

def make():
    calls = []
    def policy(obs, mask):
        calls.append(1)
        return int(np.flatnonzero(mask)[-1])
    return policy
"""


def test_rl_eval_a_callable_against_two_bots(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "pol.py"
    path.write_text(POLICY)
    assert main(["rl-eval", f"{path}:first_legal", "--against", "random,easy", "--games", "6", "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    rows = {r["opponent"]: r for r in out["results"]}
    assert set(rows) == {"random", "easy"}
    for r in rows.values():
        assert r["games"] == 6 and 0 <= r["wins"] <= 6
        assert (r["wilson_low"], r["wilson_high"]) == pytest.approx(wilson(r["wins"], 6))
    assert main(["rl-eval", f"{path}:make()", "--against", "random", "--games", "2", "--observation", "flat"]) == 0
    text = capsys.readouterr().out
    assert "95% Wilson" in text and text.count("\n") == 3


def test_rl_eval_refuses_what_is_not_a_policy(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "pol.py"
    path.write_text(POLICY)
    assert main(["rl-eval", f"{path}:nothing", "--games", "1"]) == 2
    assert "has no attribute 'nothing'" in capsys.readouterr().err
    assert main(["rl-eval", "no_colon", "--games", "1"]) == 2
    assert "POLICY must be" in capsys.readouterr().err
    assert main(["rl-eval", str(tmp_path / "missing.zip"), "--games", "1"]) == 2
    assert "no such file" in capsys.readouterr().err
