"""The offline spec reviewer: the spec's requirement and out-of-scope items against the change.

Requirements are read however they are written (`spec_items`: list items with their wrapped
lines, table rows, must/shall sentences; under requirement-like headings, or anywhere but
out-of-scope and context sections when there are none). An item names what it asks for in
backticks or in plain words (`names_of`: calls, snake_case and dotted names, paths, routes, flags,
CamelCase after 'class' or 'function'); an item that names no code is not assessed offline, and
the reviewer's summary says so. Each name is looked up in the change by what it is, not verbatim:

- a route (`GET /products/search?q=...`, `/items/{id}`): the path, without its query, with any
  path parameter (`{id}`, `<int:id>`, `:id`) as a wildcard, among the change's path literals
  (`@app.get("/products/search")`; a router prefix and a route in one file join up), on a line
  or decorator that names the method when the item names one;
- a signature or a call (`search_products(conn, text)`, `Store.find()`): the function's name, as a
  whole word (its definition is preferred as the place);
- a file (`reports/export.py`): a changed file with that path or path ending;
- a name (`export_csv`, `settings.timeout`): the whole word (the last part of a dotted name);
- anything else (`--dry-run`, `retry_after=30`): the text itself.

A name is provided when the change defines, edits or uses it in its added lines, or when the new
version keeps what the base had (an unchanged line shown); a name the item asks the change to use
("with `to_cents`") must be in the added lines. Examples ("such as `hour`"), values (`Content-Length:
0`) and file-name patterns (`exports/report_*.csv`, matched against the changed paths) are not code
names: an item the rules cannot settle is listed as not checked, never a finding. Model B (the
stronger reviewer) needs every code name of an item; model A accepts an item when any one is found,
and does not check new public names against the spec: its blind spot (a partly implemented
requirement) is deliberate, so the merge has something to disagree on. Out-of-scope names found in
the added lines of code files are scope creep, read with their qualifiers ("other functions of
`number.py`" keeps `number.py`; a name a requirement asks for is never excluded); so is a code file
the task neither names nor implies (both models); new public functions the spec never mentions are
Minor scope creep (B only), unless the change removed or moved that name (not new code). When the
prompt budget left files out of the change, requirements whose names are not in what was shown are
not called missing: one Minor finding says how many could not be checked.

Every lookup goes through an index built once per review, so a spec of 10,000 items over a change
of 300 files costs one pass over each, not their product.
"""

from __future__ import annotations

import ast
import fnmatch
import re
import sys
from collections.abc import Iterator
from dataclasses import dataclass, field

from review_harness.code.change import LANGUAGES
from review_harness.code.models import CheckedFine, CodeFinding, ReviewerAnswer
from review_harness.code.rules import CRITICAL, IMPORTANT, MINOR, FileView, Result, answer, same_python_code
from review_harness.core.viewer import shorten
from review_harness.core.pysource import parse_python

HEADING = re.compile(r"^#{1,6}\s+(.*)$")
ITEM = re.compile(r"^\s*(?:[-*+]|\d+[.)])\s+(.*\S)\s*$")
TICKS = re.compile(r"`([^`]+)`")
OUT_OF_SCOPE = re.compile(r"out of scope|non-goals?|not in scope|do not|won't|will not|later|future|excluded", re.IGNORECASE)
IN_SCOPE = re.compile(r"requirement|acceptance|must|deliverable|scope|tasks?\b|changes?|goals?\b|implement|build|criteria|"
                      r"expected|behaviou?r|features?\b|definition of done|what to|api\b|interface|spec", re.IGNORECASE)
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
OPERATOR_METHODS = {  # an operator a spec asks for is provided by defining its method (Python's data model)
    op: tuple(f"__{m}__" for m in methods.split()) for op, methods in {
        "+": "add radd", "-": "sub rsub", "*": "mul rmul", "/": "truediv rtruediv", "//": "floordiv rfloordiv",
        "%": "mod rmod", "**": "pow rpow", "@": "matmul rmatmul", "|": "or ror", "&": "and rand", "^": "xor rxor",
        "<<": "lshift rlshift", ">>": "rshift rrshift", "+=": "iadd", "-=": "isub", "*=": "imul", "|=": "ior",
        "&=": "iand", "^=": "ixor", "==": "eq", "!=": "ne", "<": "lt", "<=": "le", ">": "gt", ">=": "ge",
        "[]": "getitem", "in": "contains"}.items()}
