"""Samples of the code review: the gold set (fixtures/code/<case>/case.yaml, one YAML per
case), or the user's change (a git repository with base and head, or a patch) and spec.
Bad input is a one-line error naming the parameter."""

from __future__ import annotations

import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

from review_harness.core.inspect_adapter import PrerequisiteError
from review_harness.core.files import FileReadError, file_problem, read_text
from inspect_ai.dataset import Sample
from pydantic import Field

from review_harness.code.change import ChangeError, ChangeSet, from_git, from_patch, from_trees, infer_service, repo_top, revision
from review_harness.code.config import ConfigError, ReviewConfig, load_project_config, resolve_config
from review_harness.code.models import HumanAnswer
from review_harness.core.models import ClosedModel
from review_harness.core.gold import gold_set_folders
from review_harness.core.params import resolve_user_path
from review_harness.core.paths import repo_path
from review_harness.core.yamlio import read_model, read_yaml

SPLITS = ("all", "dev", "heldout")
FINDING_ID = re.compile(r"(?:i\d+-)?[sq]\d+")
PROJECT_CONFIG = Path(".claude") / "project.yml"


class CaseChange(ClosedModel):
    base: str | None = None  # folder of the old version (relative to the case)
    head: str | None = None
    patch: str | None = None
    real: str | None = Field(None, description="a real commit kept outside the repository (relative to the repository "
                                               "root, e.g. ../shared/real/code/<case>): its change.patch applied to "
                                               "its before/ files")


class ScriptedFix(ClosedModel):
    files: dict[str, str] = Field(description="changed path -> file (relative to the case) with its fixed content")
    turns: int = 1


class CaseFile(ClosedModel):
    """fixtures/code/<case>/case.yaml: what to review and how the world answers."""

    task: str
    title: str
    spec: str = "spec.md"
    service: str | None = None
    change: CaseChange
    config: dict[str, Any] = Field(default_factory=dict)
    fixes: list[ScriptedFix] = Field(default_factory=list)
    human: list[str] = Field(default_factory=list,
                             description="the human's answers at each decision point, in order: approve | reject, "
                                         "optionally with finding ids dismissed (approve:q2+q3)")
    memory: str | None = Field(None, description="memory folder seeded for this case (relative to the case)")


def read_spec(name: str, path: str | Path) -> str:
    resolved = resolve_user_path(str(path)) if name else Path(path)
    try:
        text = read_text(resolved, str(path))  # the core's one reader: a folder or a FIFO is named as such
    except FileReadError as ex:
        raise PrerequisiteError(f"-T {name}={ex}" if name else str(ex)) from None
    if not text.strip():
        raise PrerequisiteError(f"-T {name}={path}: the spec is empty")
    return text


def spec_title(spec: str, fallback: str) -> str:
    match = re.search(r"^#\s+(.+)$", spec, re.MULTILINE)
    return match.group(1).strip() if match else fallback


def make_sample(sample_id: str, *, change: ChangeSet, spec: str, task: str, title: str, service: str,
                config: ReviewConfig, fixes: list[dict] | None = None, human: list[str] | None = None,
                gold: Path | None = None, split: str | None = None, memory_seed: str | None = None,
                workspace: dict | None = None) -> Sample:
    """`workspace`: where the implementer agent's working folder comes from ({"repo", "head"} or
    {"tree"}; a patch has neither)."""
    listing = "\n".join(f"- {f.path} ({f.status}{', binary' if f.binary else ''})" for f in change.files)
    return Sample(
        id=sample_id,
        input=f"Task {task}: {title}\nService: {service}\nChange: {change.source}\n{listing}",
        metadata={
            "task": task, "title": title, "service": service, "spec": spec,
            "change": change.model_dump(mode="json"), "config": config.model_dump(),
            "fixes": fixes or [], "human": human or [], "gold": str(gold) if gold else None,
            "split": split, "memory_seed": memory_seed, "workspace": workspace or {},
        },
    )


def human_answers(name: str, value: Any) -> list[str]:
    """The human's answers (`-T human=approve,reject` arrives as a list; a case's `human:` is
    one): each approve or reject, optionally with finding ids to dismiss."""
    items = value if isinstance(value, (list, tuple)) else str(value).split(",")
    answers = [str(item).strip() for item in items]
    if not answers or any(not a for a in answers):
        raise PrerequisiteError(f"{name}={value}: expected approve or reject answers, comma-separated")
    try:
        parsed = [HumanAnswer.parse(a) for a in answers]
    except ValueError as ex:
        raise PrerequisiteError(f"{name}={value}: {ex}") from None
    wrong = [i for a in parsed for i in a.dismiss if not FINDING_ID.fullmatch(i)]
    if wrong:
        raise PrerequisiteError(f"{name}={value}: {', '.join(wrong)} cannot be a finding id: findings are numbered "
                                "s1, s2 ... (spec) and q1, q2 ... (quality) in the first review, i1-s1, i1-q1 ... after "
                                "fix 1; the report shows each finding's id")
    return [str(a) for a in parsed]


