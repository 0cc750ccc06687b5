"""The offline spec reviewer on changes shaped like real releases (a version bump, comment and
docstring edits, a module the spec names imported elsewhere, a standard-library module named as
the place of a change): none of these is scope creep or a missing requirement, while an edit
that changes code outside the task and a requirement left undone are still found. Every change
here is our own, reviewed through the real path: git's diff of two trees, the rendered prompt,
and the offline reviewer reading it back."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from review_harness.code.change import from_trees
from review_harness.code.offline import review_answer
from review_harness.code.prompts import parse_change, render_change, render_reviewer_prompt
from review_harness.code.rules import FileView

SPEC = """# Task 7: rounding in invoices

## Requirements
- `round_total` in `billing/totals.py` rounds half up to cents instead of half to even.
- Bump the version to 1.4.0.
"""

TOTALS_OLD = '''"""Invoice totals."""
from decimal import ROUND_HALF_EVEN, Decimal


def round_total(amount):
    return Decimal(amount).quantize(Decimal("0.01"), rounding=ROUND_HALF_EVEN)
'''
TOTALS_NEW = '''"""Invoice totals."""
from decimal import ROUND_HALF_UP, Decimal


def round_total(amount):
    return Decimal(amount).quantize(Decimal("0.01"), rounding=ROUND_HALF_UP)
'''
FORMAT_OLD = '''"""Formatting of amounts."""


def money(value):
    """Show an amount with its currency sign, e.g. '$1.00'. Negative amonts get a minus."""
    return f"${value:,.2f}"  # two places


def percent(value):
    return f"{value:.1%}"
'''
FORMAT_DOCS_ONLY = '''"""Formatting of amounts."""


def money(value):
    """Show an amount with its currency sign, e.g. '$1.00'. Negative amounts get a minus."""
    return f"${value:,.2f}"  # two places, thousands separated


def percent(value):
    return f"{value:.1%}"
'''
FORMAT_CODE_TOO = FORMAT_DOCS_ONLY.replace('return f"{value:.1%}"', 'return f"{value:.2%}"')


def spec_findings(tmp_path: Path, spec: str, base: dict[str, str], head: dict[str, str], letter: str = "B") -> list[dict]:
    for side, files in (("base", base), ("head", head)):
        for path, text in files.items():
            (tmp_path / side / path).parent.mkdir(parents=True, exist_ok=True)
            (tmp_path / side / path).write_text(text)
    change = from_trees(tmp_path / "base", tmp_path / "head")
    prompt = render_reviewer_prompt("spec", letter, spec=spec, change=render_change(change, 60_000), task="1",
                                    title="t", service="s", iteration=0)
    return json.loads(review_answer("spec", letter, prompt.request))["findings"]


def outside(findings: list[dict]) -> list[str]:
    return [f["file"] for f in findings if f["category"] == "scope-creep"]


@pytest.mark.parametrize("letter", ["A", "B"])
def test_a_version_bump_and_a_docs_only_edit_are_not_scope_creep(tmp_path: Path, letter: str):
    base = {"billing/totals.py": TOTALS_OLD, "billing/_version.py": '__version__ = "1.3.2"\n',
            "billing/meta.py": 'NAME = "billing"\nVERSION = "1.3.2"\n', "billing/fmt.py": FORMAT_OLD}
    head = {"billing/totals.py": TOTALS_NEW, "billing/_version.py": '__version__ = "1.4.0"\n',
            "billing/meta.py": 'NAME = "billing"\nVERSION = "1.4.0"\n', "billing/fmt.py": FORMAT_DOCS_ONLY}
    assert outside(spec_findings(tmp_path, SPEC, base, head, letter)) == []


@pytest.mark.parametrize("letter", ["A", "B"])
def test_a_code_edit_outside_the_task_is_still_scope_creep(tmp_path: Path, letter: str):
    """The same docstring and comment edits, with one changed line of code, and a constant that is no
    version metadata: both files are outside the task."""
    base = {"billing/totals.py": TOTALS_OLD, "billing/fmt.py": FORMAT_OLD, "billing/meta.py": 'TIMEOUT = 30\n'}
    head = {"billing/totals.py": TOTALS_NEW, "billing/fmt.py": FORMAT_CODE_TOO, "billing/meta.py": 'TIMEOUT = 5\n'}
    assert sorted(outside(spec_findings(tmp_path, SPEC, base, head, letter))) == ["billing/fmt.py", "billing/meta.py"]


def long_module(body: str) -> str:
    """A module over the prompt's whole-file limit, so the reviewer sees only an excerpt of it."""
    filler = "".join(f"\n\ndef helper_{i}(x):\n    return x + {i}\n" for i in range(150))
    return '"""Helpers."""\n' + filler + body