FILE_NAME = re.compile(r"^[\w.-]+(?:/[\w.-]+)*$")


CONTEXT = re.compile(r"background|context|motivation|problem|current state|notes?\b|references?|links?|decisions?|"
                     r"status|dependenc|open questions|risks?|alternatives|history", re.IGNORECASE)
CHECKBOX = re.compile(r"^\[[ xX]\]\s+")
URL = re.compile(r"https?://\S+")


def spec_items(spec: str) -> tuple[list[str], list[str]]:
    """(requirement items, out-of-scope items). An item is a list item (its wrapped lines joined,
    a checkbox dropped), a table row, or a sentence that says must/shall in a requirement section.
    Requirement sections have requirement-like headings; a spec without one has its items wherever
    they are, except under out-of-scope and context headings (background, notes, decisions...)."""
    required, excluded, loose = [], [], []
    section: str | None = "top"
    current: list[str] | None = None  # the item being read (wrapped lines join it)
    found_section = False

    def close() -> None:
        nonlocal current
        if current is not None:
            text = CHECKBOX.sub("", " ".join(part.strip() for part in current)).strip()
            if text:
                target = excluded if section == "out" else required if section == "in" else loose if section == "top" else None
                if target is not None:
                    target.append(text)
        current = None

    lines = spec.splitlines()
    for n, line in enumerate(lines):
        heading = HEADING.match(line)
        if heading:
            close()
            title = heading.group(1)
            if line.startswith("# "):  # the spec's title
                section = "top"
                continue
            section = ("out" if OUT_OF_SCOPE.search(title) else "in" if IN_SCOPE.search(title)
                       else "context" if CONTEXT.search(title) else "top")
            found_section = found_section or section == "in"
            continue
        item = ITEM.match(line)
        if item:
            close()
            current = [item.group(1)]
            continue
        if not line.strip() or line.strip().startswith("```"):
            close()
            continue
        if line.strip().startswith("|"):
            close()
            cells = [c.strip() for c in line.strip().strip("|").split("|")]
            following = lines[n + 1] if n + 1 < len(lines) else ""
            if not re.fullmatch(r"[\s|:-]*", line) and not re.fullmatch(r"\|?[\s:-]*(\|[\s:-]*)+\|?", following.strip()):
                current = [" ".join(c for c in cells if c)]
                close()
            continue
        if current is not None:  # a wrapped line of the item above
            current.append(line)
            continue
        if MUST.search(line):  # a requirement written as a sentence
            for sentence in re.split(r"(?<=[.!?])\s+", line.strip()):
                if MUST.search(sentence):
                    current = [sentence]
                    close()
    close()
    return (required if found_section else required + loose), excluded


CALL = re.compile(r"(?<![\w.$])([A-Za-z_$][\w$]*(?:\.[A-Za-z_$][\w$]*)*)\(([^()]{0,80})\)")
SNAKE = re.compile(r"(?<![\w./-])([A-Za-z][A-Za-z0-9]*(?:_[A-Za-z0-9]+)+)(?![\w/])")
DOTTED = re.compile(r"(?<![\w./-])([A-Za-z_][A-Za-z0-9_]+(?:\.[A-Za-z_][A-Za-z0-9_]+)+)(?![\w(/])")
PLAIN_FILE = re.compile(r"(?<![\w./-])((?:[\w.-]+/)*[a-z0-9_][\w-]*\.[a-z0-9]{1,5})(?![\w/])")
PLAIN_PATH = re.compile(r"(?<![\w./-])((?:[\w.-]+/)+[\w.-]+\.[A-Za-z0-9]{1,5})(?![\w/])")
PLAIN_ROUTE = re.compile(r"\b((?:" + "|".join(METHODS) + r")\s+/[^\s`,;)]*)")
CAMEL = re.compile(r"\b(?:class|function|method|type|struct|interface|component|endpoint|handler|hook|module|service|"
                   r"enum|trait|protocol)\s+([A-Za-z]+[a-z0-9][A-Z]\w*)")
