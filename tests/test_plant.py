"""Planted flaws (`review-harness plant`): every operator of every kind applies to a real input,
plants text that is in the copy and was not in the original, records its evidence verbatim,
writes a gold file its kind's model accepts, leaves the original untouched, and gives the same
set for the same seed. Inputs where nothing applies are reported, not skipped."""

from __future__ import annotations

import hashlib
import json
import re
import subprocess
from pathlib import Path

import pytest
import yaml

from review_harness.core.gold import check_gold_file
from review_harness.core.markdown import parse_sections, sentences
from review_harness.core.matching import normalize_space
from review_harness.core.paths import PROJECT_ROOT, shared_dir
from review_harness.core.plant import PlantError, TableError, kind_table, plant
from review_harness.core.plant.numbers import NUMBER_RE, parse_number
from review_harness.impact.checks import srm_p_value

FIX = PROJECT_ROOT / "fixtures"
REAL = (shared_dir() or PROJECT_ROOT.parent / "shared") / "real"


def digest(path: Path) -> str:
    files = [path] if path.is_file() else sorted(p for p in path.rglob("*") if p.is_file())
    return hashlib.sha256(b"".join(str(p).encode() + p.read_bytes() for p in files)).hexdigest()


def planted_one(kind: str, source: Path, operator: str, out: Path, seed: int = 7, **options):
    """Plant one operator into one input: (gold record, planted copy folder or file, report)."""
    before = digest(source)
    report = plant(kind, [source], out, operators=[operator], seed=seed, options=options)
    assert digest(source) == before, "the original input changed"
    assert not report.failures, report.failures
    [outcome] = [o for o in report.outcomes if not o.error]
    assert outcome.planted, f"{operator} did not apply to {source}: {outcome.not_applied}"
    [case] = outcome.planted
    gold_path = out / "gold" / kind / f"{case}.yaml"
    record = yaml.safe_load(gold_path.read_text())
    gold = check_gold_file(kind, gold_path)  # the kind's model and evidence check accept it
    assert gold.planted.operator == operator and gold.planted.source == str(source)
    assert gold.planted.seed == seed and gold.planted.source_sha256
    [finding] = gold.expected_findings
    assert finding.id == operator and finding.must_catch
    return record, out / "fixtures" / kind / record["fixture"], gold


def text_of(copy: Path, name: str | None = None) -> str:
    return (copy / name).read_text() if name else copy.read_text()


def assert_honest(original: str, planted: str, gold, evidence_here: bool = True) -> None:
    """The planted text is in the copy and was not in the original; what was removed is gone;
    the evidence is a verbatim quote of the copy (or empty: an absence)."""
    p = gold.planted
    if p.planted:
        assert normalize_space(p.planted) in normalize_space(planted)
        assert normalize_space(p.planted) not in normalize_space(original)
    if p.removed:
        first = p.removed.splitlines()[0]
        assert normalize_space(planted).count(normalize_space(first)) < normalize_space(original).count(normalize_space(first))
    evidence = gold.expected_findings[0].evidence
    if evidence and evidence_here:
        assert normalize_space(evidence) in normalize_space(planted)
    assert original != planted


# ------------------------------------------------------------------------------------------ DS


def _numbers(text: str) -> list[float]:
    return [parse_number(m.group(0)) for m in NUMBER_RE.finditer(text)]


def _groups(operator: str, text: str, way: int = 0) -> list[dict]:
    """The operator's own pattern read over the planted text: its named groups as numbers."""
    op = next(o for o in kind_table("ds").operators if o.id == operator)
    pattern = op.ways[way].find.regex()
    return [{k: parse_number(v) if parse_number(v) is not None else v for k, v in m.groupdict().items() if v}
            for m in pattern.finditer(text)]


def check_interval(original: str, planted: str, gold) -> None:
    found = _groups("interval-excludes-estimate", gold.planted.planted)
    assert any(g["lo"] < g["hi"] and not g["lo"] <= g["est"] <= g["hi"] for g in found), found


def check_p_value(original: str, planted: str, gold) -> None:
    found = _groups("p-value-contradicts-interval", gold.planted.planted)
    assert found and all((g["p"] < 0.05) != (g["lo"] > 0 or g["hi"] < 0) for g in found), found


