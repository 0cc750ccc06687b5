"""Credentials never leave the process: the one place that takes them out of URLs before a URL is
printed, logged or written to a file.

- `redact_url(url)`: the URL without its user name and password (`http://user:pw@host/wiki` ->
  `http://host/wiki`) and with the values of query parameters that carry secrets masked
  (`?token=abc` -> `?token=***`); anything else unchanged.
- `redact_urls(text)`: every URL inside a text (a message, a warning, a file's content) redacted.
- `has_credentials(url)`: whether a URL carries a user name, password or secret query value.

The task helper passes every error message through `redact_urls`, and so do the commands' one-line
errors; whatever a kind writes that names a URL it was given (a Confluence site, a page) calls
`redact_url` before writing.
"""

from __future__ import annotations

import re
from urllib.parse import parse_qsl, urlencode, urlsplit, urlunsplit

MASK = "***"
# query parameters whose value is a secret (compared without case, '-' and '_')
SECRET_PARAMS = frozenset({"token", "accesstoken", "apitoken", "apikey", "key", "password", "passwd", "pwd",
                           "secret", "clientsecret", "sig", "signature", "auth", "authorization", "session",
                           "sessionid", "credential", "credentials", "privatetoken", "xapikey"})
URL = re.compile(r"\b[A-Za-z][A-Za-z0-9+.-]*://[^\s<>\"'`]+")
# user info in anything URL-like, also once a path join made `http://` into `http:/`
USER_INFO = re.compile(r"\b([A-Za-z][A-Za-z0-9+.-]*:/{1,3})[^/@\s<>\"'`]+@")


def _secret(name: str) -> bool:
    return re.sub(r"[-_]", "", name.lower()) in SECRET_PARAMS


def has_credentials(url: str) -> bool:
    try:
        parts = urlsplit(url.strip())
    except ValueError:
        return False
    if "@" in parts.netloc:
        return True
    return any(_secret(k) and v for k, v in parse_qsl(parts.query, keep_blank_values=True))


def redact_url(url: str) -> str:
    """`url` without user name, password and secret query values (see the module docstring)."""
    try:
        parts = urlsplit(url)
    except ValueError:  # not parseable as a URL: take out anything before an '@' in what looks like a host
        return re.sub(r"(://)[^/@\s]*@", r"\1", url)
    netloc = parts.netloc.rpartition("@")[2] if "@" in parts.netloc else parts.netloc
    query = parts.query
    if query:
        pairs = parse_qsl(query, keep_blank_values=True)
        if any(_secret(k) and v for k, v in pairs):
            query = urlencode([(k, MASK if _secret(k) and v else v) for k, v in pairs], safe="*")
    if netloc == parts.netloc and query == parts.query:
        return url
    return urlunsplit((parts.scheme, netloc, parts.path, query, parts.fragment))


def redact_urls(text: str) -> str:
    """Every URL in `text` redacted; the rest of the text unchanged."""
    if ":/" not in text:
        return text
    def one(match: re.Match[str]) -> str:
        url = match.group(0)
        trail = len(url) - len(url.rstrip(".,:;!?)]}"))  # sentence punctuation after a URL is not part of it
        return redact_url(url[: len(url) - trail]) + url[len(url) - trail:]

    return USER_INFO.sub(r"\1", URL.sub(one, text))
