"""Confluence pages through a local server replaying recorded REST responses (pytest-httpserver):
conversion of the storage format, the client's errors and retries, and a review end to end."""

from __future__ import annotations

import base64
import json
import logging
from pathlib import Path

import pytest
from review_harness.core.inspect_adapter import PrerequisiteError
from inspect_ai.log import read_eval_log
from werkzeug import Response

from helpers import ds_review_task, reviews, run
from review_harness.core.documents import DocumentError, load
from review_harness.core.documents import confluence as cf

DATA = Path(__file__).parent / "data" / "confluence"
PAGE_ID = "2293761"
PAGE = json.loads((DATA / "page_2293761.json").read_text())
COMMENTS = json.loads((DATA / "comments_2293761.json").read_text())
USER, TOKEN = "analyst@acme.example", "ATATT3xFfGF0-sentinel-9c1e77d2"
CONTENT = f"/wiki/rest/api/content/{PAGE_ID}"


@pytest.fixture(autouse=True)
def fast_retries(monkeypatch):
    monkeypatch.setattr(cf, "RETRY_WAIT_BASE", 0.0)
    for name in (cf.ENV_URL, cf.ENV_PERSONAL_TOKEN):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv(cf.ENV_USERNAME, USER)
    monkeypatch.setenv(cf.ENV_API_TOKEN, TOKEN)


def page_url(httpserver, page_id: str = PAGE_ID) -> str:
    return httpserver.url_for(f"/wiki/spaces/DS/pages/{page_id}/Checkout+redesign")


def serve_page(httpserver) -> None:
    httpserver.expect_request(CONTENT).respond_with_json(PAGE)
    httpserver.expect_request(f"{CONTENT}/child/comment").respond_with_json(COMMENTS)


# ------------------------------------------------------------------ storage format -> markdown


def test_storage_conversion_keeps_what_the_page_signals():
    markdown, collapsed = cf.convert_page(PAGE)
    lines = markdown.split("\n")
    assert lines[0] == "# Checkout redesign: one-page checkout A/B test"
    assert lines[2] == ("Last updated: 2026-10-02 by Priya Raman · Space: DS (Data Science) · "
                        "Labels: ab-test, checkout, audience-product")
    assert lines[3] == "Child pages (not reviewed): One-page checkout: segment deep dive"
    assert "> [!INFO] TL;DR" in lines
    assert "> The one-page checkout raised completed orders per checkout visit from 61.2% to 63.0%" in markdown
    assert "Status: [status: IN REVIEW] · Owner: @user-7d4ef5 · Reviewers: @user-1a2b3c" in lines
    assert "Contents: Background · Method · Results · Limitations · Recommendation" in lines
    assert "| Completed orders per checkout visit | 61.2% | 63.0% | +1.8 pts (+1.1 to +2.5) |" in lines
    assert "[image: Daily conversion by arm, 1-28 September (daily-conversion-by-arm.png)]" in lines
    assert "Raw extracts are attached: [attachment: checkout_test_extract.csv]." in markdown
    assert "```sql" in lines and "ORDER BY a.arm;" in lines
    assert "AVG(v.completed) AS completion_rate" in markdown  # CDATA kept verbatim, '<' and all
    [span] = collapsed
    assert span.title == "Appendix: query and data checks"
    assert lines[span.start - 1] == "<details>"
    assert lines[span.start] == "<summary>Appendix: query and data checks (collapsed: expand macro)</summary>"
    assert lines[span.end - 1] == "</details>"
    assert span.start < lines.index("```sql") < span.end


