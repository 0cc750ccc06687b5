"""Design review folder: rendering, artifacts, cross-iteration delta, triage, calibration, commit, CLI."""

from __future__ import annotations

import json
import shutil
import subprocess

import pytest
import yaml

from review_harness.design import artifacts, triage
from review_harness.design.artifacts import (
    claim_iteration,
    claimed_iterations,
    findings_path,
    iterations,
    topic_dir,
    write_artifacts,
)
from review_harness.design.delta import DeltaError, build_delta, check_partition
from review_harness.core.member import MemberRun
from review_harness.design.cli import terminal_ask
from review_harness.design.models import (
    Contradiction,
    DeltaItem,
    DeltaPart,
    PersistingItem,
    ContradictionPosition,
    DesignFinding,
    DesignReview,
    Pattern,
    PersonaFinding,
    PersonaReport,
    Severity,
    SeverityVote,
    SystemicIssue,
)
from review_harness.design.render import render_persona_markdown, render_summary, severity_range_text

C, I, M = Severity.CRITICAL, Severity.IMPORTANT, Severity.MINOR
PERSONAS = ["assumption-hunter", "edge-case-prober", "requirement-auditor", "feasibility-skeptic",
            "first-principles", "prior-art-scout"]
FINDING_KEYS = {"id", "iteration", "title", "severity", "severity_range", "reviewers", "primary_phase",
                "contributing_phase", "section", "issue", "suggestion", "evidence", "disposition"}


def pf(title, severity, phase="design", contributing=None, evidence=None):
    return PersonaFinding(title=title, severity=severity, phase=phase, contributing_phase=contributing,
                          section="Design > Queue", issue=f"{title}: issue.", why_it_matters="Blocks 3 of 4 consumers.",
                          suggestion="Bound it.", evidence=evidence)


def df(fid, title, votes, phase="design", contributing=None, members=None, section="Design > Queue", **kw):
    severity = min((s for _, s in votes), key=lambda s: s.rank)
    return DesignFinding(
        id=fid, title=title, section=section, issue=f"{title}: issue.", why_it_matters="Drops jobs at peak.",
        suggestion="Add a limit and back-pressure.", severity=severity,
        severity_range=[SeverityVote(persona=p, severity=s) for p, s in votes],
        reviewers=[p for p, _ in votes], primary_phase=phase, contributing_phase=contributing,
        phase_rationale="The design chose the queue.", member_ids=members or [fid], **kw)


