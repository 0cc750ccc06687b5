"""Design reviews over iterations of one document (issue 22 s3) and the UX steps (s4): the delta by
meaning (offline and with a scripted grader), changed-section focus from git, topics that never
overwrite each other, rejected findings that stay rejected, auto-fix as its own commit, the default
review folder and per-persona progress. End to end through inspect_ai.eval() on the offline
provider (one subprocess for what only `inspect eval` shows)."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from inspect_ai.log import resolve_sample_attachments
from inspect_ai.model import GenerateConfig, ModelAPI, ModelOutput, get_model, modelapi

from review_harness.core.calltag import current_call
from review_harness.core.paths import PROJECT_ROOT
from review_harness.core.prompts import data_block
from review_harness.design import triage
from review_harness.design.artifacts import findings_path, iterations
from review_harness.design.dataset import gold_samples
from review_harness.design.delta import build_delta, offline_pairs, similarity
from review_harness.design.models import DeltaAnswer, DeltaPair, DesignFinding, Severity, SeverityVote
from review_harness.design.personas import default_personas
from review_harness.offline.provider import OfflineReviewerAPI
from test_design_review import GOLD_FIXTURES, reviews_of, run

GIT = shutil.which("git")
needs_git = pytest.mark.skipif(GIT is None, reason="git not installed")
WEBHOOK = GOLD_FIXTURES / "webhook-delivery-v1"


# ---------------------------------------------------------------------------- a scripted grader


@modelapi(name="scripted-grader")
def scripted_grader() -> type[ModelAPI]:
    return ScriptedGraderAPI


class ScriptedGraderAPI(OfflineReviewerAPI):
    """The offline reviewer, except that the grader pairs findings as the test scripts it: by
    title (`pairs`: previous title -> current title), or with a fixed answer (`answer`)."""

    def __init__(self, model_name: str, pairs: dict[str, str] | None = None, answer: str | None = None,
                 **model_args: Any) -> None:
        super().__init__(model_name, **model_args)
        self.pairs, self.answer = pairs or {}, answer
        self.requests: list[str] = []

    async def generate(self, input, tools, tool_choice, config: GenerateConfig) -> ModelOutput:  # type: ignore[override]
        tag = current_call()
        if tag is None or tag.member != "grader":
            return await super().generate(input, tools, tool_choice, config)
        prompt = "\n\n".join(m.text for m in input)
        self.requests.append(prompt)
        if self.answer is not None:
            return ModelOutput.from_content(model=self.model_name, content=self.answer)
        previous = {f["title"]: f["id"] for f in json.loads(data_block(prompt, "<previous>", "</previous>"))}
        current = {f["title"]: f["id"] for f in json.loads(data_block(prompt, "<current>", "</current>"))}
        pairs = [DeltaPair(previous=previous[a], current=current[b], reason="The grader says so.")
                 for a, b in self.pairs.items() if a in previous and b in current]
        return ModelOutput.from_content(model=self.model_name, content=DeltaAnswer(pairs=pairs).model_dump_json())


# ---------------------------------------------------------------------------- helpers


def record(fid: str, title: str, section: str, evidence: str = "", issue: str = "") -> dict:
    return {"id": fid, "title": title, "section": section, "evidence": evidence, "issue": issue or title + "."}


def finding(fid: str, title: str, section: str, evidence: str | None = None, issue: str = "") -> DesignFinding:
    return DesignFinding(id=fid, title=title, section=section, issue=issue or title + ".", why_it_matters="x",
                         suggestion="y", evidence=evidence, severity=Severity.IMPORTANT,
                         severity_range=[SeverityVote(persona="requirement-auditor", severity=Severity.IMPORTANT)],
                         reviewers=["requirement-auditor"], primary_phase="design", member_ids=[fid])


def git(root: Path, *args: str) -> str:
    return subprocess.run([GIT, "-C", str(root), *args], capture_output=True, text=True, check=True).stdout


def git_repo(root: Path) -> Path:
    root.mkdir(parents=True, exist_ok=True)
    git(root, "init", "-q")
    git(root, "config", "user.name", "Test")
    git(root, "config", "user.email", "test@example.com")
    return root


def persona_prompts(log, persona: str = "edge-case-prober") -> list[str]:
    """The prompts the persona's model calls carried."""
    [sample] = log.samples
    sample = resolve_sample_attachments(sample)
    out = []
    for event in sample.events:
        if event.event == "model":
            text = "\n\n".join(m.text for m in event.input)
            if f"Persona: {persona}" in text:
                out.append(text)
    return out


