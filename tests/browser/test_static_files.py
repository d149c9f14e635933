"""The browser client's files, checked without a browser: every string comes from the translation
files, the four languages say the same things (same keys, same placeholders), and every name the
client looks up dynamically (editions, bot levels, cards, colours, ticket decks, tie-breakers, rule
options) has a translation."""

from __future__ import annotations

import json
import re
from html.parser import HTMLParser
from pathlib import Path

import pytest

import ttr.server
from ttr.bots import LEVELS
from ttr.cards import CARD_NAMES, COLOURS
from ttr.editions import BUILTIN, get_edition
from ttr.editions.model import TIEBREAKERS

STATIC = Path(ttr.server.__file__).parent / "static"
LANGS = ("en", "pt", "es", "it")
PLACEHOLDER = re.compile(r"\{(\w+)\}")


def load(lang: str) -> dict[str, str]:
    return json.loads((STATIC / "i18n" / f"{lang}.json").read_text(encoding="utf-8"))


def js_sources() -> dict[str, str]:
    return {p.name: p.read_text(encoding="utf-8") for p in sorted((STATIC / "js").glob("*.js"))}


def test_static_client_ships_inside_the_package() -> None:
    for rel in ("index.html", "js/main.js", "js/board.js", "css/app.css", "i18n/en.json"):
        assert (STATIC / rel).is_file(), rel


@pytest.mark.parametrize("lang", LANGS[1:])
def test_every_language_has_every_key_with_the_same_placeholders(lang: str) -> None:
    en, other = load("en"), load(lang)
    assert sorted(set(en) - set(other)) == [], f"{lang}.json lacks keys"
    assert sorted(set(other) - set(en)) == [], f"{lang}.json has keys English lacks"
    for key, text in other.items():
        assert isinstance(text, str) and text.strip(), f"{lang}:{key} is empty"
        assert set(PLACEHOLDER.findall(text)) == set(PLACEHOLDER.findall(en[key])), f"{lang}:{key} placeholders differ"


def test_every_literal_key_used_by_the_code_is_translated() -> None:
    en = load("en")
    missing = []
    for name, src in js_sources().items():
        for key in re.findall(r"""\bt\(\s*["']([\w.]+)["']""", src):
            if key not in en and f"{key}_other" not in en:
                missing.append(f"{name}: {key}")
    assert missing == []


def test_markup_has_no_untranslated_text() -> None:
    class Texts(HTMLParser):
        def __init__(self) -> None:
            super().__init__()
            self.stack: list[str] = []
            self.found: list[str] = []
            self.keys: list[str] = []

        def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
            if tag not in ("meta", "link", "input", "img", "br"):
                self.stack.append(tag)
            self.keys += [v or "" for k, v in attrs if k.startswith("data-i18n")]

        def handle_endtag(self, tag: str) -> None:
            if self.stack and self.stack[-1] == tag:
                self.stack.pop()

        def handle_data(self, data: str) -> None:
            if data.strip() and not (self.stack and self.stack[-1] in ("script", "style")):
                self.found.append(data.strip())

    parser = Texts()
    parser.feed((STATIC / "index.html").read_text(encoding="utf-8"))
    assert parser.found == []
    en = load("en")
    assert parser.keys and all(k in en for k in parser.keys)


def test_names_looked_up_at_run_time_are_translated() -> None:
    """Keys built from data (t(`edition.${id}`) and the like) exist for every value the server can send."""
    en = load("en")
    needed = [f"edition.{e}" for e in BUILTIN] + [f"edition_blurb.{e}" for e in BUILTIN]
    needed += [f"level.{lv}" for lv in LEVELS] + [f"card.{c}" for c in CARD_NAMES]
    needed += [f"colour.{c}" for c in (*COLOURS, "gray")] + [f"lang.{lang}" for lang in LANGS]
    needed += [f"status.{s}" for s in ("open", "active", "finished")] + [f"tiebreak.{tb}" for tb in TIEBREAKERS]
    for e in BUILTIN:
        ed = get_edition(e)
        needed += [f"deck.{d}" for d in ed.ticket_decks]
        needed += [f"option.{k}" for k, v in ed.raw["rules"].items() if isinstance(v, bool | int)]
    assert [k for k in needed if k not in en] == []


def test_translations_are_not_english_copies() -> None:
    """A translation file that silently repeats the English text would pass the key checks."""
    en = load("en")
    shared = {"app.title", "app.brand", "replay.count", "market.ticket_deck", "mix.part_one", "mix.part_other"}
    for lang in LANGS[1:]:
        other = load(lang)
        same = [k for k in en if other[k] == en[k] and not k.startswith("lang.") and k not in shared]
        assert len(same) < 0.05 * len(en), f"{lang}: {len(same)} strings identical to English, e.g. {same[:8]}"


def test_every_bot_level_has_a_style_line_for_the_lobby() -> None:
    from ttr.bots import LEVEL_STYLES, LEVELS

    lobby = js_sources()["lobby.js"]
    match = re.search(r"const LEVELS = \[([^\]]*)\]", lobby)
    assert match is not None
    assert [x.strip().strip('"') for x in match.group(1).split(",")] == list(LEVELS)
    assert "title: this.levelStyle(lv)" in lobby  # the level's style is the option's tooltip ...
    assert 'h("small", { class: "level-style"' in lobby  # ... and a line under the menu
    assert list(LEVEL_STYLES) == list(LEVELS)
    en = load("en")
    for level in LEVELS:  # the English file says what ttr.bots says (the served line); the others translate it
        assert en[f"level_style.{level}"] == LEVEL_STYLES[level]