def test_nested_panels_tasks_and_unknown_macros():
    storage = (
        '<ac:structured-macro ac:name="note"><ac:rich-text-body><p>Numbers are preliminary.</p>'
        '<ac:structured-macro ac:name="expand"><ac:parameter ac:name="title">Why</ac:parameter>'
        '<ac:rich-text-body><p>The export was cut on Monday.</p></ac:rich-text-body></ac:structured-macro>'
        '</ac:rich-text-body></ac:structured-macro>'
        '<ac:task-list><ac:task><ac:task-status>complete</ac:task-status><ac:task-body>Check SRM</ac:task-body></ac:task>'
        '<ac:task><ac:task-status>incomplete</ac:task-status><ac:task-body>Rerun at peak</ac:task-body></ac:task></ac:task-list>'
        '<ac:structured-macro ac:name="section"><ac:rich-text-body><p>Inside a section macro.</p></ac:rich-text-body></ac:structured-macro>'
        '<p>See <ac:link><ri:page ri:content-title="Checkout metrics glossary" /></ac:link> and '
        '<ac:structured-macro ac:name="jira"><ac:parameter ac:name="key">PAY-142</ac:parameter></ac:structured-macro>.</p>'
    )
    markdown, collapsed = cf.storage_to_markdown(storage)
    assert markdown.startswith("> [!NOTE]\n>\n> Numbers are preliminary.")
    assert "> <details>" in markdown and "> The export was cut on Monday." in markdown
    assert [c.title for c in collapsed] == ["Why"]
    assert "- [x] Check SRM" in markdown and "- [ ] Rerun at peak" in markdown
    assert "Inside a section macro." in markdown
    assert "See Checkout metrics glossary and [Jira: PAY-142]." in markdown


def test_a_draft_status_macro_is_pointed_out(tmp_path):
    storage = (DATA / "storage_2293761.xml").read_text().replace(
        '<ac:parameter ac:name="title">IN REVIEW</ac:parameter>', '<ac:parameter ac:name="title">DRAFT</ac:parameter>')
    path = tmp_path / "draft.xml"
    path.write_text(storage)
    doc = load(str(path)).documents[0]
    assert doc.warnings == [f"{path} is marked 'DRAFT' by a status macro: it is reviewed in full, with lighter "
                            "penalties for polish; for draft feedback without a score, rerun with -T draft=true."]
    assert cf.page_metadata(PAGE)["status"] == ["IN REVIEW"]


def test_storage_export_file_is_read_as_a_confluence_page(tmp_path):
    doc = load(str(DATA / "storage_2293761.xml")).documents[0]
    assert doc.format == "confluence-storage"
    assert doc.markdown.startswith("> [!INFO] TL;DR")
    assert [c.title for c in doc.source_map.collapsed] == ["Appendix: query and data checks"]
    plain = tmp_path / "plain.xml"
    plain.write_text("<root><item>1</item></root>")
    with pytest.raises(DocumentError, match=r"plain.xml is not a Confluence storage-format export"):
        load(str(plain))


@pytest.mark.parametrize(
    "url, base, page_id",
    [
        ("https://acme.atlassian.net/wiki/spaces/DS/pages/2293761/Checkout+redesign", "https://acme.atlassian.net/wiki", "2293761"),
        ("https://acme.atlassian.net/wiki/spaces/DS/pages/edit-v2/2293761", "https://acme.atlassian.net/wiki", "2293761"),
        ("https://wiki.corp.example/pages/viewpage.action?pageId=884412", "https://wiki.corp.example", "884412"),
        ("https://wiki.corp.example/confluence/pages/viewpage.action?pageId=7", "https://wiki.corp.example/confluence", "7"),
    ],
)
def test_page_urls(url, base, page_id):
    ref = cf.parse_page_url(url)
    assert (ref.base_url, ref.page_id) == (base, page_id)


def test_credentials_in_the_url_are_refused_without_repeating_them():
    with pytest.raises(PrerequisiteError) as info:
        ds_review_task()(document="https://me:s3cret-token@acme.atlassian.net/wiki/spaces/DS/pages/5/x")
    message = str(info.value)
    assert message == ("https://acme.atlassian.net/wiki/spaces/DS/pages/5/x: remove the credentials from the URL "
                       "and set CONFLUENCE_USERNAME and CONFLUENCE_API_TOKEN (or CONFLUENCE_PERSONAL_TOKEN) instead")
    assert "s3cret" not in message


def test_page_id_needs_a_site():
    with pytest.raises(DocumentError) as info:
        cf.page_ref("2293761", None)
    assert str(info.value) == ("2293761 looks like a Confluence page id: give the site with "
                               "-T confluence=URL (or set CONFLUENCE_URL)")
    with pytest.raises(DocumentError, match="is not a Confluence page URL"):
        cf.parse_page_url("https://acme.atlassian.net/wiki/x/AQAj")
    assert cf.page_ref("2293761", "https://acme.atlassian.net/wiki/").base_url == "https://acme.atlassian.net/wiki"