# ---------------------------------------------------------------------------- delta by meaning, offline


PREVIOUS = [
    record("v1-requirement-auditor-001", "Polling interval cannot meet the kill-switch requirement R3", "Flag delivery",
           evidence="SDKs poll the flag service every 60 seconds"),
    record("v1-requirement-auditor-002", "Design contradicts R7", "Reporting",
           issue="The stale-flag report of R7 is deferred to a later quarter."),
    record("v1-edge-case-prober-001", "No retry limit on webhook sends", "Delivery"),
]
CURRENT = [
    finding("v2-requirement-auditor-001", "Kill switches take a full poll cycle, longer than R3 allows",
            "Flag delivery", evidence="SDKs poll the flag service every 60 seconds",
            issue="A kill switch waits for the next 60 s poll, six times the 10 s that R3 allows."),
    finding("v2-requirement-auditor-002", "Design contradicts R5", "Reporting",
            issue="The audit export of R5 is deferred to a later quarter."),
    finding("v2-edge-case-prober-001", "No timeout on webhook sends", "Delivery"),
]


def test_offline_delta_pairs_a_paraphrase_and_never_findings_of_different_requirements():
    current = [c.model_dump(mode="json") for c in CURRENT]
    # the paraphrase shares requirement, section and quote, not its words
    assert similarity(PREVIOUS[0], current[0]) >= 0.9
    # the same words about another requirement are another problem
    assert similarity(PREVIOUS[1], current[1]) == 0.0
    # shared words in one section are not enough
    assert similarity(PREVIOUS[2], current[2]) < 0.55
    assert [(i, j) for i, j, _ in offline_pairs(PREVIOUS, current)] == [(0, 0)]
    delta = build_delta(PREVIOUS, [], CURRENT, [], from_iteration=1, to_iteration=2)
    assert [(p.previous, p.current) for p in delta.findings.persisting] == [
        ("v1-requirement-auditor-001", "v2-requirement-auditor-001")]
    assert [r.id for r in delta.findings.resolved] == ["v1-requirement-auditor-002", "v1-edge-case-prober-001"]
    assert [n.id for n in delta.findings.new] == ["v2-requirement-auditor-002", "v2-edge-case-prober-001"]
    assert delta.method == "offline"


def _two_iterations(tmp_path: Path, second_text: str, **second_args) -> tuple[Path, Any, Any]:
    """A design file reviewed, revised to `second_text`, reviewed again; (topic folder, log 1, log 2)."""
    design = tmp_path / "design.md"
    design.write_text((WEBHOOK / "design.md").read_text())
    args = dict(design=str(design), requirements=str(WEBHOOK / "requirements.md"), topic="hooks",
                output_dir=str(tmp_path / "reviews"))
    log1 = run(tmp_path / "logs", **args)
    design.write_text(second_text)
    log2 = run(tmp_path / "logs", **args, **second_args)
    return tmp_path / "reviews" / "hooks", log1, log2


def _reworded(text: str) -> str:
    """The webhook design with its opening paragraphs reworded: the findings' evidence unchanged."""
    revised = text.replace("## Goals", "## Goals\n\nThis revision only adds an introduction.", 1)
    assert revised != text
    return revised


def test_scripted_grader_pairs_decide_the_delta(tmp_path):
    first = run(tmp_path / "probe", design=str(WEBHOOK / "design.md"), requirements=str(WEBHOOK / "requirements.md"),
                topic="probe", output_dir=str(tmp_path / "probe-reviews"))
    titles = [f.title for f in reviews_of(first)["probe"].findings]
    assert len(titles) >= 3
    # the grader says the first finding persists under the second's title (a paraphrase), and nothing else
    grader = get_model("scripted-grader/x", pairs={titles[0]: titles[1]})
    folder, log1, log2 = _two_iterations(tmp_path, _reworded((WEBHOOK / "design.md").read_text()),
                                         model_roles={"grader": grader})
    v1, v2 = reviews_of(log1)["hooks"], reviews_of(log2)["hooks"]
    assert v2.delta is not None and v2.delta.method == "grader" and v2.delta.matcher == "grader"
    first_id = next(f.id for f in v1.findings if f.title == titles[0])
    second_id = next(f.id for f in v2.findings if f.title == titles[1])
    assert [(p.previous, p.current, p.reason) for p in v2.delta.findings.persisting] == [
        (first_id, second_id, "The grader says so.")]
    assert len(v2.delta.findings.resolved) == len(v1.findings) - 1
    assert len(v2.delta.findings.new) == len(v2.findings) - 1
    assert any(r.member == "grader" and r.role == "grader" and r.completed for r in v2.reviewer_runs)
    delta_file = json.loads((folder / "v2" / "delta-v1-v2.json").read_text())
    assert delta_file["method"] == "grader" and delta_file["findings"]["persisting"][0]["current"] == second_id