FLAG = re.compile(r"(?<![\w-])(--[a-z][\w-]+)")


def names_of(item: str) -> list[str]:
    """What an item names, in order: its backticked names, then the code-like names it writes in
    plain words (a call `find_orders(conn)`, a snake_case or dotted name, a file path, a route
    `GET /orders`, a flag `--dry-run`, a CamelCase name after 'class' or 'function')."""
    ticked = [t.strip() for t in TICKS.findall(item) if t.strip()]
    text = URL.sub(" ", TICKS.sub(" ", item))
    plain: list[str] = []
    for pattern in (PLAIN_ROUTE, CALL, PLAIN_PATH, PLAIN_FILE, SNAKE, DOTTED, CAMEL, FLAG):
        for match in pattern.finditer(text):
            token = match.group(0) if pattern is CALL else match.group(1)
            if pattern is PLAIN_FILE and token.rsplit(".", 1)[-1].lower() not in EXTENSIONS:
                continue
            if pattern is DOTTED and (token.rsplit(".", 1)[-1].lower() in EXTENSIONS or re.search(r"\b(?:e\.g|i\.e|etc)\b", token)):
                continue
            if not any(token in other for other in plain):
                plain.append(token.strip())
    names = ticked + [t for t in plain if t not in ticked]
    # a parameter of a signature the item names is part of that signature, not a name of its own
    parameters = {p for t in names if (m := SIGNATURE.match(t)) for p in WORD.findall(t[t.index("(") + 1:])}
    return [t for t in names if not (NAME.match(t) and "." not in t and t in parameters)]


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
    file_words: list[set[str]] = field(default_factory=list)  # per file, the words of its looked-at lines

    def __post_init__(self) -> None:
        for f, view in enumerate(self.files):
            self._joined.append("\n".join(text for _, text in self.lines_of(view)))
            define = DEF_LINE.get(view.language)
            seen: set[str] = set()
            self.file_words.append(seen)
            for n, text in self.lines_of(view):
                for word in WORD.findall(text):
                    self.words.setdefault(word, (f, n))
                    seen.add(word)
                match = define.match(text) if define else None
                name = match and next((g for g in match.groups() if g), None)
                if name:
                    self.definitions.setdefault(name, (f, n))
                for quoted, django in PATH_LITERAL.findall(text):
                    self.routes.setdefault(route_key(quoted or django), []).append((f, n))

    def lines_of(self, view: FileView) -> Iterator[tuple[int, str]]:
        """The lines looked at: what the change added or moved here (`added_only`), else all shown."""
        for n in sorted(view.added | view.moved if self.added_only else view.lines):
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
        if name in OPERATOR_METHODS:
            return next((p for m in OPERATOR_METHODS[name] if (p := self.definitions.get(m))), None) or self.text(name)
        if NAME.match(name):
            return self.name(name)
        return self.text(name)

    def file(self, name: str) -> Place | None:
        """A changed file named by its path or path ending, whatever its extension (`CHANGES.rst`),
        also by the path it had before a rename or move, and a folder (`pkg/asyncio/`) by a changed
        file in it; a name that looks like a file but is none of the change's is looked for as text
        (`settings.json` in a loader, say)."""
        if not FILE_NAME.match(name.rstrip("/")):
            return None
        folder = name.rstrip("/")
        for f, view in enumerate(self.files):
            for path in filter(None, (view.path, view.old_path)):
                if path == name or path.endswith("/" + name) or (("/" in folder or name.endswith("/")) and (
                        path.startswith(folder + "/") or f"/{folder}/" in f"/{path}")):
                    return f, (min(view.added) if view.added else 1)
        if "/" not in name and name.rsplit(".", 1)[-1].lower() not in EXTENSIONS:
            return None
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
    index = ChangeIndex(files, added_only=False)  # every line shown: what the new version keeps counts
    added = ChangeIndex(files, added_only=True)
    omitted = [view.path for view in files if view.omitted]
    imported = {name for view in files if view.language == "python" for text in view.lines.values()
                for name in _imported_modules(text)}
    edited: dict[str, Place] = {}  # the definitions the change edits inside, and the first added line of each file
    for f, view in enumerate(files):
        if view.language == "python":
            for name in _edited_definitions(view):
                edited.setdefault(name, (f, min(view.added or view.removed_before)))
    unseen: list[str] = []  # items whose names may be in the files the prompt budget left out
    unassessed: list[str] = []  # items in plain words with no name to look for
    unchecked: list[str] = []  # items whose names the rules cannot settle (text, patterns, code not shown)
    named: list[str] = []
    excerpts = any(view.excerpt or view.omitted for view in files)
    for item in required:
        tokens = names_of(item)
        if not tokens:
            unassessed.append(item)
            continue
        named += tokens
        examples, usage = example_names(item), used_names(item)
        # what the rules can look for as code: not an example, not a value or a file-name pattern
        code = [t for t in tokens if t not in examples and name_kind(t) != "text"]
        keeps = KEEPS.search(item) is not None
        if strict:
            # B: the change touches a name when it defines, edits or uses it in its added lines (a class
            # or function it edits inside, a term of a definition it edits: `asciidoc` in
            # `_asciidoc_row`); once the change touches the item's subject (or the item asks to keep
            # something), the other names count where the new version keeps them
            touched = {t: added_place(added, edited, t) for t in code}
            subject = keeps or any(p is not None for t, p in touched.items() if name_kind(t) != "file")
            places = {t: touched[t] or (find_kept(index, added, t, t in usage) if subject else None) for t in code}
        else:
            places = {t: find_kept(index, added, t, t in usage) for t in code}
            subject = True
        missing = [t for t in code if places[t] is None]
        if strict and len(missing) < len(code):
            # a module the changed files import, or the standard library's, is where the asked-for code
            # goes or what it uses, not code to add (with the code itself found)
            missing = [t for t in missing if t not in imported and t not in sys.stdlib_module_names]
        found = [p for p in places.values() if p is not None]
        if not code:
            found = [p for t in tokens if (p := find_kept(index, added, t, False)) is not None]
        met = (not missing if strict else len(missing) < len(code)) if code else bool(found)
        if met and found:
            f, line = found[0]
            result.fine.append(CheckedFine(file=files[f].path, line=line, end_line=None, note=f"requirement met: {item}"))
            continue
        if met or not code:
            unchecked.append(item)
            continue
        if omitted:
            unseen.append(item)
            continue
        if excerpts and subject and not any(name_kind(t) == "file" for t in missing):
            # the change touches the item, and the rest of its code may stand in lines an excerpt does
            # not show (the lines the change adds are always shown): not checked, not missing
            unchecked.append(item)
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
            severity=MINOR, category="missing-requirement", file="spec", line=None,
            description=(f"Not checked: {len(unseen)} requirement(s) name code not found in the part of the change shown "
                         f"({shown}); {len(omitted)} file(s) were left out of the prompt, so they could not be checked."),
            suggested_fix="Review the change in smaller parts (or raise max_change_chars) so every file can be checked.",
            quote=unseen[0]))
    asked = {_last_word(t) for t in named}
    code_files = ChangeIndex([v for v in files if v.language not in PROSE and not DOC_FILE.search(v.path)], added_only=True)
    for item in excluded:
        kept = qualified_away(item)
        for token in names_of(item):
            # a name a requirement asks for, or one the item keeps in scope ("other functions of X"),
            # is not excluded; only code counts (a changelog line that mentions it adds nothing)
            if token in kept or _last_word(token) in asked or name_kind(token) == "text":
                continue
            place = code_files.find(token)
            head = token.split("(")[0]
            qualifier = head.rsplit(".", 1)[0] if "." in head and name_kind(token) in ("name", "signature") else None
            if place is not None and qualifier and not re.search(rf"\b{re.escape(qualifier.rsplit('.', 1)[-1])}\b",
                                                                 code_files.line(place)):
                continue  # `Attribute.evolve()` is not any `evolve`
            if place is not None:
                f, line = place
                view = code_files.files[f]
                result.add(view, line, IMPORTANT, "scope-creep",
                           f"The spec puts `{token}` out of scope, but the change adds it.",
                           "Remove it from this task; propose it separately if it is needed.")
    _files_outside_the_task(spec, named, files, added if strict else index, result)
    if strict:
        _unasked_public_names(spec, files, result)
    report = answer(result, "spec", len(files))
    if unassessed:
        shown = "; ".join(f"'{shorten(item, 60)}'" for item in unassessed[:3]) + (" ..." if len(unassessed) > 3 else "")
        report.summary += (f". Not assessed offline: {len(unassessed)} requirement(s) in plain words name no code to look "
                           f"for ({shown})")
    if unchecked:
        shown = "; ".join(f"'{shorten(item, 60)}'" for item in unchecked[:3]) + (" ..." if len(unchecked) > 3 else "")
        report.summary += (f". Not checked: {len(unchecked)} requirement(s) whose names are values, examples, file-name "
                           f"patterns or code outside the lines shown ({shown})")
    return report


