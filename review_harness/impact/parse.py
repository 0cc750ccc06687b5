"""Reading the reviewer's answer into dimension scores.

The text format first::

    DIMENSION: <name>
    SCORE: <0.0-1.0>
    JUSTIFICATION: <text, may run over several lines>
    ...
    OVERALL: <0.0-1.0>

and when it has no DIMENSION line, JSON (fenced or bare): ``{"dimensions": [{"name", "score",
"justification"}], "overall": x}`` or ``{"<dimension>": {"score", "justification"}}`` or
``{"<dimension>": score}``. The rules, each recorded as a warning:

* names are normalised (case, spaces, hyphens, markdown emphasis) before matching;
* a score written as a percentage ("85%") or out of ten ("8.5/10") is rescaled; any other
  score outside 0-1 is clamped to the nearest bound; a score that is not a number, or a number
  followed by anything but words or a parenthesis (a garbled answer), drops the dimension;
* blocks are strict: a SCORE belongs to the ``DIMENSION:`` line that opens its block, never to an
  earlier one. Any other header-like line (``Dimension - methodology_fit``, ``## Rigor``, a bold
  line) opens a block without a recognised name, whose SCORE is dropped with a warning naming it;
  two SCORE lines in one block drop that dimension (the score is ambiguous), and so do two blocks
  of one dimension with different scores; a SCORE before any block is dropped;
* a dimension the template does not ask for is dropped; a missing dimension stays missing (the
  review is partial);
* ``VERDICT: usable | caution | unusable`` (or ``"verdict"`` in JSON) is the reviewer's own
  verdict; the review's verdict is the stricter of it and the checks' (verdict.py);
* overall_score is the mean of the kept dimensions; the model's OVERALL is kept for audit only.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from pydantic import BaseModel, ConfigDict, create_model

from review_harness.core.jsonsalvage import load_json_lenient
from review_harness.core.schema import response_schema
from review_harness.impact.models import ReviewDimension, Verdict
from review_harness.impact.verdict import read_verdict

NUMBER = re.compile(r"^\s*([-+]?\d+(?:\.\d+)?|[-+]?\.\d+)\s*(%|/\s*10(?:\.0)?|/\s*100)?")
TRAILING_OK = re.compile(r"^[(\-\u2013\u2014A-Za-z]")  # "0.7 (solid)", "0.7 - fine", "0.7 out of 1"
FENCE = re.compile(r"```(?:json)?\s*\n(.*?)```", re.DOTALL)
KEY_LINE = re.compile(r"^\s*[*_#>\-\s]*(DIMENSION|SCORE|JUSTIFICATION|OVERALL|VERDICT)[*_\s]*:[*_\s]*(.*)$", re.IGNORECASE)
# a line that looks like the start of a block but is not `DIMENSION: <name>`
HEADER_LIKE = re.compile(r"^\s*(?:[*_>\-\s]*dimension\b|#{1,6}\s+\S|\*\*[^*]+\*\*\s*:?\s*$|__[^_]+__\s*:?\s*$)", re.IGNORECASE)


class DimensionAnswer(BaseModel):
    model_config = ConfigDict(extra="forbid")
    score: float
    justification: str


def answer_schema(dimensions: list[str]):
    """One required key per dimension of the template (a schema-valid answer always scores
    every dimension), plus the model's overall score, kept for audit."""
    fields = {name: (DimensionAnswer, ...) for name in dimensions}
    model = create_model("StructuredAnswer", __config__=ConfigDict(extra="forbid"),
                         **fields, overall=(float | None, ...), verdict=(Verdict | None, ...))
    return response_schema(
        "impact_review", model,
        description="A score from 0 to 1 and a justification per dimension, an overall score and a verdict.",
    )


def normalize_name(name: str) -> str:
    text = re.sub(r"[*_`#]+", " ", name.strip().lower())
    return re.sub(r"[^a-z0-9]+", "_", text).strip("_")


