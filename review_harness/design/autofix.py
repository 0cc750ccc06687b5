"""Step 4 of the review, auto-fix: mechanical fixes the synthesizer proposes for single findings,
checked against conservative rules in data (personas.yaml `auto_fix`) and applied to the reviewed
file as a git commit of its own, only with `-T auto_fix=true`.

A proposal is accepted only when:

* its kind is one of the data's kinds (a typo, a broken internal link, a missing file extension);
* the text it replaces occurs exactly once in the document, and no figure changes;
* typo: find and replace are short (`max_length`) and differ by at most `max_edits` characters;
* broken-link: only the `#anchor` of a link changes, the old anchor names no heading of the
  document and the new one does;
* missing-extension: only a relative link target changes, by adding one of the data's extensions,
  and exactly that file exists beside the reviewed file.

Applying needs a file in a git repository with no uncommitted changes of its own (so the commit
holds the fixes and nothing else); otherwise the fixes stay proposed and the summary says why.
"""

from __future__ import annotations

import re
import shutil
import subprocess
from collections.abc import Mapping, Sequence
from pathlib import Path

from rapidfuzz.distance import Levenshtein

from review_harness.core.files import write_atomic
from review_harness.core.markdown import parse_sections
from review_harness.design.models import AutoFix, AutoFixProposal
from review_harness.design.personas import AutoFixRule

LINK_ANCHOR = re.compile(r"\]\(#(?P<anchor>[^)\s]+)\)")
LINK_TARGET = re.compile(r"\]\((?P<target>[^)#\s:]+)(?P<rest>#[^)\s]*)?\)")
FIGURE = re.compile(r"\d+(?:[.,]\d+)?")


def heading_anchor(heading: str) -> str:
    """The anchor a markdown renderer (GitHub's rule) gives a heading."""
    text = re.sub(r"[^\w\- ]", "", heading.strip().lower())
    return text.replace(" ", "-")


def anchors(text: str) -> set[str]:
    return {heading_anchor(s.heading) for s in parse_sections(text) if s.level > 0}


def check_proposal(proposal: AutoFixProposal, text: str, rules: Mapping[str, AutoFixRule],
                   file: Path | None) -> str | None:
    """Why the proposal is refused (None: it is acceptable)."""
    rule = rules.get(proposal.kind)
    if rule is None:
        return f"'{proposal.kind}' is not an auto-fixable kind ({', '.join(rules)})"
    find, replace = proposal.find, proposal.replace
    if not find or find == replace:
        return "it changes nothing"
    count = text.count(find)
    if count != 1:
        return f"the text to replace occurs {count} times in the document, not once"
    if "\n" in find or "\n" in replace:
        return "it spans lines"
    if FIGURE.findall(find) != FIGURE.findall(replace):
        return "it changes a figure"
    if proposal.kind == "typo":
        if rule.max_length and max(len(find), len(replace)) > rule.max_length:
            return f"longer than {rule.max_length} characters"
        edits = Levenshtein.distance(find, replace)
        if rule.max_edits is not None and edits > rule.max_edits:
            return f"{edits} characters change, more than {rule.max_edits}"
        return None
    if proposal.kind == "broken-link":
        old, new = LINK_ANCHOR.search(find), LINK_ANCHOR.search(replace)
        if not old or not new or LINK_ANCHOR.sub("](#)", find) != LINK_ANCHOR.sub("](#)", replace):
            return "it changes more than a link's #anchor"
        known = anchors(text)
        if old["anchor"] in known:
            return f"#{old['anchor']} already names a heading"
        if new["anchor"] not in known:
            return f"#{new['anchor']} names no heading of the document"
        return None
    old_t, new_t = LINK_TARGET.search(find), LINK_TARGET.search(replace)
    if not old_t or not new_t:
        return "it changes no relative link target"
    target, fixed = old_t["target"], new_t["target"]
    ext = fixed[len(target):]
    if not fixed.startswith(target) or ext not in rule.extensions or find.replace(f"({target}", f"({fixed}", 1) != replace:
        return f"it does more than add one of {', '.join(rule.extensions)} to the link target"
    if file is None:
        return "the document is no file, so the link target cannot be checked"
    base = file.parent
    existing = [e for e in rule.extensions if (base / (target + e)).is_file()]
    if existing != [ext]:
        return (f"{target + ext} does not exist beside the document" if ext not in existing
                else f"several files match {target}: {', '.join(target + e for e in existing)}")
    return None


