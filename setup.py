"""Optional compiled engine: ``TTR_COMPILE=1 pip install --no-build-isolation .`` (with mypy installed)
compiles ``ttr.engine``, with ``ttr.editions.model`` and ``ttr.cards``, with mypyc from the same source.
Without the variable this file does nothing special and the package stays pure Python. See
docs/architecture.md, "Speed habits"."""

from __future__ import annotations

import os
from pathlib import Path

from setuptools import setup

ext_modules = []
if os.environ.get("TTR_COMPILE") == "1":
    from mypyc.build import mypycify

    engine = sorted(str(p) for p in Path("src/ttr/engine").glob("*.py") if p.name != "__init__.py")
    # the engine reads routes, rules and card constants on every move: compiled, they are native classes
    engine += ["src/ttr/editions/model.py", "src/ttr/cards.py"]
    ext_modules = mypycify(engine, opt_level="3")

setup(ext_modules=ext_modules)