def review_v1(**update) -> DesignReview:
    completed = [p for p in PERSONAS if p != "feasibility-skeptic"]
    findings = [
        df("v1-assumption-hunter-001", "Queue depth assumed unbounded",
           [("assumption-hunter", C), ("edge-case-prober", I)], contributing="calibrate",
           members=["v1-assumption-hunter-001", "v1-edge-case-prober-002"],
           evidence="the queue absorbs any burst", evidence_verified=True),
        df("v1-requirement-auditor-001", "Latency target conflicts with nightly batch window",
           [("requirement-auditor", I), ("first-principles", I)], phase="calibrate",
           members=["v1-requirement-auditor-001", "v1-first-principles-001"], section="Requirements > Latency"),
        df("v1-prior-art-scout-001", "Rebuilds an existing job scheduler", [("prior-art-scout", M)],
           section="Design > Scheduler"),
        df("v1-edge-case-prober-001", "Empty payload crashes the worker", [("edge-case-prober", I)],
           contributing="calibrate", section="Design > Worker"),
    ]
    reports = {
        "assumption-hunter": PersonaReport(persona="assumption-hunter", findings=[
            pf("Queue depth assumed unbounded", C, contributing="calibrate", evidence="the queue absorbs any burst")],
            checked_and_fine=["Auth flow"], blind_spot_check="Did not look at cost."),
        "edge-case-prober": PersonaReport(persona="edge-case-prober", findings=[
            pf("Empty payload crashes the worker", I, contributing="calibrate"),
            pf("Queue overflows at peak", I)], checked_and_fine=[], blind_spot_check="Concurrency only skimmed."),
        "requirement-auditor": PersonaReport(persona="requirement-auditor", findings=[
            pf("Latency target conflicts with nightly batch window", I, phase="calibrate")],
            checked_and_fine=[], blind_spot_check="Anti-goals list was short."),
        "first-principles": PersonaReport(persona="first-principles", findings=[
            pf("Latency versus batch", I, phase="calibrate")], checked_and_fine=[], blind_spot_check="None noted."),
        "prior-art-scout": PersonaReport(persona="prior-art-scout", findings=[
            pf("Rebuilds an existing job scheduler", M)], checked_and_fine=[], blind_spot_check="Only OSS checked."),
    }
    data = dict(
        topic="job-queue", stage="design", iteration=1, design_path="docs/design.md",
        requirements_path="docs/requirements.md", date="2026-02-16", status="partial", verdict="revise",
        verdict_reasoning="One Critical design flaw; no survey or calibrate gap is Critical.",
        personas=PERSONAS, reviewers_completed=completed, findings=findings,
        contradictions=[Contradiction(
            topic="Retry policy",
            positions=[ContradictionPosition(persona="assumption-hunter", finding="v1-assumption-hunter-001",
                                             position="Retries hide overload."),
                       ContradictionPosition(persona="first-principles", finding=None,
                                             position="Retries are the simplest fix.")],
            tension="Simplicity against visibility of overload.",
            tie_breakers=["Which failure is costlier to miss?", "Who operates it?"])],
        patterns=[Pattern(id="p1-capacity", theme="Capacity limits of the queue",
                          members=["assumption-hunter-001", "edge-case-prober-002"]),
                  Pattern(id="p2-requirements", theme="Latency requirements in conflict",
                          members=["requirement-auditor-001", "first-principles-001"]),
                  Pattern(id="p3-reuse", theme="Build versus buy for scheduling", members=["prior-art-scout-001"])],
        systemic=[SystemicIssue(phase="calibrate", count=2, of=2, share=1.0)],
        persona_reports=reports,
        reviewer_runs=[MemberRun(kind="design", member=p, status="complete", input_tokens=1000, output_tokens=200)
                       for p in completed]
        + [MemberRun(kind="design", member="feasibility-skeptic", status="timed_out", reason="timed out", attempts=2),
           MemberRun(kind="design", member="synthesizer", status="complete", input_tokens=3000, output_tokens=500)],
        prompt_version="design-v1", calibration_version="cal-0",
    )
    data.update(update)
    return DesignReview(**data)


def review_v2() -> DesignReview:
    findings = [
        df("v2-edge-case-prober-001", "Queue depth assumed to be unbounded under load",
           [("edge-case-prober", C)], members=["v2-edge-case-prober-001"]),
        df("v2-prior-art-scout-001", "Rebuilds an existing job scheduler instead of Celery",
           [("prior-art-scout", I)], section="Design > Scheduler"),
        df("v2-assumption-hunter-001", "No rollback plan for schema migration", [("assumption-hunter", I)],
           section="Plan > Migration"),
    ]
    return review_v1(
        iteration=2, status="complete", reviewers_completed=PERSONAS, completion_note="", findings=findings,
        contradictions=[], systemic=[], persona_reports={},
        reviewer_runs=[MemberRun(kind="design", member=p, status="complete") for p in PERSONAS],
        patterns=[Pattern(id="p1-capacity-limits", theme="Queue capacity limits unstated",
                          members=["edge-case-prober-001"]),
                  Pattern(id="p2-reuse", theme="Build versus buy for the scheduler", members=["prior-art-scout-001"]),
                  Pattern(id="p3-rollback", theme="Migration rollback missing", members=["assumption-hunter-001"])],
    )


def many_findings(n: int) -> DesignReview:
    sev = [C, I, M]
    findings = [df(f"v1-edge-case-prober-{k:03d}", f"Boundary case number {k}", [("edge-case-prober", sev[k % 3])])
                for k in range(1, n + 1)]
    return review_v1(findings=findings, patterns=[], contradictions=[], systemic=[])


# ---------------------------------------------------------------------------- render


def test_severity_range_text():
    v1 = review_v1()
    assert severity_range_text(v1.findings[0]) == "Flagged Critical by Assumption Hunter, Important by Edge Case Prober"
    assert severity_range_text(v1.findings[1]) == "Flagged Important by Requirement Auditor and First Principles Challenger"
    assert severity_range_text(v1.findings[2]) == "Flagged Minor by Prior Art Scout"
    three = df("x", "t", [("assumption-hunter", I), ("edge-case-prober", C), ("prior-art-scout", I)])
    assert severity_range_text(three) == ("Flagged Critical by Edge Case Prober, "
                                          "Important by Assumption Hunter and Prior Art Scout")
    # the JSONL record form gives the same text
    record = json.loads(json.dumps({"severity_range": [{"persona": "assumption-hunter", "severity": "Critical"},
                                                       {"persona": "edge-case-prober", "severity": "Important"}]}))
    assert severity_range_text(record) == "Flagged Critical by Assumption Hunter, Important by Edge Case Prober"