def test_an_unusable_grader_answer_falls_back_to_the_offline_matcher(tmp_path):
    grader = get_model("scripted-grader/x", answer='{"pairs": [{"previous": "v1-nobody-001", "current": "v2-x"}]}')
    _, log1, log2 = _two_iterations(tmp_path, _reworded((WEBHOOK / "design.md").read_text()),
                                    model_roles={"grader": grader})
    v1, v2 = reviews_of(log1)["hooks"], reviews_of(log2)["hooks"]
    [grader_run] = [r for r in v2.reviewer_runs if r.member == "grader"]
    assert grader_run.status == "malformed" and grader_run.attempts == 2
    assert v2.delta.method == "offline"
    assert any(w.startswith("The grader returned malformed output") and "matched offline instead" in w
               for w in v2.warnings)
    # the same text twice: every finding persists offline
    assert len(v2.delta.findings.persisting) == len(v1.findings) and not v2.delta.findings.new


# ---------------------------------------------------------------------------- changed-section focus


@needs_git
def test_the_git_diff_of_changed_sections_reaches_the_prompt(tmp_path):
    repo = git_repo(tmp_path / "repo")
    design = repo / "design.md"
    original = (WEBHOOK / "design.md").read_text()
    design.write_text(original)
    git(repo, "add", "design.md")
    git(repo, "commit", "-q", "-m", "design v1")
    args = dict(design=str(design), requirements=str(WEBHOOK / "requirements.md"), topic="hooks",
                output_dir=str(tmp_path / "reviews"))
    log1 = run(tmp_path / "logs", **args)
    first = persona_prompts(log1)
    assert first and data_block(first[0], "<changes>", "</changes>") is None and "Iteration:" not in first[0]  # no diff

    revised = original.replace("## Signing", "## Signing\n\nDeliveries are signed with HMAC-SHA256 per endpoint.", 1)
    assert revised != original
    design.write_text(revised)
    log2 = run(tmp_path / "logs", **args)
    [prompt] = persona_prompts(log2)
    review = reviews_of(log2)["hooks"]
    assert review.iteration == 2 and review.changed_sections
    assert "Iteration: 2 (the design was revised after iteration 1 of this review)" in prompt
    changes = data_block(prompt, "<changes>", "</changes>")
    assert changes is not None and "(changed)" in changes
    assert "+Deliveries are signed with HMAC-SHA256 per endpoint." in changes
    assert review.changes_since.startswith("the version the previous iteration reviewed (blob ")  # git has it
    assert f"**Changed since {review.changes_since}:**" in log2.samples[0].output.completion

    # committed, then reviewed again unchanged: the same request as before, so the cache answers it
    git(repo, "commit", "-q", "-am", "design v2")
    log3 = run(tmp_path / "logs", **args)
    [prompt3] = persona_prompts(log3)
    assert data_block(prompt3, "<changes>", "</changes>") is None and "Iteration:" not in prompt3
    assert reviews_of(log3)["hooks"].iteration == 3


# ---------------------------------------------------------------------------- topics


def _files(folder: Path) -> dict[str, bytes]:
    return {str(p.relative_to(folder)): p.read_bytes() for p in sorted(folder.rglob("*")) if p.is_file()
            and p.name != ".lock"}


