"""Impact review: what the pipeline produces is accepted (the seed's example envelope, the flat
Measure -> Evaluate contract, an ArtifactPayload), and configuration works everywhere the seed says
(-T config= and REVIEW_* under inspect eval, paths relative to the config file, top_k >= 1, the
knowledge registry, format_map templates, litellm, the Evaluate adapter, no Inspect import for the
deterministic modules)."""

from __future__ import annotations

import importlib.util
import json
import subprocess
import sys
from pathlib import Path

import pytest
import yaml
from inspect_ai import eval as inspect_eval

from review_harness.core.inspect_adapter import PrerequisiteError
from review_harness.core.paths import PROJECT_ROOT
from review_harness.impact.adapter import Evaluate
from review_harness.impact.artifact import ArtifactError, artifact_text, read_artifact
from review_harness.impact.checks import run_checks
from review_harness.impact.config import ConfigError, ReviewConfig
from review_harness.impact.engine import ReviewEngine
from review_harness.impact.knowledge import Chunk, KnowledgeBase, KnowledgeRegistry
from review_harness.impact.models import ArtifactPayload, ImpactReview, MeasureContract
from review_harness.impact.rules import review_prompt
from review_harness.impact.table import TableError, build_table

FIX = PROJECT_ROOT / "fixtures" / "impact"
TASK = PROJECT_ROOT / "tasks" / "impact_review.py"
SEED = json.loads((FIX / "seed-example-envelope.json").read_text())
CONTRACT = json.loads((FIX / "contract-flat-experiment.json").read_text())
OFFLINE = {"backend": {"type": "offline", "model": "rules"}}


def impact_task():
    spec = importlib.util.spec_from_file_location("impact_review_inputs_test", TASK)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module.impact_review


def run(tmp_path, **task_args):
    [log] = inspect_eval(impact_task()(**task_args), model="offline/rules", log_dir=str(tmp_path / "logs"), display="none")
    return log


def reviews(log) -> dict[str, ImpactReview]:
    return {str(s.id): ImpactReview.model_validate(s.scores["impact_synthesis"].metadata["review"])
            for s in log.samples if s.scores}


# ------------------------------------------------------------------ the three shapes


def test_the_seed_example_envelope_is_reviewed_not_refused(tmp_path):
    """No interval, no p-value, no diagnostics, no initiative id: a review that says so."""
    path = tmp_path / "impact_results.json"
    path.write_text(json.dumps(SEED))
    review = reviews(run(tmp_path, artifact=str(path)))["impact_results"]
    assert review.result.initiative_id == "impact_results"  # the file name, noted
    assert any(n.startswith("metadata.initiative_id: not reported") for n in review.notes)
    assert review.verdict == "caution" and review.status == "complete"
    statuses = {c.id: c.status for c in review.checks}
    assert statuses["uncertainty_reported"] == "not_available"
    assert statuses["post_minus_pre"] == statuses["percent_change"] == "pass"
    assert "no uncertainty is reported" in next(c.message for c in review.checks if c.id == "uncertainty_reported")
    # no frequency and no dates: said to be unknown, and what needs it is not assessed (never a silent daily)
    assert statuses["frequency"] == statuses["seasonality"] == "not_available"
    assert "frequency is unknown" in next(c.message for c in review.checks if c.id == "frequency")


def test_the_flat_contract_and_a_payload_through_the_task(tmp_path):
    folder = tmp_path / "in"
    folder.mkdir()
    (folder / "contract.json").write_text(json.dumps(CONTRACT))
    payload = {"initiative_id": "seed-run", "artifact_text": json.dumps(SEED), "model_type": "interrupted_time_series",
               "sample_size": 365, "metadata": {"team": "growth"}}
    (folder / "payload.json").write_text(json.dumps(payload))
    got = reviews(run(tmp_path, artifact=str(folder)))
    assert got["contract"].result.initiative_id == "onboarding-email-v2" and got["contract"].verdict == "usable"
    assert got["contract"].model_type == "randomized_experiment"
    assert got["payload"].result.initiative_id == "seed-run" and got["payload"].verdict == "caution"
    assert not any("initiative_id" in n for n in got["payload"].notes)  # the payload names it