@dataclass
class ParsedAnswer:
    dimensions: list[ReviewDimension] = field(default_factory=list)
    model_overall: float | None = None
    verdict: Verdict | None = None
    format: str = "none"
    warnings: list[str] = field(default_factory=list)
    ambiguous: set[str] = field(default_factory=set)  # dimensions dropped for two different scores

    @property
    def overall(self) -> float | None:
        if not self.dimensions:
            return None
        return round(sum(d.score for d in self.dimensions) / len(self.dimensions), 4)

    def missing(self, expected: list[str]) -> list[str]:
        got = {d.name for d in self.dimensions}
        return [d for d in expected if d not in got]


def read_score(raw: object, label: str, warnings: list[str]) -> float | None:
    """A 0-1 score from a number or text, by the rules above; None when there is none."""
    if isinstance(raw, bool):
        raw = None
    if isinstance(raw, (int, float)):
        value, unit = float(raw), ""
    else:
        match = NUMBER.match(str(raw or ""))
        if not match:
            warnings.append(f"{label}: score {str(raw)!r} is not a number; dimension dropped")
            return None
        rest = str(raw)[match.end():].strip()
        if rest and not TRAILING_OK.match(rest):  # "0.5 <<garbage>> 5" is not 0.5
            warnings.append(f"{label}: score {str(raw)!r} is not a clean number; dimension dropped")
            return None
        value, unit = float(match.group(1)), (match.group(2) or "").replace(" ", "")
    if unit == "%" or unit == "/100":
        warnings.append(f"{label}: score {raw} read as {value / 100:g} (percent)")
        value /= 100
    elif unit.startswith("/10"):
        warnings.append(f"{label}: score {raw} read as {value / 10:g} (out of 10)")
        value /= 10
    if value != value:  # NaN
        warnings.append(f"{label}: score is NaN; dimension dropped")
        return None
    if not 0.0 <= value <= 1.0:
        clamped = min(1.0, max(0.0, value))
        warnings.append(f"{label}: score {value:g} is outside 0-1; clamped to {clamped:g}")
        value = clamped
    return round(value, 4)


def _add(parsed: ParsedAnswer, expected: list[str], name: str, score: object, justification: str) -> None:
    key = normalize_name(name)
    label = f"dimension {name.strip()!r}"
    if key not in expected:
        parsed.warnings.append(f"{label}: not a dimension of this template; dropped")
        return
    value = read_score(score, label, parsed.warnings)
    if value is None:
        return
    earlier = next((d for d in parsed.dimensions if d.name == key), None)
    if earlier is not None:
        if earlier.score != value:
            parsed.dimensions.remove(earlier)
            parsed.ambiguous.add(key)
            parsed.warnings.append(f"{label}: two blocks with different scores ({earlier.score:g} and {value:g}); dropped")
        else:
            parsed.warnings.append(f"{label}: repeated with the same score; the first one is kept")
        return
    if key in parsed.ambiguous:
        return
    text = " ".join(str(justification or "").split())
    if not text:
        parsed.warnings.append(f"{label}: no justification given")
    parsed.dimensions.append(ReviewDimension(name=key, score=value, justification=text))


@dataclass
class _Block:
    header: str  # the line that opened it
    name: str | None  # the name after `DIMENSION:`; None for a header-like line
    scores: list[str] = field(default_factory=list)
    justification: str = ""
    has_justification: bool = False