def test_a_different_document_under_an_existing_topic_gets_a_new_folder_and_the_old_one_is_intact(tmp_path):
    out = tmp_path / "reviews"
    first = run(tmp_path / "logs", design=str(WEBHOOK / "design.md"), requirements=str(WEBHOOK / "requirements.md"),
                topic="checkout", output_dir=str(out))
    old = out / "checkout"
    before = _files(old)
    other = GOLD_FIXTURES / "billing-export"
    second = run(tmp_path / "logs", design=str(other / "design.md"), requirements=str(other / "requirements.md"),
                 topic="checkout", output_dir=str(out))
    assert _files(old) == before  # not a byte changed
    [new] = [p for p in out.iterdir() if p.name != "checkout"]
    assert re.fullmatch(r"checkout-\d{8}-\d{6}", new.name) and iterations(new) == [1]
    review = reviews_of(second)["checkout"]
    assert review.topic == new.name and review.iteration == 1
    assert any(w.startswith(f"Topic 'checkout' in {out} reviews {WEBHOOK / 'design.md'}") and str(new) in w
               for w in review.warnings)
    assert json.loads((new / "topic.json").read_text())["document"] == str(other / "design.md")
    assert reviews_of(first)["checkout"].topic == "checkout"


# ---------------------------------------------------------------------------- rejected findings


def test_rejected_findings_stay_rejected_offline_while_their_text_is_unchanged(tmp_path):
    design = tmp_path / "design.md"
    design.write_text((WEBHOOK / "design.md").read_text())
    args = dict(design=str(design), requirements=str(WEBHOOK / "requirements.md"), topic="hooks",
                output_dir=str(tmp_path / "reviews"))
    v1 = reviews_of(run(tmp_path / "logs", **args))["hooks"]
    folder = tmp_path / "reviews" / "hooks"
    rejected = next(f for f in v1.findings if f.evidence)
    triage.process(folder, "all", {rejected.id: {"decision": "reject", "note": "Accepted risk, see ADR-7."}})

    v2 = reviews_of(run(tmp_path / "logs", **args))["hooks"]
    assert rejected.title not in [f.title for f in v2.findings]
    assert v2.calibration_version == "cal-1"
    held = [p for p, r in v2.persona_reports.items() if "cal-001" in r.blind_spot_check]
    assert held and all("Not reported again" in v2.persona_reports[p].blind_spot_check for p in held)
    assert len(v2.findings) < len(v1.findings)

    # once the quoted text changes, the finding may come back
    design.write_text(design.read_text().replace(rejected.evidence, rejected.evidence + " (revised)", 1))
    v3 = reviews_of(run(tmp_path / "logs", **args))["hooks"]
    assert not any("cal-001" in r.blind_spot_check for r in v3.persona_reports.values())


# ---------------------------------------------------------------------------- auto-fix


AUTO_FIX_DESIGN = """# Job Queue Design

## Overview

Workers recieve jobs from one queue. Failed jobs follow the [retry policy](#retry-polcy); operators
follow [the runbook](runbook).

## Retry policy

A failed job is retried three times with exponential backoff, then parked for an operator.
"""


@needs_git
def test_auto_fix_is_a_separate_commit_of_the_design_file_only_with_the_flag(tmp_path):
    repo = git_repo(tmp_path / "repo")
    (repo / "design.md").write_text(AUTO_FIX_DESIGN)
    (repo / "runbook.md").write_text("# Runbook\n")
    (repo / "requirements.md").write_text("# Requirements\n\n- R1: A failed job must be retried.\n")
    git(repo, "add", ".")
    git(repo, "commit", "-q", "-m", "design")
    args = dict(design=str(repo / "design.md"), requirements=str(repo / "requirements.md"), topic="jobs",
                output_dir=str(tmp_path / "reviews"))

    without = reviews_of(run(tmp_path / "logs", **args))["jobs"]
    assert {f.kind for f in without.auto_fixes} == {"typo", "broken-link", "missing-extension"}
    assert all(f.status == "proposed" for f in without.auto_fixes)
    assert any("run with -T auto_fix=true" in w for w in without.warnings)
    assert git(repo, "rev-list", "--count", "HEAD").strip() == "1"  # never without the flag

    log = run(tmp_path / "logs", auto_fix="true", **args)
    review = reviews_of(log)["jobs"]
    assert all(f.status == "applied" for f in review.auto_fixes) and len(review.auto_fixes) == 3
    # then the fixed document is reviewed again: the fixed findings are marked fixed, not pending, not counted
    assert review.rounds == 2
    fixed_ids = {f.finding for f in review.auto_fixes}
    assert {f.id for f in review.fixed_findings} == fixed_ids
    assert all(f.disposition == "fixed" for f in review.fixed_findings)
    fixed_titles = {f.title for f in review.fixed_findings}
    assert not fixed_titles & {f.title for f in review.findings}  # the second round no longer reports them
    assert sum(review.counts[s] for s in ("Critical", "Important", "Minor")) == len(review.findings)
    calls = persona_prompts(log, "requirement-auditor")
    assert len(calls) == 2 and "Workers receive jobs" not in calls[0] and "Workers receive jobs" in calls[1]
    without_typo = without.findings
    assert len(review.findings) == len(without_typo) - len(fixed_ids)
    assert git(repo, "rev-list", "--count", "HEAD").strip() == "2"
    assert git(repo, "log", "-1", "--format=%s").strip() == "parallax:review auto-fix — jobs — 3 fixes"
    assert git(repo, "show", "--name-only", "--format=", "HEAD").split() == ["design.md"]
    text = (repo / "design.md").read_text()
    assert "Workers receive jobs" in text and "(#retry-policy)" in text and "(runbook.md)" in text
    assert "## Auto-fixes" in log.samples[0].output.completion
    assert "— applied: committed: parallax:review auto-fix" in log.samples[0].output.completion


