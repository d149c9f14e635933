"""Precompute the board layouts of the built-in maps (src/ttr/server/static/layouts/<id>.json).

The browser lays a map out with `layoutCities` (static/js/geometry.js: a few hundred relaxation steps, most of a game
page's first render on a slow machine). For the built-in maps the server sends the result with the map
(`GET /api/editions/{id}/map`, field `layouts`, keyed by `layoutKey`), computed here by the same JavaScript in Node,
for both shapes the client asks for (wide screens: aspect 1.3; narrow ones: none). Run it after changing
geometry.js or a built-in map; tests/browser/test_first_render.py fails while a stored layout differs from what the
browser computes.

    python tools/board_layouts.py        # needs node
"""

from __future__ import annotations

import json
import subprocess
import sys
import tempfile
from pathlib import Path

from ttr.editions import BUILTIN
from ttr.server.app import edition_map

STATIC = Path(__file__).resolve().parent.parent / "src" / "ttr" / "server" / "static"
OPTIONS = [{"aspect": None}, {"aspect": 1.3}]  # board.js: narrow screens, wide screens

SCRIPT = """
import { readFileSync } from "fs";
const G = await import(process.argv[2]);
const map = JSON.parse(readFileSync(process.argv[3]));
const out = {};
for (const opts of JSON.parse(process.argv[4])) out[G.layoutKey(map, opts)] = G.storedLayout(G.layoutCities(map, opts));
console.log(JSON.stringify(out));
"""


def main() -> int:
    (STATIC / "layouts").mkdir(exist_ok=True)
    with tempfile.TemporaryDirectory() as tmp:
        script = Path(tmp) / "layout.mjs"
        script.write_text(SCRIPT)
        for ed in BUILTIN:
            m = edition_map(ed)
            m.pop("layouts", None)
            src = Path(tmp) / f"{ed}.json"
            src.write_text(json.dumps(m))
            res = subprocess.run(
                ["node", str(script), (STATIC / "js" / "geometry.js").as_uri(), str(src), json.dumps(OPTIONS)],
                capture_output=True,
                text=True,
                check=True,
            )
            layouts = json.loads(res.stdout)
            (STATIC / "layouts" / f"{ed}.json").write_text(json.dumps(layouts, separators=(",", ":")) + "\n")
            print(ed, sorted(layouts))
    return 0


if __name__ == "__main__":
    sys.exit(main())
