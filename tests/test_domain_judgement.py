"""The domain reviewer judged on documents written for these tests (not the fixtures): whether a
domain fits by what a document does, the position-bias pitfall however the click labels are
worded, corrections told apart from words that resemble them, pitfalls that survive any topic
hints, a second domain written only as data, a reference that supplements the brief, and a plan
that is not told about results it does not have. Expected outcomes were set by reading each
document as a search or experimentation specialist would, before running the rules."""

from __future__ import annotations

import random
import shutil
from datetime import datetime, timezone
from pathlib import Path

import pytest

from review_harness.core.paths import shared_dir
from review_harness.domain.config import load_index
from review_harness.domain.digest import parse_digest
from review_harness.domain.reviewer import default_reviewer_rubric
from review_harness.domain.rules import review_document
from review_harness.domain.skill import get_domain_context
from review_harness.domain.topics import domain_fit

R = default_reviewer_rubric()
NOW = datetime(2026, 11, 24, tzinfo=timezone.utc)
ROOT = Path(__file__).resolve().parent.parent
EXAMPLE = ROOT / "knowledge" / "domain" / "examples" / "experimentation"


def _review(document: str, domain: str = "search-ranking", reference: str | None = None, index=None):
    brief = get_domain_context([domain], topic_hints=domain_fit(document, [domain], index).hints, index=index,
                               clock=lambda: NOW)
    return review_document(document, brief.content, R, reference=reference)


# ------------------------------------------------------------------ fit: what the document does

NEWSLETTER = """# Newsletter subject lines: the question form wins

## Summary
In a randomised test of four subject lines for the weekly newsletter, the question form ("Ready for spring?")
had the highest click-through rate. We recommend it for the March issues.

## Method
We split 80,000 subscribers at random into four equal groups of 20,000 and sent each group the same
newsletter with a different subject line on 2 February. We measured opens and the click-through rate (CTR):
the share of recipients who clicked any link in the email within 72 hours.

## Results
| subject line | opens | CTR |
|---|---|---|
| Ready for spring? | 31.2% | 4.9% |
| Spring collection is here | 29.8% | 4.1% |

We ranked the subject lines by CTR. The question form ranked first, 0.8 points above the control,
95% CI 0.4 to 1.2 points (two-proportion z-test).
"""

PUSH = """# Push notification copy: the short variant ranks first

## TL;DR
A randomized test of three push-notification texts found the short variant ranked first on click-through
(CTR 6.1% vs 5.2%). Ship it for the April campaign.

## Design
App users were randomly assigned to one of three texts (120,000 each) for 14 days. The position of the
notification in the tray was the same for every arm. We ranked the variants by CTR and by opens per user.

## Results
The short text had the top CTR, 6.1% (95% CI 5.9% to 6.3%), against 5.2% for the current text. Users who
clicked also searched the app more often afterwards, but that was not a goal of this test.
"""

FEED = """# Home feed ranker v3: A/B readout

## Summary
The new home feed ranker raised click-through on the feed by 3.2% in a 21-day A/B test. We recommend
rolling it out to everyone.

## Method
Members were randomly assigned 50/50 to the current ranker or ranker v3. The ranker orders the posts of the
home feed; positions 1-3 get most of the clicks. Primary metric: click-through per feed view.

## Results
CTR per feed view rose from 11.0% to 11.35% (95% CI +0.2 to +0.5 points); time in feed was unchanged.
"""


@pytest.mark.parametrize("document", [NEWSLETTER, PUSH, FEED], ids=["newsletter", "push", "feed"])
def test_a_randomised_test_with_ranking_words_that_is_not_search_is_not_reviewed_by_search_ranking(document):
    fit = domain_fit(document, ["search-ranking"])
    assert not fit.applicable
    assert "\n" not in fit.reason and fit.reason.endswith("the domain dimension is not applicable and not scored")
    assert "search-ranking covers the order in which a search system shows results" in fit.reason