def check_no_group_sizes(original: str, planted: str, gold) -> None:
    assert re.search(r"\(n\s*=\s*[\d,]+\)", original) or "Visitors" in original
    assert not re.search(r"\(n\s*=\s*[\d,]+\)", planted)


def check_total(original: str, planted: str, gold) -> None:
    row = gold.planted.planted
    assert row.startswith("|") and row not in original
    cells = [c.strip().strip("*") for c in row.strip("|").split("|")]
    assert any(NUMBER_RE.fullmatch(c) for c in cells)


def check_causal(original: str, planted: str, gold) -> None:
    sentence = gold.planted.planted
    assert re.search(r"\b(drives?|drove|causes?)\b", sentence)
    assert not re.search(r"\b(associated|correlated|linked) (with|to)\b", sentence)


SUMMARY = re.compile(r"^(tl;?\s?dr|summary|executive summary|key (findings|takeaways))\b", re.I)


def check_no_summary(original: str, planted: str, gold) -> None:
    assert any(SUMMARY.search(s.heading) for s in parse_sections(original))
    assert not any(SUMMARY.search(s.heading) for s in parse_sections(planted) if s.start_line < 40)
    assert gold.expected_findings[0].evidence == ""  # an absence


def check_no_limitations(original: str, planted: str, gold) -> None:
    assert not any(re.search(r"limitation|caveat", s.heading, re.I) for s in parse_sections(planted))


def check_inserted(original: str, planted: str, gold) -> None:
    assert gold.planted.change == "insert"
    assert any(normalize_space(gold.planted.planted) in normalize_space(s.text) for s in sentences(planted))


def check_guardrail(original: str, planted: str, gold) -> None:
    check_inserted(original, planted, gold)
    text = gold.planted.planted
    assert re.search(r"held|unaffected", text) and float(re.search(r"p = (0\.\d+)", text).group(1)) < 0.01


def check_summary_number(original: str, planted: str, gold) -> None:
    old = gold.planted.where.split(": ", 1)[1].split(" -> ")[0]
    new = gold.planted.where.split(" -> ")[1].split(" ")[0]

    def count(number: str, text: str) -> int:
        return len(re.findall(rf"(?<![\w.,]){re.escape(number)}(?![\w])", text))

    assert old != new and count(new, planted) == 1 and count(new, original) == 0
    assert count(old, planted) == count(old, original) - 1 >= 1  # the results keep their figure


DS_CASES = [
    ("remove-group-sizes", "strong-pricing-test.md", check_no_group_sizes),
    ("remove-group-sizes", "checkout-button-early-stop.md", check_no_group_sizes),
    ("table-total-disagrees", "long-marketplace-review.md", check_total),
    ("table-total-disagrees", "great-comms-weak-analysis.md", check_total),
    ("interval-excludes-estimate", "strong-analysis.md", check_interval),
    ("p-value-contradicts-interval", "contradicts-data.md", check_p_value),
    ("correlation-to-causal", "metrics-no-baseline.md", check_causal),
    ("delete-summary", "causal-without-method.md", check_no_summary),
    ("early-stop-at-significance", "contradicts-data.md", check_inserted),
    ("remove-limitations", "checkout-button-early-stop.md", check_no_limitations),
    ("guardrail-moved-said-held", "checkout-button-early-stop.md", check_guardrail),
    ("summary-number-differs", "causal-without-method.md", check_summary_number),
]


@pytest.mark.parametrize("operator, name, check", DS_CASES, ids=[f"{o}:{n}" for o, n, _ in DS_CASES])
def test_ds_operator_applies_honestly(tmp_path, operator, name, check):
    source = FIX / "ds" / name
    record, copy, gold = planted_one("ds", source, operator, tmp_path)
    original, planted = source.read_text(), copy.read_text()
    assert_honest(original, planted, gold)
    check(original, planted, gold)
    assert record["verdict_band"] if "verdict_band" in record else True  # not judged: left out
    assert "verdict_band" not in record and "score_window" not in record


def test_guardrail_claim_with_its_own_p_value_is_changed_in_place(tmp_path):
    """The first way: a sentence that says a metric held, with a p-value, keeps its claim while
    its p-value becomes significant."""
    doc = tmp_path / "memo.md"
    doc.write_text("# Search test\n\n## Summary\n\nWe ran a randomized A/B test of the new ranker for 14 days.\n\n"
                   "## Results\n\nClicks rose 2.1% (95% CI 1.0 to 3.2).\n\n"
                   "Page load time did not change (1.21 s vs 1.22 s, p = 0.64), so the guardrail held.\n")
    _, copy, gold = planted_one("ds", doc, "guardrail-moved-said-held", tmp_path / "out")
    changed = gold.planted.planted
    assert "did not change" in changed and float(re.search(r"p = (0\.\d+)", changed).group(1)) < 0.05


