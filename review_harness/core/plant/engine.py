"""The planting engine: `review-harness plant KIND INPUT... --out DIR`.

For each input (read by the kind's layout) and each operator of the kind's table, the ways of the
operator are tried in order; a way gives candidate sites, each is checked (it is honest: the
operator's precondition held in the input, the planted text is in the output and was not in the
input, what was removed is gone, the evidence quote is in the output), and one honest site is
drawn with a generator fixed by the seed, the input and the operator. `--per-input N` then keeps N
of an input's mutations (drawn the same way). Each kept mutation is written into the gold set as
a copy of the input and a gold file (`gold/<kind>/<input>--<operator>.yaml`) that records the
operator, the source and the seed, and is read back through the kind's gold model, whose
evidence check it must pass. Inputs are only read, never written: their bytes are compared
before and after. An input where no operator applies is reported, with each operator's reason.
"""

from __future__ import annotations

import hashlib
import importlib
import re
import shutil
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

from review_harness.core.files import write_safe
from review_harness.core.plant.expr import ExpressionError
from review_harness.core.plant import docops, jsonops  # noqa: F401  (register the core's mutators)
from review_harness.core.plant.layouts import get_layout
from review_harness.core.plant.mutators import MUTATORS
from review_harness.core.plant.model import Operator, OperatorTable, TableError, Way, load_table, merged
from review_harness.core.plant.site import PlantError, PlantInput, Site, count, occurs, rng_for
from review_harness.core.plant.text import builtin_sites, find_sites

PLANT_TABLE = "plant.yaml"



@dataclass
class Context:
    """What a mutator gets: the input, the operator and way, the file it changes, the seed."""

    input: PlantInput
    operator: Operator
    way: Way
    way_index: int
    target: str
    seed: int

    def rng(self, *parts: object):
        return rng_for(self.seed, self.input.id, self.operator.id, self.way_index, *parts)


@dataclass
class Mutation:
    input: PlantInput
    operator: Operator
    site: Site


@dataclass
class InputOutcome:
    source: str
    id: str
    planted: list[str] = field(default_factory=list)  # case ids written
    not_applied: dict[str, str] = field(default_factory=dict)  # operator -> why
    error: str | None = None  # the input could not be read


@dataclass
class PlantReport:
    kind: str
    out: Path
    seed: int
    outcomes: list[InputOutcome] = field(default_factory=list)
    failures: list[str] = field(default_factory=list)  # mutations dropped because their gold file was invalid
    operators: list[str] = field(default_factory=list)  # the operators tried, in the table's order

    @property
    def written(self) -> int:
        return sum(len(o.planted) for o in self.outcomes)

    def counts(self) -> dict[str, int]:
        """Operator -> copies planted, in the table's order."""
        out = dict.fromkeys(self.operators, 0)
        for o in self.outcomes:
            for case in o.planted:
                op = case.split("--", 1)[1]
                out[op] = out.get(op, 0) + 1
        return {op: n for op, n in out.items() if n}

    def lines(self, reasons: bool = False) -> list[str]:
        """What was planted in each input (with `reasons`, why each other operator was not),
        then the count per operator."""
        out = []
        for o in self.outcomes:
            if o.error:
                out.append(f"{o.source}: not read: {o.error}")
                continue
            head = f"{o.source}: {len(o.planted)} planted" + (f" ({', '.join(c.split('--', 1)[1] for c in o.planted)})"
                                                           if o.planted else "")
            if not o.planted:
                head += ": no operator applies"
            out.append(head)
            if reasons:
                out += [f"  {op}: not planted: {why}" for op, why in o.not_applied.items()]
        out += [f"dropped: {f}" for f in self.failures]
        counts = self.counts()
        if counts:
            out.append("per operator: " + ", ".join(f"{op} {n}" for op, n in counts.items()))
        inputs = sum(1 for o in self.outcomes if not o.error)
        out.append(f"{self.written} planted copies of {inputs} input(s) written to {self.out} "
                   f"(fixtures/{self.kind}/, gold/{self.kind}/; seed {self.seed}); run them with: "
                   f"inspect eval review_harness/{self.kind}_review -T fixtures={self.out}")
        return out


# ------------------------------------------------------------------------------------ tables


