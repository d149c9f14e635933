"""Convert the cross-checked reference maps (../shared/reference/maps) into ttr's own map format.

This is a developer tool, run once when the reference data changes; its output is committed under
``src/ttr/editions/data/``. Nothing in the package reads ``../shared`` at run time.

    python tools/convert_maps.py ../shared/reference/maps src/ttr/editions/data
"""

from __future__ import annotations

import json
import sys
import unicodedata
from pathlib import Path

FORMAT_VERSION = 1
COLOURS = ["red", "orange", "yellow", "green", "blue", "purple", "white", "black"]


def slug(name: str) -> str:
    """ASCII, lower-case, dash-separated id: 'Montréal' -> 'montreal', 'Mo I Rana' -> 'mo-i-rana'."""
    folded = unicodedata.normalize("NFKD", name.replace("ß", "ss").replace("ø", "o").replace("Ø", "o"))
    folded = folded.replace("æ", "ae").replace("Æ", "ae")
    ascii_name = "".join(ch for ch in folded if not unicodedata.combining(ch))
    out = "".join(ch.lower() if ch.isalnum() else "-" for ch in ascii_name)
    while "--" in out:
        out = out.replace("--", "-")
    return out.strip("-")


BASE_RULES: dict = {
    "players": [2, 5],
    "trains": 45,
    "end_trigger_trains": 2,
    "starting_hand": 4,
    "market_size": 5,
    "locomotive_flush": 3,
    "passenger_flush": 0,
    "max_consecutive_flushes": 3,
    "faceup_locomotive_single": True,
    "locomotives_wild": "all",
    "plus4_min_length": 4,
    "ferry_substitute_cards": 0,
    "all_lanes_min_players": 4,
    "stations": 0,
    "station_costs": [1, 2, 3],
    "unused_station_points": 4,
    "passengers": 0,
    "passenger_one_token_per_city": True,
    "initial_tickets": {"deal": {"regular": 3}, "keep_min": 2, "returned": "bottom", "choose_mix": False},
    "draw_tickets": {"deal": {"regular": 3}, "keep_min": 1, "returned": "bottom", "choose_mix": False},
    "longest_path_bonus": 10,
    "most_tickets_bonus": 0,
    "tiebreakers": ["tickets_completed", "longest_path_bonus"],
}

EDITION_RULES: dict[str, dict] = {
    "usa": {},
    "europe": {
        "stations": 3,
        "initial_tickets": {"deal": {"long": 1, "regular": 3}, "keep_min": 2, "returned": "remove", "choose_mix": False},
        "tiebreakers": ["tickets_completed", "fewest_stations", "longest_path_bonus"],
    },
    "nordic": {
        "players": [2, 3],
        "trains": 40,
        "locomotive_flush": 0,
        "faceup_locomotive_single": False,
        "locomotives_wild": "ferries_and_tunnels",
        "ferry_substitute_cards": 3,
        "all_lanes_min_players": 3,
        "initial_tickets": {"deal": {"regular": 5}, "keep_min": 2, "returned": "remove", "choose_mix": False},
        "draw_tickets": {"deal": {"regular": 3}, "keep_min": 1, "returned": "remove", "choose_mix": False},
        "longest_path_bonus": 0,
        "most_tickets_bonus": 10,
        "tiebreakers": ["tickets_completed", "longest_path_length"],
    },
    "marklin": {
        "passenger_flush": 3,
        "passengers": 3,
        "initial_tickets": {
            "choose_mix": True,
            "count": 4,
            "decks": ["short", "long"],
            "keep_min": 2,
            "returned": "bottom_then_shuffle",
        },
        "draw_tickets": {"choose_mix": True, "count": 4, "decks": ["short", "long"], "keep_min": 1, "returned": "bottom"},
        "longest_path_bonus": 0,
        "most_tickets_bonus": 10,
        "tiebreakers": ["tickets_completed"],
    },
}

NAMES = {
    "usa": "USA",
    "europe": "Europe",
    "nordic": "Nordic Countries",
    "marklin": "Märklin",
}

# Provisional Märklin merchandise layout (the real one is printed on the board and could not be
# sourced): Berlin black; then the German cities by population, six red, twelve yellow, sixteen white.
MARKLIN_BY_SIZE = [
    "Hamburg",
    "München",
    "Köln",
    "Frankfurt",
    "Stuttgart",
    "Düsseldorf",
    "Leipzig",
    "Dortmund",
    "Bremen",
    "Dresden",
    "Hannover",
    "Nürnberg",
    "Münster",
    "Karlsruhe",
    "Mannheim",
    "Augsburg",
    "Kiel",
    "Chemnitz",
    "Magdeburg",
    "Freiburg",
    "Mainz",
    "Erfurt",
    "Rostock",
    "Kassel",
    "Saarbrücken",
    "Regensburg",
    "Würzburg",
    "Ulm",
    "Koblenz",
    "Bremerhaven",
    "Schwerin",
    "Konstanz",
    "Emden",
    "Lindau",
]