def test_the_search_ranking_documents_of_these_tests_fit():
    for document in (CLICK_LABELS[0], QUERY_RANDOMISED, POSITION_RANDOMISED, PLAN):
        assert domain_fit(document, ["search-ranking"]).applicable


# ------------------------------------------------------------------ click labels, however worded


def _search_doc(labels: str) -> str:
    return f"""# Ranker B beats ranker A on the web-search judged set

## Summary
Ranker B improves NDCG@10 over ranker A by 4% on web search. We propose to ship ranker B.

## Method
We sampled 12,000 search queries from last month's traffic and replayed both rankers over them. {labels}
We computed NDCG@10 for each ranker from those labels and a query-level bootstrap interval.

## Results
| ranker | NDCG@10 | 95% CI |
|---|---|---|
| A | 0.431 | 0.426 to 0.436 |
| B | 0.448 | 0.443 to 0.453 |

Head and tail queries both improve (head +3.1%, tail +5.9%). An interleaving test is not needed given the size
of the gain.
"""


CLICK_LABELS = [
    _search_doc("A result is labelled relevant when the user opened it and read it for 20 s or more."),
    _search_doc("The ground truth is the set of results users clicked for each query."),
    _search_doc("Documents that users dwelled on for 30 seconds or more were treated as positives."),
    _search_doc("Relevance labels come from taps: every result tapped in the logs counts as relevant."),
]


@pytest.mark.parametrize("document", CLICK_LABELS, ids=["opened-and-read", "clicked-ground-truth", "dwell-positives",
                                                        "taps"])
def test_click_label_evaluations_get_the_position_bias_finding_however_worded(document):
    review = _review(document)
    found = [f for f in review.findings if f.issue_type == "critical_pitfall_ignored"]
    assert len(found) == 1 and found[0].severity == "CRITICAL" and found[0].lens == "pitfall"
    label_sentence = document.split("replayed both rankers over them. ")[1].split("\n")[0]
    assert found[0].quote == label_sentence
    assert found[0].source.ref == "search-ranking / Foundational Knowledge / Known Pitfalls"
    # the fix follows the team's current standard (workstream), not the textbook correction it replaced
    assert "doubly-robust estimator" in found[0].fix and "team's current standard" in found[0].fix


QUERY_RANDOMISED = """# Ranker v4 wins on click relevance

## Summary
Ranker v4 raises click-based NDCG@10 by 5% over v3 on web search. We recommend shipping v4.

## Method
We drew a randomized sample of 10,000 search queries, stratified by head and tail, and replayed both rankers.
A result counts as relevant when it was clicked in the logs; NDCG@10 is computed from those clicks.

## Results
Click NDCG@10 rose from 0.402 to 0.422 (95% CI 0.015 to 0.025); head queries +4%, tail queries +7%.
"""

POSITION_RANDOMISED = QUERY_RANDOMISED.replace(
    "A result counts as relevant when it was clicked in the logs; NDCG@10 is computed from those clicks.",
    "A result counts as relevant when it was clicked in the logs; clicks are weighted by inverse propensities "
    "estimated from randomly swapped results at positions 1-4 on 1% of traffic.")


def test_a_query_randomised_evaluation_is_not_counted_as_corrected():
    review = _review(QUERY_RANDOMISED)
    assert "critical_pitfall_ignored" in {f.issue_type for f in review.findings}
    randomised_users = QUERY_RANDOMISED.replace("We drew a randomized sample of 10,000 search queries",
                                                "Users were randomly assigned to the two rankers for 10,000 queries")
    assert "critical_pitfall_ignored" in {f.issue_type for f in _review(randomised_users).findings}
    corrected = _review(POSITION_RANDOMISED)
    assert "critical_pitfall_ignored" not in {f.issue_type for f in corrected.findings}


def test_a_correction_that_is_only_planned_does_not_correct_the_labels_used():
    planned = QUERY_RANDOMISED.replace("We recommend shipping v4.",
                                       "Next quarter we will debias the labels with inverse propensity weighting.")
    assert "critical_pitfall_ignored" in {f.issue_type for f in _review(planned).findings}


