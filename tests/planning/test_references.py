from __future__ import annotations

from typing import Any

import pytest

from toolweave.errors import InputError, ToolweaveError
from toolweave.planning.references import (
    REFERENCE,
    UnresolvedReference,
    references,
    rename_references,
    resolve,
)

RESULTS: dict[str, Any] = {
    "s1": {"city": "Paris", "country": "France", "population": 2102650, "coords": [48.9, 2.35]},
    "s2": {"date": "2026-11-22", "items": [{"name": "umbrella"}, {"name": "coat"}]},
    "s3": "It will rain.",
    "s4": 21.5,
}


@pytest.mark.parametrize(
    ("text", "step", "path"),
    [
        ("{{s1.result}}", "s1", ""),
        ("{{s1.result.city}}", "s1", ".city"),
        ("{{ s2.result.items.0.name }}", "s2", ".items.0.name"),
        ("{{step-2.result.first_name}}", "step-2", ".first_name"),
    ],
)
def test_reference_pattern_reads_step_and_path(text: str, step: str, path: str) -> None:
    match = REFERENCE.fullmatch(text)
    assert match is not None
    assert (match["step"], match["path"]) == (step, path)


@pytest.mark.parametrize(
    "text", ["{{s1}}", "{{s1.results.city}}", "{s1.result}", "{{s1.result.}}", "s1.result.city"]
)
def test_reference_pattern_rejects_near_misses(text: str) -> None:
    assert REFERENCE.search(text) is None


def test_references_found_anywhere_in_nested_values() -> None:
    value = {
        "q": "Weather in {{s1.result.city}} on {{ s2.result.date }}",
        "more": [{"deep": ["{{s4.result}}"]}, 3, None],
        "{{s9.result}}": "keys are not values",
    }
    assert references(value) == {"s1", "s2", "s4"}


def test_references_of_plain_values_are_empty() -> None:
    assert references({"a": "no braces", "b": 1, "c": [True, None]}) == set()
    assert references(42) == set()


def test_whole_reference_keeps_the_value_type() -> None:
    resolved = resolve(
        {
            "n": "{{s1.result.population}}",
            "xy": "{{s1.result.coords}}",
            "place": "{{ s1.result }}",
            "t": "{{s4.result}}",
        },
        RESULTS,
    )
    assert resolved == {"n": 2102650, "xy": [48.9, 2.35], "place": RESULTS["s1"], "t": 21.5}
    assert isinstance(resolved["n"], int)


def test_reference_inside_text_is_formatted() -> None:
    resolved = resolve(
        {
            "q": "Weather in {{s1.result.city}} on {{s2.result.date}}",
            "n": "about {{s1.result.population}} people, {{s4.result}} degrees",
            "json": "at {{s1.result.coords}} in {{s2.result.items.1}}",
        },
        RESULTS,
    )
    assert resolved == {
        "q": "Weather in Paris on 2026-11-22",
        "n": "about 2102650 people, 21.5 degrees",
        "json": 'at [48.9,2.35] in {"name":"coat"}',
    }


def test_nested_paths_and_list_indexes() -> None:
    resolved = resolve({"what": "{{s2.result.items.1.name}}"}, RESULTS)
    assert resolved == {"what": "coat"}


def test_references_resolved_inside_lists_and_dicts() -> None:
    arguments = {"where": {"town": "{{s1.result.city}}"}, "days": ["{{s2.result.date}}", 7]}
    assert resolve(arguments, RESULTS) == {
        "where": {"town": "Paris"},
        "days": ["2026-11-22", 7],
    }


def test_text_result_is_used_as_is() -> None:
    assert resolve({"a": "{{s3.result}}", "b": "Forecast: {{s3.result}}"}, RESULTS) == {
        "a": "It will rain.",
        "b": "Forecast: It will rain.",
    }


def test_resolve_returns_a_copy_not_sharing_results() -> None:
    arguments = {"place": "{{s1.result}}", "fixed": ["x"]}
    resolved = resolve(arguments, RESULTS)
    resolved["place"]["city"] = "Lyon"
    resolved["fixed"].append("y")
    assert RESULTS["s1"]["city"] == "Paris"
    assert arguments == {"place": "{{s1.result}}", "fixed": ["x"]}


@pytest.mark.parametrize(
    ("reference", "message"),
    [
        (
            "{{s1.result.town}}",
            "{{s1.result.town}}: s1's result has no key 'town' "
            "(keys: city, country, population, coords)",
        ),
        (
            "{{s9.result.city}}",
            "{{s9.result.city}}: there is no result of step s9 (results of: s1, s2, s3, s4)",
        ),
        (
            "{{s2.result.items.5.name}}",
            "{{s2.result.items.5.name}}: s2's result.items has 2 items, so no index 5",
        ),
        (
            "{{s2.result.items.first}}",
            "{{s2.result.items.first}}: s2's result.items is a list of 2 items: "
            "use an index, not 'first'",
        ),
        (
            "{{s2.result.items.0.nme}}",
            "{{s2.result.items.0.nme}}: s2's result.items.0 has no key 'nme' (keys: name)",
        ),
        (
            "{{s3.result.city}}",
            "{{s3.result.city}}: s3's result is the text 'It will rain.', "
            "not an object or a list: it has no 'city'",
        ),
        (
            "{{s4.result.0}}",
            "{{s4.result.0}}: s4's result is the float 21.5, "
            "not an object or a list: it has no '0'",
        ),
    ],
)
def test_unresolvable_reference_says_what_exists(reference: str, message: str) -> None:
    with pytest.raises(UnresolvedReference) as raised:
        resolve({"x": f"in {reference}"}, RESULTS)
    assert str(raised.value) == message
    assert raised.value.reference == reference


