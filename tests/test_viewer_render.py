"""A review renders in `inspect view` whatever its document quotes (issue 33, point 1): for each
kind, a review of a document quoting `$`, `|`, `<`, a backtick and emphasis characters is opened
in the viewer in headless Chromium, and its markdown structure (headings, tables, bold labels)
is there in every tab that shows it (SCORING, MESSAGES), the quoted characters shown as text.

First paint: Inspect's viewer shows every markdown block as its source for the frame before its
renderer runs, whatever the text; what a review controls is whether it then waits for the TeX
renderer (2.7 MB, loaded for any text with a `$`: the raw report a newcomer saw) and whether it
renders as math. A recorder in the page notes every frame's state of the report from the first
paint on: it is never math, and once rendered it never shows raw again; the viewer's own
markdown module, given the review, does not load the TeX renderer (and does for the same report
as the kinds write it, so the check can fail).

Needs `chromium` (apt-get install chromium); skipped without it, except when REQUIRE_CHROMIUM=1
(.ci/run sets it), where a missing browser fails the test.
"""

from __future__ import annotations

import asyncio
import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from inspect_ai import eval as inspect_eval

from helpers import load_task_file
from review_harness.core.kinds import get_kind
from review_harness.core.paths import PROJECT_ROOT
from review_harness.core.viewer import CODE_DOLLAR

sys.path.insert(0, str(PROJECT_ROOT / "scripts"))
import inspect_view_screenshot as browser  # noqa: E402

FIXTURES = PROJECT_ROOT / "fixtures"
QUOTED = "$35 and $2M in `price_v2 | x | <b>y</b> *z* __w__ at $p$"  # '$p$' is TeX to the viewer
TABS = ("scoring", "messages")

pytestmark = pytest.mark.skipif(
    browser.chromium_path() is None and os.environ.get("REQUIRE_CHROMIUM") != "1",
    reason="needs chromium (apt-get install chromium); CI sets REQUIRE_CHROMIUM=1 and fails without it")


def git(repo: Path, *args: str) -> None:
    subprocess.run(["git", "-C", str(repo), "-c", "user.email=t@example.com", "-c", "user.name=t", *args],
                   check=True, capture_output=True)


def documents(folder: Path) -> dict[str, dict[str, str]]:
    """Each kind's input with QUOTED where its review quotes the input (a claim, a requirement,
    the task title, the initiative)."""
    folder.mkdir(parents=True)
    (folder / "memo.md").write_text(
        "# Premium price test\n\n## TL;DR\n"
        f"Raising the premium tier to {QUOTED} caused the revenue growth this quarter.\n\n"
        "## Method\nWe compared the quarter before the change with the quarter after.\n\n"
        "## Results\nRevenue grew 12% quarter over quarter, from 1.20M to 1.34M; 4,210 of 35,000 subscribers\n"
        "(12%) were on the premium tier at the end of the quarter, against 3,980 at its start.\n\n"
        "## Recommendation\nKeep the new premium price and review it again next quarter.\n", encoding="utf-8")
    shutil.copy(FIXTURES / "design" / "api-rate-limiter" / "design.md", folder / "design.md")
    requirements = (FIXTURES / "design" / "api-rate-limiter" / "requirements.md").read_text(encoding="utf-8")
    overhead = "Rate limiting adds less than 2 ms at p99 to request latency."
    assert overhead in requirements
    (folder / "requirements.md").write_text(requirements.replace(overhead, overhead[:-1] + f" ({QUOTED})."),
                                            encoding="utf-8")
    artifact = json.loads((FIXTURES / "impact" / "ci-excludes-estimate.json").read_text(encoding="utf-8"))
    artifact["metadata"]["initiative_id"] = f"free-shipping {QUOTED}"
    (folder / "impact_results.json").write_text(json.dumps(artifact), encoding="utf-8")
    case = FIXTURES / "code" / "bare-except"
    repo = folder / "repo"
    shutil.copytree(case / "base", repo)
    git(repo, "init", "-q")
    git(repo, "add", "-A")
    git(repo, "commit", "-qm", "base")
    shutil.rmtree(repo / "sync")
    shutil.copytree(case / "head", repo, dirs_exist_ok=True)
    git(repo, "add", "-A")
    git(repo, "commit", "-qm", "head")
    spec = (case / "spec.md").read_text(encoding="utf-8")
    (folder / "SPEC.md").write_text(spec.replace("# Task 14: sync all jobs", f"# Task 14: sync all jobs ({QUOTED})"),
                                    encoding="utf-8")
    return {
        "ds": {"document": str(folder / "memo.md")},
        "design": {"design": str(folder / "design.md"), "requirements": str(folder / "requirements.md"),
                   "output_dir": str(folder / "design-out")},
        "code": {"repo": str(repo), "base": "HEAD~1", "head": "HEAD", "spec": str(folder / "SPEC.md"), "memory": "off"},
        "impact": {"artifact": str(folder / "impact_results.json")},
    }


