"""Facts about a document that several detectors need, computed once per review."""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import cached_property

from review_harness.ds.offline import lexicon as lx
from review_harness.ds.offline.purpose import compares_methods, read_purpose, unchecked_method
from review_harness.ds.prepare import count_words
from review_harness.core.mood import prospective_at
from review_harness.ds.offline.view import (
    APPENDIX,
    BACKGROUND,
    CLOSING_ROLES,
    CONCLUSION,
    DATA,
    LIMITATIONS,
    META,
    METHOD,
    OTHER,
    RECOMMENDATION,
    RESULTS,
    STRUCTURE,
    SUMMARY,
    TITLE,
    DocView,
    Sentence,
)

_MONTH = r"(?:jan(?:uary)?|feb(?:ruary)?|mar(?:ch)?|apr(?:il)?|may|june?|july?|aug(?:ust)?|sep(?:t(?:ember)?)?|oct(?:ober)?|nov(?:ember)?|dec(?:ember)?)"
_AFTER_IS_DATE = re.compile(rf"^\s*(?:st|nd|rd|th)?\s*(?:of\s+)?{_MONTH}\b|^\s*(?:[–-]|to|until|and|through)\s*\d{{1,2}}(?:st|nd|rd|th)?\s+{_MONTH}\b", re.I)
_BEFORE_IS_DATE = re.compile(rf"\b{_MONTH}\.?\s*$", re.I)
_BEFORE_IS_LABEL = re.compile(
    # a number that names something (a level, a stage, an id, a version) or sits inside a link or an identifier
    r"(?:\b(?:q|h|fy|day|days|week|weeks|section|slide|step|phase|version|v|line|lines|page|table|figure|fig|email|"
    r"item|part|chapter|sprint|wave|round|cohort|tier|p|top|bottom|no|#|levels?|stages?|id|ids|grade|episode|season|"
    r"build|world|floor|room|lane|gate|zone|model|number|nr|ticket|issue|pr|run)\.?\s*|[A-Za-z_]|[-/:=&?%])$",
    re.I,
)
_AFTER_IS_LABEL = re.compile(r"^(?:[:/]\d|[A-Za-z_]{2,}\d|\d)")
_TIME_OF_DAY = re.compile(r"^\s*(?:am|pm|h\b|:\d)", re.I)
MULT = {"k": 1e3, "K": 1e3, "m": 1e6, "M": 1e6, "MM": 1e6, "million": 1e6, "bn": 1e9, "B": 1e9, "billion": 1e9, "thousand": 1e3}


@dataclass(frozen=True)
class Num:
    value: float
    raw: str
    unit: str
    start: int
    end: int

    @property
    def is_percentlike(self) -> bool:
        return self.unit in ("%", "\\%", "pp", "p.p.", "ppt", "ppts", "bps", "x", "×")

    @property
    def is_money(self) -> bool:
        return "$" in self.raw or "€" in self.raw or "£" in self.raw

    @property
    def notable(self) -> bool:
        """A figure a reader would remember: a percentage, money, a multiple, a decimal or >= 10."""
        if self.is_percentlike or self.is_money or self.unit in MULT:
            return True
        return "." in self.raw or abs(self.value) >= 10


def numbers(text: str) -> list[Num]:
    out: list[Num] = []
    for m in lx.NUMBER.finditer(text):
        raw = m.group(0).strip()
        digits = m.group("num").replace(",", "")
        frac = m.group("frac") or ""
        unit = (m.group("unit") or "").strip()
        before = text[max(0, m.start() - 12) : m.start()]
        after = text[m.end() : m.end() + 24]
        if not frac and not unit and not m.group("cur") and lx.YEAR.match(digits):
            continue
        if _AFTER_IS_DATE.match(after) or _BEFORE_IS_DATE.search(before):
            continue
        if not m.group("cur") and _BEFORE_IS_LABEL.search(before) and not m.group("sign"):
            continue
        if _AFTER_IS_LABEL.match(after) or _TIME_OF_DAY.match(after):
            continue
        if before.endswith(("&#", "&#x")) and after.startswith(";"):
            continue  # an HTML character reference ("&#39;" is an apostrophe): markup, not a number
        try:
            value = float(digits + frac)
        except ValueError:
            continue
        if unit in MULT:
            value *= MULT[unit]
        if m.group("sign") in ("-", "−"):
            value = -value
        out.append(Num(value, raw, unit, m.start(), m.end()))
    return out


