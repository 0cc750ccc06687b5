"""What the offline code reviewer's checks read and write: one file of the change as the reviewer
sees it (its lines, which of them the change adds, what it removed) and the findings and
checked-fine notes a check records (one finding per file, line and category, only on added lines).
"""

from __future__ import annotations

from dataclasses import dataclass, field

from review_harness.code.models import CheckedFine, CodeFinding, Severity


@dataclass
class FileView:
    path: str
    language: str
    lines: dict[int, str]
    added: set[int]
    excerpt: bool = False
    omitted: bool = False  # the prompt budget left the file's lines out
    moved: set[int] = field(default_factory=set)  # lines git reports as moved unchanged (not new code)
    removed: list[str] = field(default_factory=list)  # the old lines the change removed from this file
    removed_before: dict[int, list[str]] = field(default_factory=dict)  # the same, by the new line they stood before
    code_unchanged: bool = False  # the prompt says only comments and docstrings differ

    @property
    def old_text(self) -> str | None:
        """The file before the change, put back together from the new version (when it is shown
        whole) and the removed lines where they stood; None for an excerpt or an omitted file."""
        if self.excerpt or self.omitted or not self.lines:
            return None
        last = max(self.lines)
        out: list[str] = []
        for n in range(1, last + 2):
            out += self.removed_before.get(n, [])
            if n <= last and n not in self.added and n not in self.moved:
                out.append(self.lines.get(n, ""))
        return "\n".join(out) + "\n"

    @property
    def text(self) -> str:
        last = max(self.lines) if self.lines else 0
        return "\n".join(self.lines.get(n, "") for n in range(1, last + 1)) + "\n"

    def quote(self, line: int) -> str:
        return self.lines.get(line, "").strip()


@dataclass
class Result:
    findings: list[CodeFinding] = field(default_factory=list)
    fine: list[CheckedFine] = field(default_factory=list)
    _seen: set[tuple[str, int, str]] = field(default_factory=set)  # (file, line, category): one finding each

    def add(self, view: FileView, line: int, severity: Severity, category: str, description: str, fix: str) -> None:
        if line not in view.added or (view.path, line, category) in self._seen:
            return
        self._seen.add((view.path, line, category))
        self.findings.append(CodeFinding(severity=severity, category=category, file=view.path, line=line,
                                         description=description, suggested_fix=fix, quote=view.quote(line) or None))

    def ok(self, view: FileView, line: int, end: int | None, note: str) -> None:
        if any(n in view.added for n in range(line, (end or line) + 1)):
            self.fine.append(CheckedFine(file=view.path, line=line, end_line=end, note=note))
