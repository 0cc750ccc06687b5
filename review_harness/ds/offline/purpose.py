"""What a write-up is for, and which methods the rules cannot check: two readings of the whole
document that decide how a finding weighs and whether a lens can be judged at all.

**Purpose.** A document written to support a decision (an experiment readout that frames a launch,
a proposal, an answer to a stakeholder's question) fails its reader without a recommendation; a
retrospective measurement, a benchmark of methods or an exploratory write-up informs, and a missing
next step costs it less. The purpose is read from the document's own words: the decision it says it
feeds, the question it asks, what it compares, how it describes itself. When nothing says, the
document is taken as one that should end in a decision (the rubric's default). A worked example of
a method or tool (a tutorial, a package's own page, an analysis of data made up for it) teaches how to
run something: it is not judged as a report to a decision maker (no TL;DR, recommendation or
limitations owed; its code is its content), and those lenses are left NOT ASSESSED.

**Methods the rules cannot check.** A Bayesian structural time series with control series, a
survival model, a forecasting comparison or a fitted predictive model each rest on assumptions a
text rule cannot verify (a control series the change did not reach, proportional hazards, the same
test window for every method, no leakage into a training set). Where one is the document's method,
the methodology lens is not assessed offline, with one line saying what a person should check.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Protocol

from review_harness.ds.offline import lexicon as lx
from review_harness.ds.offline.view import APPENDIX, LIMITATIONS, DocView, Sentence


class Features(Protocol):
    """What these readings use of a document's facts (features.Features, which calls them)."""

    view: DocView

    @property
    def statements(self) -> list[Sentence]: ...


I = re.IGNORECASE

DECISION, MEASUREMENT, BENCHMARK, EXPLORATORY = "decision", "measurement", "benchmark", "exploratory"
DEMONSTRATION = "demonstration"

#: How each purpose is named in a finding's explanation.
PURPOSE_WORDS = {
    DECISION: "a document written to support a decision",
    MEASUREMENT: "a retrospective measurement",
    BENCHMARK: "a comparison of methods (a benchmark)",
    EXPLORATORY: "an exploratory write-up",
    DEMONSTRATION: "a worked example of a method or tool (a tutorial)",
}

# the decision a document says it feeds: a go/no-go, a launch, a proposal, a question put by a stakeholder
# (a factor's part "in deciding whether" someone books early is the subject's decision, not the document's)
_DECISION_CUE = re.compile(
    r"\b(go/no-go|go-no-go|launch decision|rollout decision|(?:a|the|this|our|your) decision (?:on|about|to|whether|for)|"
    r"(?:is|are|was) for (?:the|a|our) (?:\w+ ){0,2}decision|(?<!\bin )decid(?:e|es|ing) (?:whether|if|on|to|between)|"
    r"whether (?:or not )?(?:to|we should) (?:launch|ship|roll|keep|adopt|switch|expand|continue|stop|invest|buy|replace|"
    r"raise|lower|change|move|make|offer|extend|scale)|should we\b|(?:a|this|our|my) proposal\b|we propose\b|"
    r"propose (?:to|that)\b|(?:for|seeking|need|needs) (?:your )?(?:approval|sign-?off)|\bthe ask\b|"
    r"before (?:launching|rolling (?:it )?out|shipping|we (?:launch|ship|roll))|ahead of (?:the |a )?(?:launch|rollout)|"
    r"(?:asked|asks|wants to know|want to know) (?:us |me )?(?:whether|if)\b)", I)
_DECISION_HEADING = re.compile(r"^\W*(?:recommendations?|decisions?|proposal|proposed \w+|next steps?|the ask|action items?|"
                               r"what we recommend|what to do)\W*$", I)
# a comparison of methods, models or tools on a data set
_COMPARE_CUE = re.compile(
    r"\b((?:we |to )?compar\w+ (?:\w+ ){0,5}(?:methods|models|algorithms|libraries|tools|forecasters|approaches|"
    r"implementations|frameworks|services|solutions)|head[- ]to[- ]head)\b", I)
_BENCHMARK_CUE = re.compile(r"\b(benchmark\w*|(?:forecast\w*|prediction) (?:accuracy|competition|error))\b", I)
_ERROR_METRIC = re.compile(r"\b(MAPE|sMAPE|MASE|RMSE|MAE|wRMSSE|RMSSE|WAPE|CRPS|log[- ]?loss|F1|AUC|ROC|NDCG(?:@\d+)?|"
                           r"accuracy|mean absolute (?:percentage )?error|root mean squared? error)\b", I)