def check_proposals(proposals: Sequence[AutoFixProposal], finding_of: Mapping[str, str], text: str,
                    rules: Mapping[str, AutoFixRule], file: Path | None) -> list[AutoFix]:
    """Each proposal for a known finding, proposed (acceptable) or rejected with the reason; two
    accepted fixes never touch the same text."""
    out: list[AutoFix] = []
    taken: list[str] = []
    for p in proposals:
        finding = finding_of.get(p.finding)
        if finding is None:
            out.append(AutoFix(finding=p.finding, kind=p.kind, find=p.find, replace=p.replace, status="rejected",
                               reason="it names no finding of this review"))
            continue
        reason = check_proposal(p, text, rules, file)
        if reason is None and any(p.find in t or t in p.find for t in taken):
            reason = "another fix changes the same text"
        if reason is None:
            taken.append(p.find)
        out.append(AutoFix(finding=finding, kind=p.kind, find=p.find, replace=p.replace,
                           status="rejected" if reason else "proposed", reason=reason or ""))
    return out


class AutoFixError(RuntimeError):
    """The fixes could not be applied; the message says why (the fixes stay proposed)."""


def _git(root: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(["git", "-C", str(root), *args], capture_output=True, text=True, timeout=60)


def apply_fixes(file: Path, fixes: Sequence[AutoFix], topic: str) -> str:
    """Apply `fixes` to `file` and commit that file alone. Returns the commit message. Refuses
    (AutoFixError) outside a git repository, when the file has uncommitted changes, or when the
    file no longer holds a fix's text."""
    if shutil.which("git") is None:
        raise AutoFixError("git is not installed")
    done = _git(file.parent, "rev-parse", "--show-toplevel")
    if done.returncode != 0:
        raise AutoFixError(f"{file} is not in a git repository")
    root = Path(done.stdout.strip())
    rel = str(file.resolve().relative_to(root.resolve()))
    if _git(root, "ls-files", "--error-unmatch", "--", rel).returncode != 0:
        raise AutoFixError(f"{rel} is not committed; commit it first so the fixes get a commit of their own")
    if _git(root, "status", "--porcelain", "--", rel).stdout.strip():
        raise AutoFixError(f"{rel} has uncommitted changes; commit them first so the fixes get a commit of their own")
    original = text = file.read_text(encoding="utf-8")
    for fix in fixes:
        if text.count(fix.find) != 1:
            raise AutoFixError(f"{rel} changed during the review: {fix.find!r} is no longer there once")
        text = text.replace(fix.find, fix.replace, 1)
    write_atomic(file, text)
    message = f"parallax:review auto-fix — {topic} — {len(fixes)} fix{'es' if len(fixes) != 1 else ''}"
    body = "\n".join(f"- {f.finding} ({f.kind}): {f.find!r} -> {f.replace!r}" for f in fixes)
    done = _git(root, "commit", "--quiet", "-m", message, "-m", body, "--", rel)
    if done.returncode != 0:
        write_atomic(file, original)  # nothing half-done: the file is as it was
        lines = [line for line in (done.stderr or done.stdout).splitlines() if line.strip()]
        raise AutoFixError(f"git commit failed: {lines[-1] if lines else done.returncode}")
    return message


MECHANICAL_FIX = re.compile(r'^Mechanical fix \((?P<kind>[\w-]+)\): replace "(?P<find>.+)" with "(?P<replace>.*)"\.$')


def mechanical_suggestion(kind: str, find: str, replace: str) -> str:
    """The suggestion text of an offline finding that carries its own fix (read back by
    `proposal_in`, so the deterministic synthesizer can propose it)."""
    return f'Mechanical fix ({kind}): replace "{find}" with "{replace}".'


def proposal_in(finding_id: str, suggestion: str) -> AutoFixProposal | None:
    m = MECHANICAL_FIX.match(suggestion.strip())
    return AutoFixProposal(finding=finding_id, kind=m["kind"], find=m["find"], replace=m["replace"]) if m else None