def test_same_seed_same_set_and_another_seed_can_differ(tmp_path):
    sources = [FIX / "ds" / "contradicts-data.md", FIX / "ds" / "strong-analysis.md"]
    trees = []
    for n, seed in enumerate((3, 3, 4)):
        out = tmp_path / str(n)
        plant("ds", sources, out, seed=seed)
        trees.append({p.relative_to(out).as_posix(): p.read_bytes() for p in out.rglob("*") if p.is_file()})
    assert trees[0] == trees[1]
    assert trees[0] != trees[2]  # draws (inserted sentences, new numbers) follow the seed


def test_per_input_keeps_n_mutations_drawn_by_the_seed(tmp_path):
    report = plant("ds", [FIX / "ds" / "contradicts-data.md"], tmp_path, per_input=2, seed=1)
    [outcome] = report.outcomes
    assert len(outcome.planted) == 2
    assert sum("not drawn" in why for why in outcome.not_applied.values()) >= 1


def test_an_input_where_nothing_applies_is_reported(tmp_path):
    dull = tmp_path / "notes.md"
    dull.write_text("# Notes\n\nWe looked at the data and it seemed fine.\n")
    report = plant("ds", [dull], tmp_path / "out")
    [outcome] = report.outcomes
    assert outcome.planted == [] and len(outcome.not_applied) == len(kind_table("ds").operators)
    assert all(why for why in outcome.not_applied.values())
    text = "\n".join(report.lines())
    assert "notes.md: 0 planted: no operator applies" in text
    manifest = yaml.safe_load((tmp_path / "out" / "planted-ds.yaml").read_text())
    assert manifest["inputs"][0]["planted"] == [] and manifest["inputs"][0]["not_applied"]


def test_bad_input_is_one_line(tmp_path):
    with pytest.raises(PlantError, match="no such file or folder"):
        plant("ds", [tmp_path / "missing.md"], tmp_path / "out")
    binary = tmp_path / "data.docx"
    binary.write_bytes(b"\x00\x01 not a docx")
    report = plant("ds", [binary], tmp_path / "out2")
    assert report.outcomes[0].error and "\n" not in report.outcomes[0].error


@pytest.mark.real("ds")
def test_plant_on_the_real_ds_write_ups(tmp_path):
    report = plant("ds", [REAL / "ds"], tmp_path, seed=1)
    assert report.written >= 10 and not report.failures
    assert len({case.split("--")[1] for o in report.outcomes for case in o.planted}) >= 5
    for gold_path in (tmp_path / "gold" / "ds").glob("*.yaml"):
        check_gold_file("ds", gold_path)


# ------------------------------------------------------------------------------------------ design


def check_requirement_gone(original: Path, copy: Path, gold) -> None:
    req = re.search(r"Requirement (\S+)", gold.expected_findings[0].summary).group(1)
    assert re.search(rf"\b{re.escape(req)}\b", text_of(original, "design.md"))
    assert not re.search(rf"(?<![\w-]){re.escape(req)}(?![\w-])", text_of(copy, "design.md"))
    assert gold.expected_findings[0].source == "requirements"
    assert normalize_space(gold.expected_findings[0].evidence) in normalize_space(text_of(copy, "requirements.md"))


def check_contradiction(original: Path, copy: Path, gold) -> None:
    copied = gold.planted.planted
    numbers = _numbers(copied)
    assert numbers and copied in text_of(copy, "design.md")


def check_no_failure_handling(original: Path, copy: Path, gold) -> None:
    assert not re.search(r"(?i)\bretr(y|ies)\b|fall ?back|timeouts?\b", text_of(copy, "design.md"))


def check_design_insert(original: Path, copy: Path, gold) -> None:
    assert gold.planted.change == "insert" and gold.planted.planted in text_of(copy, "design.md")
    assert text_of(copy, "requirements.md") == text_of(original, "requirements.md")


