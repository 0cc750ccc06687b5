"""The offline spec reviewer: the spec's requirement and out-of-scope items against the change.

A requirement item names what it asks for in backticks. Each name is looked up in the change by
what it is, not verbatim:

- a route (`GET /products/search?q=...`, `/items/{id}`): the path, without its query, with any
  path parameter (`{id}`, `<int:id>`, `:id`) as a wildcard, among the change's path literals
  (`@app.get("/products/search")`; a router prefix and a route in one file join up), on a line
  or decorator that names the method when the item names one;
- a signature or a call (`search_products(conn, text)`, `Store.find()`): the function's name, as a
  whole word (its definition is preferred as the place);
- a file (`reports/export.py`): a changed file with that path or path ending;
- a name (`export_csv`, `settings.timeout`): the whole word (the last part of a dotted name);
- anything else (`--dry-run`, `retry_after=30`): the text itself.

Model B (the stronger reviewer) needs every name of an item in the added lines; model A accepts an
item when any one of its names is found, in added or unchanged context lines, and does not check
new public names against the spec: its blind spots (a partly implemented requirement, a name
that only appears in unchanged code) are deliberate, so the merge has something to disagree on.
Out-of-scope names found in added lines are scope creep (both models); new public functions the
spec never mentions are Minor scope creep (B only). When the prompt budget left files out of the
change, requirements whose names are not in what was shown are not called missing: one Important
finding says how many could not be checked.

Every lookup goes through an index built once per review, so a spec of 10,000 items over a change
of 300 files costs one pass over each, not their product.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass, field

from review_harness.code.change import LANGUAGES
from review_harness.code.models import CheckedFine, CodeFinding, ReviewerAnswer
from review_harness.code.rules import CRITICAL, IMPORTANT, MINOR, FileView, Result, answer

HEADING = re.compile(r"^#{1,6}\s+(.*)$")
ITEM = re.compile(r"^\s*(?:[-*+]|\d+[.)])\s+(.*\S)\s*$")
TICKS = re.compile(r"`([^`]+)`")
OUT_OF_SCOPE = re.compile(r"out of scope|non-goals?|not in scope|do not", re.IGNORECASE)
IN_SCOPE = re.compile(r"requirement|acceptance|must|deliverable|scope|tasks?\b|changes?", re.IGNORECASE)
MUST = re.compile(r"\b(must|shall|required?)\b", re.IGNORECASE)
DEF_LINE = {
    "python": re.compile(r"^\s*(?:async\s+)?def\s+([A-Za-z_]\w*)|^\s*class\s+([A-Za-z_]\w*)"),
    "javascript": re.compile(r"^\s*(?:export\s+)?(?:default\s+)?(?:async\s+)?function\s*\*?\s*([A-Za-z_$][\w$]*)"
                             r"|^\s*(?:export\s+)?(?:const|let|class)\s+([A-Za-z_$][\w$]*)"),
    "go": re.compile(r"^func\s+(?:\([^)]*\)\s*)?([A-Za-z_]\w*)"),
}
DEF_LINE["typescript"] = DEF_LINE["javascript"]
PUBLIC_DEF = {  # top-level public definitions (B's scope-creep rule)
    "python": re.compile(r"^(?:async\s+)?def\s+([A-Za-z]\w*)|^class\s+([A-Za-z]\w*)"),
    "javascript": re.compile(r"^(?:export\s+)?(?:async\s+)?function\s+([A-Za-z]\w*)|^export\s+(?:const|class)\s+([A-Za-z]\w*)"),
    "go": re.compile(r"^func\s+(?:\([^)]*\)\s*)?([A-Z]\w*)"),
}
PUBLIC_DEF["typescript"] = PUBLIC_DEF["javascript"]

METHODS = ("GET", "POST", "PUT", "PATCH", "DELETE", "HEAD", "OPTIONS")
ROUTE = re.compile(r"^(?:(?P<method>" + "|".join(METHODS) + r")\s+)?(?P<path>/[^\s`]*)$", re.IGNORECASE)
METHOD_WORDS = "|".join(METHODS)
# a quoted path ('/products/search', "GET /products/{id}" as Go 1.22 patterns write it) or a Django path("...")
PATH_LITERAL = re.compile(rf"""["'`](?:(?:{METHOD_WORDS})\s+)?(/[^"'`\s]*)["'`]|\b(?:re_)?path\(\s*r?["']\^?([^"'\s]*)["']""")
# route registrations that take every method unless they name some (Flask's route, Express's all, Go's HandleFunc)
ANY_METHOD = re.compile(r"\.(?:route|all|use)\s*\(|\bHandle(?:Func)?\s*\(|\b(?:re_)?path\s*\(")
EXTENSIONS = {ext.lstrip(".") for ext in LANGUAGES} | {"txt", "cfg", "toml", "ini", "html", "css", "csv", "xml", "proto", "lock"}
PARAM = re.compile(r"^(?:\{[^}]*\}|<[^>]*>|:[A-Za-z_]\w*|\[[^\]]*\]|\$\{[^}]*\})$")
SIGNATURE = re.compile(r"^(?P<name>[A-Za-z_$][\w$]*(?:\.[A-Za-z_$][\w$]*)*)\s*\(.*\)\s*$", re.DOTALL)
NAME = re.compile(r"^[A-Za-z_$][\w$]*(?:\.[A-Za-z_$][\w$]*)*$")
WORD = re.compile(r"[A-Za-z_$][\w$]*")
FILE_NAME = re.compile(r"^[\w.-]+(?:/[\w.-]+)*$")


def spec_items(spec: str) -> tuple[list[str], list[str]]:
    """(requirement items, out-of-scope items): list items under requirement-like headings."""
    required, excluded, section = [], [], None
    for line in spec.splitlines():
        heading = HEADING.match(line)
        if heading:
            title = heading.group(1)
            section = "out" if OUT_OF_SCOPE.search(title) else "in" if IN_SCOPE.search(title) else None
            continue
        item = ITEM.match(line)
        if item and section:
            (excluded if section == "out" else required).append(item.group(1))
    return required, excluded


def names_of(item: str) -> list[str]:
    """The backticked names of an item, in order."""
    return [t.strip() for t in TICKS.findall(item) if t.strip()]


def route_key(path: str) -> tuple[str, ...]:
    """A URL path as its segments, the query and fragment dropped and parameters as '*'."""
    path = re.split(r"[?#]", path, maxsplit=1)[0]
    return tuple("*" if PARAM.match(part) else part.lower() for part in path.strip("/").split("/") if part)


def _method_named(text: str, method: str) -> bool:
    if re.search(rf"(?<![A-Za-z]){method}(?![A-Za-z])", text, re.IGNORECASE):
        return True
    named = any(re.search(rf"(?<![A-Za-z]){m}(?![A-Za-z])", text, re.IGNORECASE) for m in METHODS)
    return ANY_METHOD.search(text) is not None and not named and "method" not in text.lower()


Place = tuple[int, int]  # (file index, line number)


@dataclass
class ChangeIndex:
    """Where names, routes, files and text occur in the change: built once, looked up per item."""

    files: list[FileView]
    added_only: bool
    words: dict[str, Place] = field(default_factory=dict)
    definitions: dict[str, Place] = field(default_factory=dict)
    routes: dict[tuple[str, ...], list[Place]] = field(default_factory=dict)
    _text: dict[str, Place | None] = field(default_factory=dict)
    _joined: list[str] = field(default_factory=list)  # per file, its looked-at lines as one text

    def __post_init__(self) -> None:
        for f, view in enumerate(self.files):
            self._joined.append("\n".join(text for _, text in self.lines_of(view)))
            define = DEF_LINE.get(view.language)
            for n, text in self.lines_of(view):
                for word in WORD.findall(text):
                    self.words.setdefault(word, (f, n))
                match = define.match(text) if define else None
                name = match and next((g for g in match.groups() if g), None)
                if name:
                    self.definitions.setdefault(name, (f, n))
                for quoted, django in PATH_LITERAL.findall(text):
                    self.routes.setdefault(route_key(quoted or django), []).append((f, n))

    def lines_of(self, view: FileView) -> Iterator[tuple[int, str]]:
        for n in sorted(view.added if self.added_only else view.lines):
            yield n, view.lines.get(n, "")

    def line(self, place: Place) -> str:
        f, n = place
        return self.files[f].lines.get(n, "")

    def find(self, name: str) -> Place | None:
        """Where the change provides `name` (see the module docstring), or None."""
        path = self.file(name)
        if path is not None:
            return path
        route = ROUTE.match(name)
        if route:
            return self.route(route["path"], (route["method"] or "").upper())
        signature = SIGNATURE.match(name)
        if signature:
            return self.name(signature["name"])
        if NAME.match(name):
            return self.name(name)
        return self.text(name)

    def file(self, name: str) -> Place | None:
        """A changed file named by its path or path ending; a name that looks like a file but
        is none of the change's is looked for as text (`settings.json` in a loader, say)."""
        if not FILE_NAME.match(name) or ("/" not in name and name.rsplit(".", 1)[-1].lower() not in EXTENSIONS):
            return None
        for f, view in enumerate(self.files):
            if view.path == name or view.path.endswith("/" + name):
                return f, (min(view.added) if view.added else 1)
        return self.text(name)

    def name(self, dotted: str) -> Place | None:
        last = dotted.rsplit(".", 1)[-1]
        return self.definitions.get(last) or self.words.get(last)

    def route(self, path: str, method: str) -> Place | None:
        key = route_key(path)
        places = list(self.routes.get(key, []))
        # a router's prefix in one literal and the route in another of the same file
        for cut in range(1, len(key)):
            prefixes = {f for f, _ in self.routes.get(key[:cut], [])}
            places += [p for p in self.routes.get(key[cut:], []) if p[0] in prefixes]
        for place in sorted(places):
            if not method or self._near_method(place, method):
                return place
        return None

    def _near_method(self, place: Place, method: str) -> bool:
        f, n = place
        lines = self.files[f].lines
        return any(_method_named(lines.get(k, ""), method) for k in range(n - 2, n + 1))

    def text(self, token: str) -> Place | None:
        if token not in self._text:
            self._text[token] = next(((f, n) for f, whole in enumerate(self._joined) if token in whole
                                      for n, line in self.lines_of(self.files[f]) if token in line), None)
        return self._text[token]


def review_spec(spec: str, files: list[FileView], letter: str) -> ReviewerAnswer:
    required, excluded = spec_items(spec)
    result = Result()
    strict = letter == "B"
    index = ChangeIndex(files, added_only=strict)
    added = index if strict else ChangeIndex(files, added_only=True)
    omitted = [view.path for view in files if view.omitted]
    unseen: list[str] = []  # items whose names may be in the files the prompt budget left out
    for item in required:
        tokens = names_of(item)
        if not tokens:
            continue
        places = {t: index.find(t) for t in tokens}
        missing = [t for t, p in places.items() if p is None]
        met = not missing if strict else len(missing) < len(tokens)
        if met:
            f, line = next(p for p in places.values() if p is not None)
            result.fine.append(CheckedFine(file=files[f].path, line=line, end_line=None, note=f"requirement met: {item}"))
            continue
        if omitted:
            unseen.append(item)
            continue
        severity = CRITICAL if MUST.search(item) else IMPORTANT
        result.findings.append(CodeFinding(
            severity=severity, category="missing-requirement", file="spec", line=None,
            description=f"The spec asks for {', '.join('`' + t + '`' for t in missing)}; the change does not provide it.",
            suggested_fix=f"Implement: {item}", quote=item))
    if unseen:
        names = [t for item in unseen for t in names_of(item)]
        shown = ", ".join(f"`{t}`" for t in names[:5]) + (f" and {len(names) - 5} more" if len(names) > 5 else "")
        result.findings.append(CodeFinding(
            severity=IMPORTANT, category="missing-requirement", file="spec", line=None,
            description=(f"{len(unseen)} requirement(s) name code not found in the part of the change shown ({shown}); "
                         f"{len(omitted)} file(s) were left out of the prompt, so they could not be checked."),
            suggested_fix="Review the change in smaller parts (or raise max_change_chars) so every file can be checked.",
            quote=unseen[0]))
    for item in excluded:
        for token in names_of(item):
            place = added.find(token)
            if place is not None:
                f, line = place
                result.add(files[f], line, IMPORTANT, "scope-creep",
                           f"The spec puts `{token}` out of scope, but the change adds it.",
                           "Remove it from this task; propose it separately if it is needed.")
    if strict:
        _unasked_public_names(spec, files, result)
    return answer(result, "spec", len(files))


def _unasked_public_names(spec: str, files: list[FileView], result: Result) -> None:
    """B: new public functions and classes the spec never mentions are Minor scope creep."""
    spec_lower = spec.lower()
    spec_words = set(WORD.findall(spec_lower))
    for view in files:
        pattern = PUBLIC_DEF.get(view.language)
        if pattern is None or "test" in view.path.lower():
            continue
        for n in sorted(view.added):
            match = pattern.match(view.lines.get(n, ""))
            name = match and next((g for g in match.groups() if g), None)
            if name and not name.startswith("_") and name.lower() not in spec_words and name.lower() not in spec_lower:
                result.add(view, n, MINOR, "scope-creep",
                           f"{name} is new public code the spec does not mention.",
                           f"Remove {name} or make it private, unless the spec is updated to ask for it.")