@needs_git
def test_auto_fix_refuses_a_design_with_uncommitted_changes(tmp_path):
    repo = git_repo(tmp_path / "repo")
    (repo / "design.md").write_text(AUTO_FIX_DESIGN)
    (repo / "runbook.md").write_text("# Runbook\n")
    git(repo, "add", ".")
    git(repo, "commit", "-q", "-m", "design")
    (repo / "design.md").write_text(AUTO_FIX_DESIGN + "\nAn edit not committed yet.\n")
    review = reviews_of(run(tmp_path / "logs", design=str(repo / "design.md"), requirements=str(repo / "runbook.md"),
                            topic="jobs", output_dir=str(tmp_path / "reviews"), auto_fix="true"))["jobs"]
    assert all(f.status == "proposed" for f in review.auto_fixes)
    assert any("has uncommitted changes" in w for w in review.warnings)
    assert git(repo, "rev-list", "--count", "HEAD").strip() == "1"


# ---------------------------------------------------------------------------- default folder and progress


def test_a_design_run_prints_progress_and_writes_docs_reviews_by_default(tmp_path):
    """`inspect eval` from the user's folder, plain display: one line per persona as it completes,
    and the review folder under docs/reviews/ there."""
    task = os.path.relpath(PROJECT_ROOT / "tasks" / "design_review.py", tmp_path)
    env = dict(os.environ, PWD=str(tmp_path))
    done = subprocess.run(
        [sys.executable, "-m", "inspect_ai", "eval", task, "--model", "offline/rules", "--display", "plain",
         "-T", f"design={WEBHOOK / 'design.md'}", "-T", f"requirements={WEBHOOK / 'requirements.md'}",
         "-T", "topic=hooks", "--log-dir", str(tmp_path / "logs")],
        cwd=tmp_path, env=env, capture_output=True, text=True, timeout=300,
    )
    assert done.returncode == 0, done.stderr[-2000:]
    lines = re.findall(r"^(.+): done \[(\d)/6\] \d+ s$", done.stdout, re.MULTILINE)
    assert sorted(int(n) for _, n in lines) == [1, 2, 3, 4, 5, 6]
    assert {name for name, _ in lines} == {"Assumption Hunter", "Edge Case Prober", "Requirement Auditor",
                                           "Feasibility Skeptic", "First Principles Challenger", "Prior Art Scout"}
    folder = tmp_path / "docs" / "reviews" / "hooks"
    assert iterations(folder) == [1] and (folder / "summary.md").is_file()
    assert f"written to {folder / 'v1'}" in done.stdout


