"""A user's own gold set, labelled by hand: `review-harness gold new KIND INPUT --out DIR` copies an
input into the set (the layout the kind's planting uses) and writes a gold file to fill in;
`review-harness gold check PATH` validates gold files with one line per problem.

A gold set is a folder holding `fixtures/<kind>/` and `gold/<kind>/` (planted or hand-written);
the kind's task runs it with `-T fixtures=DIR`.
"""

from __future__ import annotations

import enum
import types
import typing
from pathlib import Path
from typing import Any, Literal, get_args, get_origin

import yaml
from pydantic import BaseModel

from review_harness.core.files import forcing, safe_name, write_safe
from review_harness.core.gold import GoldCase, findings_model, gold_file_problems
from review_harness.core.plant.site import PlantError

TODO = "TODO"
# fields of every gold file the scaffold fills itself
SET_BY_SCAFFOLD = {"id", "split", "fixture", "planted", "expected_findings"}


def _choices(annotation: Any) -> list[str]:
    """The allowed values of a field (Literal or Enum, also inside Optional), else []."""
    origin = get_origin(annotation)
    if origin is Literal:
        return [str(a) for a in get_args(annotation)]
    if origin in (typing.Union, types.UnionType):
        return [c for a in get_args(annotation) if a is not type(None) for c in _choices(a)]
    if isinstance(annotation, type) and issubclass(annotation, enum.Enum):
        return [str(m.value) for m in annotation]
    return []


def _placeholder(annotation: Any) -> Any:
    origin = get_origin(annotation)
    if origin in (list, tuple) or annotation in (list, tuple):
        args = get_args(annotation)
        if origin is tuple and args and args[-1] is not Ellipsis:
            return [TODO] * len(args)
        return [TODO]
    if annotation in (int, float):
        return 0
    return TODO


def _field_lines(model: type[BaseModel], skip: set[str], indent: str) -> list[str]:
    """YAML lines for a model's fields: required ones with a TODO to fill in, optional ones
    commented out with their default (left out: not judged, or the default)."""
    lines = []
    for name, info in model.model_fields.items():
        if name in skip:
            continue
        choices = _choices(info.annotation)
        note = info.description or ""
        if choices:
            note = (note + "; " if note else "") + "one of " + ", ".join(choices)
        comment = f"  # {note}" if note else ""
        if info.is_required():
            value = yaml.safe_dump(_placeholder(info.annotation), default_flow_style=True).strip().removesuffix("...").strip()
            lines.append(f"{indent}{name}: {value}{comment}")
        else:
            default = info.get_default(call_default_factory=True)
            shown = yaml.safe_dump(default if not isinstance(default, BaseModel) else None,
                                   default_flow_style=True).strip().removesuffix("...").strip()
            lines.append(f"{indent}# {name}: {shown}{comment}")
    return lines


def scaffold(model: type[GoldCase], fixture: str, kind: str) -> str:
    """A gold file to fill in by hand for `fixture`."""
    finding = findings_model(model)
    lines = [
        f"# Gold file of the {kind} review of fixtures/{kind}/{fixture}: what a careful reviewer finds in it.",
        "# Fill in every TODO (a commented line may stay out), then check it:",
        "#   review-harness gold check <this file>",
        "split: heldout  # dev: prompts and rules may be tuned on it; heldout: measurement only",
        f"fixture: {fixture}",
        *_field_lines(model, SET_BY_SCAFFOLD, ""),
        "expected_findings:",
        "  - id: F1",
        *_field_lines(finding, {"id", "evidence", "summary", "must_catch", "keywords"}, "    "),
        "    must_catch: false  # true: a review that misses it fails the document",
        f"    summary: {TODO} what the reviewer should say, in a sentence or two",
        f"    evidence: {TODO} a verbatim quote from the input (\"\" when the finding is something missing)",
        f"    keywords: [{TODO}]  # words a review that found it would use",
    ]
    return "\n".join(lines) + "\n"