def test_persona_markdown_format():
    v1 = review_v1()
    text = render_persona_markdown("Edge Case Prober", v1.persona_reports["edge-case-prober"], iteration=1)
    order = ["# Edge Case Prober Review", "## Findings", "### Finding 1: Empty payload crashes the worker",
             "- **Severity:** Important", "- **Phase:** design (contributing: calibrate)", "- **Section:** Design > Queue",
             "- **Issue:**", "- **Why it matters:**", "- **Suggestion:**", "- **ID:** v1-edge-case-prober-001",
             "### Finding 2: Queue overflows at peak", "- **Phase:** design\n", "v1-edge-case-prober-002",
             "## Blind Spot Check", "Concurrency only skimmed."]
    positions = [text.index(part) for part in order]
    assert positions == sorted(positions)
    ah = render_persona_markdown("Assumption Hunter", v1.persona_reports["assumption-hunter"])
    assert "- **Evidence:** “the queue absorbs any burst”" in ah and "**ID:**" not in ah
    failed = render_persona_markdown("Feasibility Skeptic", None, "timed out")
    assert failed.startswith("# Feasibility Skeptic Review") and "did not complete — timed out" in failed
    assert "## Findings" not in failed


def test_summary_sections_and_counts():
    text = render_summary(review_v1())
    order = ["# Review Summary: job-queue", "**Date:** 2026-02-16", "**Design:** docs/design.md",
             "**Requirements:** docs/requirements.md", "**Stage:** design", "**Verdict:** revise",
             "**Status:** partial — 5/6 reviewers completed, Feasibility Skeptic timed out",
             "## Finding Counts\n- Critical: 1\n- Important: 2\n- Minor: 1\n- Contradictions: 1",
             "## Verdict Reasoning", "One Critical design flaw",
             "## Critical Findings", "### v1-assumption-hunter-001: Queue depth assumed unbounded",
             "- **Consensus:** Flagged by Assumption Hunter, Edge Case Prober (2/5 reviewers)",
             "- **Severity range:** Flagged Critical by Assumption Hunter, Important by Edge Case Prober",
             "- **Phase:** design (primary), calibrate (contributing) — The design chose the queue.",
             "- **Also reported as:** v1-edge-case-prober-002",
             "## Important Findings", "### v1-requirement-auditor-001", "## Minor Findings", "### v1-prior-art-scout-001",
             "## Contradictions", "### Contradiction 1: Retry policy",
             "- **Assumption Hunter** (v1-assumption-hunter-001): Retries hide overload.",
             "- **First Principles Challenger**: Retries are the simplest fix.",
             "- **Tension:** Simplicity against visibility", "  - Which failure is costlier to miss?",
             "## Findings by Phase\n- Survey gaps: 0\n- Calibrate gaps: 1\n- Design flaws: 3\n- Plan concerns: 0",
             "## Systemic Issues", "**calibrate**: contributing phase of 2 of the 2",
             "## Finding Dispositions", "- **v1-assumption-hunter-001** (Critical) Queue depth assumed unbounded — pending"]
    positions = [text.index(part) for part in order]
    assert positions == sorted(positions)
    # agreeing reviewers get no severity-range line
    important = text[text.index("### v1-requirement-auditor-001"):text.index("## Minor Findings")]
    assert "Severity range" not in important
    assert text.count(" — pending") == 4


def test_summary_of_failed_review():
    failed = review_v1(status="failed", verdict=None, findings=[], reviewers_completed=["assumption-hunter"],
                       verdict_reasoning="Only 1 of 6 reviewers answered; at least 4 are needed.")
    text = render_summary(failed)
    assert "**Verdict:** none" in text and "**Status:** failed — 1/6 reviewers completed\n" in text
    assert "did not reach a verdict: Only 1 of 6 reviewers answered" in text
    assert "- Feasibility Skeptic: timed out" in text and "- Assumption Hunter: completed" in text
    assert "## Finding Counts" not in text and "## Critical Findings" not in text