def test_the_gold_run_writes_nothing_unless_asked(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("PWD", str(tmp_path))
    log = run(tmp_path / "logs", split="dev")
    assert log.status == "success" and len(log.samples) == len(gold_samples("design", "dev", None, None, default_personas()))
    assert sorted(p.name for p in tmp_path.iterdir()) == ["logs"]


def test_the_gold_set_with_an_output_dir_keeps_both_iterations_of_its_two_iteration_topic(tmp_path):
    out = tmp_path / "reviews"
    log = run(tmp_path / "logs", output_dir=str(out))
    assert log.status == "success"
    folder = out / "webhook-delivery"
    assert iterations(folder) == [1, 2]
    runs = [json.loads(line) for line in (folder / "runs.jsonl").read_text().splitlines()]
    assert sorted(r["iteration"] for r in runs) == [1, 2]
    found = reviews_of(log)
    assert {found["webhook-delivery-v1"].iteration, found["webhook-delivery-v2"].iteration} == {1, 2}
    for case, review in found.items():
        assert findings_path(out / review.topic, review.iteration).is_file(), case


def test_auto_fix_rules_refuse_anything_but_a_mechanical_change(tmp_path):
    from review_harness.design.autofix import check_proposal
    from review_harness.design.models import AutoFixProposal
    from review_harness.design.personas import default_personas

    rules = default_personas().auto_fix
    design = tmp_path / "design.md"
    design.write_text(AUTO_FIX_DESIGN)
    (tmp_path / "runbook.md").write_text("# Runbook\n")

    def check(kind: str, find: str, replace: str, file: Path | None = design) -> str | None:
        return check_proposal(AutoFixProposal(finding="x", kind=kind, find=find, replace=replace),
                              AUTO_FIX_DESIGN, rules, file)

    assert check("typo", "recieve", "receive") is None
    assert check("broken-link", "[retry policy](#retry-polcy)", "[retry policy](#retry-policy)") is None
    assert check("missing-extension", "[the runbook](runbook)", "[the runbook](runbook.md)") is None
    assert check_proposal(AutoFixProposal.model_construct(finding="x", kind="rewrite", find="recieve", replace="receive"),
                          AUTO_FIX_DESIGN, rules, design) == \
        "'rewrite' is not an auto-fixable kind (typo, broken-link, missing-extension)"
    from review_harness.design.parse import parse_synthesis_output

    parsed = parse_synthesis_output(json.dumps({"groups": [], "contradictions": [], "patterns": [], "auto_fixes": [
        {"finding": "x", "kind": "rewrite", "find": "a", "replace": "b"}]}))
    assert parsed.report.auto_fixes == [] and parsed.problems and "auto-fix 1" in parsed.problems[0]
    assert check("typo", "three times", "five times") == "4 characters change, more than 2"
    assert check("typo", "retried three times", "retried 3 times") == "it changes a figure"
    assert check("typo", "job", "jobs") == "the text to replace occurs 3 times in the document, not once"
    assert check("typo", "recieve", "recieve") == "it changes nothing"
    assert check("broken-link", "[retry policy](#retry-polcy)", "[retry policy](#overview-notes)") == \
        "#overview-notes names no heading of the document"
    assert check("broken-link", "[retry policy](#retry-polcy)", "[the policy](#retry-policy)") == \
        "it changes more than a link's #anchor"
    assert check("missing-extension", "[the runbook](runbook)", "[the runbook](runbook.yaml)") == \
        "runbook.yaml does not exist beside the document"
    assert check("missing-extension", "[the runbook](runbook)", "[the runbook](runbook.md)", file=None) == \
        "the document is no file, so the link target cannot be checked"


# ---------------------------------------------------------------------------- inline text, cost, progress, caching


def test_documents_given_as_text_are_reviewed(tmp_path):
    design = ("# Session Store\n\n## Approach\n\nSessions live in one Redis instance for 30 days. The service will "
              "always be available.\n")
    requirements = "# Requirements\n\n- R1: Sessions must survive the loss of one node.\n- R2: Sessions expire after 30 days.\n"
    log = run(tmp_path / "logs", design=design, requirements=requirements, output_dir=str(tmp_path / "reviews"))
    review = reviews_of(log)["Session-Store"]  # the topic comes from the first heading
    assert review.design_path == "(inline text)" and review.requirements_path == "(inline text)"
    assert review.document == "inline" and review.findings
    assert log.samples[0].input == design
    # Inspect splits a plain -T value at commas: the text is joined back as it was typed
    from review_harness.design.dataset import as_text_value, is_inline

    assert as_text_value("design", ["We use Redis", " Postgres and Kafka."]) == "We use Redis, Postgres and Kafka."
    assert is_inline("We cache sessions in Redis.") and not is_inline("docs/missing-design.md")
    assert not is_inline("design.md") and is_inline("line one\nline two")


def test_run_cost_comes_from_the_price_table():
    from review_harness.core.member import MemberRun
    from review_harness.core.prices import run_cost

    runs = [MemberRun(kind="design", member="assumption-hunter", model="anthropic/claude-sonnet-4-5",
                      input_tokens=1_000_000, output_tokens=100_000),
            MemberRun(kind="design", member="synthesizer", model="openai/gpt-4o-mini", input_tokens=200_000,
                      output_tokens=0)]
    cost = run_cost(runs)
    assert cost["by_model"] == {"anthropic/claude-sonnet-4-5": 4.5, "openai/gpt-4o-mini": 0.03}
    assert cost["estimated"] == 4.53 and cost["unpriced"] == [] and cost["currency"] == "USD"
    unknown = run_cost(runs + [MemberRun(kind="design", member="grader", model="acme/judge-1", input_tokens=10)])
    assert unknown["estimated"] is None and unknown["unpriced"] == ["acme/judge-1"]
    assert unknown["by_model"]["acme/judge-1"] is None  # tokens only: they stay in the run's token counts
    assert run_cost([MemberRun(kind="design", member="x", model="offline/rules", input_tokens=5)])["estimated"] == 0.0


@pytest.mark.parametrize(("display", "counter", "line"), [("plain", False, True), ("log", False, True),
                                                          ("rich", True, False), ("full", True, False),
                                                          ("none", False, False)])
def test_progress_goes_through_the_display(monkeypatch, display, counter, line):
    from review_harness.core import progress

    seen: list[tuple[str, ...]] = []
    monkeypatch.setattr(progress, "display_type", lambda: display)
    monkeypatch.setattr(progress, "display_counter", lambda caption, value: seen.append(("counter", caption, value)))
    monkeypatch.setattr(progress, "display_print", lambda message: seen.append(("line", message)))
    monkeypatch.setattr(progress, "say", lambda message: seen.append(("stderr", message)))
    progress.report("design review t", "1/6 · Assumption Hunter: done", "Assumption Hunter: done [1/6] 14 s")
    assert seen == ([("counter", "design review t", "1/6 · Assumption Hunter: done")] if counter else []) + (
        [("line", "Assumption Hunter: done [1/6] 14 s")] if line else [])
    seen.clear()
    progress.report("design review t", "moved", "Design review: topic 't' ... goes to t-2", important=True)
    assert [kind for kind, *_ in seen] == ["counter" if counter else "line" if line else "stderr"]


def test_the_personas_of_a_review_share_one_prefix_and_calibration_never_changes_it():
    from review_harness.design.lint import lint_design_prompts
    from review_harness.design.personas import default_personas
    from review_harness.design.prompts import render_persona_prompt

    config = default_personas()
    design, requirements = (WEBHOOK / "design.md").read_text(), (WEBHOOK / "requirements.md").read_text()
    prompts = {p: render_persona_prompt(p, config, stage="design", design=design, requirements=requirements, topic="t",
                                        calibration="- cal-001: \"x\", raised by y. Author's note: z",
                                        calibration_version="cal-3")
               for p in config.active("design")}
    shared = {p.shared for p in prompts.values()}
    assert len(shared) == 1  # system message and documents: byte for byte the same for all six
    for persona, prompt in prompts.items():
        [system, user] = prompt.messages()
        assert [c.cache_breakpoint for c in user.content] == [True, None]  # the cache mark after the documents
        assert user.content[0].text == prompt.documents and "cal-001" in user.content[1].text
        assert design.strip()[:200] in prompt.documents and config.personas[persona].question in prompt.lens
        plain = render_persona_prompt(persona, config, stage="design", design=design, requirements=requirements,
                                      topic="t")
        assert plain.prefix_hash == prompt.prefix_hash  # the calibration block is versioned apart
    share = len(next(iter(shared))) / sum(len(p.text) for p in prompts.values()) * len(prompts)
    assert share > 0.9
    assert lint_design_prompts(config).problems == []


def test_document_checks_read_prose_not_code():
    from review_harness.design.offline.engine import review_as_persona

    design = ("# Jobs\n\n## Intake\n\nWorkers recieve jobs. The `teh` flag is a literal.\n\n```\nteh [x](runbook)\n"
              "wich [y](#nowhere)\n```\n")
    titles = [f.title for f in review_as_persona("requirement-auditor", "design", design,
                                                 "# R\n\n- R1: Jobs must be processed.\n").findings]
    assert "Misspelt word 'recieve'" in titles
    assert not [t for t in titles if "'teh'" in t or "'wich'" in t or "link" in t.lower()]
