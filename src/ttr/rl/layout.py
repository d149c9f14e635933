"""The action and observation layouts of every built-in edition as Markdown tables (for docs/rl.md).

python -m ttr.rl.layout > /tmp/layout.md    # the tables docs/rl.md embeds; a test keeps them equal
"""

from __future__ import annotations

from ..editions import BUILTIN, get_edition
from .actions import ACTION_SPACE_VERSION, codec_for
from .common import layout_for
from .observation import OBSERVATION_VERSION


def _table(header: list[str], rows: list[list[str]]) -> list[str]:
    out = ["| " + " | ".join(header) + " |", "|" + "|".join("---" for _ in header) + "|"]
    out += ["| " + " | ".join(r) + " |" for r in rows]
    return out


def layout_markdown() -> str:
    editions = [get_edition(e) for e in BUILTIN]
    codecs = [codec_for(e) for e in editions]
    layouts = [layout_for(e) for e in editions]
    lines = [f"Action space version {ACTION_SPACE_VERSION}, observation version {OBSERVATION_VERSION}.", ""]
    lines += _table(
        ["edition", "actions", "observation", "seats (max players)"],
        [[e.id, f"{c.size:,}", f"{lay.size:,}", str(lay.seats)] for e, c, lay in zip(editions, codecs, layouts, strict=True)],
    )
    lines += ["", "Action blocks (start-stop, in index order; - = absent in that edition):", ""]
    names = list(dict.fromkeys(name for c in codecs for name in c.blocks))
    lines += _table(
        ["block", *BUILTIN],
        [
            [f"`{name}`", *(f"{c.blocks[name].start}-{c.blocks[name].stop - 1}" if name in c.blocks else "-" for c in codecs)]
            for name in names
        ],
    )
    lines += ["", "Observation blocks (size per edition, in vector order):", ""]
    names = list(dict.fromkeys(name for lay in layouts for name in lay.blocks))
    docs = {name: lay.blocks[name].doc for lay in layouts for name in lay.blocks}
    lines += _table(
        ["block", *BUILTIN, "content"],
        [
            [f"`{name}`", *(str(lay.blocks[name].size) if name in lay.blocks else "-" for lay in layouts), docs[name]]
            for name in names
        ],
    )
    return "\n".join(lines) + "\n"


if __name__ == "__main__":
    print(layout_markdown(), end="")
