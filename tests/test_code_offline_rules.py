"""The offline reviewers' rules that generalise (issue 32): scope by what the task names or
implies, requirements however written, SQL built by any string formatting in both models,
conditions that are always true, tests that never run. Each on a change written here."""

from __future__ import annotations

import pytest

from review_harness.code.rules import FileView, review_quality
from review_harness.code.spec_rules import names_of, review_spec, spec_items


def view(text: str, path: str, language: str = "python", added: set[int] | None = None) -> FileView:
    lines = {n: line for n, line in enumerate(text.splitlines(), 1)}
    return FileView(path=path, language=language, lines=lines, added=set(lines) if added is None else added)


QUERIES = ("def orders_with_status(conn, status):\n"
           "    return conn.execute('SELECT * FROM orders WHERE status = ? ORDER BY created_at', (status,)).fetchall()\n")
SESSION = "SESSION_TTL_SECONDS = 30 * 24 * 3600\nSECURE_COOKIES = False\n"
SPEC = "# Task 21\n\n## Requirements\n\n- Add `orders_with_status(conn, status)` to `orders/queries.py`: it must return them.\n"


# ---------------------------------------------------------------------------- scope


@pytest.mark.parametrize("letter", "AB")
def test_a_file_the_task_neither_names_nor_implies_is_scope_creep(letter: str):
    files = [view(QUERIES, "orders/queries.py"), view(SESSION, "auth/session.py"),
             view("def test_status(conn):\n    assert orders_with_status(conn, 'new') == []\n", "tests/test_queries.py"),
             view("# Orders\n\nNow with a status filter.\n", "README.md", language="markdown")]
    found = [(f.category, f.file, f.line, f.severity.value) for f in review_spec(SPEC, files, letter).findings]
    assert found == [("scope-creep", "auth/session.py", 1, "Important")]


def test_a_file_that_uses_what_the_spec_names_is_in_scope():
    api = "from orders.queries import orders_with_status\n\n\ndef list_orders(conn, status):\n    return orders_with_status(conn, status)\n"
    files = [view(QUERIES, "orders/queries.py"), view(api, "web/api.py")]
    outside = [f for f in review_spec(SPEC, files, "B").findings if f.category == "scope-creep" and f.severity.value == "Important"]
    assert outside == []  # (its new public list_orders is still B's Minor note)


def test_scope_is_not_judged_when_the_spec_names_no_code():
    spec = "# Task\n\n## Requirements\n\n- Orders can be filtered by their status.\n"
    files = [view(QUERIES, "orders/queries.py"), view(SESSION, "auth/session.py")]
    report = review_spec(spec, files, "B")
    assert [f for f in report.findings if f.file == "auth/session.py"] == []
    assert "Not assessed offline: 1 requirement(s) in plain words" in report.summary


# ---------------------------------------------------------------------------- requirements however written


def test_a_name_on_the_second_line_of_a_list_item_is_read():
    spec = ("# Task 24\n\n## Requirements\n\n- Add `parse_invoice_line` to `billing/parse.py`: it must split a line\n"
            "  and convert the amount with `to_cents`.\n- Reject a line without an amount.\n")
    required, _ = spec_items(spec)
    assert required[0].endswith("convert the amount with `to_cents`.") and len(required) == 2
    code = "def parse_invoice_line(line):\n    return int(float(line) * 100)\n"
    missing = [f.description for f in review_spec(spec, [view(code, "billing/parse.py")], "B").findings]
    assert missing == ["The spec asks for `to_cents`; the change does not provide it."]


@pytest.mark.parametrize("item, names", [
    ("Add a cancel_order(conn, order_id) function to orders/cancel.py.", ["cancel_order(conn, order_id)", "orders/cancel.py"]),
    ("The handler calls notify_customer and GET /orders/{id} returns it, e.g. as JSON.", ["GET /orders/{id}", "notify_customer"]),
    ("Use settings.timeout and the --dry-run flag; class OrderStore keeps them.", ["settings.timeout", "OrderStore", "--dry-run"]),
    ("Node.js and read/write access are not names; see https://example.com/a.py.", []),
    ("A failure must be logged and re-raised.", []),
    ("Add `purge(folder, keep)`: keep the newest `keep` archives.", ["purge(folder, keep)"]),
])
def test_names_written_in_plain_words(item: str, names: list[str]):
    assert names_of(item) == names