def test_a_comment_only_edit_in_an_excerpt_is_not_scope_creep_but_a_code_edit_is(tmp_path: Path):
    old = long_module("\n\ndef shout(text):\n    return text.upper()\n")
    comment = long_module("\n\ndef shout(text):  # noqa: D401\n    return text.upper()\n")
    code = long_module("\n\ndef shout(text):  # noqa: D401\n    return text.upper() + '!'\n")
    base = {"billing/totals.py": TOTALS_OLD, "billing/helpers.py": old}
    change = from_trees(*[_write(tmp_path / "probe" / s, {"billing/helpers.py": t}) for s, t in (("b", old), ("h", comment))])
    assert "(excerpt" in render_change(change, 60_000).text  # the reviewer sees an excerpt, not the whole file
    assert outside(spec_findings(tmp_path / "one", SPEC, base, {"billing/totals.py": TOTALS_NEW,
                                                                 "billing/helpers.py": comment})) == []
    assert outside(spec_findings(tmp_path / "two", SPEC, base, {"billing/totals.py": TOTALS_NEW,
                                                                 "billing/helpers.py": code})) == ["billing/helpers.py"]


def _write(root: Path, files: dict[str, str]) -> Path:
    for path, text in files.items():
        (root / path).parent.mkdir(parents=True, exist_ok=True)
        (root / path).write_text(text)
    return root


def test_a_file_that_imports_the_module_the_spec_names_is_in_scope(tmp_path: Path):
    spec = "# Task 8: faster tokens\n\n## Requirements\n- Replace the backtracking pattern in `lexer/patterns.py`.\n"
    base = {"lexer/patterns.py": 'WORD = r"(\\w+)+"\n', "lexer/scan.py": "import re\n\n\ndef scan(text):\n    return []\n",
            "lexer/cache.py": "SIZE = 10\n"}
    head = {"lexer/patterns.py": 'WORD = r"\\w+"\n',
            "lexer/scan.py": "import re\n\nfrom lexer import patterns\n\n\ndef scan(text):\n    return re.findall(patterns.WORD, text)\n",
            "lexer/cache.py": "SIZE = 100\n"}
    assert outside(spec_findings(tmp_path, spec, base, head)) == ["lexer/cache.py"]  # the unrelated edit still is


SIGNATURES_OLD = "import itertools\n\nSIGNATURES = {}\nSIGNATURES[itertools] = dict(\n    chain=[lambda *its: None],\n)\n"
SIGNATURES_NEW = ("import itertools\n\nSIGNATURES = {}\nSIGNATURES[itertools] = dict(\n    chain=[lambda *its: None],\n"
                  "    pairwise=[lambda iterable: None],\n)\n")


def test_a_standard_module_named_as_the_place_of_a_change_is_not_missing_but_the_change_is(tmp_path: Path):
    spec = "# Task 9\n\n## Requirements\n- Add `pairwise` to the known `itertools` signatures in `sig/table.py`.\n"
    done = spec_findings(tmp_path / "done", spec, {"sig/table.py": SIGNATURES_OLD}, {"sig/table.py": SIGNATURES_NEW})
    assert [f for f in done if f["category"] == "missing-requirement"] == []
    undone = SIGNATURES_OLD.replace("chain=[lambda *its: None]", "chain=[lambda *iterables: None]")
    missing = spec_findings(tmp_path / "undone", spec, {"sig/table.py": SIGNATURES_OLD}, {"sig/table.py": undone})
    assert [f["description"] for f in missing if f["category"] == "missing-requirement"] == [
        "The spec asks for `pairwise`; the change does not provide it."]