# ---------------------------------------------------------------------------- artifacts


def test_topic_dir_and_claimed_iterations(tmp_path):
    assert topic_dir(tmp_path, "job-queue_2") == tmp_path / "job-queue_2"
    for bad in ("../x", "a b", "", "x/y", "t" * 101):
        with pytest.raises(artifacts.ArtifactError):
            topic_dir(tmp_path, bad)
    folder = tmp_path / "t"
    assert claimed_iterations(folder) == [] and iterations(folder) == []
    for name in ("v1", "v3", "vx", "v2.tmp"):
        (folder / name).mkdir(parents=True)
    (folder / "v1" / "findings-v1.jsonl").write_text("")
    assert claimed_iterations(folder) == [1, 3] and iterations(folder) == [1]  # v3: claimed, not written
    (folder / "topic.json").write_text(json.dumps({"topic": "t", "document": "doc.md"}))
    claim = claim_iteration(tmp_path, "t", "doc.md")
    assert claim.iteration == 4 and claim.folder == folder and (folder / "v4").is_dir() and claim.note is None
    # a folder this review did not write is another document's: the review gets a folder of its own
    (tmp_path / "notes").mkdir()
    (tmp_path / "notes" / "mine.txt").write_text("keep")
    other = claim_iteration(tmp_path, "notes", "doc.md")
    assert other.folder.name.startswith("notes-") and other.iteration == 1 and "mine.txt" not in {
        p.name for p in other.folder.iterdir()}
    assert (tmp_path / "notes" / "mine.txt").read_text() == "keep" and "goes to" in other.note


def test_write_artifacts_files_and_jsonl(tmp_path):
    folder = write_artifacts(review_v1(), tmp_path)
    assert folder == tmp_path / "job-queue"
    assert sorted(p.name for p in folder.iterdir() if not p.name.startswith(".")) == [
        "runs.jsonl", "summary.md", "topic.json", "v1"]
    v1 = folder / "v1"
    names = sorted(p.name for p in v1.iterdir())
    assert names == sorted([f"{p}-v1.md" for p in PERSONAS] + ["summary-v1.md", "findings-v1.jsonl",
                                                               "patterns-v1.json", "run-v1.json", "reports-v1.json"])
    assert "did not complete — timed out" in (v1 / "feasibility-skeptic-v1.md").read_text()
    assert "### Finding 1: Queue depth assumed unbounded" in (v1 / "assumption-hunter-v1.md").read_text()
    assert (folder / "summary.md").read_text() == render_summary(review_v1()) == (v1 / "summary-v1.md").read_text()

    lines = (v1 / "findings-v1.jsonl").read_text().splitlines()
    records = [json.loads(line) for line in lines]
    assert len(records) == 4 and all(FINDING_KEYS <= set(r) for r in records)
    assert [r["id"] for r in records if r["severity"] == "Critical"] == ["v1-assumption-hunter-001"]
    assert [r["id"] for r in records if "first-principles" in r["reviewers"]] == ["v1-requirement-auditor-001"]
    assert records[0]["severity_range"][1] == {"persona": "edge-case-prober", "severity": "Important"}
    assert records[0]["contributing_phase"] == "calibrate" and records[0]["disposition"] is None

    patterns = json.loads((v1 / "patterns-v1.json").read_text())
    assert patterns["patterns"][0]["findings"] == ["v1-assumption-hunter-001"]
    [run] = [json.loads(line) for line in (folder / "runs.jsonl").read_text().splitlines()]
    assert run == json.loads((v1 / "run-v1.json").read_text())
    assert run["iteration"] == 1 and run["verdict"] == "revise" and run["status"] == "partial"
    assert run["findings"] == 4 and run["tokens"]["assumption-hunter"] == {"input": 1000, "cached_input": 0, "output": 200}
    assert run["tokens"]["feasibility-skeptic"] == {"input": 0, "cached_input": 0, "output": 0}
    assert run["prompt_version"] == "design-v1" and run["calibration_version"] == "cal-0"
    assert run["cost"]["estimated"] is None and run["cost"]["unpriced"] == [""]  # runs without a model name

    # exporting the same iteration again replaces its folder; the run log keeps both lines
    write_artifacts(review_v1(), tmp_path)
    assert claimed_iterations(folder) == [1] and len((folder / "runs.jsonl").read_text().splitlines()) == 2
    assert not list(folder.rglob("delta-*"))


