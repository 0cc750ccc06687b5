"""Bytes -> text: UTF-8 with or without a byte-order mark, UTF-16/32 with one, and legacy
single-byte files by charset detection (with a warning naming the encoding); a mostly-ASCII file
with a few Windows-1252 bytes is read as Windows-1252 without asking the detector. Binary data is
a one-line error."""

from __future__ import annotations

import codecs

from review_harness.core.documents.model import DocumentError
from review_harness.core.files import looks_binary

_BOMS = (
    (codecs.BOM_UTF32_LE, "utf-32", "UTF-32"),
    (codecs.BOM_UTF32_BE, "utf-32", "UTF-32"),
    (codecs.BOM_UTF8, "utf-8-sig", "UTF-8"),
    (codecs.BOM_UTF16_LE, "utf-16", "UTF-16"),
    (codecs.BOM_UTF16_BE, "utf-16", "UTF-16"),
)
# the encoding most legacy Western files are in; preferred when it reads the bytes as well
# as the detector's first guess does
PREFERRED_LEGACY = "cp1252"
PREFERRED_CHAOS_MARGIN = 0.05
_DISPLAY = {"cp1252": "Windows-1252", "cp1250": "Windows-1250", "cp1251": "Windows-1251",
            "latin_1": "ISO-8859-1", "iso8859_15": "ISO-8859-15", "mac_roman": "Mac Roman"}


def display_name(encoding: str) -> str:
    key = codecs.lookup(encoding).name.replace("-", "_")
    return _DISPLAY.get(key, encoding.replace("_", "-").upper())


# a file whose other bytes are this rare is Western text with a few typographic characters (an en
# dash, an accented letter): the detector has too little to go on (it may name a multi-byte or an
# Eastern code page, or nothing), Windows-1252 reads it
MOSTLY_ASCII = 0.05


def _mostly_ascii_cp1252(data: bytes) -> bool:
    high = sum(1 for b in data if b >= 0x80)
    if not high or high / len(data) > MOSTLY_ASCII:
        return False
    try:
        data.decode(PREFERRED_LEGACY)
    except UnicodeDecodeError:  # a byte Windows-1252 leaves undefined
        return False
    return True


def _detect_legacy(data: bytes) -> str | None:
    from charset_normalizer import from_bytes

    if _mostly_ascii_cp1252(data):
        return PREFERRED_LEGACY
    best = from_bytes(data).best()
    if best is None:
        return None
    # short Western texts read equally well in several code pages (the detector may name a DOS
    # one); Windows-1252 wins when it reads the bytes about as cleanly as the first guess
    preferred = from_bytes(data, cp_isolation=[PREFERRED_LEGACY]).best()
    if preferred is not None and preferred.chaos <= best.chaos + PREFERRED_CHAOS_MARGIN:
        return PREFERRED_LEGACY
    return best.encoding


def decode(data: bytes, name: str) -> tuple[str, list[str]]:
    """The text of `data` and any warnings; `name` is how errors and warnings name the input."""
    if not data.strip():
        raise DocumentError(f"{name} is empty")
    for bom, codec, label in _BOMS:
        if data.startswith(bom):
            try:
                text = data.decode(codec)
            except UnicodeDecodeError as exc:
                raise DocumentError(f"{name} is not valid {label} text (bad byte at offset {exc.start})") from None
            return text.lstrip("\ufeff"), []
    if looks_binary(data):
        raise DocumentError(f"{name} is not a text file")
    try:
        return data.decode("utf-8"), []
    except UnicodeDecodeError as exc:
        offset = exc.start
    encoding = _detect_legacy(data)
    if encoding is None:
        raise DocumentError(
            f"{name} is not valid UTF-8 text (bad byte at offset {offset}) and its encoding "
            "could not be detected: save it as UTF-8"
        )
    text = data.decode(encoding, errors="replace")
    return text, [
        f"{name} is not UTF-8: read it as {display_name(encoding)} (detected). Check that accented "
        "letters and symbols in quotes read right, or save the file as UTF-8."
    ]