def _tolerance(raw: str, value: float) -> float:
    """Half a unit of the last digit written (in the number's own scale), at least 2%."""
    m = re.search(r"\d(?:[\d,]*)(?:\.(\d+))?", raw)
    decimals = len(m.group(1)) if m and m.group(1) else 0
    digits = m.group(0).replace(",", "") if m else ""
    scale = abs(value) / float(digits) if digits and float(digits) else 1.0
    return max(0.5 * 10 ** (-decimals) * scale, abs(value) * 0.02, 0.051)


def _close(a: float, b: float) -> bool:
    if a == b:
        return True
    a, b = abs(a), abs(b)
    if a == 0 or b == 0:
        return abs(a - b) < 0.05
    return abs(a - b) / max(a, b) <= 0.02 or abs(a - b) <= 0.051


_NUMERIC_P = re.compile(r"\bp\s*(?:-?\s*values?)?\s*(?:of\s*|is\s*|was\s*)?(?:=|<|>|≤|≥|&lt;)?\s*0?\.\d+|\bp\s*(?:=|<)\s*1e-?\d", re.I)
_PLUS_MINUS = re.compile(r"(?:±|\+/-|\+-)\s*[$€£]?\d")
_STAT = re.compile(r"\b(?:standard error|s\.e\.|std\.? err(?:or)?|margin of error|[tz]\s*=\s*-?\d|χ²|chi-?squared?\s*(?:\(\d+\))?\s*=\s*\d)"
                   r"[^.;]{0,30}\d", re.I)
# a test's p-value as a package prints it ("(Pr > F) = 0.0642", "Pr(>|t|) = 0.03"), and a result said to be
# (in)significant at a stated level ("not significantly different from zero at 10% significance level")
_PR_GREATER = re.compile(r"\bPr\s*\(?\s*>\s*\|?[A-Za-zχ²]{1,2}\|?\s*\)?\s*\)?\s*=\s*0?\.\d+")
_AT_LEVEL = re.compile(r"\b(?:in)?significant(?:ly different from zero)?(?: \w+){0,2} at (?:the |a )?\d+(?:\.\d+)?\s?%"
                       r"(?: (?:significance|confidence))? level\b", re.I)
_LEVEL_INTERVAL = re.compile(r"\b\d{2}(?:\.\d)?\s?%[\s-]*(?:CI|confidence|credible|prediction|probability|uncertainty|posterior|"
                             r"intervals?\b[^.]{0,50}?\d)", re.I)


# three or more words in capitals in a row: a title or a heading set in capitals, not acronyms
_CAPITALS_RUN = re.compile(r"\b[A-Z][A-Z'-]{2,}(?:[\s:,]+[A-Z][A-Z'-]*){2,}\b")

_INLINE_MATH_NUMBER = re.compile(r"\$\s*([-−+]?\d[\d.,]*\s*%?)\s*\$")


def _plain_math(text: str) -> str:
    """A number set as inline math ("$95\\%$ confidence intervals", "above $0$") read as the number."""
    return _INLINE_MATH_NUMBER.sub(r"\1", text)


def numeric_uncertainty(text: str) -> re.Match[str] | None:
    """An uncertainty reported with its numbers (see Features.uncertainty)."""
    t = _plain_math(text.replace("\\%", "%"))
    for pattern in (_NUMERIC_P, _PR_GREATER, _PLUS_MINUS, _STAT, _LEVEL_INTERVAL, _AT_LEVEL):
        m = pattern.search(t)
        if m:
            return m
    for pattern in (lx.CI, lx.BRACKET_INTERVAL):
        for m in pattern.finditer(t):
            if m.group(0).lower().lstrip().startswith("range") and not re.search(
                    r"(?:\d\s?%|credible|plausible|likely|confidence)\s*$", t[max(0, m.start() - 16):m.start()], re.I):
                continue  # "the range of 0 to 1": a span, not an interval around an estimate
            return m
    return None


def interval_with_bounds(text: str) -> re.Match[str] | None:
    """An estimate's spread written with its numbers: an interval with both bounds, a margin (+/-) or
    a standard error with its value. A level alone ("95% credible intervals in parentheses") or a
    bare p-value is not one."""
    t = _plain_math(text.replace("\\%", "%"))
    for pattern in (lx.CI, lx.BRACKET_INTERVAL, _PLUS_MINUS, _STAT):
        for m in pattern.finditer(t):
            if m.group(0).lower().lstrip().startswith("range") and not re.search(
                    r"(?:\d\s?%|credible|plausible|likely|confidence)\s*$", t[max(0, m.start() - 16):m.start()], re.I):
                continue
            return m
    return None