# ------------------------------------------------------------------ the client


def test_fetch_sends_credentials_from_the_environment(httpserver):
    serve_page(httpserver)
    doc = load(page_url(httpserver), comments=True).documents[0]
    request, comments_request = [r for r, _ in httpserver.log]
    expected = "Basic " + base64.b64encode(f"{USER}:{TOKEN}".encode()).decode()
    assert request.headers["Authorization"] == expected
    assert request.args["expand"] == cf.PAGE_EXPAND
    assert comments_request.path == f"{CONTENT}/child/comment"
    assert doc.name == "confluence-2293761" and doc.format == "confluence"
    assert doc.metadata["labels"] == ["ab-test", "checkout", "audience-product"]
    assert doc.metadata["last_modified"] == "2026-10-02T14:03:11.902Z"
    assert doc.metadata["child_pages"] == ["One-page checkout: segment deep dive"]
    assert "**Tomasz Nowak:**" in doc.markdown  # comments follow the page, collapsed
    assert doc.source_map.collapsed[-1].title == "Page comments (1), not part of the page"
    assert doc.warnings == [f"Confluence page {PAGE_ID} ({page_url(httpserver)}) has 1 child page(s): "
                            "only this page is reviewed."]


def test_personal_access_token_is_a_bearer_token(httpserver, monkeypatch):
    monkeypatch.setenv(cf.ENV_PERSONAL_TOKEN, "pat-sentinel-5521")
    serve_page(httpserver)
    load(page_url(httpserver))
    [(request, _)] = httpserver.log
    assert request.headers["Authorization"] == "Bearer pat-sentinel-5521"


@pytest.mark.parametrize(
    "status, body, expected",
    [
        (404, (DATA / "error_404.json").read_text(), "page not found (404): verify the URL and your permissions"),
        (401, (DATA / "error_401.txt").read_text(),
         "Confluence authentication failed (401): set CONFLUENCE_USERNAME and CONFLUENCE_API_TOKEN "
         "(or CONFLUENCE_PERSONAL_TOKEN) to valid credentials"),
        (403, (DATA / "error_403.json").read_text(),
         "no permission to read this page (403): verify the URL and your permissions"),
    ],
)
def test_http_errors_are_one_line_naming_the_page(httpserver, status, body, expected):
    httpserver.expect_request(CONTENT).respond_with_data(body, status=status, content_type="application/json")
    with pytest.raises(PrerequisiteError) as info:
        ds_review_task()(document=page_url(httpserver))
    message = str(info.value)
    assert message == f"Confluence page {PAGE_ID} ({page_url(httpserver)}): {expected}"
    assert TOKEN not in message and USER not in message
    assert len(httpserver.log) == 1  # not retried


def test_rate_limit_is_retried_then_reported(httpserver):
    httpserver.expect_request(CONTENT).respond_with_response(
        Response((DATA / "error_429.json").read_text(), status=429, headers={"Retry-After": "0"}))
    with pytest.raises(DocumentError) as info:
        load(page_url(httpserver))
    assert str(info.value).endswith("Confluence API rate limit reached (429): try again in a few minutes")
    assert len(httpserver.log) == cf.RETRIES + 1


def test_transient_server_error_is_retried(httpserver):
    httpserver.expect_ordered_request(CONTENT).respond_with_data("upstream timeout", status=503)
    httpserver.expect_ordered_request(CONTENT).respond_with_json(PAGE)
    doc = load(page_url(httpserver)).documents[0]
    assert doc.metadata["title"] == "Checkout redesign: one-page checkout A/B test"
    assert len(httpserver.log) == 2