@pytest.mark.parametrize("source", [
    SEED,
    CONTRACT,
    ArtifactPayload(initiative_id="p1", artifact_text=json.dumps(CONTRACT), model_type="randomized_experiment",
                    sample_size=24000),
    MeasureContract(**{k: v for k, v in CONTRACT.items()}),
    {"initiative_id": "lines", "model_type": "did", "sample_size": 400,
     "artifact_text": "effect_estimate: 3.2\nci_lower: 1.0\nci_upper = 5.4\np_value: 0.004\n"},
])
def test_review_engine_accepts_every_shape(tmp_path, source):
    engine = ReviewEngine(OFFLINE, log_dir=tmp_path)
    result = engine.review(source)
    assert result.verdict in ("usable", "caution", "unusable") and result.overall_score is not None
    assert engine.last_review is not None and engine.last_review.status == "complete"


def test_artifact_review_takes_the_contract_from_the_event(tmp_path):
    from review_harness.impact.engine import ArtifactReview

    stage = ArtifactReview(engine=ReviewEngine(OFFLINE, log_dir=tmp_path))
    out = stage.execute({**CONTRACT, "stage": "evaluate"})
    assert out["stage"] == "evaluate" and out["verdict"] == out["review"]["verdict"] == "usable"
    assert out["review"]["initiative_id"] == "onboarding-email-v2" and out["confidence"]["model_type"] == "randomized_experiment"
    with pytest.raises(ArtifactError, match="event: impact_results: missing"):
        stage.execute({"stage": "evaluate"})


def test_payload_text_forms_read_the_same_numbers():
    json_text = read_artifact({"initiative_id": "a", "artifact_text": json.dumps(CONTRACT), "model_type": "rct"}, "a")
    lines = "\n".join(f"{k}: {json.dumps(v)}" for k, v in CONTRACT.items() if k != "diagnostics")
    line_text = read_artifact({"initiative_id": "a", "artifact_text": lines, "model_type": "rct"}, "b")
    block = read_artifact({"initiative_id": "a", "artifact_text": artifact_text(json_text), "model_type": "rct"}, "c")
    for got in (json_text, line_text, block):
        c = got.contract
        assert (c.effect_estimate, c.ci_lower, c.ci_upper, c.p_value, c.sample_size) == (0.018, 0.006, 0.03, 0.003, 24000)
        assert got.shape == "payload"
    assert line_text.text == lines and "| effect_estimate: 0.018" in artifact_text(line_text)
    with pytest.raises(ArtifactError, match="p: artifact_text: no effect estimate found"):
        read_artifact({"initiative_id": "a", "artifact_text": "the results look great", "model_type": "rct"}, "p")


def test_nested_diagnostics_are_read_not_fatal():
    artifact = read_artifact(json.loads((FIX / "heldout-rct-pricing-page.json").read_text()), "x")
    assert artifact.diagnostics["sample_ratio_mismatch.p_value"] == 0.58
    assert artifact.diagnostics["sample_ratio_mismatch.expected_split"] == "50/50"
    check = next(c for c in run_checks(artifact) if c.id == "sample_ratio")
    assert check.status == "pass" and "0.58 (sample_ratio_mismatch.p_value)" in check.message


# ------------------------------------------------------------------ configuration


def write_config(tmp_path: Path, body: dict) -> Path:
    path = tmp_path / "conf" / "review.yaml"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(yaml.safe_dump(body))
    return path