def kind_table(kind: str, extra: Sequence[str | Path] = ()) -> OperatorTable:
    """The kind's operator table (prompts/<kind>/plant.yaml), with a team's own tables added."""
    from review_harness.core.kinds import get_kind

    prompts = get_kind(kind).prompts
    path = Path(prompts) / PLANT_TABLE if prompts else None
    if path is None or not path.is_file():
        raise PlantError(f"kind {kind} has no operator table ({path})")
    table = load_table(path)
    for other in extra:
        table = merged(table, load_table(Path(other)))
    if table.kind != kind:
        raise TableError(f"operator table {path}: is for kind {table.kind}, not {kind}")
    if table.module:
        importlib.import_module(table.module)
    for op in table.operators:
        for way in op.ways:
            if way.use and way.use not in MUTATORS:
                raise TableError(f"operator table {table.path}: operator {op.id}: no mutator named '{way.use}'")
    return table


# ------------------------------------------------------------------------------------ planting


def _requires(op: Operator, item: PlantInput) -> str | None:
    target = op.requires.target or op.target or item.primary
    text = item.files.get(target, "")
    for pattern in op.requires.present:
        if not re.search(pattern, text):
            return f"precondition: the {target} has nothing matching {pattern!r}"
    for pattern in op.requires.absent:
        hit = re.search(pattern, text)
        if hit:
            return f"precondition: the {target} already has {hit.group(0)!r}"
    return None


def honest(item: PlantInput, site: Site) -> str | None:
    """Why a candidate is not an honest mutation (None: it is)."""
    if not site.files:
        return "changes nothing"
    for name, text in site.files.items():
        if item.files.get(name) == text:
            return f"leaves the {name} as it was"
        if not text.strip():
            return f"leaves the {name} empty"
    if not site.planted and not site.removed:
        return "neither puts text in nor takes any out"
    if site.planted:
        out = site.files.get(site.planted_file, item.files.get(site.planted_file, ""))
        if not occurs(site.planted, out):
            return "the planted text is not in the output"
        if occurs(site.planted, item.files.get(site.planted_file, "")):
            return "the planted text was already in the input"
    for removed in site.removed:
        before = item.files.get(site.removed_file, "")
        after = site.files.get(site.removed_file, before)
        if count(removed, after) >= count(removed, before):
            return "what was removed is still there"
    if site.evidence:
        out = site.files.get(site.evidence_file, item.files.get(site.evidence_file, ""))
        if not occurs(site.evidence, out):
            return "the evidence quote is not in the output"
    if site.check is not None:
        why = site.check({**item.files, **site.files})
        if why:
            return why
    return None


def _removal(item: PlantInput, op: Operator, seed: int) -> tuple[Mutation | None, str]:
    """An operator whose every way removes all of something (`scope: all`: group sizes in the
    text and in tables, a summary section and a TL;DR line) applies its ways one after the
    other; it is honest when, afterwards, none of them finds anything."""
    current, changed, removed, evidence, line, where = item, set(), [], [], None, []
    for n, way in enumerate(op.ways):
        target = op.target or item.primary
        ctx = Context(current, op, way, n, target, seed)
        try:
            sites = MUTATORS[way.use](ctx) if way.use else builtin_sites(ctx)
        except ExpressionError:
            continue
        for site in sites[:1]:
            current = PlantInput(id=item.id, source=item.source, files={**current.files, **site.files},
                                 primary=item.primary, origin=item.origin, extra=item.extra)
            changed |= set(site.files)
            removed += site.removed
            evidence.append((site.evidence, site.evidence_file))
            line = line if line is not None else site.line
            where.append(site.where)
    if not changed:
        return None, "; ".join(f"way {n + 1}: {_nothing(w)}" for n, w in enumerate(op.ways))
    files = {name: current.files[name] for name in changed}
    quote, quote_file = next(((e, f) for e, f in evidence if e and occurs(e, files.get(f, current.files.get(f, "")))),
                             ("", ""))
    site = Site(files=files, removed=removed, removed_file=op.target or item.primary, evidence=quote,
                evidence_file=quote_file or (op.target or item.primary), line=line, where="; ".join(where))
    problem = honest(item, site) or _still_applies(op, item, site, seed)
    if problem:
        return None, problem
    return Mutation(item, op, site), ""