PROSE = {"text", "markdown", "yaml", "json"}
KEEPS = re.compile(r"\b(?:keeps?|kept|unchanged|still|existing|current(?:ly)?|as before|as today|as (?:they|it) (?:are|is) "
                   r"today|continues?|remains?)\b", re.IGNORECASE)
DOC_FILE = re.compile(r"(^|/)(docs?|changelog\.d|changes)/|(^|/)(CHANGE|HISTORY|NEWS|README|RELEASE)[^/]*$|\.(rst|md|txt)$",
                      re.IGNORECASE)
PATTERN = re.compile(r"[*?]|<[^>/]+>|\{[^}/]+\}|\bN{2,}\b|\.\.\.|\bX{2,}\b")
EXAMPLE = re.compile(r"\b(?:such as|e\.g\.|for example|for instance|like|including)[\s,:]*([^;)]*)", re.IGNORECASE)
USE = re.compile(r"\b(?:with|using|use|uses|through|via|calls?|calling)\s+(?:(?:the|a|an|its|their)\s+)?\Z", re.IGNORECASE)
QUALIFIED = re.compile(r"\b(?:other\s+\w+(?:\s+\w+)?\s+(?:of|than|in)|except(?:\s+for)?|apart from|besides|beyond|"
                       r"other than|outside(?:\s+of)?)\s*$", re.IGNORECASE)