def test_config_file_under_inspect_eval_with_paths_relative_to_it(tmp_path, monkeypatch):
    conf = tmp_path / "conf"
    (conf / "notes").mkdir(parents=True)
    (conf / "notes" / "did.md").write_text("# Difference in differences\nparallel trends must hold before the change\n")
    (conf / "prompts").mkdir()
    (conf / "prompts" / "brief.yaml").write_text(yaml.safe_dump({
        "name": "brief", "version": "2", "description": "format_map template", "dimensions": ["statistical_rigor"],
        "system": "Review briefly.\n{knowledge_context}\n{response_format}", "user": "{facts}\n{artifact}"}))
    path = write_config(tmp_path, {
        "backend": {"type": "offline", "model": "rules", "retries": 0, "timeout": 30},
        "prompt": {"name": "brief", "template_dirs": ["prompts"]},
        "knowledge": {"type": "static", "path": "notes", "top_k": 2},
        "checks": {"ci_level": 0.99},
    })
    monkeypatch.chdir(tmp_path)  # the paths in the file are relative to the file, not to here
    log = run(tmp_path, artifact=str(FIX / "did-store-layout.json"), config=str(path))
    assert log.status == "success"
    meta = log.eval.metadata
    assert (meta["prompt_name"], meta["prompt_version"], meta["top_k"]) == ("brief", "2", 2)
    assert meta["config"] == str(path) and meta["reviewer_model"] == "offline/rules"
    review = reviews(log)["did-store-layout"]
    assert [d.name for d in review.result.dimensions] == ["statistical_rigor"]
    assert review.knowledge_chunks == ["Difference in differences (did.md)"]
    p_check = next(c for c in review.checks if c.id == "p_value_matches_ci")
    assert "below 0.01; the 99% interval" in p_check.message  # the file's interval level, not the built-in 95%
    assert review.reviewer_run.attempts == 1


def test_review_env_overrides_apply_under_inspect_eval(tmp_path, monkeypatch):
    monkeypatch.setenv("REVIEW_KNOWLEDGE_TOP_K", "1")
    monkeypatch.setenv("REVIEW_KNOWLEDGE_TYPE", "none")
    log = run(tmp_path, artifact=str(FIX / "its-daily-checkout.json"))
    assert log.eval.metadata["top_k"] == 1 and log.eval.metadata["config"] == "config + REVIEW_* environment"
    assert reviews(log)["its-daily-checkout"].knowledge_chunks == []
    # a -T value the user typed beats the environment
    monkeypatch.setenv("REVIEW_KNOWLEDGE_TYPE", "static")
    assert impact_task()(artifact=str(FIX / "its-daily-checkout.json"), top_k=3).metadata["top_k"] == 3
    monkeypatch.setenv("REVIEW_BACKEND_MODLE", "x")
    with pytest.raises(PrerequisiteError, match="REVIEW_BACKEND_MODLE: unknown setting; backend has: type, model"):
        impact_task()(artifact=str(FIX / "its-daily-checkout.json"))


def test_a_user_model_type_and_threshold_through_the_config(tmp_path):
    artifact = {**CONTRACT, "model_type": "geo_lift", "initiative_id": "geo"}
    (tmp_path / "geo.json").write_text(json.dumps(artifact))
    plain = reviews(run(tmp_path, artifact=str(tmp_path / "geo.json")))["geo"]
    assert plain.verdict == "caution" and next(c for c in plain.checks if c.id == "model_type_known").status == "warn"
    path = write_config(tmp_path, {"checks": {"model_types": {"geo_lift": {
        "aliases": ["geo_experiment"], "confidence": [0.7, 0.8], "params": [], "identities": [],
        "diagnostics": ["sample_ratio"]}}}})
    known = reviews(run(tmp_path, artifact=str(tmp_path / "geo.json"), config=str(path)))["geo"]
    assert known.verdict == "usable" and known.model_type == "geo_lift"
    assert 0.7 <= known.confidence.score <= 0.8 and not any(c.id == "model_type_known" for c in known.checks)


@pytest.mark.parametrize("body, message", [
    ({"knowledge": {"top_k": 0}}, "knowledge.top_k: Input should be greater than or equal to 1"),
    ({"backend": {"retries": -1}}, "backend.retries: Input should be greater than or equal to 0"),
    ({"backend": {"modle": "x"}}, "backend.modle: Extra inputs are not permitted"),
    ({"checks": {"identities": {"bad": {"dimension": "statistical_rigor", "value": "a", "equals": "open('x')"}}}},
     "identities.bad.equals: expression \"open('x')\": only + - * /"),
    ({"checks": {"model_types": {"x": {"confidence": [0.9, 0.1]}}}}, "model_types.x.confidence: need 0 <= low <= high <= 1"),
    ({"knowledge": {"type": "vector"}}, "knowledge type 'vector' is not registered; known: none, static"),
])
def test_bad_config_is_one_line_naming_the_key(tmp_path, body, message):
    path = write_config(tmp_path, body)
    with pytest.raises(PrerequisiteError) as raised:
        impact_task()(artifact=str(FIX / "its-daily-checkout.json"), config=str(path))
    assert message in raised.value.message and "\n" not in raised.value.message


