"""Tests that need PyTorch (the ``rl-train`` extra): skipped with a visible reason when it is missing,
a failure instead when ``TTR_REQUIRE_TORCH=1``."""

from __future__ import annotations

import importlib.util
import os

import pytest

REASON = "pip install -e '.[rl-train]' (CPU wheels: docs/rl.md); TTR_REQUIRE_TORCH=1 makes this a failure"


def require_torch() -> None:
    """Call at module level of a test module that imports torch, stable_baselines3 or sb3_contrib."""
    missing = [m for m in ("torch", "stable_baselines3", "sb3_contrib") if importlib.util.find_spec(m) is None]
    if not missing:
        return
    if os.environ.get("TTR_REQUIRE_TORCH") == "1":
        raise ImportError(f"TTR_REQUIRE_TORCH=1 but {', '.join(missing)} missing: pip install -e '.[rl-train]'")
    pytest.skip(f"{', '.join(missing)} missing: {REASON}", allow_module_level=True)