# ------------------------------------------------------------------ a plan has no results to pool

PLAN = """# Plan: evaluate ranker v5 on the judged set

## Proposal
Next quarter we will score ranker v5 and the current ranker on the judged set of search queries with graded
labels, and report NDCG@10 with a query-level bootstrap. If v5 wins offline, we will run an interleaving test
before any launch.

## Timeline
Judging starts in January; the readout is due in March (owner: ranking team).
"""


def test_a_plan_with_no_results_is_not_told_its_results_are_pooled():
    review = _review(PLAN)
    assert "edge_case_unaddressed" not in {f.issue_type for f in review.findings}


# ------------------------------------------------------------------ the brief keeps its pitfalls


def _pitfalls(domain: str) -> list[str]:
    digest = parse_digest((ROOT / "knowledge" / "domain" / "digests" / f"{domain}.md").read_text(encoding="utf-8"))
    return [b.render() for s in digest.sections for sub in s.subsections if "Pitfall" in sub.title for b in sub.bullets]


HINT_WORDS = ["position bias", "ctr", "click", "ndcg", "latency", "p99", "intent", "tail", "locale", "revenue", "churn",
              "forecast", "retention", "a/b", "interleaving", "snippet", "embedding", "bm25", "zzz", "the", "query"]


@pytest.mark.parametrize("domain", ["search-ranking", "query-understanding", "search-infra"])
def test_the_pitfalls_survive_any_topic_hints(domain):
    rng = random.Random(29)
    pitfalls = _pitfalls(domain)
    assert pitfalls
    for _ in range(60):
        hints = rng.sample(HINT_WORDS, rng.randint(0, 8))
        brief = get_domain_context([domain], topic_hints=hints, clock=lambda: NOW)
        for bullet in pitfalls:
            assert bullet in brief.content, (hints, bullet)


def test_a_tight_budget_keeps_pitfalls_and_standards_before_learnings():
    brief = get_domain_context(["search-ranking"], topic_hints=["p99", "latency"], max_tokens_per_domain=700,
                               clock=lambda: NOW)
    for bullet in _pitfalls("search-ranking"):
        assert bullet in brief.content
    assert "Embedding retrieval A/B" not in brief.content  # the learning that names the hints goes first


# ------------------------------------------------------------------ a second domain, written only as data


SRM_DOC = """# New onboarding email raises activation

## Summary
In a 7-day A/B test the new onboarding email raised 7-day activation from 21.4% to 23.0% (+1.6 points,
95% CI +1.3 to +1.9). We recommend switching every new sign-up to it.

## Design
New sign-ups were randomly assigned 50/50 to the current or the new email between 3 and 9 March. The control
arm received 251,400 users and the treatment arm 238,900 users.

## Results
| arm | users | activated | activation |
|---|---|---|---|
| control | 251,400 | 53,800 | 21.4% |
| new email | 238,900 | 54,950 | 23.0% |

The difference was tested with a two-proportion z-test.
"""

CLEAN_EXPERIMENT = """# New onboarding email raises activation

## Summary
In a 14-day A/B test the new onboarding email raised 7-day activation from 21.4% to 23.0% (+1.6 points,
95% CI +1.3 to +1.9). We recommend switching every new sign-up to it.

## Design
New sign-ups were randomly assigned 50/50 to the current or the new email from 2 March to 15 March; the
sample size was fixed in advance. The control arm received 250,480 users and the treatment arm 249,910 users.

## Results
| arm | users | activated | activation |
|---|---|---|---|
| control | 250,480 | 53,600 | 21.4% |
| new email | 249,910 | 57,480 | 23.0% |

The difference was tested with a two-proportion z-test.
"""


@pytest.fixture
def experimentation(tmp_path):
    """The example domain copied into a folder of its own: an index entry and a digest, no code."""
    shutil.copytree(EXAMPLE, tmp_path / "kb")
    return load_index(tmp_path / "kb" / "domain-index.yaml")