def set_of(path: Path, kind: str) -> Path | None:
    """The gold set an input already sits in (`<set>/fixtures/<kind>/<input>`), or None."""
    parent = path.resolve().parent
    return parent.parent.parent if parent.name == kind and parent.parent.name == "fixtures" else None


def gold_new(kind: str, given: str | Path, out: str | Path | None = None, case_id: str | None = None,
             options: dict[str, Any] | None = None) -> tuple[Path, Path]:
    """Write a gold file to fill in for an input; (fixture, gold file). With `out`, the input is
    copied into that gold set first; without, it must already sit in one
    (`<set>/fixtures/<kind>/`). An existing gold file is never overwritten."""
    from review_harness.core.kinds import get_kind
    from review_harness.core.plant.engine import kind_table
    from review_harness.core.plant.layouts import get_layout

    if case_id is not None:
        safe_name(case_id, "--id")
    model = get_kind(kind).gold_model
    if model is None:
        raise PlantError(f"kind {kind} has no gold files")
    table = kind_table(kind)
    path = Path(given).expanduser()
    if not path.exists():
        raise PlantError(f"{given}: no such file or folder")
    read = get_layout(table.layout).read(path, {**table.layout_options, **(options or {})})
    if len(read) != 1:
        raise PlantError(f"{given}: holds {len(read)} inputs; gold new takes one (a file, or one case folder)")
    item = read[0]
    if isinstance(item, tuple):
        raise PlantError(item[1])
    if out is None:
        root = set_of(path, kind)
        if root is None:
            raise PlantError(f"{given}: not inside a gold set (<set>/fixtures/{kind}/); give --out DIR to copy it into one")
        gold_path = root / "gold" / kind / f"{case_id or item.id}.yaml"
        if gold_path.exists() and not forcing():
            raise PlantError(f"{gold_path} exists: edit it, or give another --id (or --force to replace it)")
        write_safe(gold_path, scaffold(model, path.name, kind))
        return path, gold_path
    case = case_id or item.id
    out = Path(out)
    gold_path = out / "gold" / kind / f"{case}.yaml"
    if gold_path.exists() and not forcing():
        raise PlantError(f"{gold_path} exists: edit it, or give another --id (or --force to replace it)")
    fixture = get_layout(table.layout).write(item, item.files, out / "fixtures" / kind, case)
    write_safe(gold_path, scaffold(model, fixture, kind))
    return out / "fixtures" / kind / fixture, gold_path


def gold_files_under(path: Path, kind: str | None) -> list[tuple[str, Path]]:
    """(kind, gold file) of a file, a gold/<kind>/ folder, a gold set (gold/<kind>/...), or a
    code case folder (gold.yaml). The kind is the folder's name unless `kind` is given."""
    from review_harness.core.kinds import kind_names

    known = [k for k in kind_names(with_task=True)]

    def kind_of(file: Path) -> str:
        if kind:
            return kind
        for parent in file.parents:
            if parent.name in known and parent.parent.name in ("gold", "fixtures"):
                return parent.name
        if file.name == "gold.yaml" and (file.parent / "case.yaml").is_file():
            return "code"
        raise PlantError(f"{file}: cannot tell its kind from its folder (gold/<kind>/); give --kind")

    if path.is_file():
        return [(kind_of(path), path)]
    if not path.is_dir():
        raise PlantError(f"{path}: no such file or folder")
    root = path / "gold" if (path / "gold").is_dir() else path
    files = sorted(p for p in root.rglob("*.yaml") if not p.name.startswith("."))
    if (path / "case.yaml").is_file() and (path / "gold.yaml").is_file():
        files = [path / "gold.yaml"]
    if not files:
        raise PlantError(f"{path}: no gold files (*.yaml) in it")
    return [(kind_of(f), f) for f in files]


def gold_check(path: str | Path, kind: str | None = None) -> tuple[list[str], int]:
    """(one line per problem, how many files were checked)."""
    files = gold_files_under(Path(path), kind)
    lines = []
    for file_kind, file in files:
        lines += [f"{file}: {problem}" for problem in gold_file_problems(file_kind, file)]
    return lines, len(files)