def test_an_older_iteration_is_written_beside_a_newer_one(tmp_path):
    folder = write_artifacts(review_v2(), tmp_path)
    write_artifacts(review_v1(), tmp_path)
    assert iterations(folder) == [1, 2]
    assert "**Iteration:** 2" in (folder / "summary.md").read_text()  # summary.md stays the latest


def test_delta_two_iterations():
    v1, v2 = review_v1(), review_v2()
    records = [artifacts.finding_record(f, v1) for f in v1.findings]
    delta = build_delta(records, [p.model_dump() for p in v1.patterns], v2.findings, v2.patterns,
                        from_iteration=1, to_iteration=2)
    assert (delta.from_iteration, delta.to_iteration, delta.method) == (1, 2, "offline")
    fd = delta.findings
    assert {(p.previous, p.current) for p in fd.persisting} == {
        ("v1-assumption-hunter-001", "v2-edge-case-prober-001"), ("v1-prior-art-scout-001", "v2-prior-art-scout-001")}
    assert {r.id for r in fd.resolved} == {"v1-requirement-auditor-001", "v1-edge-case-prober-001"}
    assert [r.id for r in fd.new] == ["v2-assumption-hunter-001"]
    pd = delta.patterns  # patterns follow their findings
    assert {(p.previous, p.current) for p in pd.persisting} == {
        ("p1-capacity", "p1-capacity-limits"), ("p3-reuse", "p2-reuse")}
    assert [r.id for r in pd.resolved] == ["p2-requirements"]
    assert [r.id for r in pd.new] == ["p3-rollback"]
    # deterministic
    assert delta == build_delta(records, [p.model_dump() for p in v1.patterns], v2.findings, v2.patterns,
                                from_iteration=1, to_iteration=2)


def test_delta_partition_is_checked():
    v1, v2 = review_v1(), review_v2()
    records = [artifacts.finding_record(f, v1) for f in v1.findings]
    with pytest.raises(DeltaError, match="p1"):  # a previous id listed twice cannot be partitioned
        build_delta(records, [p.model_dump() for p in [*v1.patterns, v1.patterns[0]]], v2.findings, v2.patterns,
                    from_iteration=1, to_iteration=2)
    good = DeltaPart(resolved=[DeltaItem(id="a")], persisting=[PersistingItem(previous="b", current="x")],
                     new=[DeltaItem(id="y")])
    check_partition("findings", ["a", "b"], ["x", "y"], good)
    broken = DeltaPart(resolved=[DeltaItem(id="a"), DeltaItem(id="b")],
                       persisting=[PersistingItem(previous="b", current="x")])
    with pytest.raises(DeltaError, match="'b' appears 1 time.*2 time"):
        check_partition("findings", ["a", "b"], ["x", "y"], broken)
    missing = DeltaPart(resolved=[DeltaItem(id="a")], persisting=[PersistingItem(previous="b", current="x")])
    with pytest.raises(DeltaError, match="current id 'y'"):
        check_partition("findings", ["a", "b"], ["x", "y"], missing)


# ---------------------------------------------------------------------------- triage


def _decisions(tmp_path, data, name="decisions.yaml"):
    path = tmp_path / name
    path.write_text(yaml.safe_dump(data))
    return path