def mutations_of(item: PlantInput, op: Operator, seed: int) -> tuple[Mutation | None, str]:
    """The mutation this operator plants in this input (drawn among its honest sites), or why none."""
    why = _requires(op, item)
    if why:
        return None, why
    if all(way.scope == "all" for way in op.ways):
        return _removal(item, op, seed)
    reasons = []
    for n, way in enumerate(op.ways):
        target = op.target or item.primary
        if target not in item.files:
            return None, f"the input has no {target}"
        ctx = Context(item, op, way, n, target, seed)
        try:
            sites = MUTATORS[way.use](ctx) if way.use else builtin_sites(ctx)
        except ExpressionError as ex:
            reasons.append(str(ex))
            continue
        checked = [(s, honest(item, s) or (_still_applies(op, item, s, seed) if way.scope == "all" else None))
                   for s in sorted(sites, key=lambda s: s.order)]
        good = [s for s, problem in checked if problem is None]
        if good:
            return Mutation(item, op, ctx.rng("site").choice(good)), ""
        if checked:
            reasons.append(f"way {n + 1}: {len(checked)} place(s), none honest: {checked[0][1]}")
        else:
            reasons.append(f"way {n + 1}: {_nothing(way)}")
    return None, "; ".join(reasons)


def _still_applies(op: Operator, item: PlantInput, site: Site, seed: int) -> str | None:
    """For a flaw planted by removing every place of something (group sizes, the limitations):
    why the output still has one (None: no way of the operator finds anything in it)."""
    after = PlantInput(id=item.id, source=item.source, files={**item.files, **site.files}, primary=item.primary)
    for n, way in enumerate(op.ways):
        target = op.target or item.primary
        if way.find is not None:
            text = after.files[way.find.target or target]
            if next(iter(find_sites(text, way.find)), None) is not None:
                return f"the output still has what way {n + 1} removes"
        elif MUTATORS[way.use](Context(after, op, way, n, target, seed)):
            return f"the output still has what way {n + 1} ({way.use}) removes"
    return None


def _nothing(way: Way) -> str:
    if way.use:
        return f"{way.use}: nothing to change"
    too_many = f" (or more than {way.max_sites} places: too many to change honestly)" if way.max_sites else ""
    if way.find.section:
        return "no section heading matches" + too_many
    return "no sentence, list item or table row matches" + too_many


def _fill(value: Any, values: dict[str, Any], keep_type: bool = True) -> Any:
    if isinstance(value, str):
        whole = re.fullmatch(r"\{(\w+)\}", value)
        if keep_type and whole and whole.group(1) in values and not isinstance(dict.get(values, whole.group(1)), str):
            return dict.get(values, whole.group(1))  # a lone value keeps its type (a line number stays a number)
        try:
            return value.format_map(values)
        except (KeyError, IndexError, ValueError) as ex:
            raise TableError(f"template {value!r}: no value for {ex}") from None
    if isinstance(value, list):
        return [_fill(v, values, keep_type=False) for v in value]
    if isinstance(value, dict):
        return {k: _fill(v, values) for k, v in value.items()}
    return value


class _Shown(dict):
    """Template values shown as a person reads them (floats without noise)."""

    def __getitem__(self, key: str) -> Any:
        value = super().__getitem__(key)
        if isinstance(value, float):
            return f"{value:g}"
        return "" if value is None else value


def gold_record(table: OperatorTable, mutation: Mutation, fixture: str, seed: int, split: str,
                case: str = "") -> dict[str, Any]:
    """The planted gold file: the table's top-level fields, the one expected finding (the
    operator's, with the site's evidence), and how it was made."""
    item, op, site = mutation.input, mutation.operator, mutation.site
    values = _Shown({**{k: v for k, v in site.values.items()}, "operator": op.id, "description": op.description,
                     "source": item.source, "evidence": site.evidence, "evidence_file": site.evidence_file,
                     "file": site.values.get("file", site.evidence_file), "line": site.line, "where": site.where,
                     "case": case})
    finding = _fill(op.finding, values) | {"id": op.id, "evidence": "" if op.absence else site.evidence}
    record = _fill(table.gold, values)
    record.update({
        "split": split,
        "fixture": fixture,
        "planted": {
            "operator": op.id, "description": op.description, "table": table.version,
            "source": item.source, "source_sha256": item.digest(), "seed": seed,
            "change": "insert" if site.planted and not site.removed else ("delete" if site.removed and not site.planted
                                                                         else "replace"),
            "planted": site.planted, "removed": "\n".join(site.removed)[:2000], "where": site.where,
        },
        "expected_findings": [finding],
    })
    return record