def test_unreachable_site_and_timeout(monkeypatch, httpserver):
    monkeypatch.setattr(cf, "RETRIES", 0)
    with pytest.raises(DocumentError) as info:
        load("http://127.0.0.1:9/wiki/spaces/DS/pages/5/x")
    assert str(info.value) == (
        "Confluence page 5 (http://127.0.0.1:9/wiki/spaces/DS/pages/5/x): cannot connect to "
        "http://127.0.0.1:9/wiki: check the site and your network, or copy the page to a local .md "
        "file and review that")
    monkeypatch.setattr(cf, "TIMEOUT_SECONDS", 1)

    def slow(request):
        import time
        time.sleep(1.5)
        return Response("{}", status=200)

    httpserver.expect_request(CONTENT).respond_with_handler(slow)
    with pytest.raises(DocumentError, match=r"no answer within 1 s \(timeout\)"):
        load(page_url(httpserver))


def test_debug_logging_never_shows_credentials(httpserver, caplog, monkeypatch):
    monkeypatch.setenv(cf.ENV_PERSONAL_TOKEN, "pat-sentinel-5521")
    serve_page(httpserver)
    with caplog.at_level(logging.DEBUG):
        load(page_url(httpserver))
    assert "pat-sentinel-5521" not in caplog.text and TOKEN not in caplog.text


# ------------------------------------------------------------------ end to end


def _log_text(log_location: str) -> str:
    """Everything the log file holds, decoded by Inspect (its zip members may use a compression
    the standard library cannot read), attachments resolved."""
    return read_eval_log(log_location, resolve_attachments=True).model_dump_json()


def test_page_reviewed_end_to_end(httpserver, tmp_path):
    serve_page(httpserver)
    log = run(tmp_path, document=page_url(httpserver))
    assert log.status == "success"
    review = reviews(log)["confluence-2293761"]
    titles = [f.title for f in review.findings]
    assert "No TL;DR up front" not in titles  # the info panel at the top is the TL;DR
    assert "Supporting detail sits in the main body" not in titles  # the appendix is collapsed
    assert review.document.title == "Checkout redesign: one-page checkout A/B test"
    assert review.document.source == page_url(httpserver)
    assert any("child page" in w for w in review.warnings)
    [sample] = log.samples
    assert sample.metadata["input_format"] == "confluence"
    tldr = sample.store["prepared_document"]["tldr"]
    assert tldr["found"] and tldr["method"] == "panel" and tldr["text"].startswith("> [!INFO] TL;DR")
    for f in review.findings:  # line references point to sections of the page
        assert " line " not in f" {f.location} ", f.location
    text = _log_text(log.location)
    assert "Checkout redesign" in text  # the scan reads the log's content
    for secret in (TOKEN, USER, base64.b64encode(f"{USER}:{TOKEN}".encode()).decode()):
        assert secret not in text


def test_page_id_with_site_parameter(httpserver, tmp_path):
    serve_page(httpserver)
    task = ds_review_task()(document=PAGE_ID, confluence=httpserver.url_for("/wiki"))
    assert task.dataset[0].id == "confluence-2293761"
    assert task.dataset[0].metadata["source"] == PAGE_ID


def test_same_page_without_the_expand_macro_is_told_to_move_the_query(tmp_path, monkeypatch):
    # the check that says so is off by default for its measured precision: turned on for this run
    monkeypatch.setenv("REVIEW_HARNESS_OFFLINE_CHECKS", "appendix_in_body")
    storage = (DATA / "storage_2293761.xml").read_text()
    start = storage.index('<ac:structured-macro ac:name="expand"')
    body_start = storage.index("<ac:rich-text-body>", start) + len("<ac:rich-text-body>")
    inline = storage[:start] + storage[body_start:].replace("</ac:rich-text-body></ac:structured-macro>\n", "\n")
    page = tmp_path / "inline.xml"
    page.write_text(inline)
    log = run(tmp_path, document=str(page))
    titles = [f.title for f in reviews(log)["inline"].findings]
    assert "Supporting detail sits in the main body" in titles
    assert "No TL;DR up front" not in titles


