"""Confluence pages: the storage format (XHTML with macros) as markdown, and a small client
over atlassian-python-api that fetches a page by URL or id.

Conversion keeps what a reader sees and marks what the page signals:

* info / note / warning / tip / success / panel macros -> a callout (`> [!INFO] title`), so a
  panel at the top of the page is a TL;DR candidate like any callout;
* expand macros -> `<details>` with a `<summary>` naming it collapsed; the content is kept and
  the span is recorded in the source map, so reviewers deprioritise it like an appendix;
* status -> `[status: IN REVIEW]`, table of contents -> `Contents: A · B` (its headings), code -> a
  fenced block with its language, images and attachments -> `[image: ...]`,
  `[attachment: ...]`, user mentions -> `@user`, page links -> the page title;
* title, space, labels, last change (and child page titles) -> a heading and a metadata line.

Credentials come from the environment only (CONFLUENCE_USERNAME + CONFLUENCE_API_TOKEN, or
CONFLUENCE_PERSONAL_TOKEN) and never appear in a message, a warning or the document.
"""

from __future__ import annotations

import html
import logging
import os
import re
import time
from dataclasses import dataclass
from typing import Any
from urllib.parse import parse_qs, urlparse

from review_harness.core.documents.convert import callout, collapse, collapsed_spans, html_to_markdown, tidy
from review_harness.core.documents.model import Collapsed, DocumentError, require
from review_harness.core.markdown import parse_sections
from review_harness.core.redact import redact_url

PANEL_MACROS = ("info", "note", "warning", "tip", "success", "panel", "error")
ENV_URL = "CONFLUENCE_URL"
ENV_USERNAME = "CONFLUENCE_USERNAME"
ENV_API_TOKEN = "CONFLUENCE_API_TOKEN"
ENV_PERSONAL_TOKEN = "CONFLUENCE_PERSONAL_TOKEN"
PAGE_EXPAND = "body.storage,version,space,history,metadata.labels,children.page,children.comment"
TIMEOUT_SECONDS = 30
RETRIES = 3  # attempts after the first for 429, 5xx and timeouts
RETRY_WAIT_BASE = 1.0  # seconds; doubles per attempt (Retry-After wins when the server sends it)
RETRY_WAIT_MAX = 30.0
TRANSIENT_STATUS = (429, 500, 502, 503, 504)

_TOC = "\u27e6toc\u27e7"


# ------------------------------------------------------------------------------ storage format


def _text_param(macro, name: str) -> str:
    for param in macro.find_all("ac:parameter", recursive=False):
        if param.get("ac:name") == name:
            return param.get_text(" ", strip=True)
    return ""


def _attachment_name(tag) -> str:
    ri = tag.find(["ri:attachment", "ri:url", "ri:page"])
    if ri is None:
        return ""
    return ri.get("ri:filename") or ri.get("ri:value") or ri.get("ri:content-title") or ""


def _convert_macro(soup, macro) -> None:
    name = (macro.get("ac:name") or "").lower()
    body = macro.find("ac:rich-text-body", recursive=False)
    if name in PANEL_MACROS:
        callout(soup, macro, name, _text_param(macro, "title"), body)
    elif name == "expand":
        collapse(soup, macro, _text_param(macro, "title") or "Click here to expand...", body)
    elif name == "status":
        title = _text_param(macro, "title") or _text_param(macro, "colour") or "status"
        macro.replace_with(f"[status: {title}]")
    elif name in ("toc", "toc-zone"):  # what the reader sees: the page's headings
        para = soup.new_tag("p")
        para.string = f"{_TOC}{_text_param(macro, 'maxLevel') or '3'}"
        macro.replace_with(para)
    elif name in ("code", "noformat"):
        text = macro.find("ac:plain-text-body")
        pre = soup.new_tag("pre")
        code = soup.new_tag("code")
        code["data-language"] = _text_param(macro, "language")
        code.string = text.get_text() if text is not None else ""
        pre.append(code)
        macro.replace_with(pre)
    elif name in ("view-file", "viewpdf", "viewxls", "viewppt", "viewdoc", "multimedia"):
        macro.replace_with(f"[attachment: {_attachment_name(macro) or name}]")
    elif name == "attachments":
        macro.replace_with("[attachments list]")
    elif name in ("jira", "jiraissues"):
        macro.replace_with(f"[Jira: {_text_param(macro, 'key') or _text_param(macro, 'jqlQuery') or 'issues'}]")
    elif name == "anchor":
        macro.decompose()
    elif body is not None:  # an unknown macro with content: keep the content, name the macro
        wrapper = soup.new_tag("div")
        for child in list(body.contents):
            wrapper.append(child.extract())
        macro.replace_with(wrapper)
    else:
        plain = macro.find("ac:plain-text-body")
        macro.replace_with(f"[{name} macro]" if plain is None else plain.get_text())