_METHOD_NAME = re.compile(
    r"\b(ETS|ARIMA|SARIMA|Prophet|NeuralProphet|N-?BEATS|N-?HiTS|DeepAR\+?|LSTM|TBATS|Theta|XGBoost|LightGBM|CatBoost|"
    r"random forest|gradient[- ]boost\w*|neural (?:net\w*|model)|transformer|logistic regression|linear regression|"
    r"exponential smoothing|seasonal naive|naive|AutoML|statsforecast|GluonTS|baseline model)\b", I)
# the effect of something that already happened, estimated after the fact
_MEASUREMENT_CUE = re.compile(
    r"\b((?:the )?(?:impact|effect|effects|lift|uplift) of (?:the|our|this|a|an|its|their) |"
    r"estimat\w+ (?:the |its |their )?(?:causal )?(?:effect|impact|lift|uplift|incremental)|"
    r"measur\w+ (?:the |its |their )?(?:effect|impact|lift|uplift)|incremental (?:installs|sales|sign-?ups|visits|revenue|"
    r"conversions|orders|users)|causal ?impact|structural time[- ]series|synthetic control|difference[- ]in[- ]differences|"
    r"interrupted time[- ]series|counterfactual|"
    r"did (?:the|our|this|a|an) (?:\w+ ){0,4}(?:bring|increase|reduce|raise|lift|change|affect|work|help|improve|move))", I)
# a test told as something done in a past month or year: "In September 2016 the growth team conducted an experiment"
_PAST_DATE = (r"(?:in|during) (?:(?:january|february|march|april|may|june|july|august|september|october|november|december) )?"
              r"(?:19|20)\d\d|last (?:year|quarter|spring|summer|autumn|fall|winter)")
_RETROSPECTIVE = re.compile(
    rf"\b(?:{_PAST_DATE})\b[^.]{{0,80}}\b(?:conducted|ran|held|carried out|performed)\b[^.]{{0,40}}\b(?:experiment|test|trial)\b|"
    rf"\b(?:conducted|ran|held|carried out|performed)\b[^.]{{0,40}}\b(?:experiment|test|trial)\b[^.]{{0,60}}\b(?:{_PAST_DATE})\b", I)
_RANDOMISED = re.compile(r"\b(randomi[sz]\w*|randomly (?:assigned|allocated|split|selected)|(?:chosen|assigned|split) at random|"
                         r"a/b(?:/n)?\b|ab test|split[- ]test|"
                         r"control (?:group|arm)|treatment (?:group|arm)|test group|hold[- ]?out group)", I)
_EXPLORATORY_CUE = re.compile(
    r"\b(exploratory|explor(?:e|es|ed|ing) (?:the|how|what|whether|our|this|usage|patterns|data)|first look|descriptive (?:look|"
    r"analysis|statistics)|\bEDA\b|(?:we )?(?:wanted|want|set out) to understand|to understand (?:how|what|why|whether|who|when)|"
    r"capstone|usage patterns|patterns? (?:in|of) (?:the )?\w+|an overview of|what (?:the data|it) (?:looks|look) like|"
    r"(?:to |we'll |we will |let's )?look(?:ing)? at (?:how|what|whether|which|who|when|where))\b", I)


# a worked example of a method or tool: it says it teaches or shows how to run something, it runs on data
# made up for the purpose, or it is a package's own page (installation, getting started). Its numbers
# show the method working; nobody is asked to act on them.
_DEMONSTRATION_CUE = re.compile(
    r"\b((?:this|the following|our|the present) (?:notebook|tutorial|example|guide|walk-?through|vignette|user guide) "
    r"(?:demonstrates|illustrates|shows (?:how|you)|explains|introduces|walks|presents|covers|teaches)|"
    r"in this (?:tutorial|notebook|guide|walk-?through|example)\b|an? (?:simple |short |worked |toy )?example (?:on|of) how|"
    r"(?:we|let us|let's) (?:will )?(?:demonstrate|illustrate)\b|to (?:demonstrate|illustrate) (?:how|its use|the use)|"
    r"\btutorial\b|how to use\b|getting started\b|"
    # data the document makes for itself ("we generate synthetic data", "for this simulated data"); a data set
    # someone else simulated and handed over ("the simulated data was obtained for 30 days") is analysed as real
    r"(?:we|let's|let us|i) (?:will )?(?:generate|simulate|create|build|consider|use|make) (?:some |a |an )?(?:small )?"
    r"(?:simulated|synthetic|toy|made-up|fictitious|fictional) (?:data(?:set)?|example|scenario)|"
    r"(?:generating|simulating|creating) (?:some |a )?(?:simulated |synthetic |toy )?data(?:set)?\b|"
    r"(?:for|in|with) this (?:simulated|synthetic|toy|made-up) (?:data(?:set)?|example|scenario)|"
    r"(?:toy|made-up|fictitious|fictional) (?:example|scenario))", I)