def _origin_digest(item: PlantInput) -> str:
    h = hashlib.sha256()
    origin = item.origin
    if origin is None:
        return ""
    paths = [origin] if origin.is_file() else sorted(p for p in origin.rglob("*") if p.is_file() and ".git" not in p.parts)
    for p in paths:
        h.update(str(p).encode() + b"\0" + p.read_bytes())
    return h.hexdigest()


def plant(kind: str, inputs: Sequence[str | Path], out: str | Path, *, operators: Sequence[str] | None = None,
          per_input: int | None = None, seed: int = 0, split: str = "heldout", tables: Sequence[str | Path] = (),
          options: dict[str, Any] | None = None,
          check_gold: Callable[[Path], None] | None = None) -> PlantReport:
    """Plant the kind's operators into `inputs` and write the gold set under `out`."""
    from review_harness.core.gold import check_gold_file

    table = kind_table(kind, tables)
    chosen = table.select(list(operators) if operators else None)
    layout = get_layout(table.layout)
    out = Path(out)
    fixtures_dir, gold_dir = out / "fixtures" / kind, out / "gold" / kind
    report = PlantReport(kind=kind, out=out, seed=seed, operators=[op.id for op in chosen])
    read: list[PlantInput] = []
    for given in inputs:
        path = Path(given).expanduser()
        if not path.exists():
            raise PlantError(f"{given}: no such file or folder")
        for item in layout.read(path, {**table.layout_options, **(options or {})}):
            if isinstance(item, tuple):
                report.outcomes.append(InputOutcome(source=item[0], id="", error=item[1]))
            else:
                read.append(item)
    if not read and not report.outcomes:
        raise PlantError(f"{', '.join(map(str, inputs))}: no {kind} input found")
    seen: dict[str, int] = {}
    for item in read:
        n = seen[item.id] = seen.get(item.id, 0) + 1
        if n > 1:
            item.id = f"{item.id}-{n}"
    before = {item.id: _origin_digest(item) for item in read}
    for item in read:
        outcome = InputOutcome(source=item.source, id=item.id)
        report.outcomes.append(outcome)
        found: list[Mutation] = []
        for op in chosen:
            mutation, why = mutations_of(item, op, seed)
            if mutation is None:
                outcome.not_applied[op.id] = why
            else:
                found.append(mutation)
        if per_input is not None and len(found) > per_input:
            keep = set(id(m) for m in rng_for(seed, item.id, "per-input").sample(found, per_input))
            for m in found:
                if id(m) not in keep:
                    outcome.not_applied[m.operator.id] = f"applies; not drawn (--per-input {per_input})"
            found = [m for m in found if id(m) in keep]
        for mutation in found:
            case = f"{item.id}--{mutation.operator.id}"
            files = {**item.files, **mutation.site.files}
            fixture = layout.write(item, files, fixtures_dir, case)
            gold_path = gold_dir / f"{case}.yaml"
            record = gold_record(table, mutation, fixture, seed, split, case)
            write_safe(gold_path, yaml.safe_dump(record, sort_keys=False, allow_unicode=True, width=100))
            try:
                (check_gold or (lambda p: check_gold_file(kind, p)))(gold_path)
            except ValueError as ex:
                gold_path.unlink(missing_ok=True)
                copy = fixtures_dir / fixture
                shutil.rmtree(copy) if copy.is_dir() else copy.unlink(missing_ok=True)
                report.failures.append(f"{case}: {ex}")
                continue
            outcome.planted.append(case)
    for item in read:
        if _origin_digest(item) != before[item.id]:
            raise PlantError(f"{item.source}: the input changed while planting (it must never be written)")
    manifest = {"kind": kind, "seed": seed, "table": table.version,
                "inputs": [{"source": o.source, "planted": o.planted, "not_applied": o.not_applied,
                            **({"error": o.error} if o.error else {})} for o in report.outcomes],
                "dropped": report.failures}
    write_safe(out / f"planted-{kind}.yaml", yaml.safe_dump(manifest, sort_keys=False, allow_unicode=True, width=100))
    return report