DESIGN_CASES = [
    ("requirement-not-addressed", "feature-flag-service", check_requirement_gone),
    ("contradicting-quantities", "api-rate-limiter", check_contradiction),
    ("feature-outside-requirements", "api-rate-limiter", check_design_insert),
    ("failure-handling-removed", "feature-flag-service", check_no_failure_handling),
    ("secret-in-plain-text", "api-rate-limiter", check_design_insert),
]


@pytest.mark.parametrize("operator, case, check", DESIGN_CASES, ids=[o for o, _, _ in DESIGN_CASES])
def test_design_operator_applies_honestly(tmp_path, operator, case, check):
    source = FIX / "design" / case
    record, copy, gold = planted_one("design", source, operator, tmp_path)
    assert copy.is_dir() and (copy / "design.md").is_file() and (copy / "requirements.md").is_file()
    assert_honest(text_of(source, "design.md"), text_of(copy, "design.md"), gold,
                  evidence_here=gold.expected_findings[0].source == "design")
    check(source, copy, gold)
    assert gold.verdict is None and gold.topic == record["topic"]


@pytest.mark.real("design")
def test_a_design_document_is_split_into_design_and_its_goals(tmp_path):
    source = REAL / "design" / "01-kep-scheduling-framework.md"
    report = plant("design", [source], tmp_path, seed=1)
    assert report.written >= 2 and not report.failures
    case = tmp_path / "fixtures" / "design" / report.outcomes[0].planted[0]
    requirements = (case / "requirements.md").read_text()
    assert requirements.startswith("### Goals") and "### Non-Goals" in requirements
    assert "### Goals" not in (case / "design.md").read_text()


# ------------------------------------------------------------------------------------------ impact


def _json(path: Path) -> dict:
    return json.loads(path.read_text())


def _estimates(data: dict) -> dict:
    return data["data"]["impact_estimates"]


def check_impact_interval(original, copy, gold):
    est = _estimates(copy)
    assert not est["ci_lower"] <= est["intervention_effect"] <= est["ci_upper"]
    assert est["ci_lower"] < est["ci_upper"]


def check_impact_p(original, copy, gold):
    est = _estimates(copy)
    excludes_zero = est["ci_lower"] > 0 or est["ci_upper"] < 0
    assert (est["p_value"] < 0.05) != excludes_zero
    assert _estimates(original)["p_value"] != est["p_value"]


def check_impact_diagnostic(original, copy, gold):
    diags = copy["data"]["diagnostics"]
    failing = [v for k, v in diags.items() if ("placebo" in k or "trend" in k) and isinstance(v, float)]
    assert failing and min(failing) < 0.05


def check_srm(original, copy, gold):
    summary, before = copy["data"]["model_summary"], original["data"]["model_summary"]
    assert summary["treatment_n"] + summary["control_n"] == before["treatment_n"] + before["control_n"]
    share = copy["data"]["model_params"].get("treatment_share", 0.5)
    assert srm_p_value(summary["treatment_n"], summary["control_n"], share) < 0.001
    assert srm_p_value(before["treatment_n"], before["control_n"], share) > 0.001


def check_short_pre(original, copy, gold):
    summary = copy["data"]["model_summary"]
    assert summary["pre_period_length"] < 90  # a daily ITS needs 90 (the checks table)
    assert summary["n_observations"] == summary["pre_period_length"] + summary["post_period_length"]


IMPACT_CASES = [
    ("interval-excludes-estimate", "its-daily-checkout.json", check_impact_interval),
    ("p-value-contradicts-interval", "its-daily-checkout.json", check_impact_p),
    ("failed-diagnostic", "its-daily-checkout.json", check_impact_diagnostic),
    ("failed-diagnostic", "did-regional-pricing.json", check_impact_diagnostic),
    ("sample-ratio-mismatch", "rct-checkout-button.json", check_srm),
    ("pre-period-too-short", "its-daily-checkout.json", check_short_pre),
]


@pytest.mark.parametrize("operator, name, check", IMPACT_CASES, ids=[f"{o}:{n}" for o, n, _ in IMPACT_CASES])
def test_impact_operator_applies_honestly(tmp_path, operator, name, check):
    source = FIX / "impact" / name
    _, copy, gold = planted_one("impact", source, operator, tmp_path)
    assert_honest(json.dumps(_json(source), indent=2), copy.read_text(), gold)
    check(_json(source), _json(copy), gold)
    assert gold.verdict is None and not gold.windows