def name_kind(token: str) -> str:
    """What a named thing is, for the rules: a file, a route, a signature or call, an operator, a
    code name, a flag; anything else (a value `Content-Length: 0`, an expression `k < 0`, a
    file-name pattern `exports/report_*.csv`, a placeholder `[cols=...]`) is text, which no rule can
    hold a change to."""
    if ROUTE.match(token):
        return "route"
    if PATTERN.search(token) and not SIGNATURE.match(token):
        return "text"
    if FILE_NAME.match(token.rstrip("/")) and ("/" in token or token.rsplit(".", 1)[-1].lower() in EXTENSIONS
                                               or re.search(r"\.[a-z]{2,4}$", token)):
        return "file"
    if SIGNATURE.match(token):
        return "signature"
    if token in OPERATOR_METHODS:
        return "operator"
    if NAME.match(token.lstrip("@")):
        return "name"
    if FLAG.fullmatch(token):
        return "flag"
    return "text"


def _ticked_spans(item: str) -> list[tuple[int, int, str]]:
    return [(m.start(), m.end(), m.group(1).strip()) for m in TICKS.finditer(item)]


def _masked(item: str) -> str:
    """The item with each backticked span blanked to the same length (its words are not read)."""
    return TICKS.sub(lambda m: "`" + "_" * (len(m.group(0)) - 2) + "`", item)


def example_names(item: str) -> set[str]:
    """Names given as examples ("such as `year`, `hour`", "e.g. `client.post(...)`"): they illustrate
    a requirement, they are not each asked for."""
    masked = _masked(item)
    spans = [(m.start(1), m.end(1)) for m in EXAMPLE.finditer(masked)]
    return {t for a, b, t in _ticked_spans(item) if any(s <= a < e for s, e in spans)}