def test_triage_with_decisions_file(tmp_path):
    folder = write_artifacts(review_v1(), tmp_path / "reviews")
    decisions = triage.load_decisions(_decisions(tmp_path, {
        "v1-assumption-hunter-001": {"decision": "reject", "note": "Queue is bounded by the broker config."},
        "v1-requirement-auditor-001": {"decision": "accept"},
        "v1-prior-art-scout-001": {"decision": "reject", "note": "Scheduler is mandated by platform team."},
    }))
    result = triage.process(folder, "all", decisions, today="2026-02-17")
    assert result.total == 4 and result.walked[0] == "v1-assumption-hunter-001"
    assert sorted(result.rejected) == ["v1-assumption-hunter-001", "v1-prior-art-scout-001"]
    assert result.accepted == ["v1-requirement-auditor-001"]
    assert result.pending == ["v1-edge-case-prober-001"]

    records = {r["id"]: r for r in map(json.loads, findings_path(folder, 1).read_text().splitlines())}
    assert records["v1-assumption-hunter-001"]["disposition"] == "rejected"
    assert records["v1-assumption-hunter-001"]["disposition_note"] == "Queue is bounded by the broker config."
    assert records["v1-requirement-auditor-001"]["disposition"] == "accepted"
    assert records["v1-edge-case-prober-001"]["disposition"] is None

    summary = (folder / "summary.md").read_text()
    section = summary[summary.index("## Finding Dispositions"):]
    assert "Accepted: 1 · Rejected: 2 · Pending: 1" in section
    assert "- **v1-assumption-hunter-001** (Critical) Queue depth assumed unbounded — rejected: Queue is bounded" in section
    assert "- **v1-requirement-auditor-001** (Important) Latency target conflicts with nightly batch window — accepted" in section
    assert "v1-edge-case-prober-001** (Important) Empty payload crashes the worker — pending" in section
    assert summary.count("## Finding Dispositions") == 1 and "## Critical Findings" in summary

    cal = yaml.safe_load((folder / "calibration.yaml").read_text())
    assert cal["version"] == "cal-1" and result.calibration_version == "cal-1"
    assert [r["from_finding"] for r in cal["rules"]] == ["v1-assumption-hunter-001", "v1-prior-art-scout-001"]
    assert cal["rules"][0]["id"] == "cal-001" and cal["rules"][0]["date"] == "2026-02-17"
    assert cal["rules"][0]["personas"] == ["assumption-hunter", "edge-case-prober"]

    text, version = triage.calibration_block(folder)
    assert version == "cal-1"
    assert "Queue depth assumed unbounded" in text and "Queue is bounded by the broker config." in text
    assert "Scheduler is mandated" in text
    only, _ = triage.calibration_block(folder, persona="prior-art-scout")
    assert "Scheduler is mandated" in only and "broker config" not in only
    assert triage.calibration_block(None) == ("", "cal-0")
    assert triage.calibration_block(tmp_path) == ("", "cal-0")

    # same decisions again: rules unchanged, version unchanged; accepting a rejected one drops its rule
    again = triage.process(folder, "all", decisions)
    assert again.calibration_version == "cal-1" and not again.rules_changed
    flipped = triage.process(folder, "all", {"v1-prior-art-scout-001": {"decision": "accept"}})
    assert flipped.calibration_version == "cal-2"
    cal = yaml.safe_load((folder / "calibration.yaml").read_text())
    assert [r["from_finding"] for r in cal["rules"]] == ["v1-assumption-hunter-001"]

    # critical-first walks Critical only; decisions for other findings are reported, not applied
    cf = triage.process(folder, "critical-first", {"v1-edge-case-prober-001": {"decision": "accept"}})
    assert cf.walked == ["v1-assumption-hunter-001"] and cf.ignored == ["v1-edge-case-prober-001"]


def test_triage_interactive_ask_and_bad_decisions(tmp_path):
    folder = write_artifacts(review_v1(), tmp_path)
    seen = []

    def ask(finding):
        seen.append(finding["id"])
        return ("reject", "Out of scope for v1.") if finding["severity"] == "Critical" else ("accept", None)

    result = triage.process(folder, "critical-first", None, ask)
    assert seen == ["v1-assumption-hunter-001"] and result.rejected == seen
    with pytest.raises(triage.TriageError, match="v1-prior-art-scout-001.*needs a note"):
        triage.process(folder, "all", {"v1-prior-art-scout-001": {"decision": "reject", "note": " "}})
    with pytest.raises(triage.TriageError, match="'v9-nobody-001': no such finding"):
        triage.process(folder, "all", {"v9-nobody-001": {"decision": "accept"}})


def test_more_than_fifty_findings_are_not_walked(tmp_path):
    folder = write_artifacts(many_findings(51), tmp_path)
    assert "51 findings, more than 50" in (folder / "summary.md").read_text()
    asked = []
    result = triage.process(folder, "all", None, lambda f: asked.append(f) or ("accept", None))
    assert asked == [] and result.interactive_skipped and not result.decided
    assert any("51 findings, more than 50" in m for m in result.messages)
    assert len(result.pending) == 51
    # a decisions file is processing from the files: it still applies
    applied = triage.process(folder, "all", {"v1-edge-case-prober-003": {"decision": "accept"}})
    assert applied.accepted == ["v1-edge-case-prober-003"]
    # fifty findings are walked
    folder50 = write_artifacts(many_findings(50).model_copy(update={"topic": "fifty"}), tmp_path)
    assert len(triage.process(folder50, "all", None, lambda f: asked.append(f) or None).walked) == 50
    assert len(asked) == 50


