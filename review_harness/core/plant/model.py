"""Operator tables: what a planted flaw is, as data (`prompts/<kind>/plant.yaml`).

An operator says what to find in an input, what to change there, and the gold finding the change
should produce. A table names the layout of its kind's inputs (how one is read and how a planted
copy is written) and the top-level fields of each planted gold file.

    layout: document                  # document | pair | json, or one a module registers
    module: review_harness.code.plant # optional: a module that registers named mutators / layouts
    gold: {designed_deficiency: "Planted: {description}"}
    operators:
      - id: remove-limitations
        description: the limitations section is deleted
        requires: {present: ['(?i)\\bexperiment\\b']}       # regexes over the target file
        ways:                                               # tried in order; the first that applies wins
          - find: {section: '(?i)^(limitations|caveats)\\b'}
            delete: section
            scope: all
        finding: {dimension: communication, lens: audience, severity: MAJOR, must_catch: true,
                  summary: ..., keywords: [...]}

A way either finds text with `find` and changes it with one of `delete`, `replace` or `insert`
(built in, for markdown documents), or names a mutator written in Python with `use` and `args`
(a table total that must stop adding up, a JSON field, a function in a syntax tree). Strings of
`finding` and `gold` are templates: `{name}` is filled from the mutation (`description`,
`operator`, `source`, `evidence`, `file`, `line`, `evidence_file`, and the values the way
computed).
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator, model_validator

from review_harness.core.plant.expr import compile_expression
from review_harness.core.plant.numbers import NUMBER
from review_harness.core.yamlio import read_model


class TableError(ValueError):
    """An operator table that cannot be used (one line naming the file and key)."""


def expand(pattern: str) -> str:
    """A table's regex with its macros: `{number}` is a number as documents write it."""
    return pattern.replace("{number}", f"(?:{NUMBER})")


def _regex(value: str | None, where: str) -> str | None:
    if value is None:
        return None
    try:
        re.compile(expand(value))
    except re.error as ex:
        raise ValueError(f"{where}: not a regular expression ({ex})") from None
    if nested_repeat(value):
        raise ValueError(f"{where}: a repeated part inside a repeated group ({value}) can take exponential time "
                         "on a long line; rewrite it without the nesting")
    return value


def nested_repeat(pattern: str) -> bool:
    """Whether an unbounded repeat sits inside another (`(a+)+`, `(\\w*)*`): the shape whose
    matching time grows exponentially with the line (Python's engine has no time limit)."""
    import re._parser as parser  # the standard library's own reading of a pattern

    def walk(items: Any, inside: bool) -> bool:
        for op, arg in items:
            if op in (parser.MAX_REPEAT, parser.MIN_REPEAT, getattr(parser, "POSSESSIVE_REPEAT", None)):
                low, high, sub = arg
                unbounded = high == parser.MAXREPEAT or high > 100
                if unbounded and inside:
                    return True
                if walk(sub, inside or unbounded):
                    return True
            elif op == parser.SUBPATTERN and walk(arg[-1], inside):
                return True
            elif op == parser.BRANCH and any(walk(b, inside) for b in arg[1]):
                return True
            elif op in (parser.ASSERT, parser.ASSERT_NOT) and walk(arg[1], inside):
                return True
        return False

    return walk(parser.parse(expand(pattern)), False)


class Closed(BaseModel):
    model_config = ConfigDict(extra="forbid")


UNIT_KINDS = ("para", "bullet", "quote", "table", "heading")


class Find(Closed):
    """Where a built-in way applies: text units matching `pattern`, or sections whose heading
    matches `section`, optionally only inside (or outside) sections whose heading path matches,
    only in the first part of the document, and only where `where` holds over the pattern's
    named groups (read as numbers where they are numbers)."""

    pattern: str | None = None
    flags: str = ""  # i (ignore case), s
    section: str | None = None
    units: list[Literal["para", "bullet", "quote", "table", "heading"]] = Field(
        default_factory=lambda: ["para", "bullet", "quote", "table"])
    in_section: str | None = None  # the nearest heading above the unit matches
    not_in_section: str | None = None
    first_part: float | None = Field(default=None, gt=0, le=1)
    where: str | None = None
    target: str | None = None  # the file of the input (pair layouts); default: the operator's target

    @model_validator(mode="after")
    def _check(self) -> "Find":
        if (self.pattern is None) == (self.section is None):
            raise ValueError("give exactly one of pattern or section")
        for name in ("pattern", "section", "in_section", "not_in_section"):
            _regex(getattr(self, name), name)
        if self.where:
            compile_expression(self.where)
        if set(self.flags) - set("is"):
            raise ValueError("flags: only i and s")
        return self

    def regex(self) -> re.Pattern[str]:
        """The pattern compiled; `{number}` in it stands for a number as documents write it
        ('1,234', '-0.4', '+12.5%', '\u22121.3%')."""
        flags = (re.I if "i" in self.flags else 0) | (re.S if "s" in self.flags else 0)
        return re.compile(expand(self.pattern or ""), flags)


