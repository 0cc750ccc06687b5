"""Document input for every review kind: files (markdown, text, notebooks, Word, HTML, PDF,
Confluence storage exports), folders, and Confluence pages by URL or id, each turned into
prepared markdown with a source map back to the original and warnings about the conversion.

    from review_harness.core.documents import load
    result = load("analysis.ipynb")          # FolderResult: documents, failures, warnings
    doc = result.documents[0]                # Document: markdown, source_map, warnings
"""

from review_harness.core.documents.convert import collapsed_spans
from review_harness.core.documents.loader import FORMATS, file_url_path, is_remote, load, read_file, read_folder
from review_harness.core.documents.model import (
    EXTRA,
    Collapsed,
    Document,
    DocumentError,
    FolderResult,
    MapEntry,
    SourceMap,
    safe_text,
)

__all__ = [
    "EXTRA",
    "FORMATS",
    "Collapsed",
    "Document",
    "DocumentError",
    "FolderResult",
    "MapEntry",
    "SourceMap",
    "collapsed_spans",
    "file_url_path",
    "is_remote",
    "load",
    "read_file",
    "read_folder",
    "safe_text",
]