def test_requirements_in_plain_words_tables_and_sentences_are_checked():
    spec = ("# Task 25\n\n## Requirements\n\n- Add a cancel_order(conn, order_id) function to orders/cancel.py.\n"
            "- Add refund_payment(conn, order_id) in payments/refunds.py; it must refund the full amount.\n\n"
            "| Requirement | Notes |\n|---|---|\n| `audit_log` records each cancellation | - |\n\n"
            "Cancelled orders must never be shipped.\n\n## Background\n\n- `legacy_cancel` stays as it is.\n")
    required, excluded = spec_items(spec)
    assert len(required) == 4 and excluded == [] and not any("legacy_cancel" in r for r in required)
    code = "def cancel_order(conn, order_id):\n    conn.execute('UPDATE orders SET status = ? WHERE id = ?', ('cancelled', order_id))\n"
    for letter in "AB":
        report = review_spec(spec, [view(code, "orders/cancel.py")], letter)
        missing = sorted(f.quote for f in report.findings if f.category == "missing-requirement")
        assert missing == ["Add refund_payment(conn, order_id) in payments/refunds.py; it must refund the full amount.",
                           "`audit_log` records each cancellation -"], letter
        assert "Not assessed offline: 1 requirement(s)" in report.summary  # the sentence names no code


def test_a_spec_without_requirement_headings_still_has_requirements():
    spec = "# Task 9: durations\n\n- Add `parse_duration` to `scheduling/durations.py`.\n\n## Notes\n\n- `old_parse` is kept.\n"
    assert spec_items(spec) == (["Add `parse_duration` to `scheduling/durations.py`."], [])


# ---------------------------------------------------------------------------- SQL in both models

SQL_FORMS = {
    "f-string": "    cur.execute(f\"SELECT * FROM t WHERE n = '{name}'\")\n",
    "percent": "    cur.execute(\"SELECT * FROM t WHERE n = '%s'\" % name)\n",
    "format": "    cur.execute(\"SELECT * FROM t WHERE n = '{}'\".format(name))\n",
    "concatenation": "    cur.execute(\"SELECT * FROM t WHERE n = '\" + name + \"'\")\n",
    "text()": "    cur.execute(text(f\"SELECT * FROM t WHERE n = '{name}'\"))\n",
}


@pytest.mark.parametrize("form", SQL_FORMS)
@pytest.mark.parametrize("letter", "AB")
def test_sql_built_by_any_string_formatting_is_found_by_both_models(form: str, letter: str):
    code = "def find(cur, name):\n" + SQL_FORMS[form]
    found = [(f.line, f.severity.value, f.category) for f in review_quality([view(code, "app/db.py")], letter).findings]
    assert found == [(2, "Critical", "security")]


def test_a_query_built_up_with_plus_equals_is_traced_by_b():
    code = ("def find(cur, name):\n    query = \"SELECT * FROM t\"\n    query += \" WHERE n = '\" + name + \"'\"\n"
            "    cur.execute(query)\n")
    assert [f.line for f in review_quality([view(code, "app/db.py")], "B").findings] == [4]
    assert review_quality([view(code, "app/db.py")], "A").findings == []  # A does not trace variables


def test_placeholders_are_no_injection():
    code = "def find(cur, name):\n    cur.execute(\"SELECT * FROM t WHERE n = %s\", (name,))\n    cur.execute(\"SELECT 1\")\n"
    for letter in "AB":
        assert review_quality([view(code, "app/db.py")], letter).findings == []


# ---------------------------------------------------------------------------- always-true conditions

