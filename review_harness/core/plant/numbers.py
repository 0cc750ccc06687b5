"""Numbers as documents write them: read one ('1,234.5', '-3%', '0.04'), and write a new value the
way the original was written (same decimals, thousands separators, sign and percent sign), so a
planted number looks like the author's own."""

from __future__ import annotations

import math
import re
from dataclasses import dataclass

# a number as written: optional sign (ASCII or typographic minus), thousands groups or plain
# digits, optional decimals, optional percent sign
NUMBER = r"[-+\u2212]?(?:\d{1,3}(?:,\d{3})+|\d+)(?:\.\d+)?%?|[-+\u2212]?\.\d+%?"
NUMBER_RE = re.compile(rf"(?<![\w.,])(?:{NUMBER})(?![\w])")


@dataclass(frozen=True)
class Written:
    """How a number was written."""

    decimals: int
    grouped: bool
    percent: bool
    minus: str  # '-' or the typographic minus
    leading_zero: bool  # '0.5' rather than '.5'
    plus: bool  # a positive value written with its sign ('+0.5')


def parse_number(text: str) -> float | None:
    """The value of a number as written, or None. A percent sign is kept out of the value
    ('12%' is 12)."""
    cleaned = text.strip().replace("\u2212", "-").replace(",", "").rstrip("%")
    try:
        value = float(cleaned)
    except ValueError:
        return None
    return value if math.isfinite(value) else None


def how_written(text: str) -> Written:
    text = text.strip()
    body = text.lstrip("-+\u2212").rstrip("%")
    decimals = len(body.split(".", 1)[1]) if "." in body else 0
    return Written(decimals=decimals, grouped="," in body, percent=text.endswith("%"),
                   minus="\u2212" if text.startswith("\u2212") else "-", leading_zero=not body.startswith("."),
                   plus=text.startswith("+"))


def write_like(value: float, original: str, decimals: int | None = None) -> str:
    """`value` written as `original` was: '1,234' -> '1,567'; '0.031' -> '0.004'; '12%' -> '15%'.
    `decimals` overrides the original's (a p-value may need more digits to stay non-zero)."""
    style = how_written(original)
    places = style.decimals if decimals is None else decimals
    body = f"{abs(value):,.{places}f}" if style.grouped else f"{abs(value):.{places}f}"
    if not style.leading_zero and body.startswith("0."):
        body = body[1:]
    nonzero = float(body.replace(",", "") or 0) != 0
    sign = style.minus if value < 0 and nonzero else ("+" if style.plus and value > 0 else "")
    return f"{sign}{body}{'%' if style.percent else ''}"


def distinct_like(value: float, original: str, avoid: float, minus: str | None = None) -> str:
    """`value` written like `original`, with more decimals if needed so that it does not read as
    `avoid` once rounded (a planted number must differ from the one it replaces) and a value
    that is not zero does not read as zero. `minus`: the minus sign to use when the original
    had none (the one its sentence uses)."""
    places = how_written(original).decimals
    text = original
    for extra in range(0, 7):
        text = write_like(value, original, places + extra)
        if minus and text.startswith("-") and "-" not in original and "\u2212" not in original:
            text = minus + text[1:]
        read = parse_number(text)
        if read != round(avoid, places + extra) and (read != 0 or value == 0):
            return text
    return text


def numbers_in(text: str) -> list[tuple[int, int, float]]:
    """(start, end, value) of every number written in `text`."""
    out = []
    for match in NUMBER_RE.finditer(text):
        value = parse_number(match.group(0))
        if value is not None:
            out.append((match.start(), match.end(), value))
    return out