def user_sample(*, repo: str | None, base: str | None, head: str | None, patch: str | None, spec: str | None,
                service: str | None, task_number: str, config_path: str | None, overrides: dict[str, Any]) -> Sample:
    if repo is None and patch is None:
        raise PrerequisiteError("give the change: -T repo=PATH -T base=REV -T head=REV, or -T patch=FILE")
    if repo is not None and patch is not None:
        raise PrerequisiteError("-T repo= and -T patch= are alternatives: give one")
    if patch is not None and (base or head):
        raise PrerequisiteError("-T base= and -T head= go with -T repo=, not with -T patch=")
    if spec is None:
        raise PrerequisiteError("-T spec=PATH is required: the task spec the change is reviewed against")
    spec_text = read_spec("spec", spec)
    try:
        workspace: dict = {}
        if repo is not None:
            if not base:
                raise PrerequisiteError("-T base=REV is required with -T repo=")
            root = resolve_user_path(repo)
            change = from_git(root, base, head or "HEAD")
            default_config = root / PROJECT_CONFIG
            fallback = root.resolve().name
            workspace = {"repo": str(repo_top(root)), "head": revision(root, head or "HEAD")}
        else:
            change = from_patch(resolve_user_path(patch))
            default_config = None
            fallback = Path(patch).stem
        project = config_path and resolve_user_path(config_path)
        if config_path and file_problem(project):
            raise PrerequisiteError(f"-T config={config_path}: {file_problem(project)}")
        raw = load_project_config(project or (default_config if default_config and default_config.is_file() else None))
        config = resolve_config(raw, None, overrides)
    except (ChangeError, ConfigError) as ex:
        raise PrerequisiteError(str(ex)) from None
    service = service or infer_service([f.path for f in change.files], fallback)
    sample = make_sample(f"task-{task_number}", change=change, spec=spec_text, task=task_number,
                         title=spec_title(spec_text, f"task {task_number}"), service=service, config=config,
                         workspace=workspace)
    sample.metadata["repo_root"] = workspace.get("repo")
    return sample


def load_case(folder: Path) -> CaseFile:
    path = folder / "case.yaml"
    return read_model(path, CaseFile, f"case file {path}", PrerequisiteError)


def real_case_folder(case: CaseFile) -> Path | None:
    """The outside folder of a real-commit case (`change: {real: ...}`), None for a case of the project."""
    return repo_path(case.change.real) if case.change.real else None


def real_change(folder: Path) -> ChangeSet:
    """A real commit as git sees it: its change.patch applied to a copy of its before/ files, the two
    folders diffed with renames (the shared folder itself is never written)."""
    with tempfile.TemporaryDirectory(prefix="code-real-") as scratch:
        head = Path(scratch) / "head"
        shutil.copytree(folder / "before", head, symlinks=True)
        applied = subprocess.run(["git", "apply", "--whitespace=nowarn", str((folder / "change.patch").resolve())],
                                 cwd=head, capture_output=True, text=True)
        if applied.returncode:
            raise ChangeError(f"{folder}: change.patch does not apply to before/ ({applied.stderr.strip()})")
        change = from_trees(folder / "before", head)
    return change.model_copy(update={"source": f"{folder.name}: change.patch over before/"})


def case_change(folder: Path, case: CaseFile) -> ChangeSet:
    real = real_case_folder(case)
    if real is not None:
        return real_change(real)
    if case.change.patch:
        return from_patch(folder / case.change.patch)
    return from_trees(folder / (case.change.base or "base"), folder / (case.change.head or "head"))


def gold_samples(fixtures: str, split: str, overrides: dict[str, Any], cases: str | None = None) -> list[Sample]:
    root, gold_dir = (resolve_user_path(cases), None) if cases else gold_set_folders("code", fixtures)
    if not root.is_dir():
        raise PrerequisiteError(f"-T {'cases' if cases else 'fixtures'}={cases or fixtures}: {root} is not a folder")
    folders = sorted(p.parent for p in root.glob("*/case.yaml"))
    if not folders:
        raise PrerequisiteError(f"{root}: no cases (folders with a case.yaml)")
    samples, absent = [], 0
    for folder in folders:
        case = load_case(folder)
        real = real_case_folder(case)
        if real is not None and not (real / "change.patch").is_file():
            print(f"{folder.name}: left out, its real commit {case.change.real} is not here", file=sys.stderr)
            absent += 1
            continue
        gold = gold_dir / f"{folder.name}.yaml" if gold_dir is not None else folder / "gold.yaml"
        gold_split = None
        if gold.exists():
            data = read_yaml(gold) or {}
            gold_split = data.get("split", "dev")
        if split != "all" and gold_split != split:
            continue
        try:
            change = case_change(folder, case)
            config = resolve_config({}, case.config, overrides)
        except (ChangeError, ConfigError) as ex:
            raise PrerequisiteError(f"{folder / 'case.yaml'}: {ex}") from None
        fixes = [{"files": {p: (folder / f).read_text(encoding="utf-8") for p, f in fix.files.items()}, "turns": fix.turns}
                 for fix in case.fixes]
        spec = read_spec("", repo_path(case.spec) if case.spec.startswith("../") else folder / case.spec)
        service = case.service or infer_service([f.path for f in change.files], folder.name)
        head = folder / (case.change.head or "head")
        samples.append(make_sample(
            folder.name, change=change, spec=spec, task=case.task, title=case.title, service=service, config=config,
            fixes=fixes, human=human_answers(f"{folder / 'case.yaml'}: human", case.human) if case.human else [],
            gold=gold if gold.exists() else None, split=gold_split,
            memory_seed=str(folder / case.memory) if case.memory else None,
            workspace={"tree": str(head)} if not case.change.patch and real is None and head.is_dir() else {},
        ))
    if not samples and absent:
        raise PrerequisiteError(f"{root}: every case is a real commit kept outside the repository, and none is here")
    if not samples:
        raise PrerequisiteError(f"-T split={split}: no cases in that split")
    return samples