class Way(Closed):
    """One way to plant the flaw."""

    find: Find | None = None
    delete: Literal["match", "sentence", "block", "section"] | None = None
    replace: str | None = None  # template for the matched text: {0} the match, {name} a group or value
    insert: list[str] | None = None  # templates, one drawn per mutation
    at: Literal["after_sentence", "new_paragraph", "section_end"] = "after_sentence"
    values: dict[str, str] = Field(default_factory=dict, description="name -> expression, before the change")
    like: dict[str, str] = Field(default_factory=dict, description="value name -> group whose writing it copies")
    check: str | None = Field(default=None, description="must hold over the values as written (after rounding)")
    use: str | None = None  # a named mutator
    args: dict[str, Any] = Field(default_factory=dict)
    scope: Literal["one", "all"] = "one"
    max_sites: int | None = Field(default=None, ge=1, description="more sites than this: the way does not apply")

    @model_validator(mode="after")
    def _check(self) -> "Way":
        changes = [c for c in (self.delete, self.replace, self.insert) if c is not None]
        if self.use:
            if self.find is not None or changes:
                raise ValueError("a way with use: names a mutator; give its args, not find/delete/replace/insert")
            return self
        if self.find is None:
            raise ValueError("give find (with one of delete, replace, insert) or use")
        if len(changes) != 1:
            raise ValueError("give exactly one of delete, replace, insert")
        if self.delete == "section" and self.find.section is None:
            raise ValueError("delete: section needs find.section")
        if self.insert is not None and not self.insert:
            raise ValueError("insert: give at least one text")
        for expression in [*self.values.values(), *([self.check] if self.check else [])]:
            compile_expression(expression)
        return self


class Requires(Closed):
    """Regexes the input must (not) contain for the operator to apply (its precondition)."""

    present: list[str] = Field(default_factory=list)
    absent: list[str] = Field(default_factory=list)
    target: str | None = None

    @field_validator("present", "absent")
    @classmethod
    def _regexes(cls, values: list[str]) -> list[str]:
        for value in values:
            _regex(value, "requires")
        return values


class Operator(Closed):
    id: str = Field(pattern=r"^[a-z0-9][a-z0-9-]*$")
    description: str
    target: str | None = None  # which file of the input it changes (pair layouts: design | requirements)
    requires: Requires = Field(default_factory=Requires)
    absence: bool = Field(default=False, description="the flaw is something missing: its finding quotes "
                          "nothing (what was removed is recorded in the gold file's `planted.removed`)")
    ways: list[Way] = Field(min_length=1)
    finding: dict[str, Any] = Field(description="The gold finding's fields (templates); id and evidence are added.")

    @model_validator(mode="before")
    @classmethod
    def _one_way(cls, raw: Any) -> Any:
        """A single way may be written inline (find/delete/replace/insert/use at the top)."""
        if isinstance(raw, dict) and "ways" not in raw:
            keys = set(Way.model_fields) & set(raw)
            if keys:
                raw = {k: v for k, v in raw.items() if k not in keys} | {"ways": [{k: raw[k] for k in keys}]}
        return raw


class OperatorTable(Closed):
    version: str
    kind: str
    layout: str
    layout_options: dict[str, Any] = Field(default_factory=dict)
    module: str | None = None
    gold: dict[str, Any] = Field(default_factory=dict, description="top-level fields of each planted gold file")
    operators: list[Operator] = Field(min_length=1)
    _path: Path | None = None

    @model_validator(mode="after")
    def _unique(self) -> "OperatorTable":
        ids = [o.id for o in self.operators]
        dupes = sorted({i for i in ids if ids.count(i) > 1})
        if dupes:
            raise ValueError(f"operator ids must be unique: {', '.join(dupes)}")
        return self

    @property
    def path(self) -> Path | None:
        return self._path

    def select(self, names: list[str] | None) -> list[Operator]:
        """The operators named (all when None); an unknown name is a `TableError`."""
        if not names:
            return list(self.operators)
        known = {o.id: o for o in self.operators}
        unknown = [n for n in names if n not in known]
        if unknown:
            raise TableError(f"--operators: unknown operator {', '.join(unknown)}; "
                             f"the {self.kind} table has {', '.join(known)}")
        return [known[n] for n in names]


def load_table(path: Path) -> OperatorTable:
    table = read_model(path, OperatorTable, f"operator table {path}", TableError)
    table._path = path
    return table


def merged(base: OperatorTable, extra: OperatorTable) -> OperatorTable:
    """A team's own table added to the kind's: its operators join (one with a known id replaces
    it); layout and gold fields stay the kind's."""
    if extra.kind != base.kind:
        raise TableError(f"operator table {extra.path}: is for kind {extra.kind}, not {base.kind}")
    for key in ("module", "layout_options", "gold"):  # the kind's table sets them; a team's would be ignored
        if key in extra.model_fields_set:
            raise TableError(f"operator table {extra.path}: key '{key}' is not read in a team's table (the kind's "
                             f"table sets it); remove it")
    if extra.layout != base.layout:
        raise TableError(f"operator table {extra.path}: layout '{extra.layout}' is not the kind's ({base.layout})")
    ours = {o.id: o for o in base.operators}
    for op in extra.operators:
        ours[op.id] = op
    table = base.model_copy(update={"operators": list(ours.values())})
    table._path = base.path
    return table