def test_litellm_works_through_the_proxy_provider_or_says_what_to_use(monkeypatch):
    monkeypatch.delenv("LITELLM_PROXY_BASE_URL", raising=False)
    with pytest.raises(ConfigError) as raised:
        ReviewConfig.from_dict({"backend": {"type": "litellm", "model": "gpt-4o"}})
    assert str(raised.value) == ("config: backend.type litellm: Inspect reaches LiteLLM through a LiteLLM proxy: run one, "
                                 "set LITELLM_PROXY_BASE_URL (and LITELLM_PROXY_API_KEY), or name the provider itself "
                                 "(type: anthropic, openai, ...)")
    monkeypatch.setenv("LITELLM_PROXY_BASE_URL", "http://127.0.0.1:4000")
    assert ReviewConfig.from_dict({"backend": {"type": "litellm", "model": "gpt-4o"}}).backend.model_name == "litellm-proxy/gpt-4o"


def test_review_env_overrides_and_config_precedence(tmp_path):
    path = write_config(tmp_path, {"knowledge": {"path": "notes", "top_k": 3}, "prompt": {"template_dirs": ["p", "/abs"]}})
    cfg = ReviewConfig.load(path=path, env={"REVIEW_KNOWLEDGE_TOP_K": "7"})
    assert cfg.knowledge.top_k == 7 and cfg.knowledge.path == str(path.parent / "notes")
    assert cfg.prompt.template_dirs == [str(path.parent / "p"), "/abs"]


class KeywordsOnly(KnowledgeBase):
    def __init__(self, path=None, answer: str = "stub"):
        self.answer = answer

    def retrieve(self, query: str, top_k: int = 5) -> list[Chunk]:
        return [Chunk(source="stub", heading=self.answer, text=query)][:top_k]


def test_knowledge_registry_by_decorator_and_engine_argument(tmp_path):
    KnowledgeRegistry.register("keywords-only")(KeywordsOnly)
    try:
        engine = ReviewEngine({**OFFLINE, "knowledge": {"type": "keywords-only", "options": {"answer": "from config"}}},
                              log_dir=tmp_path)
        engine.review(FIX / "its-daily-checkout.json")
        assert engine.last_review.knowledge_chunks == ["from config (stub)"]
        mine = ReviewEngine(OFFLINE, log_dir=tmp_path, knowledge=KeywordsOnly(answer="passed in"))
        mine.review(FIX / "its-daily-checkout.json")
        assert mine.last_review.knowledge_chunks == ["passed in (stub)"]
    finally:
        KnowledgeRegistry._types.pop("keywords-only")


def test_knowledge_registry_by_entry_point(tmp_path, monkeypatch):
    package = tmp_path / "site"
    (package / "my_kb").mkdir(parents=True)
    (package / "my_kb" / "__init__.py").write_text(
        "from review_harness.impact.knowledge import Chunk, KnowledgeBase\n"
        "class Fixed(KnowledgeBase):\n"
        "    def __init__(self, path=None):\n        self.path = path\n"
        "    def retrieve(self, query, top_k=5):\n        return [Chunk('ep', 'entry point note', 'x')]\n")
    info = package / "my_kb-0.1.dist-info"
    info.mkdir()
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: my-kb\nVersion: 0.1\n")
    (info / "entry_points.txt").write_text("[review_harness.impact.knowledge]\nfixed = my_kb:Fixed\n")
    monkeypatch.syspath_prepend(str(package))
    try:
        assert "fixed" in KnowledgeRegistry.names()
        kb = KnowledgeRegistry.create("fixed")
        assert [c.heading for c in kb.retrieve("anything")] == ["entry point note"]
    finally:
        KnowledgeRegistry._types.pop("fixed", None)