def _convert_inline(soup) -> None:
    for image in soup.find_all("ac:image"):
        alt = image.get("ac:alt") or image.get("ac:title") or ""
        what = _attachment_name(image)
        image.replace_with(f"[image: {alt or what or 'no description'}" + (f" ({what})" if alt and what else "") + "]")
    for link in soup.find_all("ac:link"):
        user = link.find("ri:user")
        label = link.find(["ac:plain-text-link-body", "ac:link-body"])
        label_text = label.get_text(" ", strip=True) if label is not None else ""
        if user is not None:
            ident = user.get("ri:account-id") or user.get("ri:userkey") or user.get("ri:username") or ""
            link.replace_with(f"@{label_text or 'user-' + ident[-6:]}")
        elif link.find("ri:attachment") is not None:
            link.replace_with(f"[attachment: {label_text or _attachment_name(link)}]")
        else:
            link.replace_with(label_text or _attachment_name(link) or (link.get("ac:anchor") or ""))
    for task_list in soup.find_all("ac:task-list"):
        ul = soup.new_tag("ul")
        for task in task_list.find_all("ac:task"):
            status = task.find("ac:task-status")
            done = status is not None and status.get_text(strip=True) == "complete"
            body = task.find("ac:task-body")
            li = soup.new_tag("li")
            li.string = ("[x] " if done else "[ ] ") + (body.get_text(" ", strip=True) if body else "")
            ul.append(li)
        task_list.replace_with(ul)
    for emoticon in soup.find_all("ac:emoticon"):
        emoticon.replace_with(emoticon.get("ac:emoji-fallback") or "")
    for when in soup.find_all("time"):
        when.replace_with(when.get("datetime") or when.get_text())
    for placeholder in soup.find_all("ac:placeholder"):
        placeholder.decompose()
    for tag in soup.find_all(re.compile(r"^(ac|ri):")):
        tag.unwrap()


def storage_to_markdown(storage: str, header: str = "") -> tuple[str, list[Collapsed]]:
    """Storage-format XHTML -> markdown (with `header` on top), and the collapsed spans."""
    bs4 = require("bs4", "Reading Confluence pages")
    soup = bs4.BeautifulSoup(storage, "html.parser")
    for macro in reversed(soup.find_all("ac:structured-macro")):  # innermost first
        _convert_macro(soup, macro)
    _convert_inline(soup)
    body = html_to_markdown(str(soup))
    text = tidy((header + "\n\n" if header else "") + body)
    if _TOC in text:
        text = re.sub(re.escape(_TOC) + r"(\d*)", lambda m: _contents_line(text, int(m.group(1) or 3)), text)
    return text, collapsed_spans(text)


def _contents_line(markdown: str, max_level: int) -> str:
    headings = [s.heading for s in parse_sections(markdown) if 2 <= s.level <= max(max_level, 2)]
    return "Contents: " + " · ".join(headings) if headings else "Contents: (no headings)"


def page_metadata(page: dict[str, Any]) -> dict[str, Any]:
    """What the REST content object says about the page besides its body."""
    version = page.get("version") or {}
    children = page.get("children") or {}
    space = page.get("space") or {}
    labels = ((page.get("metadata") or {}).get("labels") or {}).get("results") or []
    return {
        "page_id": str(page.get("id", "")),
        "title": page.get("title") or f"Confluence page {page.get('id', '')}",
        "space": space.get("key", ""),
        "space_name": space.get("name", ""),
        "labels": [str(lab.get("name") or lab.get("label")) for lab in labels if lab.get("name") or lab.get("label")],
        "last_modified": version.get("when", ""),
        "last_modified_by": (version.get("by") or {}).get("displayName", ""),
        "version": version.get("number"),
        "child_pages": [c.get("title", "") for c in (children.get("page") or {}).get("results") or []],
        "comments": len((children.get("comment") or {}).get("results") or []),
        "status": statuses((((page.get("body") or {}).get("storage") or {}).get("value")) or ""),
    }


def page_header(meta: dict[str, Any]) -> str:
    """The page title as the H1, then one metadata line (and child page titles if any)."""
    fields = []
    if meta["last_modified"]:
        by = meta["last_modified_by"]
        fields.append(f"Last updated: {meta['last_modified'][:10]}" + (f" by {by}" if by else ""))
    if meta["space"]:
        fields.append(f"Space: {meta['space']}" + (f" ({meta['space_name']})" if meta["space_name"] else ""))
    if meta["labels"]:
        fields.append("Labels: " + ", ".join(meta["labels"]))
    lines = [f"# {meta['title']}", ""]
    if fields:
        lines.append(" · ".join(fields))
    if meta["child_pages"]:
        lines.append("Child pages (not reviewed): " + "; ".join(meta["child_pages"]))
    return "\n".join(lines).rstrip()