def test_the_old_file_is_put_back_together_from_the_prompt(tmp_path: Path):
    change = from_trees(_write(tmp_path / "b", {"m.py": FORMAT_OLD}), _write(tmp_path / "h", {"m.py": FORMAT_CODE_TOO}))
    [shown] = parse_change(render_change(change, 60_000).text)
    view = FileView(path="m.py", language="python", lines=shown["lines"], added=set(shown["added"]),
                    removed=shown["removed"], removed_before=shown["removed_before"])
    assert view.old_text == FORMAT_OLD and view.text == FORMAT_CODE_TOO


def _store(extra_in_class: str = "", extra_after: str = "") -> str:
    """A module long enough to be shown as an excerpt, with a class whose body a change can extend."""
    filler = "".join(f"\n    def get_{i}(self):\n        return self._data.get({i})\n" for i in range(150))
    return ("class Store:\n    def __init__(self):\n        self._data = {}\n" + filler + extra_in_class
            + "\n\ndef unrelated():\n    return None\n" + extra_after)


UNION = "\n    def __or__(self, other):\n        merged = Store()\n        merged._data = {**self._data, **other._data}\n        return merged\n"


def test_a_class_the_change_extends_is_the_place_of_the_requirement_even_in_an_excerpt(tmp_path: Path):
    spec = "# Task 10\n\n## Requirements\n- `Store` in `kv/store.py` supports the union operator `|`.\n"
    change = from_trees(_write(tmp_path / "p" / "b", {"kv/store.py": _store()}),
                        _write(tmp_path / "p" / "h", {"kv/store.py": _store(UNION)}))
    text = render_change(change, 60_000).text
    assert "(excerpt" in text and "    1   class Store:" in text  # the excerpt names the class the change is in
    done = spec_findings(tmp_path / "done", spec, {"kv/store.py": _store()}, {"kv/store.py": _store(UNION)})
    assert [f for f in done if f["category"] == "missing-requirement"] == []


def test_a_class_the_change_does_not_touch_and_an_operator_it_does_not_define_are_still_missing(tmp_path: Path):
    spec = "# Task 10\n\n## Requirements\n- `Store` in `kv/store.py` supports the union operator `|`.\n"
    elsewhere = "\n\ndef merge(a, b):\n    return {**a, **b}\n"  # added outside the class, no __or__
    found = spec_findings(tmp_path, spec, {"kv/store.py": _store()}, {"kv/store.py": _store(extra_after=elsewhere)})
    assert [f["description"] for f in found if f["category"] == "missing-requirement"] == [
        "The spec asks for `Store`, `|`; the change does not provide it."]


def test_the_prompt_budget_serves_the_files_the_spec_names_and_code_before_prose(tmp_path: Path):
    """A release whose changelog and pinned requirements come first in the change: when the budget
    cannot hold everything, they are what is left out, not the code the requirement names."""
    notes = "".join(f"- entry {i}: a line of release notes that takes room in the prompt\n" for i in range(400))
    pins = "".join(f"package-{i}==1.{i}.0\n" for i in range(400))
    base = {"CHANGES.md": "# Changes\n", "requirements/dev.txt": "", "web/attrs.py": FORMAT_OLD}
    head = {"CHANGES.md": "# Changes\n" + notes, "requirements/dev.txt": pins, "web/attrs.py": FORMAT_CODE_TOO}
    spec = "# Task 11\n\n## Requirements\n- `percent` in `web/attrs.py` shows two decimals.\n"
    change = from_trees(_write(tmp_path / "b", base), _write(tmp_path / "h", head))
    rendered = render_change(change, 6_000, spec)
    shown = {f["path"]: f for f in parse_change(rendered.text)}
    assert list(shown) == ["CHANGES.md", "requirements/dev.txt", "web/attrs.py"]  # the change's order
    assert not shown["web/attrs.py"]["omitted"] and shown["CHANGES.md"]["omitted"]
    assert [c.split(":")[0] for c in rendered.cuts if "omitted" in c] == ["CHANGES.md", "requirements/dev.txt"]
    found = spec_findings(tmp_path / "review", spec, base, head)
    assert [f for f in found if f["category"] == "missing-requirement"] == []