# ------------------------------------------------------------------------------------------ code


def _head(copy: Path, file: str) -> str:
    return (copy / "head" / file).read_text()


def check_sql(source, copy, gold):
    line = gold.planted.planted
    assert 'execute(f"' in line and "{" in line and "?" not in line
    compile(_head(copy, gold.expected_findings[0].file), "x", "exec")


def check_always_true(source, copy, gold):
    assert gold.planted.planted.rstrip(":").endswith("or True")


def check_outside(source, copy, gold):
    file = gold.expected_findings[0].file
    assert file not in (source / "spec.md").read_text()
    base = copy / "base" / file
    assert not base.exists() or base.read_text() != _head(copy, file)


def check_removed_function(source, copy, gold):
    name = re.search(r"`(\w+)`", gold.expected_findings[0].summary).group(1)
    assert f"def {name}(" not in _head(copy, gold.expected_findings[0].file)
    assert name in (copy / "spec.md").read_text()


def check_test_renamed(source, copy, gold):
    assert re.search(r"def _test_\w+\(", gold.planted.planted)


CODE_CASES = [
    ("sql-string-format", "route-spec", check_sql),
    ("always-true-condition", "route-spec", check_always_true),
    ("edit-outside-task", "bare-except", check_outside),
    ("spec-function-removed", "bare-except", check_removed_function),
]


@pytest.mark.parametrize("operator, case, check", CODE_CASES, ids=[o for o, _, _ in CODE_CASES])
def test_code_operator_applies_honestly(tmp_path, operator, case, check):
    source = FIX / "code" / case
    _, copy, gold = planted_one("code", source, operator, tmp_path)
    finding = gold.expected_findings[0]
    original = (source / "head" / finding.file)
    planted = copy / "head" / finding.file
    assert_honest(original.read_text() if original.exists() else "", planted.read_text(), gold) \
        if finding.evidence and gold.planted.planted else None
    check(source, copy, gold)
    assert (copy / "case.yaml").is_file() and gold.expected is None


def _repo(tmp_path: Path) -> Path:
    """A git repository whose last commit adds a function and its tests."""
    repo = tmp_path / "repo"
    (repo / "shop").mkdir(parents=True)
    (repo / "tests").mkdir()

    def git(*args: str) -> None:
        subprocess.run(["git", "-C", str(repo), *args], check=True, capture_output=True)

    git("init", "-q")
    git("config", "user.email", "t@example.com")
    git("config", "user.name", "t")
    (repo / "shop" / "settings.py").write_text("PAGE_SIZE = 20\n")
    (repo / "shop" / "prices.py").write_text("def price(cents):\n    return cents / 100\n")
    git("add", "-A")
    git("commit", "-qm", "base")
    (repo / "shop" / "prices.py").write_text(
        "def price(cents):\n    return cents / 100\n\n\ndef discounted(cents, percent):\n"
        "    if percent > 0:\n        return price(cents) * (100 - percent) / 100\n    return price(cents)\n")
    (repo / "tests" / "test_prices.py").write_text(
        "from shop.prices import discounted\n\n\ndef test_discounted_half():\n    assert discounted(1000, 50) == 5\n\n\n"
        "def test_discounted_none():\n    assert discounted(1000, 0) == 10\n")
    git("add", "-A")
    git("commit", "-qm", "discounts")
    return repo


def test_code_operators_on_a_git_repository_never_touch_it(tmp_path):
    repo = _repo(tmp_path)
    spec = tmp_path / "SPEC.md"
    spec.write_text("# Discounts\n\nAdd `discounted(cents, percent)` to `shop/prices.py`, with tests.\n")
    status = subprocess.run(["git", "-C", str(repo), "status", "--porcelain"], capture_output=True, text=True).stdout
    head = subprocess.run(["git", "-C", str(repo), "rev-parse", "HEAD"], capture_output=True, text=True).stdout
    before = digest(repo / "shop") + digest(repo / "tests")
    report = plant("code", [repo], tmp_path / "out", seed=2, options={"base": "HEAD~1", "head": "HEAD", "spec": str(spec)})
    assert not report.failures
    planted = {c.split("--")[1] for c in report.outcomes[0].planted}
    assert {"test-not-called", "always-true-condition", "edit-outside-task", "spec-function-removed"} <= planted
    assert digest(repo / "shop") + digest(repo / "tests") == before
    assert subprocess.run(["git", "-C", str(repo), "status", "--porcelain"], capture_output=True, text=True).stdout == status
    assert subprocess.run(["git", "-C", str(repo), "rev-parse", "HEAD"], capture_output=True, text=True).stdout == head
    case = tmp_path / "out" / "fixtures" / "code" / "repo--test-not-called"
    gold = check_gold_file("code", tmp_path / "out" / "gold" / "code" / "repo--test-not-called.yaml")
    check_test_renamed(repo, case, gold)
    outside = check_gold_file("code", tmp_path / "out" / "gold" / "code" / "repo--edit-outside-task.yaml")
    assert outside.expected_findings[0].file == "shop/settings.py"
    assert (tmp_path / "out" / "fixtures" / "code" / "repo--edit-outside-task" / "base" / "shop" / "settings.py").read_text() \
        == "PAGE_SIZE = 20\n"