def used_names(item: str) -> set[str]:
    """Names the item asks the change to use ("with `to_cents`", "through `db.execute`"): the change
    must use them itself; that the code base already has them is not enough."""
    masked = _masked(item)
    return {t for a, _, t in _ticked_spans(item) if USE.search(masked[:a])}


def qualified_away(item: str) -> set[str]:
    """Names an out-of-scope item keeps in scope by its qualifier: "other functions of `number.py`"
    excludes the others, not `number.py`."""
    masked = _masked(item)
    return {t for a, _, t in _ticked_spans(item) if QUALIFIED.search(masked[:a])}


def _last_word(token: str) -> str:
    if name_kind(token) == "file":
        return token.rstrip("/").rsplit("/", 1)[-1]
    return re.split(r"[(\s]", token.lstrip("@"))[0].rstrip("/").rsplit(".", 1)[-1].rsplit("/", 1)[-1]


def added_place(added: "ChangeIndex", edited: dict[str, Place], token: str) -> Place | None:
    """Where the change's added lines touch `token`: they define, edit or use it, it is a class or
    function they edit inside, or a term of one (`asciidoc` in `_asciidoc_row`)."""
    if PATTERN.search(token) and not SIGNATURE.match(token) and not ROUTE.match(token):
        return find_kept(added, added, token, True)
    bare = token.lstrip("@") if NAME.match(token.lstrip("@")) else token
    place = added.find(bare) or edited.get(_last_word(token))
    if place is None and NAME.match(bare) and "." not in bare and bare.islower():
        place = next((p for name, p in list(edited.items()) + list(added.words.items())
                      if bare in name.strip("_").split("_") and name != bare), None)
    return place


def find_kept(index: "ChangeIndex", added: "ChangeIndex", token: str, used: bool) -> Place | None:
    """Where the change provides `token`: it defines, edits or uses it in its added lines, or the
    new version keeps what the base already had (an unchanged line shown). A name the item asks the
    change to use must be in the added lines. A file-name pattern is matched against the changed
    paths."""
    if PATTERN.search(token) and not SIGNATURE.match(token) and not ROUTE.match(token):
        glob = re.sub(r"<[^>/]+>|\{[^}/]+\}|\bN{2,}\b|\bX{2,}\b|\.\.\.", "*", token)
        return next(((f, min(v.added) if v.added else 1) for f, v in enumerate(index.files)
                     if fnmatch.fnmatch(v.path, glob) or fnmatch.fnmatch(v.path, "*/" + glob)), None)
    token = token.lstrip("@") if NAME.match(token.lstrip("@")) else token
    place = added.find(token)
    if place is not None or used:
        return place
    return index.find(token)


SUPPORT_FILE = re.compile(r"(^|/)(tests?|spec|__tests__|docs?)/|(^|/)(test_[^/]*|[^/]*_test\.\w+|[^/]*\.(test|spec)\.\w+|"
                          r"__init__\.py|index\.[jt]sx?|conftest\.py|go\.(mod|sum)|requirements[^/]*\.txt|pyproject\.toml|"
                          r"setup\.(py|cfg)|package(-lock)?\.json|[^/]*\.lock|Makefile|Dockerfile|CHANGELOG[^/]*|README[^/]*)$",
                          re.IGNORECASE)
GENERIC_FOLDERS = {"src", "lib", "app", "apps", "pkg", "cmd", "internal", "services", "packages", "libs", "main", "source"}