def test_a_function_with_a_signature_over_several_lines_is_found_around_a_change_in_an_excerpt(tmp_path: Path):
    """The definition line of a long signature does not end with ':' and its docstring has lines at
    any indentation: the function whose body the change edits is still the place of the change."""
    def module(check: str) -> str:
        fn = ('\n\ndef render_attrs(\n    context, values, autospace=True\n) -> str:\n    """Attributes.\n\n'
              'Example:\n\n        {{ d|attrs }}\n    """\n    items = []\n' + check
              + '    for key, value in values.items():\n        items.append(f"{key}={value}")\n    return " ".join(items)\n')
        return long_module(fn)
    spec = "# Task 12\n\n## Requirements\n- `render_attrs` in `web/render.py` refuses keys with spaces.\n"
    check = "    if any(' ' in key for key in values):\n        raise ValueError('spaces in a key')\n"
    done = spec_findings(tmp_path / "done", spec, {"web/render.py": module("")}, {"web/render.py": module(check)})
    assert [f for f in done if f["category"] == "missing-requirement"] == []
    elsewhere = spec_findings(tmp_path / "elsewhere", spec, {"web/render.py": module("")},
                              {"web/render.py": module("") + "\n\ndef other(x):\n    return x\n"})
    assert [f["description"] for f in elsewhere if f["category"] == "missing-requirement"] == [
        "The spec asks for `render_attrs`; the change does not provide it."]


def test_a_requirement_naming_only_a_function_is_met_by_an_edit_inside_it_and_not_elsewhere(tmp_path: Path):
    spec = "# Task 13\n\n## Requirements\n- `shout` handles an empty text.\n"
    old = long_module("\n\ndef shout(text):\n    return text.upper()\n")
    inside = long_module("\n\ndef shout(text):\n    if not text:\n        return ''\n    return text.upper()\n")
    elsewhere = old + "\n\ndef whisper(text):\n    return text.lower()\n"
    assert [f for f in spec_findings(tmp_path / "in", spec, {"m/t.py": old}, {"m/t.py": inside})
            if f["category"] == "missing-requirement"] == []
    assert [f["description"] for f in spec_findings(tmp_path / "out", spec, {"m/t.py": old}, {"m/t.py": elsewhere})
            if f["category"] == "missing-requirement"] == ["The spec asks for `shout`; the change does not provide it."]


def test_an_excerpt_says_when_only_comments_and_docstrings_changed(tmp_path: Path):
    """A docstring typo fixed in a long module: the excerpt cannot show the whole docstring, so the
    prompt states what the whole files show, and the edit is no scope creep; a code edit is."""
    old = long_module('\n\ndef join(a, b):\n    """Join.\n\n    >>> join("Syndey", "x")\n    """\n    return a + b\n')
    typo = old.replace("Syndey", "Sydney")
    code = typo.replace("return a + b", "return b + a")
    change = from_trees(_write(tmp_path / "b", {"m/j.py": old}), _write(tmp_path / "h", {"m/j.py": typo}))
    assert "code unchanged: only comments and docstrings differ" in render_change(change, 60_000).text
    base = {"billing/totals.py": TOTALS_OLD, "m/j.py": old}
    assert outside(spec_findings(tmp_path / "doc", SPEC, base, {"billing/totals.py": TOTALS_NEW, "m/j.py": typo})) == []
    assert outside(spec_findings(tmp_path / "code", SPEC, base, {"billing/totals.py": TOTALS_NEW, "m/j.py": code})) == ["m/j.py"]