@pytest.fixture(scope="module")
def reviews(tmp_path_factory):
    """kind -> (log, sample id, the report as the kind renders it), all logs in one folder."""
    root = tmp_path_factory.mktemp("specials")
    logs = root / "logs"
    out = {}
    for kind_name, args in documents(root / "docs").items():
        kind = get_kind(kind_name)
        [log] = inspect_eval(load_task_file(kind.task)(**args), model="offline/rules", log_dir=str(logs / kind_name),
                             display="none")
        assert log.status == "success", log.error
        [sample] = log.samples
        report = kind.render(kind.review_from_score(sample.scores[kind.synthesis_scorer].metadata))
        assert "price_v2" in report, f"the {kind_name} review no longer quotes the input: choose another place"
        out[kind_name] = (Path(log.location), str(sample.id), report)
    return out


@pytest.fixture(scope="module")
def devtools():
    if browser.chromium_path() is None:
        pytest.fail("REQUIRE_CHROMIUM=1 but no chromium on PATH (apt-get install chromium)")
    with browser.chromium() as port:
        yield port


# ---------------------------------------------------------------------------- what the report means


def outside_code(report: str) -> list[str]:
    lines, fenced = [], False
    for line in report.splitlines():
        if line.lstrip().startswith("```"):
            fenced = not fenced
        elif not fenced:
            lines.append(line)
    return lines


DELIMITER_ROW = re.compile(r"^\|(\s*:?-{3,}:?\s*\|)+\s*$")
BOLD_LABEL = re.compile(r"^(?:[-*] |\d+\. )?\*\*([^*`$<]+?)\*\*")


def structure(report: str) -> dict:
    """What the rendered report must hold, read from the kind's markdown: heading levels in
    order, each table's column and row count, the bold labels that open a line. A table row
    with more cells than its header (an input's `|` in a cell) fails here: the viewer would drop
    the extra cells and shift the others."""
    lines = outside_code(report)
    headings = [len(m.group(1)) for line in lines if (m := re.match(r"^(#{1,6})\s+\S", line))]
    tables = []
    for n, line in enumerate(lines):
        if DELIMITER_ROW.match(line) and n and lines[n - 1].startswith("|"):
            rows = 0
            while n + 1 + rows < len(lines) and lines[n + 1 + rows].startswith("|"):
                rows += 1
            columns = line.count("|") - 1
            for row in [lines[n - 1], *lines[n + 1:n + 1 + rows]]:
                assert len(re.findall(r"(?<!\\)\|", row)) - 1 == columns, f"a cell of this row is split: {row}"
            tables.append((columns, rows))
    labels = [m.group(1).strip() for line in lines if (m := BOLD_LABEL.match(line))]
    return {"headings": headings, "tables": tables, "labels": labels}


# the report element's structure as the page renders it
READ_REPORT = """(marker => {
  const els = [...document.querySelectorAll('.markdown-content')].filter(e => (e.innerText || '').includes(marker));
  return els.map(el => ({
    text: el.innerText,
    headings: [...el.querySelectorAll('h1,h2,h3,h4,h5,h6')].map(h => Number(h.tagName[1])),
    tables: [...el.querySelectorAll('table')].map(t => ({
      header: t.querySelectorAll('thead th').length,
      rows: [...t.querySelectorAll('tbody tr')].map(r => r.querySelectorAll('td').length)})),
    strong: [...el.querySelectorAll('strong')].map(s => s.innerText.trim()),
    math: el.querySelectorAll('mjx-container').length,
  }));
})(%s)"""