def test_html_export_of_a_page_keeps_panels_expands_and_status(tmp_path):
    """Confluence's own 'Export to HTML' (view format): same callout, collapsed block and status."""
    html = (
        '<html><head><title>DS : Checkout test</title></head><body><div id="main-content" class="wiki-content group">'
        '<div class="confluence-information-macro confluence-information-macro-information">'
        '<p class="title">TL;DR</p><span class="aui-icon aui-icon-small aui-iconfont-info confluence-information-macro-icon"></span>'
        '<div class="confluence-information-macro-body"><p>Orders per visit rose 1.8 points; roll it out.</p></div></div>'
        '<p>Status: <span class="status-macro aui-lozenge aui-lozenge-current">IN REVIEW</span></p>'
        '<h2 id="Checkouttest-Results">Results</h2><p>The lift was stable across weeks.</p>'
        '<div id="expander-1" class="expand-container"><div id="expander-control-1" class="expand-control">'
        '<span class="expand-control-icon icon">&nbsp;</span><span class="expand-control-text">Appendix: query</span></div>'
        '<div id="expander-content-1" class="expand-content"><pre>SELECT 1;</pre></div></div>'
        '</div></body></html>'
    )
    path = tmp_path / "export.html"
    path.write_text(html)
    doc = load(str(path)).documents[0]
    assert doc.markdown.startswith("# DS : Checkout test\n\n> [!INFO] TL;DR\n>\n> Orders per visit rose 1.8 points; roll it out.")
    assert "Status: [status: IN REVIEW]" in doc.markdown
    assert "<summary>Appendix: query (collapsed: expand macro)</summary>" in doc.markdown
    assert [c.title for c in doc.source_map.collapsed] == ["Appendix: query"]


def test_design_review_reads_a_design_from_confluence(httpserver, tmp_path):
    from test_design_review import design_review_task

    serve_page(httpserver)
    requirements = Path(__file__).parent.parent / "fixtures" / "design" / "billing-export" / "requirements.md"
    task = design_review_task()(design=page_url(httpserver), requirements=str(requirements), topic="checkout")
    [sample] = task.dataset
    assert sample.input.startswith("# Checkout redesign: one-page checkout A/B test")
    assert sample.metadata["design"] == "confluence-2293761"
    httpserver.clear()
    httpserver.expect_request(CONTENT).respond_with_data("Client must be authenticated to access this resource.", status=401)
    with pytest.raises(PrerequisiteError) as info:
        design_review_task()(design=page_url(httpserver), requirements=str(requirements), topic="checkout")
    assert str(info.value).startswith(f"-T design={page_url(httpserver)}: Confluence page {PAGE_ID} (")
    assert "authentication failed (401)" in str(info.value)


def test_preparation_lists_the_expand_macro_as_collapsed():
    from review_harness.ds.prepare import prepare_document, render_section_map

    markdown, [span] = cf.convert_page(PAGE)
    prepared = prepare_document(markdown, source="page", mode="quick")  # tier 3: extraction
    line = f'- [collapsed/expand] "Appendix: query and data checks" at lines {span.start}-{span.end} (deprioritise)'
    assert line in prepared.extraction
    assert line in render_section_map(prepared)
    assert prepared.tldr.method == "panel"
    assert "ORDER BY a.arm;" not in prepared.extraction  # the collapsed appendix is noted, not copied
    # a callout inside a collapsed block is never the TL;DR, even at the top of the page
    callout = "> [!NOTE] Checks: every assignment count matched the service logs exactly.\n"
    rest = "\n## Results\n\n" + "".join(f"Week {i} conversion was stable at 61% of visits.\n\n" for i in range(12))
    assert prepare_document("# T\n\n" + callout + rest, source="p").tldr.method == "panel"
    collapsed = "# T\n\n<details>\n<summary>Checks (collapsed: expand macro)</summary>\n\n" + callout + "\n</details>\n"
    assert prepare_document(collapsed + rest, source="p").tldr.method != "panel"


def test_a_warning_panel_at_the_top_is_not_the_tldr():
    from review_harness.ds.prepare import prepare_document

    rest = "\n## Results\n\n" + "".join(f"Week {i} conversion was stable at 61% of visits.\n\n" for i in range(12))
    for kind, expected in (("INFO", True), ("SUCCESS", True), ("NOTE", True), ("WARNING", False)):
        text = f"# T\n\n> [!{kind}]\n>\n> The numbers below use the September extract of the checkout events.\n" + rest
        assert (prepare_document(text, source="p").tldr.method == "panel") is expected, kind