MODEL = ("class Order:\n    def __init__(self, total):\n        self.total = total\n\n    def is_paid(self):\n"
         "        return self.total == 0\n\n    @property\n    def ready(self):\n        return True\n")


@pytest.mark.parametrize("condition, flagged", [
    ("if order.is_paid:", True),
    ("if not order.is_paid:", True),
    ("if order.total and order.is_paid:", True),
    ("while order.is_paid:", True),
    ("if order.is_paid():", False),
    ("if order.ready:", False),          # a property
    ("if order.total:", False),          # an attribute
    ("if order.shipped:", False),        # nothing the change defines
])
def test_a_method_used_as_a_condition_is_always_true(condition: str, flagged: bool):
    shipping = f"def ship(order):\n    {condition}\n        return 1\n    return 0\n"
    for letter in "AB":
        found = [(f.file, f.line, f.severity.value) for f in
                 review_quality([view(MODEL, "orders/models.py"), view(shipping, "orders/shipping.py")], letter).findings]
        assert found == ([("orders/shipping.py", 2, "Critical")] if flagged else []), (letter, condition)


def test_a_function_object_in_a_condition_and_a_name_rebound_to_a_value():
    code = "def enabled():\n    return False\n\n\ndef run():\n    if enabled:\n        return 1\n"
    assert [f.line for f in review_quality([view(code, "app/flags.py")], "B").findings] == [6]
    rebound = code + "\n\nenabled = True\n"
    assert review_quality([view(rebound, "app/flags.py")], "B").findings == []


def test_a_method_assigned_as_an_attribute_somewhere_is_not_judged():
    code = MODEL + "\n\ndef mark(order):\n    order.is_paid = True\n    if order.is_paid:\n        return 1\n"
    assert review_quality([view(code, "orders/models.py")], "B").findings == []


# ---------------------------------------------------------------------------- tests that never run


@pytest.mark.parametrize("code, path, line, says", [
    ("def check_total():\n    assert 1 == 1\n", "tests/test_total.py", 1, "pytest collects only functions whose names start with test"),
    ("def test_outer():\n    def test_inner():\n        assert 1\n    assert 2\n", "tests/test_x.py", 2, "defined inside test_outer"),
    ("def test_a():\n    assert 1\n\n\ndef test_a():\n    assert 2\n", "tests/test_x.py", 1, "defined twice"),
    ("class OrderTests:\n    def test_total(self):\n        assert 1\n", "tests/test_x.py", 2, "not OrderTests"),
    ("class TestOrders:\n    def __init__(self):\n        pass\n\n    def test_total(self):\n        assert 1\n",
     "tests/test_x.py", 5, "it has an __init__"),
    ("import unittest\n\n\nclass Orders(unittest.TestCase):\n    def check_total(self):\n        self.assertEqual(1, 1)\n",
     "tests/test_x.py", 5, "only methods whose names start with test"),
    ("def test_total():\n    assert 1\n", "tests/checks.py", 1, "pytest does not collect checks.py"),
])
def test_a_test_that_never_runs(code: str, path: str, line: int, says: str):
    for letter in "AB":
        found = review_quality([view(code, path)], letter).findings
        assert [(f.line, f.category, f.severity.value) for f in found] == [(line, "tests", "Important")], letter
        assert says in found[0].description


@pytest.mark.parametrize("code, path", [
    ("def check_total(x):\n    assert x\n\n\ndef test_total():\n    check_total(1)\n", "tests/test_x.py"),  # a helper
    ("import pytest\n\n\n@pytest.fixture\ndef order():\n    assert True\n    return 1\n", "tests/test_x.py"),
    ("def check_total():\n    assert 1\n", "app/checks.py"),  # no test file
    ("class TestOrders:\n    def test_total(self):\n        assert 1\n", "tests/test_x.py"),
])
def test_collected_tests_and_helpers_are_fine(code: str, path: str):
    assert review_quality([view(code, path)], "B").findings == []