# ---------------------------------------------------------------------------- commit


def test_commit_refused_outside_git(tmp_path):
    folder = write_artifacts(review_v1(), tmp_path)
    assert triage.git_root(folder) is None
    with pytest.raises(triage.TriageError, match="not inside a git repository"):
        triage.process(folder, "critical-first", {"v1-assumption-hunter-001": {"decision": "accept"}}, commit=True)
    # the decision was still recorded before the refusal
    assert '"disposition": "accepted"' in findings_path(folder, 1).read_text()


@pytest.mark.skipif(shutil.which("git") is None, reason="git not installed")
def test_commit_inside_git_repo(tmp_path):
    def git(*args):
        return subprocess.run(["git", "-C", str(tmp_path), *args], capture_output=True, text=True, check=True).stdout

    git("init", "-q")
    git("config", "user.name", "Test")
    git("config", "user.email", "test@example.com")
    (tmp_path / "other.txt").write_text("staged elsewhere")
    git("add", "other.txt")
    folder = write_artifacts(review_v1(), tmp_path / "docs" / "reviews")
    result = triage.process(folder, "critical-first", {"v1-assumption-hunter-001": {"decision": "accept"}},
                            commit=True)
    assert result.committed == "parallax:review — job-queue — revise (4 findings)"
    assert git("log", "-1", "--format=%s").strip() == result.committed
    files = git("show", "--name-only", "--format=", "HEAD").split()
    assert {"docs/reviews/job-queue/summary.md", "docs/reviews/job-queue/v1/summary-v1.md"} <= set(files)
    assert "other.txt" not in files
    assert "A  other.txt" in git("status", "--porcelain")  # still staged, not committed
    assert triage.commit_topic(folder) is None  # nothing changed since


# ---------------------------------------------------------------------------- CLI


def _cli(*argv):
    from review_harness.cli import main

    return main(list(argv))


def test_cli_process_and_bad_input(tmp_path, capsys, monkeypatch):
    folder = write_artifacts(review_v1(), tmp_path)
    good = _decisions(tmp_path, {"v1-assumption-hunter-001": {"decision": "reject", "note": "Known limit."}})
    assert _cli("design", "process", str(folder), "--mode", "all", "--decisions", str(good)) == 0
    out = capsys.readouterr().out
    assert "accepted 0, rejected 1, pending 3" in out and "cal-1" in out

    bad = _decisions(tmp_path, {"v1-prior-art-scout-001": {"decision": "maybe"}}, "bad.yaml")
    cases = [
        (("design", "process", str(tmp_path / "missing")), "no such review folder"),
        (("design", "process", str(folder), "--decisions", str(bad)), "entry 'v1-prior-art-scout-001': decision must be"),
        (("design", "process", str(folder), "--decisions", str(tmp_path / "nope.yaml")), "no such file"),
        (("design", "export", str(tmp_path / "none.eval")), "no such log file"),
        (("design", "export", str(good)), "not a readable Inspect eval log"),
    ]
    for argv, problem in cases:
        assert _cli(*argv) == 2
        err = capsys.readouterr().err
        assert err.startswith("review-harness: ") and problem in err and err.count("\n") == 1, err

    monkeypatch.setattr("sys.stdin.isatty", lambda: False)
    assert _cli("design", "process", str(folder)) == 2
    err = capsys.readouterr().err
    assert "not a terminal" in err and "--decisions" in err and err.count("\n") == 1

    assert _cli("design", "process", str(folder), "--decisions", str(good), "--commit") == 1
    assert "not inside a git repository" in capsys.readouterr().err


def test_cli_export_from_eval_log(tmp_path, capsys):
    from inspect_ai.log import EvalLog, EvalSample, EvalSpec, write_eval_log
    from inspect_ai.scorer import Score

    def sample(sid, review):
        metadata = {"review": review.model_dump(mode="json")} if review else {}
        return EvalSample(id=sid, epoch=1, input="design", target="",
                          scores={"design_synthesis": Score(value=1, metadata=metadata)})

    spec = EvalSpec(created="2026-02-16T00:00:00+00:00", task="design_review", dataset={}, model="offline/x",
                    config={})
    log_path = tmp_path / "design.eval"
    write_eval_log(EvalLog(eval=spec, samples=[sample("job-queue", review_v1())]), str(log_path))
    out_dir = tmp_path / "reviews"
    assert _cli("design", "export", str(log_path), "--output-dir", str(out_dir)) == 0
    assert "iteration 1: revise, 4 findings" in capsys.readouterr().out
    assert (out_dir / "job-queue" / "summary.md").exists()

    empty = tmp_path / "empty.eval"
    write_eval_log(EvalLog(eval=spec, samples=[sample("x", None)]), str(empty))
    assert _cli("design", "export", str(empty)) == 2
    assert "no design reviews in this log" in capsys.readouterr().err


