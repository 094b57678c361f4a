"""The one redaction function used by logging, recording and errors.

Credentials travel only in request headers; everything that leaves the
transport as text (log lines, fixture files, error messages, exceptions, reprs)
goes through :func:`redact` first, which blanks credential headers and query
parameters and removes any known secret value wherever it appears, in the forms
a server may send it back in (see :func:`secret_forms`). Recorded bodies are
redacted whole, after reassembly and decompression (:func:`redact_bytes`).
"""

from __future__ import annotations

import base64
import functools
import json
import logging
import re
import threading
import weakref
from collections.abc import Iterable, Mapping, Sequence
from typing import Any
from urllib.parse import parse_qsl, quote, quote_plus, urlencode, urlsplit, urlunsplit

import msgspec

__all__ = [
    "MIN_SECRET_LENGTH",
    "REDACTED",
    "SENSITIVE_HEADERS",
    "SENSITIVE_PARAMS",
    "URL_HEADERS",
    "protect_logs",
    "redact",
    "redact_bytes",
    "scrub_exception",
    "secret_forms",
]

REDACTED = "REDACTED"

MIN_SECRET_LENGTH = 8
"""Shorter values are not searched for in free text (a one-letter "key" would blank every
occurrence of that letter); credential headers and parameters are still replaced by name."""

SENSITIVE_HEADERS = frozenset(
    {
        "authorization",
        "proxy-authorization",
        "x-api-key",
        "api-key",
        "x-goog-api-key",
        "cookie",
        "set-cookie",
        "openai-organization",
        "openai-project",
        "x-amz-security-token",
    }
)
"""Header names (lower case) whose values are always replaced."""

SENSITIVE_PARAMS = frozenset({"key", "api_key", "apikey", "access_token", "token"})
"""URL query parameters whose values are always replaced."""

URL_HEADERS = frozenset({"location", "content-location", "referer"})
"""Response/request header names (lower case) whose values are URLs: redacted as URLs
(credential query parameters by name too, not only known secret values)."""


def secret_forms(secrets: Iterable[str]) -> list[str]:
    """Every form in which a secret is searched for, longest first.

    For each secret of at least :data:`MIN_SECRET_LENGTH` characters: the value itself,
    its URL-encoded forms (``quote``, ``quote_plus``), its JSON-escaped form, and its
    base64 forms (standard and URL-safe alphabets, with and without padding).
    """
    return list(_forms(tuple(secrets)))


@functools.lru_cache(maxsize=64)
def _forms(secrets: tuple[str, ...]) -> tuple[str, ...]:
    forms: set[str] = set()
    for secret in secrets:
        if len(secret) < MIN_SECRET_LENGTH:
            continue
        raw = secret.encode("utf-8")
        forms.update({secret, quote(secret, safe=""), quote(secret), quote_plus(secret)})
        forms.update({msgspec.json.encode(secret).decode("utf-8")[1:-1], json.dumps(secret)[1:-1], json.dumps(secret).replace("/", "\\/")[1:-1]})
        for b64 in (base64.b64encode(raw), base64.urlsafe_b64encode(raw)):
            text = b64.decode("ascii")
            forms.update({text, text.rstrip("=")})
    return tuple(sorted((f for f in forms if f), key=lambda f: (-len(f), f)))


@functools.lru_cache(maxsize=64)
def _pattern(forms: tuple[str, ...]) -> re.Pattern[bytes] | None:
    if not forms:
        return None
    return re.compile(b"|".join(re.escape(f.encode("utf-8")) for f in forms))


def redact_bytes(data: bytes, secrets: Iterable[str], cuts: Sequence[int] = ()) -> tuple[bytes, list[int]]:
    """Remove every form of every secret from a whole body, keeping chunk boundaries.

    Args:
        data: The whole body (already reassembled and decompressed).
        secrets: Secret values (forms per :func:`secret_forms`).
        cuts: Byte offsets into ``data`` where chunks ended (ascending).

    Returns:
        The redacted body and the offsets moved into it: a boundary inside a removed
        value moves to where its ``REDACTED`` marker starts, so no chunk ever holds part
        of a secret. Offsets stay ascending (duplicates removed).
    """
    pattern = _pattern(_forms(tuple(secrets)))
    if pattern is None or pattern.search(data) is None:
        return data, sorted(set(cuts))
    marker = REDACTED.encode("ascii")
    out = bytearray()
    spans: list[tuple[int, int, int]] = []  # (start in data, end in data, start in out)
    pos = 0
    for m in pattern.finditer(data):
        out += data[pos : m.start()]
        spans.append((m.start(), m.end(), len(out)))
        out += marker
        pos = m.end()
    out += data[pos:]
    moved: list[int] = []
    shift = 0
    i = 0
    for cut in sorted(cuts):
        while i < len(spans) and spans[i][1] <= cut:
            shift += len(marker) - (spans[i][1] - spans[i][0])
            i += 1
        if i < len(spans) and spans[i][0] < cut < spans[i][1]:
            moved.append(spans[i][2])
        else:
            moved.append(cut + shift)
    result = bytes(out)
    # A secret that contains the marker could be rebuilt by the replacement; delete until gone.
    while pattern.search(result) is not None:
        result = pattern.sub(b"", result)
        moved = []
    return result, sorted(set(c for c in moved if 0 < c < len(result)))


def _scrub(text: str, secrets: Iterable[str]) -> str:
    forms = _forms(tuple(secrets))
    if not forms or not any(f in text for f in forms):
        return text
    return redact_bytes(text.encode("utf-8", "surrogatepass"), secrets)[0].decode("utf-8", "surrogatepass")


