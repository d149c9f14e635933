#!/usr/bin/env bash
# Build the optional mypyc-compiled engine in a scratch copy (through setup.py, as TTR_COMPILE=1 would on
# install) and replay the golden playthroughs and the engine, edition and custom-map tests with it: the compiled build must play
# exactly like the pure-Python source. Usage: tools/compiled_check.sh [scratch-dir]
set -euo pipefail
cd "$(dirname "$0")/.."
SCRATCH="${1:-$(mktemp -d /tmp/ttr-compiled.XXXXXX)}"
mkdir -p "$SCRATCH"
cp -r setup.py pyproject.toml README.md src tests docs "$SCRATCH"/
(cd "$SCRATCH" && TTR_COMPILE=1 python setup.py -q build_ext --inplace >/dev/null)
ls "$SCRATCH"/src/ttr/engine/game.*.so "$SCRATCH"/src/ttr/editions/model.*.so "$SCRATCH"/src/ttr/cards.*.so >/dev/null  # really compiled
cd "$SCRATCH"
PYTHONPATH=src python -c "
import ttr.cards, ttr.editions.model, ttr.engine.game
for m in (ttr.engine.game, ttr.editions.model, ttr.cards):
    assert m.__file__.endswith('.so'), m.__file__"
PYTHONPATH=src python -m pytest tests/golden tests/engine tests/editions tests/server/test_custom_maps.py -q -p no:cacheprovider
PYTHONPATH=src python -m ttr bench --seconds 1 --editions usa,europe,nordic,marklin