def test_terminal_ask_reprompts_for_a_note(tmp_path, capsys):
    folder = write_artifacts(review_v1(), tmp_path)
    answers = iter(["x", "r", "", "Bounded by config.", "a", "q"])
    ask = terminal_ask(read=lambda prompt: next(answers))
    result = triage.process(folder, "all", None, ask)
    assert result.rejected == ["v1-assumption-hunter-001"] and result.accepted == ["v1-requirement-auditor-001"]
    assert result.decided["v1-assumption-hunter-001"] == ("rejected", "Bounded by config.")
    assert "stopped; the remaining findings stay pending" in result.messages
    out = capsys.readouterr().out
    assert "a rejection needs a note" in out
    assert "Flagged Critical by Assumption Hunter, Important by Edge Case Prober" in out


def test_failed_iteration_is_written_and_skipped_as_a_delta_base(tmp_path):
    folder = write_artifacts(review_v1(), tmp_path)
    failed = review_v1(iteration=2, status="failed", verdict=None, findings=[], patterns=[], contradictions=[],
                       systemic=[], reviewers_completed=["assumption-hunter"], verdict_reasoning="Too few reviewers.")
    write_artifacts(failed, tmp_path)
    assert findings_path(folder, 2).read_text() == "" and not list(folder.rglob("delta-*"))
    assert "did not reach a verdict" in (folder / "summary.md").read_text()
    earlier, why = artifacts.earlier_iteration(folder, 3)
    assert why is None and earlier.iteration == 1 and [r["id"] for r in earlier.findings] == [
        f.id for f in review_v1().findings]
    runs = [json.loads(line) for line in (folder / "runs.jsonl").read_text().splitlines()]
    assert [(r["iteration"], r["status"]) for r in runs] == [(1, "partial"), (2, "failed")]


def test_process_shows_the_verdict_counts_and_critical_findings_before_the_mode_and_wraps_up(tmp_path, capsys,
                                                                                              monkeypatch):
    folder = write_artifacts(review_v1(), tmp_path)
    answers = iter(["x", "all", "a", "a", "a", "a"])
    monkeypatch.setattr("sys.stdin.isatty", lambda: True)
    monkeypatch.setattr("builtins.input", lambda prompt="": next(answers))
    assert _cli("design", "process", str(folder)) == 0
    out = capsys.readouterr().out
    overview = out.index("job-queue, iteration 1: revise")
    assert out.index("Critical 1 · Important 2 · Minor 1 · Contradictions 1") > overview
    assert out.index("  v1-assumption-hunter-001: Queue depth assumed unbounded") > overview
    assert out.index("Modes: critical-first") < out.index("[1] v1-assumption-hunter-001")  # before the walk
    assert "mode all: 4 of 4 finding(s) in scope; accepted 4" in out
    assert out.rstrip().endswith("(it becomes iteration 2; commit the document first so the reviewers see what changed).")


def test_wrap_up_names_the_phase_to_revisit_on_escalate(tmp_path):
    escalated = review_v1(verdict="escalate", escalation_target="calibrate")
    folder = write_artifacts(escalated, tmp_path)
    assert triage.overview_lines(folder)[0] == "job-queue, iteration 1: escalate to calibrate"
    lines = triage.wrap_up_lines(folder)
    assert lines[0] == "Escalate: revisit the calibrate phase (calibrate gap): Revisit the requirements."
    assert lines[1] == "Why: 1 finding(s) in that phase: v1-requirement-auditor-001 Latency target conflicts with nightly batch window."
    proceed = write_artifacts(review_v1(topic="ok", verdict="proceed"), tmp_path)
    assert triage.wrap_up_lines(proceed)[0].startswith("Proceed: the document is approved")
    with pytest.raises(triage.TriageError, match="no review iteration"):
        triage.overview_lines(tmp_path)