def _files_outside_the_task(spec: str, named: list[str], files: list[FileView], index: ChangeIndex, result: Result) -> None:
    """Code files the change edits that the task neither names nor implies are scope creep:
    a file is implied when the spec names it (its path, its name, a folder of it), when it holds
    or uses code the spec names (a word of its changed lines, or a route the spec names), or when
    it supports the change (tests, docs, package files). Decided only when the spec names code and
    some changed file is in scope; otherwise nothing is said."""
    if not named:
        return
    spec_words = {w.lower() for w in WORD.findall(spec)}
    wanted = {re.split(r"[(\s]", t)[0].rsplit(".", 1)[-1] for t in named} | {t for t in named if NAME.match(t)}
    # a file the spec names is used by the files that import it by its module name
    wanted |= {t.rsplit("/", 1)[-1].rsplit(".", 1)[0] for t in named
               if FILE_NAME.match(t) and t.rsplit(".", 1)[-1].lower() in EXTENSIONS} - {"__init__", "index", "main"}
    route_files = {index.find(t)[0] for t in named if ROUTE.match(t) and index.find(t) is not None}
    # a spec that names its files scopes the task to them: their folder alone implies no other file
    names_files = any(FILE_NAME.match(t) and t.rsplit(".", 1)[-1].lower() in EXTENSIONS for t in named)
    in_scope, outside = [], []
    for f, view in enumerate(files):
        if view.omitted:
            return  # a file the prompt left out cannot be judged, and neither can the whole
        parts = [p for p in view.path.lower().split("/") if p]
        stem = parts[-1].rsplit(".", 1)[0] if parts else ""
        named_path = any(view.path == t or view.path.endswith("/" + t) for t in named)
        named_folder = stem in spec_words or (not names_files and any(p in spec_words for p in parts[:-1]
                                                                      if p not in GENERIC_FOLDERS))
        uses = bool(index.file_words[f] & wanted) or f in route_files
        if named_path or named_folder or uses or SUPPORT_FILE.search(view.path) or view.language in ("text", "markdown"):
            in_scope.append(view)
        elif (view.added or view.removed) and _edits_code(view):
            outside.append(view)
    if not in_scope:
        return
    for view in outside:
        first = min(view.added) if view.added else None
        finding = CodeFinding(
            severity=IMPORTANT, category="scope-creep", file=view.path, line=first,
            description=(f"The change edits {view.path}, which the task does not name or imply: no code the spec asks "
                         "for is there."),
            suggested_fix="Leave this file out of the task's change, or update the spec if the edit is needed.",
            quote=view.quote(first) if first else None)
        result.findings.append(finding)


def _release_constant(node: ast.stmt) -> bool:
    """A module-level assignment of a literal to version metadata (`__version__ = "2.1.2"`,
    `__build__ = 0x023100` in a version file, `version_json = '...'`)."""
    if not isinstance(node, (ast.Assign, ast.AnnAssign)) or not isinstance(node.value, ast.Constant):
        return False
    targets = node.targets if isinstance(node, ast.Assign) else [node.target]
    return all(isinstance(t, ast.Name) and (VERSION_NAME.search(t.id) or t.id.startswith("__")) for t in targets)


VERSION_NAME = re.compile(r"version|release|revision", re.IGNORECASE)


IMPORT = re.compile(r"^\s*(?:import\s+([\w.]+(?:\s+as\s+\w+)?(?:\s*,\s*[\w.]+(?:\s+as\s+\w+)?)*)|from\s+([\w.]+)\s+import\b)")


def _imported_modules(line: str) -> set[str]:
    """The modules a Python import line names (`import itertools`, `import a.b as c`, `from a.b import x`)."""
    match = IMPORT.match(line)
    if not match:
        return set()
    if match.group(2):
        return {match.group(2), match.group(2).rsplit(".", 1)[-1]}
    names = set()
    for part in match.group(1).split(","):
        words = part.split()
        names |= {words[0], words[0].rsplit(".", 1)[-1], words[-1]}
    return names


BLOCK_OPENER = re.compile(r"(?:if|elif|else|for|while|with|try|except|finally|async|match|case)\b")


