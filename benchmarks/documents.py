"""Cost of the input layer (review_harness.core.documents): milliseconds to turn one analysis into
prepared markdown, per format, and for a folder of 50 files. Offline; nothing is asserted.

    . .venv/bin/activate
    python benchmarks/documents.py [--quick]

The analysis is tests/data/documents/analysis.md (about 200 words), written out as HTML
(markdown-it), a notebook (nbformat) and a Word file (python-docx); the Confluence figure
converts the recorded page of tests/data/confluence/ (about 550 words) without the network.
Budget: preparation of a document must stay small beside one model call (about 1 s), so the
input layer adds nothing noticeable to a review's wall time.
"""

from __future__ import annotations

import json
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from markdown_it import MarkdownIt  # noqa: E402

from review_harness.core.documents import load, read_file  # noqa: E402
from review_harness.core.documents.confluence import convert_page  # noqa: E402

ANALYSIS = (ROOT / "tests" / "data" / "documents" / "analysis.md").read_text(encoding="utf-8")
PAGE = json.loads((ROOT / "tests" / "data" / "confluence" / "page_2293761.json").read_text(encoding="utf-8"))
RUNS = 20
QUICK_RUNS = 3


def median_ms(fn, runs: int = RUNS) -> float:
    fn()  # warm-up: imports, caches
    times = []
    for _ in range(runs):
        start = time.perf_counter()
        fn()
        times.append((time.perf_counter() - start) * 1000)
    return statistics.median(times)


def write_formats(folder: Path) -> dict[str, Path]:
    import docx
    import nbformat

    paths = {"markdown": folder / "a.md", "html": folder / "a.html", "notebook": folder / "a.ipynb",
             "docx": folder / "a.docx", "windows-1252 markdown": folder / "legacy.md"}
    paths["markdown"].write_text(ANALYSIS, encoding="utf-8")
    paths["windows-1252 markdown"].write_bytes((ANALYSIS + "\nCaf\u00e9 \u201cnotes\u201d \u2014 \u20ac5.\n").encode("cp1252"))
    paths["html"].write_text(MarkdownIt("commonmark").enable("table").render(ANALYSIS), encoding="utf-8")
    cells = [nbformat.v4.new_markdown_cell(part) for part in ANALYSIS.split("\n## ")]
    paths["notebook"].write_text(nbformat.writes(nbformat.v4.new_notebook(cells=cells)), encoding="utf-8")
    document = docx.Document()
    for line in ANALYSIS.splitlines():
        if line.startswith("#"):
            document.add_heading(line.lstrip("# "), level=min(line.count("#"), 3))
        elif line.strip():
            document.add_paragraph(line)
    document.save(str(paths["docx"]))
    return paths


def main() -> None:
    from common import bench_args  # benchmarks/common.py (the script's folder is on sys.path)

    runs = QUICK_RUNS if bench_args(__doc__).quick else RUNS
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        rows = [(name, median_ms(lambda p=path: read_file(p), runs)) for name, path in write_formats(folder).items()]
        rows.append(("confluence page (recorded REST content)", median_ms(lambda: convert_page(PAGE), runs)))
        many = folder / "many"
        many.mkdir()
        for i in range(50):
            (many / f"doc{i:02d}.md").write_text(ANALYSIS, encoding="utf-8")
        rows.append(("folder of 50 markdown files", median_ms(lambda: load(str(many)), runs)))
    width = max(len(name) for name, _ in rows)
    print(f"{'input':<{width}}  median ms ({runs} runs)")
    for name, ms in rows:
        print(f"{name:<{width}}  {ms:8.2f}")
    print("budget: small beside one model call (~1,000 ms)")


if __name__ == "__main__":
    main()