# every animation frame (what is painted), from the first: the state of the report element
RECORDER = """window.__frames = [];
(() => {
  const marker = %s;
  let last = null;
  const snap = () => {
    const el = [...document.querySelectorAll('.markdown-content')].find(e => (e.innerText || '').includes(marker));
    if (el) {
      const text = el.innerText || '';
      const state = {
        rendered: !!el.querySelector('h1,h2,h3,table'),
        raw: /(^|\\n)#{1,6} |\\*\\*|\\|---/.test(text),
        math: !!el.querySelector('mjx-container'),
      };
      const key = JSON.stringify(state);
      if (key !== last) { last = key; window.__frames.push({t: performance.now(), ...state}); }
    }
    requestAnimationFrame(snap);
  };
  requestAnimationFrame(snap);
})();"""


def marker_of(report: str) -> str:
    """Words of the report's title that no input holds ('DS Analysis Review')."""
    title = next(line for line in report.splitlines() if line.strip())
    return " ".join(re.sub(r"^[#_*\s]+", "", title).split()[:2])


async def open_tab(devtools: int, port: int, log: Path, sample: str, tab: str, marker: str) -> tuple[list, list, str]:
    async with browser.Page(devtools) as page:
        await page.before_load(RECORDER % json.dumps(marker))
        text, settled = await page.goto(browser.sample_url(port, log, sample, 1, tab), marker, 60)
        assert settled, f"{tab}: the page never showed {marker!r}"
        rendered = await page.evaluate(READ_REPORT % json.dumps(marker))
        return rendered, await page.evaluate("window.__frames"), text


@pytest.mark.parametrize("kind_name", ["ds", "design", "code", "impact"])
def test_a_review_quoting_special_characters_renders_in_every_tab(reviews, devtools, kind_name):
    log, sample, report = reviews[kind_name]
    expected = structure(report)
    assert expected["headings"] and expected["labels"]  # the check has something to find
    marker = marker_of(report)
    with browser.viewer(log.parent) as port:
        for tab in TABS:
            found, frames, page_text = asyncio.run(open_tab(devtools, port, log, sample, tab, marker))
            # nowhere on the page (the header's answer, the scoring table, the review): raw markup
            assert "**" not in page_text, (kind_name, tab)
            assert found, f"{kind_name} {tab}: no rendered report"
            shown = found[-1]
            where = f"{kind_name} {tab}"
            assert shown["headings"] == expected["headings"], where
            assert [(t["header"], len(t["rows"])) for t in shown["tables"]] == expected["tables"], where
            assert all(cells == t["header"] for t in shown["tables"] for cells in t["rows"]), where  # no cell split
            for label in expected["labels"]:
                assert label in shown["strong"], (where, label)
            text = shown["text"]
            assert "**" not in text and "|---" not in text and not re.search(r"(?m)^#{1,6} ", text), where
            # the quoted characters are shown as text: '$' as '$' (the full-width sign had no glyph in a plain
            # Linux machine's fonts), never the escape it is written as
            assert "$35" in text and "$2M" in text and "$p$" in text and "\\$" not in text, where
            assert CODE_DOLLAR not in text, where
            assert "price_v2" in text, where
            assert "<b>y</b>" in text and "| x |" in text, where
            assert shown["math"] == 0, where
            # from the first painted frame: never math, never raw again once rendered
            assert frames and any(f["rendered"] for f in frames), (where, frames)
            assert not any(f["math"] for f in frames), (where, frames)
            first = next(n for n, f in enumerate(frames) if f["rendered"])
            assert not any(f["raw"] for f in frames[first:]), (where, frames)


PIPELINE = """(async (text) => {
  const module = await import('/assets/markdownPipeline.js');
  return await module.renderMarkdown(text);
})(%s)"""