def _parse_text(text: str, expected: list[str], parsed: ParsedAnswer) -> bool:
    if not any((m := KEY_LINE.match(line)) and m.group(1).upper() == "DIMENSION" for line in text.splitlines()):
        return False
    blocks: list[_Block] = []
    current: _Block | None = None
    last_key: str | None = None
    for line in text.splitlines():
        match = KEY_LINE.match(line)
        if match:
            key, value = match.group(1).upper(), match.group(2).strip().rstrip("*_").strip()
            last_key = None
            if key == "DIMENSION":
                current = _Block(header=line.strip(), name=value)
                blocks.append(current)
            elif key == "OVERALL":
                parsed.model_overall = read_score(value, "OVERALL", [])
                current = None
            elif key == "VERDICT":
                parsed.verdict = read_verdict(value)
                if parsed.verdict is None:
                    parsed.warnings.append(f"VERDICT {value[:40]!r} is not usable, caution or unusable; ignored")
                current = None
            elif current is None:
                if key == "SCORE":
                    parsed.warnings.append(f"SCORE {value[:40]!r} before any DIMENSION line; dropped")
            elif key == "SCORE":
                current.scores.append(value)
            else:  # JUSTIFICATION
                current.justification = (current.justification + " " + value).strip()
                current.has_justification = True
                last_key = "justification"
            continue
        if HEADER_LIKE.match(line):
            current = _Block(header=line.strip(), name=None)
            blocks.append(current)
            last_key = None
            continue
        if current is not None and last_key == "justification" and line.strip():
            current.justification += " " + line.strip()
    for block in blocks:
        if block.name is None:
            if block.scores:
                parsed.warnings.append(f"block {block.header[:80]!r}: not a 'DIMENSION: <name>' line; its SCORE is dropped")
            continue
        if not block.scores:
            parsed.warnings.append(f"dimension {block.name!r}: no SCORE line; dimension dropped")
            continue
        if len(block.scores) > 1:
            key = normalize_name(block.name)
            parsed.ambiguous.add(key)
            parsed.dimensions = [d for d in parsed.dimensions if d.name != key]
            parsed.warnings.append(f"dimension {block.name!r}: {len(block.scores)} SCORE lines in one block; dropped")
            continue
        _add(parsed, expected, block.name, block.scores[0], block.justification)
    parsed.format = "text"
    return True


def _json_candidates(text: str) -> list[str]:
    return [m.group(1) for m in FENCE.finditer(text)] + [text]


def _parse_json(text: str, expected: list[str], parsed: ParsedAnswer) -> bool:
    for candidate in _json_candidates(text):
        data, repaired, problem, _ = load_json_lenient(candidate)
        if not isinstance(data, dict):
            continue
        if repaired:
            parsed.warnings.append(f"JSON answer repaired: {problem}")
        items = data.get("dimensions")
        if isinstance(items, list):
            for n, item in enumerate(items, 1):
                if not isinstance(item, dict) or "name" not in item:
                    parsed.warnings.append(f"dimensions item {n}: not an object with a name; dropped")
                    continue
                _add(parsed, expected, str(item["name"]), item.get("score"), item.get("justification", ""))
        else:
            scores = data.get("scores") if isinstance(data.get("scores"), dict) else data
            for name, value in scores.items():
                if normalize_name(name) in ("overall", "overall_score", "verdict"):
                    continue
                if isinstance(value, dict):
                    _add(parsed, expected, name, value.get("score"), value.get("justification", ""))
                elif isinstance(value, (int, float, str)) and normalize_name(name) in expected:
                    _add(parsed, expected, name, value, "")
                else:
                    parsed.warnings.append(f"key {name!r}: not a dimension score; dropped")
        overall = data.get("overall", data.get("overall_score"))
        if overall is not None:
            parsed.model_overall = read_score(overall, "overall", [])
        if data.get("verdict") is not None:
            parsed.verdict = read_verdict(data["verdict"])
        parsed.format = "json"
        return True
    return False


def parse_answer(text: str, expected: list[str]) -> ParsedAnswer:
    parsed = ParsedAnswer()
    if not text or not text.strip():
        parsed.warnings.append("empty answer")
        return parsed
    if not _parse_text(text, expected, parsed) and not _parse_json(text, expected, parsed):
        parsed.warnings.append("answer has neither DIMENSION lines nor a JSON object")
        return parsed
    for name in parsed.missing(expected):
        parsed.warnings.append(f"dimension {name!r}: missing from the answer")
    return parsed


def format_instructions(dimensions: list[str]) -> str:
    """What the engine asks for: the text format, one block per dimension."""
    blocks = "\n".join(f"DIMENSION: {d}\nSCORE: <0.0-1.0>\nJUSTIFICATION: <why, naming the numbers>" for d in dimensions)
    return (
        "Answer in exactly this format, one block per dimension in this order, then the overall score and "
        "your verdict. No other text.\n" + f"Dimensions to score: {', '.join(dimensions)}\n\n" + blocks
        + "\nOVERALL: <0.0-1.0>\nVERDICT: <usable | caution | unusable>"
    )