def _edited_definitions(view: FileView) -> set[str]:
    """The classes and functions of a Python file whose bodies the change adds lines to or removes
    lines from (the definition line itself left aside; a removal counts at the line it stood
    before): read from the whole file's syntax tree, or, for an excerpt, from the indentation of the
    lines shown."""
    added = set(view.added) | {n for n in view.removed_before if n in view.lines and n not in view.added}
    if not added:
        return set()
    if not view.excerpt and not view.omitted:
        try:
            tree = parse_python(view.text)
        except SyntaxError:
            tree = None
        if tree is not None:
            return {node.name for node in ast.walk(tree)
                    if isinstance(node, (ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef))
                    and any(node.body[0].lineno <= n <= (node.end_lineno or node.lineno) for n in added)}
    # an excerpt shows the first lines of the definitions around each change: from each added line,
    # walk up to the lines that open a block at a smaller indentation (a definition, or a statement
    # such as `if ...:`; other lines further out are continuations or text in a string), and keep the
    # definitions among them
    shown = sorted(view.lines)
    names: set[str] = set()
    for n in sorted(added):
        text = view.lines.get(n, "")
        if not text.strip():
            continue
        threshold = len(text) - len(text.lstrip())
        if threshold == 0:
            continue
        for m in reversed([k for k in shown if k < n]):
            above = view.lines[m]
            code = _code_part(above)
            indent = len(above) - len(above.lstrip())
            match = DEF_LINE["python"].match(above)
            if not code or indent >= threshold or not (match or (code.endswith(":") and BLOCK_OPENER.match(code))):
                continue
            threshold = indent
            name = match and next((g for g in match.groups() if g), None)
            if name:
                names.add(name)
            if threshold == 0:
                break
    return names


def _code_part(line: str) -> str:
    """A Python line without its comment and surrounding blanks (a '#' inside quotes stays)."""
    quote = ""
    for i, char in enumerate(line):
        if quote:
            quote = "" if char == quote and line[i - 1] != "\\" else quote
        elif char in "'\"":
            quote = char
        elif char == "#":
            return line[:i].strip()
    return line.strip()


def _edits_code(view: FileView) -> bool:
    """Whether the change alters what a Python file does: a change to its comments or docstrings
    only (said by the prompt, which compares the whole files, or found by comparing the old file put
    back together with the new), or a release's version metadata only, alters no code. Files that
    are not Python count as code (nothing to compare)."""
    old = view.old_text
    if view.language != "python":
        return True
    if view.code_unchanged:  # the prompt says so, from the whole old and new files
        return False
    if old is None:  # an excerpt: the changed lines, their comments and blank lines left out, must differ
        return sorted(filter(None, map(_code_part, (view.lines.get(n, "") for n in view.added)))) != \
            sorted(filter(None, map(_code_part, view.removed)))
    if same_python_code(old, view.text):
        return False
    try:
        before, after = parse_python(old), parse_python(view.text)
    except SyntaxError:
        return True
    old_body, new_body = [ast.dump(n) for n in before.body], [ast.dump(n) for n in after.body]
    changed = [n for n in after.body if ast.dump(n) not in old_body] + [n for n in before.body if ast.dump(n) not in new_body]
    return not (changed and all(_release_constant(n) for n in changed)
                and any(_release_constant(n) and VERSION_NAME.search(ast.unparse(n).split("=")[0]) for n in changed))


def _unasked_public_names(spec: str, files: list[FileView], result: Result) -> None:
    """B: new public functions and classes the spec never mentions are Minor scope creep. A name
    the change removed somewhere (a signature changed, code moved) or that unchanged code already
    defines is not new."""
    spec_lower = spec.lower()
    spec_words = set(WORD.findall(spec_lower))
    existing: set[str] = set()
    for view in files:
        pattern = DEF_LINE.get(view.language)
        if pattern is None:
            continue
        old = view.removed + [view.lines[n] for n in view.lines if n not in view.added]
        for text in old:
            match = pattern.match(text)
            name = match and next((g for g in match.groups() if g), None)
            if name:
                existing.add(name)
    for view in files:
        pattern = PUBLIC_DEF.get(view.language)
        if pattern is None or "test" in view.path.lower():
            continue
        for n in sorted(view.added):
            match = pattern.match(view.lines.get(n, ""))
            name = match and next((g for g in match.groups() if g), None)
            if (name and not name.startswith("_") and name not in existing and name.lower() not in spec_words
                    and name.lower() not in spec_lower):
                result.add(view, n, MINOR, "scope-creep",
                           f"{name} is new public code the spec does not mention.",
                           f"Remove {name} or make it private, unless the spec is updated to ask for it.")