def _url(url: str, secrets: Iterable[str]) -> str:
    try:
        parts = urlsplit(url)
    except ValueError:  # not a URL urllib can split (``http://[::1``): its user info is cut as text
        head, sep, rest = url.partition("//")
        if sep:
            authority_end = min((i for i in (rest.find(c) for c in "/?#") if i >= 0), default=len(rest))
            authority = rest[:authority_end]
            rest = authority.rpartition("@")[2] + rest[authority_end:]
        return _scrub(head + sep + rest, secrets)
    if parts.query:
        query = [
            (_scrub(k, secrets), REDACTED if k.lower() in SENSITIVE_PARAMS else _scrub(v, secrets))
            for k, v in parse_qsl(parts.query, keep_blank_values=True)
        ]
        parts = parts._replace(query=urlencode(query, safe=":/"))
    if "@" in parts.netloc:  # user info, up to the last "@": a password may hold "@" itself
        parts = parts._replace(netloc=parts.netloc.rpartition("@")[2])
    return _scrub(urlunsplit(parts), secrets)


def redact(value: Any, secrets: Iterable[str] = (), *, kind: str = "text") -> Any:
    """Return ``value`` with every credential removed.

    Args:
        value: A header mapping (``kind="headers"``), a URL (``kind="url"``), or any text
            (``kind="text"``); lists and dicts of text are redacted element by element.
        secrets: Secret values (API keys) to remove wherever they occur (those of at least
            :data:`MIN_SECRET_LENGTH` characters).
        kind: How to read ``value``.

    Returns:
        A new object of the same shape; the input is not changed.
    """
    secrets = tuple(s for s in secrets if len(s) >= MIN_SECRET_LENGTH)
    if kind == "headers":
        return {
            _scrub(str(k), secrets): (
                REDACTED if k.lower() in SENSITIVE_HEADERS else _url(str(v), secrets) if k.lower() in URL_HEADERS else _scrub(str(v), secrets)
            )
            for k, v in (value.items() if isinstance(value, Mapping) else value)
        }
    if kind == "url":
        return _url(str(value), secrets)
    if isinstance(value, str):
        return _scrub(value, secrets)
    if isinstance(value, list):
        return [redact(v, secrets) for v in value]
    if isinstance(value, dict):
        return {k: redact(v, secrets) for k, v in value.items()}
    return value


def scrub_exception(exc: BaseException, secrets: Iterable[str]) -> BaseException:
    """Redact the text arguments of ``exc`` and of its chained causes and contexts, in place.

    httpx and httpcore exceptions carry their message in ``args``; a message that quotes a
    URL or a server's text could hold a secret. Returns ``exc``.
    """
    forms = secret_forms(secrets)
    seen: set[int] = set()
    todo: list[BaseException | None] = [exc]
    while todo:
        current = todo.pop()
        if current is None or id(current) in seen:
            continue
        seen.add(id(current))
        if forms:
            try:
                if any(f in repr(a) for a in current.args for f in forms):
                    current.args = tuple(_scrub(a, secrets) if isinstance(a, str) else _scrub(repr(a), secrets) for a in current.args)
            except Exception:  # pragma: no cover - an exception whose args cannot be read or set
                current.args = ()
        todo += [current.__cause__, current.__context__]
    return exc


_LIBRARY_LOGGERS = (
    "interlingua.transport",
    "httpx",
    "httpcore.connection",
    "httpcore.http11",
    "httpcore.http2",
    "httpcore.proxy",
    "httpcore.socks",
    "hpack.hpack",
    "hpack.table",
)
_URL_IN_TEXT = re.compile(r"[A-Za-z][A-Za-z0-9+.-]*://[^\s'\"<>]+")


class _LogScrubber(logging.Filter):
    """Redacts the records of the HTTP libraries' loggers (httpcore logs response headers at
    DEBUG, httpx logs request URLs at INFO): known secrets, and key-like URL parameters."""

    def __init__(self) -> None:
        super().__init__()
        self._lock = threading.Lock()
        self._secrets: dict[str, int] = {}

    def add(self, secrets: Iterable[str]) -> None:
        with self._lock:
            for secret in secrets:
                self._secrets[secret] = self._secrets.get(secret, 0) + 1

    def remove(self, secrets: Iterable[str]) -> None:
        with self._lock:
            for secret in secrets:
                left = self._secrets.get(secret, 0) - 1
                if left > 0:
                    self._secrets[secret] = left
                else:
                    self._secrets.pop(secret, None)

    def filter(self, record: logging.LogRecord) -> bool:
        try:
            message = record.getMessage()
        except Exception:  # pragma: no cover - a record whose arguments do not format
            return True
        with self._lock:
            secrets = tuple(self._secrets)
        clean = _URL_IN_TEXT.sub(lambda m: _url(m.group(0), secrets), message)
        clean = _scrub(clean, secrets)
        if clean != message:
            record.msg, record.args = clean, None
        return True


_SCRUBBER = _LogScrubber()
for _name in _LIBRARY_LOGGERS:
    logging.getLogger(_name).addFilter(_SCRUBBER)


def protect_logs(owner: object, secrets: Iterable[str]) -> None:
    """Redact ``secrets`` from the records of the transport's and HTTP libraries' loggers
    while ``owner`` (a client or recording transport) is alive."""
    values = tuple(s for s in secrets if len(s) >= MIN_SECRET_LENGTH)
    if values:
        _SCRUBBER.add(values)
        weakref.finalize(owner, _SCRUBBER.remove, values)