def test_unresolved_reference_belongs_to_the_exception_tree() -> None:
    with pytest.raises(UnresolvedReference) as raised:
        resolve({"x": "{{ s1.result.town }}"}, RESULTS)
    assert isinstance(raised.value, ToolweaveError) and not isinstance(raised.value, InputError)
    assert (raised.value.reference, raised.value.step) == ("{{s1.result.town}}", "s1")


def test_unknown_step_with_no_results_yet() -> None:
    with pytest.raises(UnresolvedReference, match="no step has a result yet"):
        resolve({"x": "{{s1.result}}"}, {})


def test_long_key_lists_are_cut_short() -> None:
    results = {"s1": {f"k{i}": i for i in range(15)}}
    with pytest.raises(UnresolvedReference) as raised:
        resolve({"x": "{{s1.result.z}}"}, results)
    assert str(raised.value).endswith("k8, k9, … (5 more))")


def test_the_lines_of_a_text_that_hold_a_word() -> None:
    log = {"s1": "08:00 INFO up\n08:30 ERROR timeout\n08:31 error again\n08:32 ERRORS"}
    assert resolve({"c": "{{s1.result | lines:ERROR}}"}, log) == {
        "c": "08:30 ERROR timeout\n08:31 error again"
    }
    assert references("{{s1.result|lines:ERROR}}") == {"s1"}
    # No line holds it: the step fails, nothing empty is passed on.
    with pytest.raises(UnresolvedReference, match="no line of s1's result holds 'WARN'"):
        resolve({"c": "{{s1.result | lines:WARN}}"}, log)


def test_the_last_line_that_is_not_blank() -> None:
    notes = {"s1": "buy milk\ncall the bank\n\n", "s2": "\n  \n"}
    edit = {"old": "{{s1.result | last_line}}", "new": "{{s1.result|last_line}}\nwater plants"}
    assert resolve({"e": [edit]}, notes) == {
        "e": [{"old": "call the bank", "new": "call the bank\nwater plants"}]
    }
    assert rename_references({"e": "{{s1.result|last_line}}"}, {"s1": "s3"}) == {
        "e": "{{s3.result | last_line}}"
    }
    with pytest.raises(UnresolvedReference, match="s2's result has no line that is not blank"):
        resolve({"c": "{{s2.result | last_line}}"}, notes)


def test_a_csv_line_described_in_the_headers_columns() -> None:
    budget = {"s1": "item,cost\ndesign,1200\n", "s2": "just one column\n"}
    line = "{{s1.result | csv_line:for printing, at a cost of 150}}"
    assert resolve({"c": line}, budget) == {"c": "printing,150"}
    assert resolve({"c": "{{s1.result|csv_line:with item flyers and cost $90}}"}, budget) == {
        "c": "flyers,90"
    }
    with pytest.raises(UnresolvedReference, match="gives no item, cost"):
        resolve({"c": "{{s1.result | csv_line:for printing}}"}, budget)
    with pytest.raises(UnresolvedReference, match="no header of columns"):
        resolve({"c": "{{s2.result | csv_line:for printing, cost 5}}"}, budget)
    assert rename_references({"c": line}, {"s1": "s3"}) == {"c": line.replace("s1", "s3")}


def test_a_row_from_the_labelled_lines_of_a_text() -> None:
    """A sign-up form read from a file, added to a table: its values quoted, never its text
    run as a statement."""
    form = {"s1": "New customer sign-up\nName: Grace O'Hara\nEmail: g@x.org\nCity: Arlington\n"}
    query = "{{s1.result | row:users:name,email,city,age}}"
    assert resolve({"q": query}, form) == {
        "q": "INSERT INTO users (name, email, city) "
        "VALUES ('Grace O''Hara', 'g@x.org', 'Arlington')"
    }
    assert rename_references({"q": query}, {"s1": "s2"}) == {
        "q": "{{s2.result | row:users:name,email,city,age}}"
    }
    with pytest.raises(UnresolvedReference, match="no line of s1's result gives a value"):
        resolve({"q": "{{s1.result | row:orders:item,amount}}"}, form)