DRAFT_STATUS = re.compile(r"\b(draft|wip|work in progress|in progress)\b", re.IGNORECASE)


def statuses(storage: str) -> list[str]:
    """The titles of the page's status macros (Draft, In review, Final...)."""
    bs4 = require("bs4", "Reading Confluence pages")
    soup = bs4.BeautifulSoup(storage, "html.parser")
    found = (_text_param(m, "title") for m in soup.find_all("ac:structured-macro") if m.get("ac:name") == "status")
    return [title for title in found if title]


def draft_warning(label: str, found: list[str]) -> list[str]:
    draft = next((s for s in found if DRAFT_STATUS.search(s)), None)
    if draft is None:
        return []
    return [f"{label} is marked '{draft}' by a status macro: it is reviewed in full, with lighter penalties for "
            "polish; for draft feedback without a score, rerun with -T draft=true."]


def convert_page(page: dict[str, Any], comments: list[dict[str, Any]] | None = None) -> tuple[str, list[Collapsed]]:
    """A REST content object (with body.storage) -> markdown and its collapsed spans. Comments,
    when given, follow the page in one collapsed block: context, not content."""
    storage = (((page.get("body") or {}).get("storage") or {}).get("value")) or ""
    if comments:
        parts = ['<ac:structured-macro ac:name="expand"><ac:parameter ac:name="title">'
                 f"Page comments ({len(comments)}), not part of the page</ac:parameter><ac:rich-text-body>"]
        for comment in comments:
            author = html.escape(((comment.get("version") or {}).get("by") or {}).get("displayName") or "someone")
            parts.append(f"<p><strong>{author}:</strong></p>"
                         + (((comment.get("body") or {}).get("storage") or {}).get("value") or ""))
        parts.append("</ac:rich-text-body></ac:structured-macro>")
        storage += "".join(parts)
    return storage_to_markdown(storage, page_header(page_metadata(page)))


def looks_like_storage(text: str) -> bool:
    return bool(re.search(r"<ac:(structured-macro|rich-text-body|image|link|layout|task-list)\b", text))


# ------------------------------------------------------------------------------ where a page is


@dataclass(frozen=True)
class PageRef:
    base_url: str  # the site's Confluence root, e.g. https://acme.atlassian.net/wiki
    page_id: str
    given: str  # what the user wrote, for messages

    @property
    def label(self) -> str:
        return f"Confluence page {self.page_id} ({self.given})" if self.given != self.page_id else f"Confluence page {self.page_id}"


_PAGES_PATH = re.compile(r"^(?P<root>.*?)/spaces/[^/]+/pages/(?:edit-v2/|edit/)?(?P<id>\d+)")


def is_url(text: str) -> bool:
    return bool(re.match(r"^https?://", text.strip(), re.IGNORECASE))


def without_credentials(url: str):
    """The parsed URL; credentials in it are refused (never carried into messages, samples or logs)."""
    parsed = urlparse(url.strip())
    if parsed.username or parsed.password:
        bare = redact_url(url.strip())  # the core's one redaction: the credentials never reach a message
        raise DocumentError(
            f"{bare}: remove the credentials from the URL and set {ENV_USERNAME} and {ENV_API_TOKEN} "
            f"(or {ENV_PERSONAL_TOKEN}) instead"
        )
    return parsed


def parse_page_url(url: str) -> PageRef:
    """A page URL (Cloud `/wiki/spaces/KEY/pages/ID/...`, Server `viewpage.action?pageId=ID`)."""
    parsed = without_credentials(url)
    site = f"{parsed.scheme}://{parsed.netloc}"
    m = _PAGES_PATH.match(parsed.path)
    if m:
        return PageRef(site + m.group("root"), m.group("id"), url)
    page_id = (parse_qs(parsed.query).get("pageId") or [""])[0]
    if page_id.isdigit():
        root = re.sub(r"/pages/[^/]*$", "", parsed.path)
        return PageRef(site + root, page_id, url)
    raise DocumentError(
        f"{url} is not a Confluence page URL this tool can read: use the page's "
        "'/spaces/KEY/pages/ID/...' or 'viewpage.action?pageId=ID' address"
    )