def merchandise_layout() -> dict[str, list[int]]:
    layout = {"Berlin": [7, 6, 5, 4]}
    for i, city in enumerate(MARKLIN_BY_SIZE):
        layout[city] = [4, 3, 2] if i < 6 else [3, 2, 1] if i < 18 else [2]
    return layout


def convert(edition: str, src: dict, coords: dict[str, list[float]]) -> dict:
    extra = src["extra"]
    countries: list[str] = extra.get("countries", [])
    cities = []
    node_of: dict[tuple[str, int], str] = {}  # (city name, reference route id) -> node id
    for name in src["cities"]:
        lat, lon = coords[name]
        if name in countries:
            for ep in extra["country_endpoints"][name]:
                other = ep["from_city"]
                olat, olon = coords[other]
                node = f"{slug(name)}-{slug(other)}"
                node_of[(name, ep["route_id"])] = node
                # Draw each border endpoint a quarter of the way from the country's point towards its city.
                cities.append(
                    {
                        "id": node,
                        "name": name,
                        "area": slug(name),
                        "lat": round(lat + (olat - lat) * 0.25, 4),
                        "lon": round(lon + (olon - lon) * 0.25, 4),
                    }
                )
        else:
            cities.append({"id": slug(name), "name": name, "lat": lat, "lon": lon})

    def node(name: str, ref_route: int) -> str:
        return node_of.get((name, ref_route), slug(name))

    lanes: dict[int, int] = {}
    routes = []
    for r in src["routes"]:
        a, b = node(r["a"], r["id"]), node(r["b"], r["id"])
        rid = f"{slug(r['a'])}-{slug(r['b'])}"
        if r["double_group"] is not None:
            lanes[r["double_group"]] = lanes.get(r["double_group"], 0) + 1
            rid += f"/{lanes[r['double_group']]}"
        route: dict = {"id": rid, "a": a, "b": b, "length": r["length"], "color": r["color"]}
        if r["tunnel"]:
            route["tunnel"] = True
        if r["locomotives"]:
            route["ferry"] = r["locomotives"]
        if r["double_group"] is not None:
            route["group"] = f"{slug(r['a'])}-{slug(r['b'])}"
        routes.append(route)
    if edition == "nordic":  # Murmansk–Lieksa: any 4 cards replace one card of the chosen colour
        for route in routes:
            if route["length"] == 9:
                route["substitute"] = 4

    raw_tickets = src["tickets"] or extra.get("germany_tickets_not_marklin", [])
    tickets = []
    seen: set[str] = set()
    for t in raw_tickets:
        tid = f"{slug(t['a'])}-{slug(t['b'])}"
        while tid in seen:
            tid += "+"
        seen.add(tid)
        deck = ("long" if t["long"] else "short") if edition == "marklin" else ("long" if t["long"] else "regular")
        tickets.append({"id": tid, "a": slug(t["a"]), "b": slug(t["b"]), "points": t["points"], "deck": deck})

    rules = json.loads(json.dumps(BASE_RULES))
    rules.update(EDITION_RULES[edition])
    rules["route_points"] = {str(k): v for k, v in sorted(src["route_scoring"].items(), key=lambda kv: int(kv[0]))}

    out: dict = {
        "format": FORMAT_VERSION,
        "id": edition,
        "name": NAMES[edition],
        "title": src["name"],
        "sources": src["sources"],
        "coordinates_credit": "City coordinates: GeoNames (geonames.org), CC BY 4.0.",
        "deck": src["deck"],
        "rules": rules,
        "cities": cities,
        "routes": routes,
        "tickets": tickets,
    }
    if edition == "marklin":
        out["merchandise"] = {slug(c): v for c, v in merchandise_layout().items()}
        out["notes"] = [
            "STAND-IN TICKETS: the 46 Märklin ticket cards could not be sourced; this edition ships the "
            "2017 'Ticket to Ride: Germany' deck (55 short + 34 long) for the same board. Replace 'tickets' "
            "to use the real deck; no code change is needed. See docs/marklin.md.",
            "PROVISIONAL MERCHANDISE: which city carries which stack is printed on the Märklin board and "
            "could not be sourced. Only Berlin (7/6/5/4) is known; the other stacks are laid out by city "
            "population (6 largest red 4/3/2, next 12 yellow 3/2/1, the rest white 2). Edit 'merchandise'. "
            "See docs/marklin.md.",
        ]
    return out


def main(src_dir: str, out_dir: str) -> None:
    coords = json.loads(Path(src_dir, "coordinates.json").read_text(encoding="utf-8"))
    for edition in ("usa", "europe", "nordic", "marklin"):
        src = json.loads(Path(src_dir, f"{edition}.json").read_text(encoding="utf-8"))
        data = convert(edition, src, coords[edition])
        text = json.dumps(data, ensure_ascii=False, indent=1)
        Path(out_dir, f"{edition}.json").write_text(text + "\n", encoding="utf-8")
        print(f"{edition}: {len(data['cities'])} nodes, {len(data['routes'])} routes, {len(data['tickets'])} tickets")


if __name__ == "__main__":
    main(*sys.argv[1:3])