def test_a_value_filter_takes_the_one_value_a_result_gives_for_a_fact() -> None:
    """A fact read from a table row, a page or a file, passed on alone: a key of the record,
    a labelled line, a quoted key; none, or two different, is a failed step."""
    results = {
        "s1": "[{'id': 2, 'name': 'Bob Chen', 'email': 'bob@x.org', 'city': 'Toronto'}]",
        "s2": "## Contact\n* Phone: 555-0142\n**Owner:** Priya Nair\n",
        "s3": 'DEFAULT = {"city": "Lisbon", "api_url": "https://api.x/v1"}',
        "s4": {"rows": [{"city": "Lyon"}, {"city": "Paris"}]},
    }
    for reference, value in (
        ("city: {{s1.result | value:city}}", "city: Toronto"),
        ("{{s2.result | value:phone}}", "555-0142"),
        ("{{s2.result | value:owner}}", "Priya Nair"),
        ("{{s3.result | value:city}}", "Lisbon"),
        ("{{s3.result | value:api url}}", "https://api.x/v1"),
    ):
        assert resolve({"x": reference}, results) == {"x": value}
    assert rename_references({"x": "{{s1.result | value:city}}"}, {"s1": "s3"}) == {
        "x": "{{s3.result | value:city}}"
    }
    with pytest.raises(UnresolvedReference, match="gives no value for 'deadline'"):
        resolve({"x": "{{s2.result | value:deadline}}"}, results)
    with pytest.raises(UnresolvedReference, match="gives 2 different values for 'city'"):
        resolve({"x": "{{s4.result | value:city}}"}, results)


def test_a_fact_of_a_thing_is_the_cell_of_the_row_that_names_it() -> None:
    """ "check the price on <url> and add an order of a Baguette at that price": the page's
    table row that names the thing, under the header that names the fact; money as a number."""
    page = "| Item | Price |\n| --- | --- |\n| Baguette | $2.20 |\n| Carrot cake (whole) | $27.00 |"
    results = {"s1": page, "s2": "Rye loaf .... €4.50\nScone ... €1,200.00"}
    for reference, value in (
        ("{{s1.result | value:price of baguette}}", "2.20"),
        ("{{s1.result | value:price of carrot cake}}", "27.00"),
        ("{{s1.result | value:amount of carrot cake}}", "27.00"),  # money by any of its words
        ("{{s2.result | value:price of scone}}", "1200.00"),  # a line that names it
    ):
        assert resolve({"x": reference}, results) == {"x": value}
    with pytest.raises(UnresolvedReference, match="gives no value for 'price' of 'croissant'"):
        resolve({"x": "{{s1.result | value:price of croissant}}"}, results)
    # a labelled value of the listed record that names it
    log = "Commit history:\nCommit: a1\nMessage: Fix typo\n\nCommit: b2\nMessage: Add units\n"
    assert resolve({"x": "{{s1.result | value:commit of add units}}"}, {"s1": log}) == {"x": "b2"}


def test_a_line_ticked_off_is_the_one_line_that_holds_it_with_its_box_ticked() -> None:
    todo = {"s1": "- [ ] call the bank\n- [x] buy milk\n- [ ] call the bank later\n- [ ] post"}
    assert resolve({"e": "{{s1.result | ticked:post}}"}, todo) == {"e": "- [x] post"}
    with pytest.raises(UnresolvedReference, match="2 lines of s1's result hold 'call the bank'"):
        resolve({"e": "{{s1.result | ticked:call the bank}}"}, todo)
    with pytest.raises(UnresolvedReference, match="has no open box"):
        resolve({"e": "{{s1.result | ticked:buy milk}}"}, todo)
    # opened again
    assert resolve({"e": "{{s1.result | unticked:buy milk}}"}, todo) == {"e": "- [ ] buy milk"}
    with pytest.raises(UnresolvedReference, match="has no ticked box"):
        resolve({"e": "{{s1.result | unticked:post}}"}, todo)


def test_an_empty_result_passes_nothing_on() -> None:
    """ "find the email of whoever ordered the Monitor and save it to a.txt" had written "[]"
    (no row found) to the file and reported success."""
    for empty in ("[]", "", [], {}):
        with pytest.raises(UnresolvedReference, match="is empty: there is nothing to pass on"):
            resolve({"content": "{{s1.result}}"}, {"s1": empty})
    assert resolve({"n": "{{s1.result}}"}, {"s1": 0}) == {"n": 0}


def test_a_labelled_line_and_the_same_with_its_value_replaced() -> None:
    alpha = {"s1": "Project Alpha\nOwner: Priya Nair\n* Deadline: 2024-11-15\n", "s2": "x\n"}
    assert resolve({"c": "{{s1.result | field:deadline}}"}, alpha) == {
        "c": "* Deadline: 2024-11-15"
    }
    assert resolve({"c": "{{s1.result | field:deadline=2024-12-06}}"}, alpha) == {
        "c": "* Deadline: 2024-12-06"
    }
    with pytest.raises(UnresolvedReference, match="no lines of s1's result are labelled 'line'"):
        resolve({"c": "{{s1.result | field:line}}"}, {"s1": "Dead line: x\nStart line: y"})
    with pytest.raises(UnresolvedReference, match="no lines of s2's result are labelled 'owner'"):
        resolve({"c": "{{s2.result | field:owner}}"}, alpha)
    both = "{{s1.result | field:deadline=2024-12-06}}"
    assert rename_references({"c": both}, {"s1": "s3"}) == {"c": both.replace("s1", "s3")}