def test_format_map_templates_render(tmp_path):
    folder = tmp_path / "prompts"
    folder.mkdir()
    (folder / "plain.yaml").write_text(yaml.safe_dump({
        "name": "plain", "version": "1", "description": "no Jinja", "dimensions": ["statistical_rigor", "methodology_fit"],
        "system": "You check {model_type} results. {response_format}", "user": "{facts}\n\n{artifact}"}))
    log = run(tmp_path, artifact=str(FIX / "ci-excludes-estimate.json"), prompt="plain", template_dirs=str(folder),
              knowledge="none")
    sample = log.samples[0]
    system = next(e for e in sample.events if e.event == "model").input[0].text
    system = sample.attachments.get(system.removeprefix("attachment://"), system)
    assert system.startswith("You check interrupted_time_series results. Answer in exactly this format")
    review = reviews(log)["ci-excludes-estimate"]
    assert review.score("statistical_rigor") == 0.5 and review.verdict == "unusable"
    (folder / "bad.yaml").write_text(yaml.safe_dump({
        "name": "bad", "version": "1", "description": "d", "dimensions": ["x"], "system": "s",
        "user": "{artifact.__class__}"}))
    with pytest.raises(PrerequisiteError, match=r"bad.yaml: user: format field \{artifact.__class__\}: use a plain name"):
        impact_task()(prompt="bad", template_dirs=str(folder))


def test_the_table_is_data_and_checks_it(tmp_path):
    table = build_table({"plausibility": {"small_sample": 50}})
    assert table.plausibility.small_sample == 50 and table.resolve("CausalImpact") == "bayesian_structural_time_series"
    with pytest.raises(TableError, match="model_types.foo.identities"):
        build_table({"model_types": {"foo": {"confidence": [0.2, 0.3], "identities": ["nope"]}}})


def test_evaluate_adapter_beside_artifact_review():
    stage = Evaluate()
    event = stage.execute({**CONTRACT, "stage": "evaluate"})
    assert event["confidence"]["model_type"] == "randomized_experiment" and 0.85 <= event["confidence"]["score"] <= 0.95
    assert event["stage"] == "evaluate"
    from_file = stage.execute({"impact_results": str(FIX / "bsts-promo-campaign.json")})
    assert from_file["confidence"]["model_type"] == "bayesian_structural_time_series"
    unknown = stage.execute({"initiative_id": "x", "model_type": "geo_lift"})
    assert "generic band" in unknown["confidence_note"]
    with pytest.raises(ValueError, match="model_type 'geo_lift' has no confidence band"):
        Evaluate(strict=True).execute({"initiative_id": "x", "model_type": "geo_lift"})
    with pytest.raises(ArtifactError, match="event: initiative_id: missing"):
        stage.execute({"model_type": "rct"})


def test_deterministic_modules_import_without_inspect():
    code = ("import sys\n"
            "import review_harness.impact.models, review_harness.impact.checks, review_harness.impact.confidence\n"
            "import review_harness.impact.artifact, review_harness.impact.adapter, review_harness.impact.verdict\n"
            "import review_harness.impact.config, review_harness.impact.knowledge, review_harness.impact.table\n"
            "from review_harness.impact.adapter import Evaluate\n"
            "Evaluate().execute({'initiative_id': 'x', 'model_type': 'its'})\n"
            "print(sorted(m for m in sys.modules if m.split('.')[0] == 'inspect_ai'))\n")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert done.stdout.strip() == "[]"


def test_offline_answer_reads_the_facts_a_real_model_reads():
    from review_harness.impact.artifact import load_artifact
    from review_harness.impact.knowledge import EmptyKnowledgeBase
    from review_harness.impact.registry import PromptRegistry
    from review_harness.impact.review import prepare_request

    # a table that makes the clean checkout artifact's effect implausible: the facts carry it
    table = build_table({"plausibility": {"implausible_percent_change": 5}})
    spec = PromptRegistry().get("impact_results_review")
    request = prepare_request(load_artifact(FIX / "its-daily-checkout.json"), spec, EmptyKnowledgeBase(), 1, table=table)
    answer = review_prompt(request.system + "\n\n" + request.user)
    assert "VERDICT: unusable" in answer and request.checks_verdict == "unusable"