def page_ref(document: str, confluence: str | None) -> PageRef:
    """A page URL, or a page id with the site from -T confluence=URL (or $CONFLUENCE_URL)."""
    if is_url(document):
        return parse_page_url(document)
    site = confluence or os.environ.get(ENV_URL)
    if not site:
        raise DocumentError(
            f"{document} looks like a Confluence page id: give the site with -T confluence=URL "
            f"(or set {ENV_URL})"
        )
    if not is_url(site):
        raise DocumentError(f"-T confluence={site}: expected the site's URL, e.g. https://acme.atlassian.net/wiki")
    without_credentials(site)
    if "/pages/" in site or "pageId=" in site:
        ref = parse_page_url(site)
        return PageRef(ref.base_url, document, document)
    return PageRef(site.rstrip("/"), document, document)


# ------------------------------------------------------------------------------ fetching


def confluence_client(base_url: str, username: str | None = None, token: str | None = None, *,
                      advanced_mode: bool = True, cloud: bool | None = None, timeout: float | None = None):
    """The one way the project builds a Confluence client (page input, domain refresh).
    Credentials come from the arguments or else the environment, and are never logged."""
    atlassian = require("atlassian", "Reading Confluence pages")
    # the library logs request headers at debug level: keep anything it logs out of logs
    logging.getLogger("atlassian").setLevel(logging.WARNING)
    if username is None and token is None:  # a personal access token wins, as before
        personal = os.environ.get(ENV_PERSONAL_TOKEN)
        if personal:
            token = personal
        else:
            username, token = os.environ.get(ENV_USERNAME), os.environ.get(ENV_API_TOKEN)
    # retries are ours (one policy for 429, 5xx and timeouts), not the library's
    kwargs: dict[str, Any] = {"timeout": timeout or TIMEOUT_SECONDS, "advanced_mode": advanced_mode, "backoff_and_retry": False,
                              "retry_with_header": False}
    if cloud is not None:
        kwargs["cloud"] = cloud
    if token and not username:
        kwargs["token"] = token  # a personal access token
    elif username and token:
        kwargs["username"], kwargs["password"] = username, token
    return atlassian.Confluence(url=base_url, **kwargs)


def _wait(attempt: int, response) -> float:
    header = response.headers.get("Retry-After", "") if response is not None else ""
    if header.strip().isdigit():
        return min(float(header), RETRY_WAIT_MAX)
    return min(RETRY_WAIT_BASE * 2**attempt, RETRY_WAIT_MAX)


def _failure(ref: PageRef, status: int) -> DocumentError:
    what = ref.label
    if status == 401:
        return DocumentError(
            f"{what}: Confluence authentication failed (401): set {ENV_USERNAME} and {ENV_API_TOKEN} "
            f"(or {ENV_PERSONAL_TOKEN}) to valid credentials"
        )
    if status == 403:
        return DocumentError(f"{what}: no permission to read this page (403): verify the URL and your permissions")
    if status == 404:
        return DocumentError(f"{what}: page not found (404): verify the URL and your permissions")
    if status == 429:
        return DocumentError(f"{what}: Confluence API rate limit reached (429): try again in a few minutes")
    return DocumentError(f"{what}: Confluence answered HTTP {status}: try again later, or export the page to a file")


def _get(client, path: str, params: dict[str, Any], ref: PageRef) -> dict[str, Any]:
    requests = require("requests", "Reading Confluence pages")
    for attempt in range(RETRIES + 1):
        response = None
        try:
            response = client.get(path, params=params)
        except requests.Timeout:
            problem = f"no answer within {TIMEOUT_SECONDS} s (timeout)"
        except requests.ConnectionError:
            problem = f"cannot connect to {ref.base_url}"
        else:
            if response.status_code < 400:
                try:
                    return response.json()
                except ValueError:
                    raise DocumentError(f"{ref.label}: Confluence did not answer with JSON: check the site URL") from None
            if response.status_code not in TRANSIENT_STATUS:
                raise _failure(ref, response.status_code)
            problem = ""
        if attempt < RETRIES:
            time.sleep(_wait(attempt, response))
            continue
        if response is not None:
            raise _failure(ref, response.status_code)
        raise DocumentError(
            f"{ref.label}: {problem}: check the site and your network, or copy the page to a local "
            ".md file and review that"
        )
    raise AssertionError("unreachable")


def fetch_page(ref: PageRef, comments: bool = False) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    """The page's REST content object (storage body, version, space, labels, children) and,
    if asked, its comments. Transient failures are retried with exponential backoff."""
    client = confluence_client(ref.base_url)
    page = _get(client, f"rest/api/content/{ref.page_id}", {"expand": PAGE_EXPAND}, ref)
    found: list[dict[str, Any]] = []
    if comments:
        data = _get(client, f"rest/api/content/{ref.page_id}/child/comment",
                    {"expand": "body.storage,version", "depth": "all", "limit": 50}, ref)
        found = list(data.get("results") or [])
    return page, found