def test_a_repository_without_base_and_spec_is_reported(tmp_path):
    repo = _repo(tmp_path)
    report = plant("code", [repo], tmp_path / "out")
    assert "--base REV and --spec FILE" in report.outcomes[0].error


# ------------------------------------------------------------------------------------------ tables


def test_a_team_adds_its_own_operator_with_a_table(tmp_path):
    table = tmp_path / "ours.yaml"
    table.write_text(yaml.safe_dump({
        "version": "ours-1", "kind": "ds", "layout": "document",
        "operators": [{
            "id": "hedge-removed", "description": "a hedge is removed from a claim",
            "find": {"pattern": r"\b(?:likely|probably) ", "units": ["para", "bullet"]}, "delete": "match",
            "finding": {"dimension": "analysis", "lens": "logic", "severity": "MINOR", "must_catch": False,
                        "summary": "A claim is stated as certain where the data supports a likely effect.",
                        "keywords": ["overstated", "certain"]},
        }],
    }))
    doc = tmp_path / "memo.md"
    doc.write_text("# Memo\n\nThe new layout will likely raise conversion by 2%.\n")
    report = plant("ds", [doc], tmp_path / "out", tables=[table], operators=["hedge-removed"])
    assert report.outcomes[0].planted == ["memo--hedge-removed"]
    copy = (tmp_path / "out" / "fixtures" / "ds" / "memo--hedge-removed.md").read_text()
    assert "will raise conversion" in copy


@pytest.mark.parametrize("change, message", [
    ({"find": {"pattern": "(unclosed"}}, "not a regular expression"),
    ({"find": {"pattern": "x"}, "values": {"v": "__import__('os')"}}, "only the functions"),
    ({"use": "no_such_mutator"}, "no mutator named"),
])
def test_a_bad_operator_table_is_one_line(tmp_path, change, message):
    operator = {"id": "bad", "description": "d", "finding": {}, "delete": "match", **change}
    if "use" in change:
        operator.pop("delete")
    table = tmp_path / "bad.yaml"
    table.write_text(yaml.safe_dump({"version": "1", "kind": "ds", "layout": "document", "operators": [operator]}))
    with pytest.raises((TableError, ValueError)) as info:
        kind_table("ds", [table])
    assert message in str(info.value) and "\n" not in str(info.value)


def test_unknown_operator_names_the_known_ones():
    with pytest.raises(TableError, match="unknown operator nope; the ds table has remove-group-sizes"):
        kind_table("ds").select(["nope"])


def test_the_evaluation_page_names_every_operator():
    page = (PROJECT_ROOT / "docs" / "evaluation.md").read_text()
    for kind in ("ds", "design", "impact", "code"):
        for op in kind_table(kind).operators:
            assert f"`{op.id}`" in page, (kind, op.id)


@pytest.mark.parametrize("kind, source", [
    ("design", FIX / "design" / "api-rate-limiter"),
    ("impact", FIX / "impact" / "its-daily-checkout.json"),
    ("code", FIX / "code" / "route-spec"),
])
def test_every_kind_plants_the_same_set_for_the_same_seed(tmp_path, kind, source):
    trees = []
    for n, seed in enumerate((11, 11)):
        out = tmp_path / str(n)
        report = plant(kind, [source], out, seed=seed)
        assert report.written >= 2 and not report.failures
        trees.append({p.relative_to(out).as_posix(): p.read_bytes() for p in out.rglob("*") if p.is_file()})
    assert trees[0] == trees[1]