_ASSUMES = re.compile(r"\b(?:model|analysis|estimate|approach|method|comparison|result)s? (?:assumes?|relies? on the assumption) that\b", re.I)
_CONCEDED = re.compile(r"\b(?:although|but|however|unless|except)\b[^.]{0,100}\b(?:may|might|could|would)\b|"
                       r"\b(?:may|might) not (?:hold|be true|be the case)\b", re.I)


OPEN_ITEM = re.compile(r"\b(?:TODO|TBD|TBC|FIXME|XXX)\b|\?\?+|\[(?:TBD|TODO|TK)\]", re.IGNORECASE)


def is_open_item(text: str) -> bool:
    """A question or an open item ('Need intervals - bootstrap?', 'TODO: add owner')."""
    return text.rstrip("*_) ").endswith("?") or bool(OPEN_ITEM.search(text))


class Features:
    def __init__(self, view: DocView, workflow: str = "general"):
        self.view = view
        self.workflow = workflow

    @cached_property
    def compares_methods(self) -> bool:
        """The document ranks methods or models by their error on data (whatever it is for)."""
        return compares_methods(self)

    @cached_property
    def purpose(self):
        """What the document is for (purpose.py): decision, measurement, benchmark or exploratory."""
        return read_purpose(self, self.workflow)

    @cached_property
    def unchecked_method(self):
        """A method of the document the rules cannot check (purpose.py), or None."""
        return unchecked_method(self)

    @cached_property
    def word_count_small(self) -> bool:
        """Too little text for absence findings (no TL;DR, no limitations...) to mean anything.
        Code and tables count here: a document that is only code still lacks a summary."""
        return max(self.view.word_count, len(self.view.content.split())) < 40

    # ------------------------------------------------------------------ partitions

    @cached_property
    def text_sentences(self) -> list[Sentence]:
        """Everything a reader reads as the document's content."""
        return [s for s in self.view.sentences if s.role not in (META, STRUCTURE) and s.kind not in ("heading", "placeholder", "image")]

    @cached_property
    def statements(self) -> list[Sentence]:
        """Content the author asserts: no question ("bootstrap?") and no open item ("TODO: add
        an owner"). A question or a TODO is never a strength, a recommendation or a caveat."""
        return [s for s in self.text_sentences if not is_open_item(s.text)]

    @cached_property
    def placeholders(self) -> list[Sentence]:
        """Extraction input: the lines standing in for tables and code blocks."""
        return [s for s in self.view.sentences if s.kind == "placeholder"]

    @cached_property
    def prose(self) -> list[Sentence]:
        return [s for s in self.text_sentences if s.kind in ("prose", "bullet", "quote", "claim")]

    @cached_property
    def closing(self) -> list[Sentence]:
        """Summary, conclusion and recommendation text; the last fifth when none is labelled."""
        found = [s for s in self.text_sentences if s.role in CLOSING_ROLES]
        if found:
            return found
        tail = [s for s in self.prose if s.pos >= 0.8]
        return tail

    @cached_property
    def body(self) -> list[Sentence]:
        closing = {id(s) for s in self.closing}
        return [s for s in self.text_sentences if id(s) not in closing and s.role not in (TITLE,)]

    @cached_property
    def results(self) -> list[Sentence]:
        out = [s for s in self.body if s.role == RESULTS]
        if not out:
            out = [s for s in self.body if s.role in (OTHER, BACKGROUND) and len(self.nums(s)) >= 1]
        return out

    @cached_property
    def summary(self) -> list[Sentence]:
        return [s for s in self.text_sentences if s.role == SUMMARY]

    @cached_property
    def recommendations(self) -> list[Sentence]:
        """Recommendations and decisions: a recommendations section, a sentence that recommends or
        decides ("A full rollout is supported", "Final decision: do not ship"), an imperative in a
        closing section ("Choose your models wisely"). A system that recommends (a recommender)
        and a walk-through's "let's look at" are neither."""
        out = []
        # a section about a recommender ("## Offer Recommendation": a system that recommends) is no advice
        system = {s.section for s in self.statements if lx.NOT_A_RECOMMENDATION.search(s.text) and s.role == RECOMMENDATION}
        for s in self.statements:
            if lx.NOT_A_RECOMMENDATION.search(s.text) and not lx.DECISION.search(s.text):
                continue
            if lx.DECISION_FRAMING.search(s.text) and not re.search(r"\b(?:we|i) (?:recommend|propose|suggest)\b|"
                                                                  r"\bdecision(?: is|:)", s.text, re.I):
                continue  # the decision the document feeds, named: a request for a recommendation, not one
            if lx.QUESTION_SHOULD.search(s.text) and not re.search(r"\b(?:we|i) (?:recommend|propose|suggest)\b", s.text, re.I):
                continue  # "we were asked whether we should replace ...": the question, not its answer
            if lx.TLDR_PURPOSE.search(s.text) and s.pos < 0.5:
                continue  # what the document sets out to do ("In this analysis we'll use survival analysis to ...")
            if lx.READING_CAVEAT.search(s.text) or lx.PAST_REASONING.search(s.text):
                continue  # how (not) to read a result, or the reasoning that led to the test
            if lx.should_is_expectation(s.text):
                continue  # "so it should affect the lead time": what a quantity is expected to do, not advice
            if s.role == BACKGROUND and re.search(r"\b(?:we|i|they|the team) (?:decided|chose|opted)\b", s.text, re.I):
                continue  # what was decided before the work, told as its background: history, not a recommendation
            if s.section in system and s.role == RECOMMENDATION:
                continue  # a section about a recommender system: its "recommendations" are the system's output
            if s.role == RECOMMENDATION and s.kind != "heading" and s.section not in system:
                out.append(s)
            elif s.role not in (LIMITATIONS, METHOD, DATA, APPENDIX) and lx.DECISION.search(s.text):
                out.append(s)
            elif s.role in (CONCLUSION, SUMMARY) and s.kind in ("prose", "bullet") and lx.IMPERATIVE_ADVICE.match(s.text):
                out.append(s)
            elif (s.role in CLOSING_ROLES or s.pos >= 0.75) and s.role not in (LIMITATIONS, METHOD, DATA, APPENDIX) \
                    and lx.FOLLOW_UP.search(s.text):
                out.append(s)  # a follow-up named at the end: a next step, however hedged
            elif (s.role not in (LIMITATIONS, METHOD, DATA, APPENDIX) and (s.role in CLOSING_ROLES or s.pos >= 0.75)
                  and lx.RECOMMENDATION.search(s.text) and not lx.PAST_REASONING.search(s.text)):
                if re.search(r"\bshould\b", s.text, re.I) and not re.search(
                    r"\b(we|you|they|team|teams|\w+ (?:team|squad)|company|business|leadership|finance|product|marketing|"
                    r"it|this|the (?:series|feature|change|test|campaign|product)|(?:future|next|new|later) \w+)\s+should\b",
                    s.text,
                    re.I,
                ):
                    if not re.search(r"recommend|next step|propos|suggest|action|decision|plan to|will", s.text, re.I):
                        continue
                out.append(s)
        return out

    # ------------------------------------------------------------------ numbers

    def nums(self, s: Sentence) -> list[Num]:
        key = (s.line, s.text)
        cache = self.__dict__.setdefault("_nums", {})
        if key not in cache:
            cache[key] = numbers(s.text)
        return cache[key]

    @cached_property
    def body_values(self) -> list[float]:
        vals: list[float] = []
        for s in self.body:
            ns = [n.value for n in self.nums(s)]
            vals.extend(ns)
            vals.extend(abs(v) for v in ns)
            small = ns[:8]
            for i, a in enumerate(small):
                for b in small[i + 1 :]:
                    vals.append(abs(a - b))
                    vals.append(a + b)
                    if a:
                        vals.append((b - a) / abs(a) * 100)
                        vals.append(abs(b - a) / abs(a) * 100)
                    if b:
                        vals.append((a - b) / abs(b) * 100)
                        vals.append(abs(a - b) / abs(b) * 100)
                        vals.append(a / b if abs(b) > 1e-9 else 0)
                        vals.append(b / a if abs(a) > 1e-9 else 0)
        return sorted(vals)

    def traceable(self, value: float, raw: str = "") -> bool:
        import bisect

        vals = self.body_values
        if not vals:
            return False
        tol = _tolerance(raw, value) if raw else max(0.051, abs(value) * 0.02)
        for t in (value, abs(value)):
            lo = bisect.bisect_left(vals, t - tol)
            hi = bisect.bisect_right(vals, t + tol)
            if hi > lo:
                return True
        return False

    @cached_property
    def numeric_sentences(self) -> list[Sentence]:
        return [s for s in self.text_sentences if any(n.notable for n in self.nums(s))]

    # ------------------------------------------------------------------ recurring facts

    @cached_property
    def design(self) -> tuple[Sentence, re.Match[str]] | None:
        for s in self.statements:
            if s.role in (LIMITATIONS, RECOMMENDATION) or lx.PLACEHOLDER.search(s.text):
                continue
            for m in list(lx.DESIGN.finditer(s.text)) + list(lx.DID_SHORT.finditer(s.text)):
                head = s.text[max(0, m.start() - 45) : m.start()]
                if lx.DESIGN_NEGATED.search(head):
                    continue
                if re.search(r"\b(todo|tbd|thinking|or use|maybe)\b", s.text, re.I) or prospective_at(s.text, m.start()):
                    continue  # a design announced, recommended or wished for ("we should randomise") is not the one used
                return s, m
        return None

    @cached_property
    def comparison_design(self) -> tuple[Sentence, re.Match[str]] | None:
        """A comparison series, region or prior-year check that stands in for a control."""
        pattern = lx.rx(
            r"\b(comparison (?:series|group|groups|category|categories|cohort|market|markets|region|regions|period)|"
            r"(?:as|serve as) (?:a )?(?:comparison|control|benchmark)|same (?:weeks|period|months?|quarter) (?:of|in|last) (?:\d{4}|the previous year|last year)|"
            r"prior[- ]year comparison|unaffected (?:group|region|market|segment|categor\w+))\b"
        )
        tentative = re.compile(r"\b(todo|tbd|thinking|could use|or use|maybe|plan to|will use|should use|would)\b", re.I)
        return next(
            (
                (s, m)
                for s, m in self.view.find(pattern, self.statements)
                if s.role not in (LIMITATIONS, RECOMMENDATION) and not tentative.search(s.text)
            ),
            None,
        )

    @cached_property
    def uncertainty(self) -> tuple[Sentence, re.Match[str]] | None:
        """Where the document reports how uncertain a number is: an interval with its bounds, a
        p-value or test statistic with its value, a standard error or a margin (+/-) with a number.
        The name of a test ("a t-test was run"), "the range of 0 to 1" or a standard deviation of a
        population is not a reported uncertainty."""
        for s in self.statements:
            m = numeric_uncertainty(s.text)
            if m:
                return s, m
        return None

    @cached_property
    def significance_claims(self) -> list[Sentence]:
        """Sentences that state a result as (not) statistically significant."""
        return [s for s in self.statements if lx.SIGNIFICANCE_WORD.search(s.text) and s.role not in (LIMITATIONS, APPENDIX)]

    @cached_property
    def limitation(self) -> tuple[Sentence, re.Match[str] | None] | None:
        """Where the document states its limits: a limitations/caveats section or a caveat panel
        or label, one sentence that says what the analysis does not show or where its result may
        not hold ("this might not hold on other data sets", "I have not tried to separate these
        effects"), or at least two distinct weaker limitation phrases. A null result ("we cannot
        say the groups differ") is a result, not a limitation."""
        # a section whose heading names the limits (limitations, caveats, a disclaimer, what the data cannot show);
        # an extraction's "Limitations" excerpt is a label, not the author's heading: its text must read as one
        section = re.compile(r"\b(limitations?|caveats?|disclaimers?|fine print|scope and limits|health warnings?|"
                             r"threats? to validity|what (?:we|this) (?:don'?t|does not|cannot)|"
                             r"what the data cannot|known issues|open questions)\b", re.I)
        lim = [s for s in self.statements if s.role == LIMITATIONS and (section.search(s.section) or s.kind == "heading")
               and not (self.view.is_extraction and s.section == s.excerpt)]
        if lim:
            body = next((s for s in lim if s.kind != "heading"), lim[0])
            return body, None
        candidates = [s for s in self.statements if not lx.SIGNIFICANCE_WORD.search(s.text)]
        for s in candidates:
            m = lx.CAVEAT_LABEL.search(s.text) or lx.STRONG_LIMITATION.search(s.text)
            if m:
                return s, m
        # an assumption the result rests on, with how it could fail: "The model assumes that mobile signups were not
        # affected. That seems reasonable, although some people may have started on the web."
        for n, s in enumerate(candidates):
            if _ASSUMES.search(s.text):
                pair = " ".join(x.text for x in candidates[n:n + 2])
                m = _CONCEDED.search(pair)
                if m:
                    return s, _ASSUMES.search(s.text)
        panel = lx.CAVEAT_PANEL.search(self.view.content)
        if panel:
            line = self.view.content.count("\n", 0, panel.start()) + 1
            near = next((s for s in self.statements if s.line >= line), None)
            if near is not None:
                return near, None
        hits: dict[str, tuple[Sentence, re.Match[str]]] = {}
        for s in candidates:
            for m in lx.LIMITATION.finditer(s.text):
                hits.setdefault(m.group(0).lower(), (s, m))
        if len(hits) >= 2:
            return next(iter(hits.values()))
        return None

    @cached_property
    def question(self) -> tuple[Sentence, re.Match[str] | None] | None:
        for s in self.prose:
            m = lx.QUESTION_SIGNAL.search(s.text)
            if m:
                return s, m
        for s in self.prose:
            if s.text.rstrip("*_ ").endswith("?") and s.pos <= 0.35 and s.role not in (LIMITATIONS, APPENDIX):
                return s, None
        return None

    @cached_property
    def interpretive(self) -> list[Sentence]:
        return [s for s in self.prose if lx.INTERPRET.search(s.text)]

    @cached_property
    def reads_as_deck(self) -> list[Sentence]:
        marks = [s for s in self.view.sentences if lx.SLIDE_MARKER.search(s.text)]
        if self.view.is_extraction:
            marks += [
                Sentence(h.text, h.line, h.text, OTHER, "heading", 0.0, (), False, h.line)
                for h in self.view.headings
                if lx.SLIDE_MARKER.search(h.text)
            ]
        return marks

    @cached_property
    def bullet_share(self) -> float:
        items = [s for s in self.text_sentences if s.kind in ("prose", "bullet")]
        if not items:
            return 0.0
        return sum(1 for s in items if s.kind == "bullet") / len(items)

    def _stubbed(self, roles: tuple[str, ...], word: str) -> Sentence | None:
        """A placeholder standing in for a part: 'TODO: add method', or a section that holds
        nothing but placeholders."""
        explicit = re.compile(rf"\b(?:TODO|TBD|FIXME)\b[^.]{{0,30}}\b{word}|\b{word}\w*\s*(?:\(|:|-|—)?\s*(?:TODO|TBD)\b", re.I)
        for s in self.text_sentences:
            if explicit.search(s.text):
                return s
        by_section: dict[str, list[Sentence]] = {}
        for s in self.text_sentences:
            if s.role in roles and s.kind != "heading" and not s.guessed:
                by_section.setdefault(s.section, []).append(s)
        stubbed = [p for p in by_section.values() if all(lx.PLACEHOLDER.search(s.text) or count_words(s.text) <= 2 for s in p)]
        if stubbed and len(stubbed) == len(by_section):
            return stubbed[0][0]
        if stubbed and any(re.search(rf"\b{word}", sec, re.I) for sec in by_section if by_section[sec] in stubbed):
            return next(p[0] for sec, p in by_section.items() if p in stubbed and re.search(rf"\b{word}", sec, re.I))
        return None

    @cached_property
    def stubs(self) -> dict[str, Sentence]:
        out = {}
        for key, roles, word in (
            ("method", (METHOD,), "method"),
            ("results", (RESULTS,), "result"),
            ("conclusion", (CONCLUSION,), "conclusion"),
        ):
            s = self._stubbed(roles, word)
            if s is not None:
                out[key] = s
        return out

    @cached_property
    def method_present(self) -> bool:
        v = self.view
        if "method" in self.stubs:
            return False
        if v.is_extraction and not v.part_absent("METHODOLOGY EXCERPT"):
            return True
        real = [s for s in self.text_sentences if s.role in (METHOD, DATA) and not s.guessed and not lx.PLACEHOLDER.search(s.text)]
        if sum(count_words(s.text) for s in real if s.kind != "heading") >= 12:
            return True
        hits = {
            m.group(0).lower()
            for s in self.text_sentences
            if not lx.PLACEHOLDER.search(s.text) and not s.text.rstrip().endswith("?")
            for m in lx.METHOD_SIGNAL.finditer(s.text)
        }
        return len(hits) >= 3

    @cached_property
    def results_present(self) -> bool:
        v = self.view
        if "results" in self.stubs:
            return False
        if v.is_extraction and not v.part_absent("RESULTS EXCERPT"):
            return True
        real = [s for s in self.body if s.role in (RESULTS, OTHER, BACKGROUND, DATA, METHOD) and not lx.PLACEHOLDER.search(s.text)]
        if not real and not v.content_headings:  # a memo that is all answer: its results are in it
            real = [s for s in self.statements if not lx.PLACEHOLDER.search(s.text)]
        notable = sum(1 for s in real for n in self.nums(s) if n.notable)
        return notable >= 3 or any(s.role == RESULTS and s.kind == "table" for s in real)

    def _states_answer(self, s: Sentence) -> bool:
        t = s.text
        if s.kind == "heading" or lx.PLACEHOLDER.search(t) or t.rstrip("*_ ").endswith("?"):
            return False
        if lx.DEFERRAL.search(t) or lx.TLDR_PURPOSE.search(t) or lx.QUESTION_SIGNAL.search(t):
            return False
        return bool(lx.FINDING_VERB.search(t) or lx.CONCLUSION_SIGNAL.search(t) or any(n.notable for n in self.nums(s)))

    @cached_property
    def results_state_answers(self) -> bool:
        """The results themselves state findings (at least two sentences with a result figure or a
        finding verb): a write-up that describes or measures answers its question there, with or
        without a section named 'Conclusion'."""
        found = [s for s in self.results if s.kind in ("prose", "bullet", "claim") and self._states_answer(s)]
        return len(found) >= 2

    @cached_property
    def conclusion_present(self) -> bool:
        """Somewhere the document states its answer: a conclusion, a summary that answers, or
        a concluding sentence in the text."""
        v = self.view
        if "conclusion" in self.stubs and not any(self._states_answer(s) for s in self.summary):
            return False
        if v.is_extraction and not v.part_absent("RECOMMENDATIONS / CONCLUSIONS"):
            return True
        if any(self._states_answer(s) for s in self.text_sentences if s.role in (CONCLUSION, SUMMARY, RECOMMENDATION)):
            return True
        return any(
            lx.CONCLUSION_SIGNAL.search(s.text) and self._states_answer(s)
            for s in self.prose
            if s.role not in (METHOD, DATA, LIMITATIONS)
        )

    @cached_property
    def acronyms(self) -> list[tuple[str, Sentence, re.Match[str], bool]]:
        """Each distinct acronym once: (acronym, first sentence, match, defined?)."""
        pattern = re.compile(r"(?<![\w/-])([A-Z][A-Z0-9]{1,7}|[A-Z]\d{1,3}[A-Z]?)(?:s)?(?![\w/])(?!-\d)")
        seen: dict[str, tuple[Sentence, re.Match[str]]] = {}
        for s in self.text_sentences:
            capitals = [c.span() for c in _CAPITALS_RUN.finditer(s.text)]
            for m in pattern.finditer(s.text):
                if any(a <= m.start() < b for a, b in capitals):
                    continue  # a title set in capitals ("INFERRING CAUSAL IMPACT USING ..."): words, not acronyms
                tok = m.group(1)
                if not re.search(r"[A-Z].*[A-Z0-9]|[A-Z]\d", tok):
                    continue
                if re.fullmatch(r"[QH][1-4]|FY\d*|P\d{2,3}|[A-Z]\d{3,}|V\d+", tok):
                    continue
                if tok not in seen:
                    seen[tok] = (s, m)
        text = self.view.content
        out = []
        for tok, (s, m) in seen.items():
            t = re.escape(tok)
            defined = bool(
                re.search(rf"\({t}s?\)|\b{t}s?\s*\((?!\d)|\*\*{t}\*\*\s*[:=(—–-]|^\s*[-*+]\s+\*{{0,2}}{t}\*{{0,2}}\s*[:=—–]|\b{t}\s*(?:=|stands for|means|is short for|is defined as)\s"
                          rf"|\b(?:call|calls|called|name|named|known as|referred to as|abbreviated(?: as)?)\s+(?:this|it|them|these)?\s*[`*_\"']*{t}\b",
                          text, re.M)
            )
            out.append((tok, s, m, defined))
        return out