_README_HEADING = re.compile(r"^\W*(?:installation|install|getting started|quick ?start|usage|requirements|"
                             r"(?:an? )?introduction to\b.*)\W*$", I)


def demonstration_cue(f: "Features") -> tuple[Sentence | None, str] | None:
    """Where the document says it is a worked example of a method or tool (see _DEMONSTRATION_CUE),
    or a package page's installation or getting-started heading."""
    v = f.view
    own = [s for s in f.statements if s.role not in (LIMITATIONS, APPENDIX)]
    titled = [s for s in v.sentences if s.kind == "heading"] + own
    hit = _first(titled, _DEMONSTRATION_CUE)
    if hit is not None:
        return hit[0], hit[1].group(0)
    heading = next((h for h in v.headings if _README_HEADING.match(h.text.strip("#* "))), None)
    if heading is not None:
        return None, heading.text.strip("#* ")
    return None


@dataclass(frozen=True)
class Purpose:
    kind: str  # decision | measurement | benchmark | exploratory | demonstration
    sentence: Sentence | None  # where the document says it (None: nothing says; the rubric's default)
    cue: str  # the words that say it
    stated: bool  # read from the document (False: the default)

    @property
    def words(self) -> str:
        return PURPOSE_WORDS[self.kind]

    def because(self, view) -> str:
        """Why the document reads as this purpose, quoting it."""
        if not self.stated:
            return "nothing in it says it only reports or explores, so it is read as a document that should end in a decision"
        if self.sentence is None:
            return f"it reads as {self.words} (it has a section '{self.cue}')"
        return f"it reads as {self.words} (\"{view.quote(self.sentence, None, 16)}\")"


_LINK = re.compile(r"!?\[([^\]\n]*)\]\([^)\n]*\)|<?https?://\S+>?|`[^`\n]*`")


def _words(text: str) -> str:
    """The sentence as read: a link by its text, a URL or inline code as nothing ("m5-benchmarks.s3..."
    names no benchmark)."""
    return _LINK.sub(lambda m: m.group(1) or "", text)


def _first(sentences: list[Sentence], pattern: re.Pattern[str]) -> tuple[Sentence, re.Match[str]] | None:
    for s in sentences:
        m = pattern.search(_words(s.text))
        if m:
            return s, m
    return None


def _benchmark_cue(titled: list[Sentence]) -> tuple[Sentence, re.Match[str]] | None:
    found = _first(titled, _COMPARE_CUE) or _first(titled, _BENCHMARK_CUE)
    if found is None:
        metrics = {m.group(0).lower() for s in titled for m in _ERROR_METRIC.finditer(_words(s.text))}
        names = {m.group(0).lower() for s in titled for m in _METHOD_NAME.finditer(_words(s.text))}
        if metrics and len(names) >= 2:
            found = _first(titled, _METHOD_NAME)
    return found


def compares_methods(f: "Features") -> bool:
    """The document ranks methods or models by their error on data, whatever it is for (a benchmark,
    or a decision between two forecasters)."""
    v = f.view
    own = [s for s in f.statements if s.role not in (LIMITATIONS, APPENDIX)]
    titled = own + [s for s in v.sentences if s.kind == "heading" and s not in own]
    return _benchmark_cue(titled) is not None and any(_ERROR_METRIC.search(_words(s.text)) for s in v.sentences)