def test_a_domain_written_only_as_data_reviews_from_its_digest(experimentation):
    assert domain_fit(SRM_DOC, ["experimentation"], experimentation).applicable
    review = _review(SRM_DOC, "experimentation", index=experimentation)
    got = {(f.issue_type, f.severity, f.source.ref) for f in review.findings}
    assert got == {
        ("critical_pitfall_ignored", "CRITICAL", "experimentation / Foundational Knowledge / Known Pitfalls"),
        ("standard_technique_ignored", "MAJOR", "experimentation / Foundational Knowledge / Standards"),
    }
    srm = next(f for f in review.findings if f.severity == "CRITICAL")
    assert srm.quote == "The control arm received 251,400 users and the treatment arm 238,900 users."
    assert "251,400 vs 238,900" in srm.summary and "planned 50/50 split (chi-squared p < 0.0001)" in srm.summary
    duration = next(f for f in review.findings if f.severity == "MAJOR")
    assert "7 days" in duration.summary and "14 days" in duration.summary


def test_the_data_only_domain_finds_nothing_in_a_clean_experiment(experimentation):
    review = _review(CLEAN_EXPERIMENT, "experimentation", index=experimentation)
    assert review.findings == []


def test_the_data_only_domain_checks_an_item_by_its_stated_conditions(experimentation):
    peeked = CLEAN_EXPERIMENT.replace("; the\nsample size was fixed in advance.",
                                      ". We stopped the test as soon as it reached significance.")
    review = _review(peeked, "experimentation", index=experimentation)
    assert [(f.issue_type, f.quote) for f in review.findings] == [
        ("anti_pattern_present", "We stopped the test as soon as it reached significance.")]


def test_the_data_only_domain_does_not_fit_a_search_evaluation(experimentation):
    assert not domain_fit(PLAN, ["experimentation"], experimentation).applicable


# ------------------------------------------------------------------ a reference supplements the brief

REFERENCE = """Team notes for ranking reviews:

- Platform split: report ranking results separately for mobile and desktop, since mobile shows fewer results per page.
- Position bias: our vertical has no position effects, so clicks need no correction.
"""


def test_a_reference_adds_checks_and_never_overrides_the_brief():
    document = CLICK_LABELS[1]
    without = _review(document)
    with_reference = _review(document, reference=REFERENCE)
    added = [f for f in with_reference.findings if f.source.kind == "reference"]
    assert [f.issue_type for f in added] == ["edge_case_unaddressed"] and "mobile" in added[0].summary + added[0].fix
    # the reference's claim on position bias does not take the brief's pitfall away
    assert "critical_pitfall_ignored" in {f.issue_type for f in with_reference.findings}
    assert len(with_reference.findings) == len(without.findings) + 1


def test_the_reference_reaches_the_offline_reviewer_and_the_report(tmp_path):
    from helpers import reviews, run

    document = tmp_path / "ranker-b.md"
    document.write_text(CLICK_LABELS[1], encoding="utf-8")
    reference = tmp_path / "team-notes.md"
    reference.write_text(REFERENCE, encoding="utf-8")
    log = run(tmp_path, document=str(document), domain="search-ranking", reference=str(reference))
    [review] = reviews(log).values()
    cited = [f for f in review.domain.findings if f.source.kind == "reference"]
    assert [f.issue_type for f in cited] == ["edge_case_unaddressed"]
    report = log.samples[0].output.completion
    assert f"**Reference:** {reference} (supplements the digests)" in report
    assert "source: reference: User reference" in report


# ------------------------------------------------------------------ the fit gold and the real write-ups


def test_the_fit_decisions_match_the_judged_gold():
    from review_harness.domain.gold import evaluate_fit

    results = evaluate_fit()
    dev = [r for r in results if r.split == "dev"]
    assert len(dev) == 60 and [r for r in dev if r.expected != r.got] == []