def test_the_viewers_markdown_module_where_tex_cannot_load(reviews, devtools):
    """The viewer's own markdown module, run where its TeX renderer cannot load (a page of the
    viewer's origin that is no HTML document, as a restricted webview would be). A dollar sign is
    given to the viewer escaped (`\\$`, shown as `$` where the viewer runs as it does under
    `inspect view`: the test above), and any `$` asks for TeX: there, a review without one renders,
    and one with them comes back as its source text (docs/usage.md says so)."""
    log, sample, report = reviews["ds"]
    from inspect_ai.log import read_eval_log

    explanation = read_eval_log(str(log)).samples[0].scores[get_kind("ds").synthesis_scorer].explanation
    assert "\\$35" in explanation and not re.search(r"(?<!\\)\$", explanation)  # every dollar escaped
    explanation = explanation.replace("\\$", "USD ")

    async def render(port: int) -> tuple[str, str]:
        async with browser.Page(devtools) as page:
            await page.call("Page.navigate", url=f"http://127.0.0.1:{port}/assets/favicon.svg")
            await asyncio.sleep(0.5)
            return (await page.evaluate(PIPELINE % json.dumps(explanation), await_promise=True),
                    await page.evaluate(PIPELINE % json.dumps(report), await_promise=True))

    with browser.viewer(log.parent) as port:
        as_given, as_written = asyncio.run(render(port))
    assert "<h1>" in as_given and "<table>" in as_given and "<strong>" in as_given and "**" not in as_given
    assert "<h1>" not in as_written and as_written.lstrip().startswith("# ")  # the source text, unrendered


# ---------------------------------------------------------------------------- the log list and the review link

LIST_ROW = re.compile(r"^(?:review_harness/)?(\w+)_review\n[^\n]*\n(-?\d+(?:\.\d+)?)$", re.M)


def test_the_log_lists_score_reads_each_runs_verdict(reviews, devtools, tmp_path):
    """The log list shows one number per log (its headline): for a run of one's own document,
    the verdict's place on its kind's scale (1 passing, 0 strictest, a middle verdict between),
    not the share of passing reviews (0 for every verdict but the passing one)."""
    from inspect_ai.log import read_eval_log

    folder = tmp_path / "list"
    folder.mkdir()
    expected = {}
    for kind_name, (log, _, _) in reviews.items():
        kind = get_kind(kind_name)
        shutil.copy(log, folder / log.name)
        [sample] = read_eval_log(str(log)).samples
        got = sample.scores[kind.synthesis_scorer].value[kind.verdict_key]
        expected[kind_name] = 1 - kind.verdicts.index(got) / (len(kind.verdicts) - 1)
    assert any(0 < value < 1 for value in expected.values()), expected  # a middle verdict: 'passed' read 0 for it

    async def read(port: int) -> str:
        async with browser.Page(devtools) as page:
            text, settled = await page.goto(f"http://127.0.0.1:{port}/#/logs/", "impact_review", 60)
            assert settled, text[-2000:]
            return text

    with browser.viewer(folder) as port:
        text = asyncio.run(read(port))
    shown = {kind: float(value) for kind, value in LIST_ROW.findall(text)}
    assert shown.keys() == expected.keys(), text[-2000:]
    for kind_name, value in expected.items():
        assert shown[kind_name] == pytest.approx(value, abs=1e-3), (kind_name, shown)


@pytest.mark.parametrize("kind_name", ["ds", "impact"])
def test_the_terminals_review_link_opens_the_rendered_review(reviews, devtools, kind_name):
    """The address the terminal prints after a run opens the sample on its review, rendered,
    not on the transcript's first model call (a reviewer's instructions)."""
    from review_harness.core.inspect_adapter import VIEW_ADDRESS
    from review_harness.core.viewer import review_url

    log, sample, report = reviews[kind_name]
    marker = marker_of(report)
    link = review_url(log, sample)
    assert link.startswith(VIEW_ADDRESS + "/")

    async def read(port: int) -> tuple[str, list]:
        async with browser.Page(devtools) as page:
            text, settled = await page.goto(link.replace(VIEW_ADDRESS, f"http://127.0.0.1:{port}"), marker, 60)
            assert settled, text[-2000:]
            return text, await page.evaluate(READ_REPORT % json.dumps(marker))

    with browser.viewer(log.parent) as port:
        text, found = asyncio.run(read(port))
    assert found and found[-1]["headings"] == structure(report)["headings"], kind_name
    assert "SYSTEM" not in text  # no model call's messages on the page