def read_purpose(f: "Features", workflow: str = "general") -> Purpose:
    """The document's purpose, from its own words: a decision it says it feeds (or a recommendations
    section it has, or a proactive or reactive workflow the user named), else a comparison of methods,
    a worked example of a method or tool (a tutorial, a package's page, made-up data), a measurement
    of something that happened, an exploration; else the default, a decision."""
    v = f.view
    own = [s for s in f.statements if s.role not in (LIMITATIONS, APPENDIX)]
    titled = own + [s for s in v.sentences if s.kind == "heading" and s not in own]
    hit = _first(titled, _DECISION_CUE)
    if hit is not None:
        return Purpose(DECISION, hit[0], hit[1].group(0), True)
    heading = next((h for h in v.headings if _DECISION_HEADING.match(h.text.strip("#* "))), None)
    if heading is not None:
        return Purpose(DECISION, None, heading.text.strip("#* "), True)
    if workflow in ("proactive", "reactive"):
        return Purpose(DECISION, None, workflow, False)
    demo = demonstration_cue(f)
    if demo is not None:  # a worked example's numbers show a method at work: no decision hangs on them
        return Purpose(DEMONSTRATION, demo[0], demo[1], True)
    bench = _benchmark_cue(titled)
    if bench is not None:
        return Purpose(BENCHMARK, bench[0], bench[1].group(0), True)
    decided = _first([s for s in own if s.kind != "heading"], lx.DECISION)
    if decided is not None:  # a document that recommends or decides is written for that decision
        return Purpose(DECISION, decided[0], decided[1].group(0), True)
    if _first(own, _RANDOMISED) is not None:
        # a test of a change is read for its launch decision, unless it is told as something long past
        past = _first(own, _RETROSPECTIVE)
        if past is not None:
            return Purpose(MEASUREMENT, past[0], past[1].group(0), True)
        return Purpose(DECISION, None, "", False)
    measured = _first(titled, _MEASUREMENT_CUE)
    if measured is not None:
        return Purpose(MEASUREMENT, measured[0], measured[1].group(0), True)
    explored = _first(titled, _EXPLORATORY_CUE)
    if explored is not None:
        return Purpose(EXPLORATORY, explored[0], explored[1].group(0), True)
    return Purpose(DECISION, None, "", False)


# ---------------------------------------------------------------------- methods the rules cannot check

@dataclass(frozen=True)
class UncheckedMethod:
    name: str  # what the document uses, in plain words
    sentence: Sentence
    check: str  # one line: what a person should check


_UNCHECKED: tuple[tuple[str, re.Pattern[str], str], ...] = (
    ("a Bayesian structural time series",
     re.compile(r"\b(causal ?impact|structural time[- ]series|BSTS)\b", I),
     "check that the control series were not reached by the change, the pre-period fit and a placebo period"),
    ("a synthetic control",
     re.compile(r"\bsynthetic control\b", I),
     "check the donor pool (units the change did not reach), the pre-period fit and the placebo tests"),
    ("a survival model",
     re.compile(r"\b(kaplan[- ]meier|cox (?:proportional[- ]hazards? )?(?:model|regression)|proportional hazards|"
                r"hazard ratios?|survival (?:analysis|model|curves?|function))\b", I),
     "check the censoring, proportional hazards, and whether the groups differ in who chose them"),
    ("a comparison of forecasting methods",
     re.compile(r"\b(forecast\w*)\b", I),
     "check that every method had the same training data, horizon and test period, with nothing tuned on the test period"),
    ("a fitted predictive model",
     re.compile(r"\b(random forest|xgboost|lightgbm|catboost|gradient[- ]boost\w*|neural net\w*|deep learning|classifier|"
                r"logistic regression|(?:machine|deep)[- ]learning model)\b", I),
     "check the train/test split, that no input is known only after the outcome, and the baseline"),
)


def unchecked_method(f: "Features") -> UncheckedMethod | None:
    """The first method of the document the rules cannot check (see the module docstring). A
    forecasting method counts only where the document compares forecasts or reports their error."""
    own = [s for s in f.statements if s.role not in (LIMITATIONS, APPENDIX)]
    for name, pattern, check in _UNCHECKED:
        hit = _first(own, pattern)
        if hit is None:
            continue
        if name.startswith("a comparison of forecasting") and not any(_ERROR_METRIC.search(s.text) for s in own):
            continue
        if name.startswith("a fitted predictive") and not any(_ERROR_METRIC.search(s.text) for s in own):
            continue
        return UncheckedMethod(name, hit[0], check)
    return None