@pytest.mark.real("ds")
def test_the_fit_decisions_on_the_real_write_ups_match_the_judged_gold():
    from review_harness.domain.gold import evaluate_fit, fit_summary

    heldout = [r for r in evaluate_fit() if r.split == "heldout"]  # the real write-ups sit beside the repository
    assert heldout
    assert fit_summary(heldout)["accuracy"] == 1.0, [(r.document, r.domain) for r in heldout if r.expected != r.got]


REAL = [p for p in [(shared_dir() or ROOT.parent / "shared") / "real" / "ds"] if p.is_dir()]


@pytest.mark.real("ds")
def test_search_ranking_leaves_every_real_write_up_unscored():
    documents = sorted(REAL[0].glob("*.md"))
    assert len(documents) == len(list((ROOT / "gold" / "ds" / "real").glob("*.yaml"))) >= 12  # each has its gold
    for path in documents:
        assert not domain_fit(path.read_text(encoding="utf-8"), ["search-ranking"]).applicable, path.name


@pytest.mark.real("ds")
def test_on_real_write_ups_the_domains_find_what_is_true(experimentation):
    portal = (REAL[0] / "09-wikimedia-portal-secondary-links-ab.md").read_text(encoding="utf-8")
    review = _review(portal, "experimentation", index=experimentation)
    # 3019 vs 2560 users assigned "with equal probabilities": chi-squared p ~ 1e-9; the test ran 6-14 June
    assert [(f.issue_type, f.severity) for f in review.findings] == [("critical_pitfall_ignored", "CRITICAL"),
                                                                     ("standard_technique_ignored", "MAJOR")]
    assert "3,019 vs 2,560" in review.findings[0].summary and "9 days" in review.findings[1].summary
    pricing = (REAL[0] / "04-buffer-awesome-price-experiment.md").read_text(encoding="utf-8")
    assert _review(pricing, "experimentation", index=experimentation).findings == []  # 16.5K vs 16.9K is chance


# ------------------------------------------------------------------ a plan to correct later is no correction

CLICK_EVAL = """# Ranker v7 beats v6 on click-based relevance

## Summary
Ranker v7 raises click-based NDCG@10 on web search by 6% over ranker v6.

## Data
We took 30 days of search logs (41M queries) and scored both rankers on the same queries. A result counts as
relevant when it received a click, and we compute click-based NDCG@10 from those clicks.

## Results
Click NDCG@10 rose from 0.412 to 0.437 (95% CI +5.4% to +6.8%); head +5.8%, tail +6.9%.

{closing}
"""

PLANNED_ONLINE_CHECKS = {
    "recommendation-section": "## Recommendation\nLaunch v7 to an interleaving experiment against v6 on 5% of traffic.",
    "contracted-future": "## Next\nWe'll confirm the win with an interleaving experiment.",
    "scheduled": "## Follow-up\nAn interleaving experiment is scheduled for March.",
    "condition": "## Decision\nShip v7 once an interleaving test confirms the gain.",
    "modal": "An interleaving test should follow before any launch.",
    "planned-debiasing": "## Follow-up\nDebias the click labels with inverse propensity weighting next quarter.",
}


@pytest.mark.parametrize("closing", PLANNED_ONLINE_CHECKS.values(), ids=PLANNED_ONLINE_CHECKS.keys())
def test_a_correction_announced_for_later_does_not_excuse_click_labels(closing):
    review = _review(CLICK_EVAL.format(closing=closing))
    found = [f for f in review.findings if f.issue_type == "critical_pitfall_ignored"]
    assert len(found) == 1 and found[0].severity == "CRITICAL"
    assert found[0].quote.startswith("A result counts as relevant when it received a click")


@pytest.mark.parametrize("closing", [
    "## Online check\nWe also ran a team-draft interleaving experiment for 14 days; v7 was preferred in 53% of impressions.",
    "## Online check\nClicks were weighted by inverse propensities estimated from randomly swapped results at positions 1-4.",
], ids=["interleaving-run", "propensities-used"])
def test_a_correction_the_work_did_still_counts(closing):
    review = _review(CLICK_EVAL.format(closing=closing))
    assert "critical_pitfall_ignored" not in {f.issue_type for f in review.findings}
