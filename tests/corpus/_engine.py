"""The corpus checks: every recorded file through the mappers, each outcome classified.

Shared by ``tests/corpus/test_corpus.py`` (tests over chunks of files, spread by pytest-xdist), ``tools/gen_corpus_doc.py``
(the figures in ``docs/corpus.md``) and ``tools/gen_corpus_gaps.py`` (``tests/corpus/known_gaps.toml``).

Everything that judges the mappers here is written independently of them: the differences of a round
trip are computed on the raw JSON, the reference stream accumulators read the raw SSE events, and the
cross-provider content check extracts texts, tool calls, tool results, images and reasoning from each
provider's raw JSON with its own small extraction. Only the conversions themselves call interlingua.

Outcomes, per check and file:

* ``lossless``: the output equals the input (after the equivalences listed in :data:`EQUIVALENCES`);
* ``reported``: changed, and every difference is named by a report entry;
* ``refused``: the mapper raised an :class:`~interlingua.errors.InterlinguaError` (reason kept);
* ``silent-change`` / ``silent-drop``: a difference no report entry names (a value changed or added /
  something of the input missing from the output);
* ``crash``: any other exception.
"""

from __future__ import annotations

import csv
import difflib
import json
import os
import re
import tarfile
import traceback
import unicodedata
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from interlingua.errors import InterlinguaError
from interlingua.mapping import Report, get_mapper
from interlingua.streaming import StreamDone, StreamError, iter_stream

REPO = Path(__file__).resolve().parents[2]
FORMATS = ("openai-chat", "openai-responses", "anthropic", "gemini")
EXTRA_FORMATS = (*FORMATS, "mistral", "cohere", "ollama", "bedrock-converse")
"""Formats of the extra corpus (``tests/fixtures/corpus_extra``): requests and responses of all eight are
round-tripped; streams and the cross check run for :data:`FORMATS` (the ones with a reference accumulator
and a content extractor)."""
EXTRA_DIR = Path(__file__).resolve().parents[1] / "fixtures" / "corpus_extra"
TARGETS = ("openai-chat", "openai-responses", "anthropic", "gemini", "ollama")
CROSS_POLICIES = ("drop", "degrade")
CHECKS = ("request-roundtrip", "response-roundtrip", "stream", "cross")
CHECK_OF_KIND = {"request": ("request-roundtrip", "cross"), "response": ("response-roundtrip",), "stream": ("stream",)}

LOSSLESS, REPORTED, REFUSED = "lossless", "reported", "refused"
SILENT_CHANGE, SILENT_DROP, CRASH = "silent-change", "silent-drop", "crash"
STATUSES = (LOSSLESS, REPORTED, REFUSED, SILENT_CHANGE, SILENT_DROP, CRASH)
FAILING = frozenset({SILENT_CHANGE, SILENT_DROP, CRASH})
_SEVERITY = {s: i for i, s in enumerate(STATUSES)}

EQUIVALENCES = (
    "a key holding null, an empty list or object and an absent key are the same",
    "a tool call's `arguments` string equals another string holding the same JSON value",
    "OpenAI Chat: a string message `content` equals one text part holding it; a tool call's `type` "
    "`function` equals an absent `type` (the only value)",
    "OpenAI Responses: an input item with a `role` and no `type` equals one with `type` `message` "
    "(EasyInputMessage and Message); a string `content` of a user, system or developer message equals one "
    "`input_text` part holding it; a string `input` equals one user message holding it",
    "Anthropic: a string `system`, message `content` or `tool_result.content` equals one text block holding it",
    "Gemini: snake_case and camelCase field names are the same, and a field holding its default (`0`, "
    "`false`, `\"\"`) equals an absent one (protobuf JSON mapping); URL-safe and standard base64 of the same "
    "bytes in `inlineData.data` are the same (the API reads both)",
    "a number written as an integer equals the same number written as a float (`1` and `1.0`: one JSON number)",
)
EXACT_DROPPED = (2, 3, 4, 5, 6)
"""The :data:`EQUIVALENCES` an exact comparison does not apply (a string and one text part, argument
bytes, the base64 alphabet, ``1`` and ``1.0``): a client's own spelling must come back as it sent it
(issue 25). The extra corpus is compared exactly: its bodies are the clients' recorded bytes."""


# ---------------------------------------------------------------------------------------------- corpus


def corpus_dir() -> Path:
    """``$INTERLINGUA_CORPUS`` or ``<repo>/../shared/corpus``."""
    env = os.environ.get("INTERLINGUA_CORPUS")
    return Path(env) if env else REPO.parent / "shared" / "corpus"


@dataclass(frozen=True)
class Entry:
    """One manifest row."""

    file: str
    format: str
    kind: str
    source: str
    commit: str
    path: str
    exact: bool = False  # compare round trips without the equivalences of EXACT_DROPPED


def manifest(corpus: Path | None = None) -> list[Entry]:
    """The rows of ``manifest.tsv`` (empty when the corpus is absent)."""
    path = (corpus or corpus_dir()) / "manifest.tsv"
    if not path.is_file():
        return []
    with path.open(encoding="utf-8", newline="") as fh:
        rows = list(csv.DictReader(fh, delimiter="\t", quoting=csv.QUOTE_NONE))
    return [Entry(r["file"], r["format"], r["kind"], r["source"], r["commit"], r["path"]) for r in rows]


def manifest_extra(folder: Path = EXTRA_DIR) -> list[Entry]:
    """The rows of the extra corpus's ``manifest.tsv`` (``source`` is the project), compared exactly."""
    path = folder / "manifest.tsv"
    if not path.is_file():
        return []
    with path.open(encoding="utf-8", newline="") as fh:
        rows = list(csv.DictReader(fh, delimiter="\t", quoting=csv.QUOTE_NONE))
    return [Entry(r["file"], r["format"], r["kind"], r["project"], r["commit"], r["path"], True) for r in rows]


def unpack_extra(dest: Path, folder: Path = EXTRA_DIR) -> Path:
    """Unpack ``corpus_extra.tar.xz`` into ``dest`` (once) and return ``dest``."""
    return unpack(dest, folder, archive="corpus_extra.tar.xz")


def unpack(dest: Path, corpus: Path | None = None, *, archive: str = "corpus.tar.xz") -> Path:
    """Unpack ``corpus.tar.xz`` into ``dest`` (once: a ``.done`` marker is left) and return ``dest``."""
    done = dest / ".done"
    if done.exists():
        return dest
    dest.mkdir(parents=True, exist_ok=True)
    with tarfile.open((corpus or corpus_dir()) / archive, "r:xz") as tar:
        tar.extractall(dest, filter="data")
    done.touch()
    return dest


# ---------------------------------------------------------------------------------------------- outcome


@dataclass
class Outcome:
    """What one check did to one file."""

    check: str
    file: str
    status: str
    details: list[str] = field(default_factory=list)
    counts: dict[str, int] = field(default_factory=dict)  # cross: "<target>/<policy>|carried", "...|reported image", ...

    @property
    def failing(self) -> bool:
        return self.status in FAILING

    def message(self, limit: int = 25) -> str:
        lines = [f"{self.check} {self.file}: {self.status}"]
        lines += [f"  {d}" for d in self.details[:limit]]
        if len(self.details) > limit:
            lines.append(f"  ... {len(self.details) - limit} more")
        return "\n".join(lines)


def _worst(statuses: Iterable[str]) -> str:
    return max(statuses, key=_SEVERITY.__getitem__, default=LOSSLESS)


def _crash(check: str, file: str, exc: BaseException) -> Outcome:
    tb = traceback.extract_tb(exc.__traceback__)
    where = f"{Path(tb[-1].filename).name}:{tb[-1].lineno}" if tb else "?"
    return Outcome(check, file, CRASH, [f"crash: {type(exc).__name__}: {exc} (at {where})"])


def _refused(check: str, file: str, exc: InterlinguaError) -> Outcome:
    return Outcome(check, file, REFUSED, [f"refused: {type(exc).__name__}: {exc}"])


# ---------------------------------------------------------------------------------------------- diffing


def _camel(key: str) -> str:
    head, *rest = key.split("_")
    return head + "".join(p[:1].upper() + p[1:] for p in rest) if rest and head else key


def _text_blocks(value: Any) -> Any:
    return [{"type": "text", "text": value}] if isinstance(value, str) else value


def normalize(fmt: str, value: Any, *, top: bool = True, exact: bool = False) -> Any:
    """The payload with the :data:`EQUIVALENCES` applied (a new object); ``exact``: without those of
    :data:`EXACT_DROPPED`."""
    if isinstance(value, list):
        return [normalize(fmt, v, top=False, exact=exact) for v in value]
    if isinstance(value, float) and value.is_integer() and not exact:
        return int(value)
    if not isinstance(value, dict):
        return value
    out: dict[str, Any] = {}
    for key, v in value.items():
        if v is None or v == [] or v == {}:
            continue
        if fmt == "gemini":
            key = _camel(key)
            if v is False or v == 0 and type(v) is int or v == "":
                continue
        if fmt == "anthropic" and (key == "content" or (top and key == "system")) and not exact:
            v = _text_blocks(v)
        if fmt == "openai-chat" and key == "content" and isinstance(value.get("role"), str) and not exact:
            v = _text_blocks(v)
        if fmt == "openai-chat" and key == "type" and v == "function" and "function" in value:
            continue
        if fmt == "openai-responses" and key == "type" and v == "message" and "role" in value:
            continue
        if fmt == "openai-responses" and key == "content" and isinstance(v, str) and value.get("role") in ("user", "system", "developer") and not exact:
            v = [{"type": "input_text", "text": v}]
        if fmt == "openai-responses" and top and key == "input" and isinstance(v, str) and not exact:
            v = [{"role": "user", "content": [{"type": "input_text", "text": v}]}]
        if key == "arguments" and isinstance(v, str) and not exact:
            v = _json_key(v)
        if fmt == "gemini" and key == "data" and isinstance(v, str) and "mimeType" in {_camel(k) for k in value} and not exact:
            v = _std_b64(v)
        out[key] = normalize(fmt, v, top=False, exact=exact)
    return out


def _json_key(text: str) -> str:
    try:
        return "json:" + json.dumps(json.loads(text), sort_keys=True)
    except (json.JSONDecodeError, ValueError):
        return text


@dataclass(frozen=True)
class Difference:
    """One difference between input and output: ``drop`` (input content missing) or ``change``."""

    pointer: str
    kind: str
    before: Any
    after: Any

    def __str__(self) -> str:
        return f"{self.kind} at {self.pointer or '/'}: {_short(self.before)} -> {_short(self.after)}"


def _short(v: Any, n: int = 90) -> str:
    if isinstance(v, dict):  # what an object is first: its type and role
        v = {**{k: v[k] for k in ("type", "role") if k in v}, **{k: v[k] for k in sorted(v) if k not in ("type", "role")}}
    s = json.dumps(v, ensure_ascii=False) if v is not None else "(absent)"
    return s if len(s) <= n else s[: n - 3] + "..."


def _esc(key: str) -> str:
    return key.replace("~", "~0").replace("/", "~1")


def differences(a: Any, b: Any, pointer: str = "") -> Iterator[Difference]:
    """Differences from ``a`` (input) to ``b`` (output), by JSON pointer."""
    if isinstance(a, dict) and isinstance(b, dict):
        for k in a:
            p = f"{pointer}/{_esc(k)}"
            if k not in b:
                yield Difference(p, "drop", a[k], None)
            else:
                yield from differences(a[k], b[k], p)
        for k in b:
            if k not in a:
                yield Difference(f"{pointer}/{_esc(k)}", "change", None, b[k])
        return
    if isinstance(a, list) and isinstance(b, list):
        if len(a) == len(b):
            for i, (x, y) in enumerate(zip(a, b)):
                yield from differences(x, y, f"{pointer}/{i}")
            return
        # lengths differ: align the elements (difflib), so one dropped element is one difference
        keys_a = [json.dumps(x, sort_keys=True) for x in a]
        keys_b = [json.dumps(y, sort_keys=True) for y in b]
        for op, i1, i2, j1, j2 in difflib.SequenceMatcher(None, keys_a, keys_b, autojunk=False).get_opcodes():
            if op == "equal":
                continue
            paired_a: set[int] = set()
            paired_b: set[int] = set()
            if op == "replace":  # pair the elements of the block by their type and role, then drops and additions
                sig_a = [_signature(x) for x in a[i1:i2]]
                sig_b = [_signature(y) for y in b[j1:j2]]
                for op2, p1, p2, q1, q2 in difflib.SequenceMatcher(None, sig_a, sig_b, autojunk=False).get_opcodes():
                    if op2 == "equal" or op2 == "replace":
                        for k in range(min(p2 - p1, q2 - q1)):
                            paired_a.add(i1 + p1 + k)
                            paired_b.add(j1 + q1 + k)
                            yield from differences(a[i1 + p1 + k], b[j1 + q1 + k], f"{pointer}/{i1 + p1 + k}")
            for i in range(i1, i2):
                if i not in paired_a:
                    yield Difference(f"{pointer}/{i}", "drop", a[i], None)
            for j in range(j1, j2):
                if j not in paired_b:
                    yield Difference(f"{pointer}/{j}", "change", None, b[j])
        return
    if a != b or type(a) is not type(b):
        yield Difference(pointer, "change", a, b)


def _signature(v: Any) -> str:
    """What an element of a list is, for aligning two lists: its ``type`` and ``role`` (an object), else its JSON type."""
    return repr((v.get("type"), v.get("role"))) if isinstance(v, dict) else type(v).__name__


def _segments(pointer: str) -> list[str]:
    return [s for s in pointer.split("/")[1:]] if pointer else []


def _related(p: str, q: str) -> bool:
    a, b = _segments(p), _segments(q)
    n = min(len(a), len(b))
    return a[:n] == b[:n]


def _leaf_key(pointer: str) -> str | None:
    for seg in reversed(_segments(pointer)):
        if not seg.isdigit():
            return seg.replace("~1", "/").replace("~0", "~")
    return None


_IDENT = re.compile(r"_|[a-z][A-Z]")  # a field name too distinctive to be an ordinary word: snake_case, camelCase


def named(diff: Difference, report: Report) -> bool:
    """Whether a report entry names ``diff``: its pointer is on the difference's path, or (an entry
    without pointer) its reason quotes the field that differs (or names it, when it is in snake_case or
    camelCase) or its item type is in a field name on the
    path (``reasoning`` names ``/choices/0/message/reasoning_content``) or is the ``type`` of the object
    that differs."""
    for e in report:
        if e.pointer is not None and _related(e.pointer, diff.pointer):
            return True
    leaf = _leaf_key(diff.pointer)
    keys = [s.lower() for s in _segments(diff.pointer) if not s.isdigit()]
    for e in report:
        if e.pointer is not None:
            continue
        if leaf and (f"'{leaf}'" in e.reason or f"`{leaf}`" in e.reason):
            return True
        if leaf and _IDENT.search(leaf) and re.search(rf"\b{re.escape(leaf)}\b", e.reason):
            return True
        if e.item_type and any(e.item_type.lower() in k for k in keys):
            return True
        value = diff.before if diff.kind == "drop" else diff.after
        if e.item_type and isinstance(value, dict) and e.item_type.lower() in str(value.get("type", "")).lower():
            return True
    return False


def classify(before: Any, after: Any, report: Report, check: str, file: str, *, fmt: str, exact: bool = False) -> Outcome:
    """Compare a round trip's input and output and classify it."""
    diffs = list(differences(normalize(fmt, before, exact=exact), normalize(fmt, after, exact=exact)))
    if not diffs:
        return Outcome(check, file, LOSSLESS)
    statuses, details = [], []
    for d in diffs:
        if named(d, report):
            statuses.append(REPORTED)
        else:
            statuses.append(SILENT_DROP if d.kind == "drop" else SILENT_CHANGE)
            details.append(f"silent {d}")
    status = _worst(statuses)
    details += [f"report: {e}" for e in report]
    return Outcome(check, file, status, details)


# ---------------------------------------------------------------------------------------------- scopes

# Top-level request keys that are conversation (history, system prompt, tools, tool choice); the rest are
# request settings: a setting the mapper leaves out must be reported, and a reported setting does not make
# a round trip lossy; a setting it carries must come back equal (or its change be named).
CONVERSATION_KEYS = {
    "openai-chat": {"messages", "tools", "tool_choice", "functions", "function_call", "model"},
    "openai-responses": {"input", "instructions", "tools", "tool_choice", "model"},
    "anthropic": {"system", "messages", "tools", "tool_choice", "model"},
    "gemini": {"contents", "systemInstruction", "system_instruction", "tools", "toolConfig", "tool_config"},
    "mistral": {"messages", "tools", "tool_choice", "model"},
    "cohere": {"messages", "tools", "tool_choice", "model", "documents"},
    "ollama": {"messages", "tools", "model"},
    "bedrock-converse": {"messages", "system", "toolConfig", "modelId"},
}

# Fields of a Responses `response` object that echo the request's settings (OpenAI API reference, "The
# response object"): not output, so outside the response round trip.
RESPONSES_ECHO = {
    "instructions", "max_output_tokens", "max_tool_calls", "metadata", "parallel_tool_calls", "previous_response_id",
    "prompt", "prompt_cache_key", "prompt_cache_retention", "reasoning", "safety_identifier", "store", "temperature",
    "text", "tool_choice", "tools", "top_logprobs", "top_p", "truncation", "user", "background", "billing",
    "conversation", "frequency_penalty", "presence_penalty",
}


# ---------------------------------------------------------------------------------------------- round trips


def load_json(path: Path) -> Any:
    return json.loads(path.read_bytes())


def check_request_roundtrip(fmt: str, body: dict[str, Any], file: str, *, exact: bool = False) -> Outcome:
    """decode_request -> encode_request to the same provider with the source model."""
    check = "request-roundtrip"
    mapper = get_mapper(fmt)
    try:
        dec = mapper.decode_request(body)
        enc = mapper.encode_request(dec.value, model=body.get("model"), policy="error")
    except InterlinguaError as exc:
        return _refused(check, file, exc)
    except Exception as exc:  # noqa: BLE001 - a crash is an outcome
        return _crash(check, file, exc)
    report = Report([*dec.report, *enc.report])
    before = {k: v for k, v in body.items() if not _reported_setting(k, v, body, enc.value, fmt, report)}
    return classify(before, enc.value, report, check, file, fmt=fmt, exact=exact)


def _reported_setting(key: str, value: Any, body: dict[str, Any], out: dict[str, Any], fmt: str, report: Report) -> bool:
    """A request setting left out of the output with a report entry naming it (out of the comparison)."""
    return key not in CONVERSATION_KEYS[fmt] and key not in out and named(Difference(f"/{_esc(key)}", "drop", value, None), report)


def check_response_roundtrip(fmt: str, body: dict[str, Any], file: str, *, exact: bool = False) -> Outcome:
    """decode_response -> encode_response to the same provider with the source model."""
    check = "response-roundtrip"
    mapper = get_mapper(fmt)
    try:
        dec = mapper.decode_response(body)
        enc = mapper.encode_response(dec.value, model=body.get("model") or body.get("modelVersion"), policy="error")
    except InterlinguaError as exc:
        return _refused(check, file, exc)
    except Exception as exc:  # noqa: BLE001
        return _crash(check, file, exc)
    before, after = body, enc.value
    if fmt == "openai-responses":
        before = {k: v for k, v in body.items() if k not in RESPONSES_ECHO}
        after = {k: v for k, v in enc.value.items() if k not in RESPONSES_ECHO}
    return classify(before, after, Report([*dec.report, *enc.report]), check, file, fmt=fmt, exact=exact)


# ---------------------------------------------------------------------------------------------- streams


@dataclass
class Accumulated:
    """What a stream said, collected from its raw events."""

    text: str = ""
    reasoning: str = ""
    tool_calls: list[tuple[str, Any]] = field(default_factory=list)
    stop: str | None = None
    error: bool = False


def sse_data(data: bytes) -> Iterator[tuple[str | None, str]]:
    """``(event, data)`` of each server-sent event (WHATWG SSE framing; comments skipped)."""
    event: str | None = None
    lines: list[str] = []
    for raw in data.decode("utf-8").replace("\r\n", "\n").replace("\r", "\n").split("\n"):
        if raw == "":
            if lines:
                yield event, "\n".join(lines)
            event, lines = None, []
            continue
        if raw.startswith(":"):
            continue
        name, _, value = raw.partition(":")
        value = value[1:] if value.startswith(" ") else value
        if name == "event":
            event = value
        elif name == "data":
            lines.append(value)
    if lines:
        yield event, "\n".join(lines)


def sse_json(data: bytes) -> Iterator[tuple[str | None, Any]]:
    """``(event, parsed data)`` of each event whose data is JSON (``[DONE]`` and other non-JSON markers skipped)."""
    for event, payload in sse_data(data):
        try:
            yield event, json.loads(payload)
        except json.JSONDecodeError:
            continue


def _args(text: str) -> Any:
    try:
        return json.loads(text) if text.strip() else {}
    except json.JSONDecodeError:
        return text


def _chat_parts(content: Any, acc: Accumulated) -> None:
    if isinstance(content, str):
        acc.text += content
    elif isinstance(content, list):  # Mistral: a list of typed chunks
        for part in content:
            if not isinstance(part, dict):
                continue
            if part.get("type") == "text":
                acc.text += part.get("text") or ""
            elif part.get("type") == "thinking":
                for t in part.get("thinking") or []:
                    if isinstance(t, dict) and t.get("type") == "text":
                        acc.reasoning += t.get("text") or ""


def accumulate_openai_chat(data: bytes) -> Accumulated:
    """Chat Completions chunks: ``choices[0].delta`` content, reasoning, tool calls by index; ``finish_reason``."""
    acc = Accumulated()
    calls: dict[int, dict[str, str]] = {}
    for _, chunk in sse_json(data):
        if chunk.get("error"):  # an error chunk of an OpenAI-compatible host (with or without choices)
            acc.error = True
        for choice in chunk.get("choices") or []:
            if choice.get("index", 0) != 0:
                continue
            delta = choice.get("delta") or {}
            _chat_parts(delta.get("content"), acc)
            for key in ("reasoning_content", "reasoning"):
                if isinstance(delta.get(key), str):
                    acc.reasoning += delta[key]
            for tc in delta.get("tool_calls") or []:
                slot = calls.setdefault(tc.get("index", len(calls)), {"name": "", "arguments": ""})
                fn = tc.get("function") or {}
                # the name arrives in the first fragment (OpenAI API reference, chat completion chunk); a host
                # that repeats it in every delta (simonw/llm's recorded stream) does not make it longer
                slot["name"] = slot["name"] or fn.get("name") or ""
                args = fn.get("arguments")
                slot["arguments"] += args if isinstance(args, str) else (json.dumps(args) if args else "")
            if choice.get("finish_reason") is not None:
                acc.stop = choice["finish_reason"]
    acc.tool_calls = [(c["name"], _args(c["arguments"])) for _, c in sorted(calls.items())]
    return acc


def accumulate_openai_responses(data: bytes) -> Accumulated:
    """Responses events: ``output_text.delta``, reasoning deltas, finished ``function_call`` items, final status."""
    acc = Accumulated()
    for event, ev in sse_json(data):
        kind = ev.get("type") or event
        if kind == "response.output_text.delta":
            acc.text += ev.get("delta") or ""
        elif kind in ("response.reasoning_summary_text.delta", "response.reasoning_text.delta"):
            acc.reasoning += ev.get("delta") or ""
        elif kind == "response.output_item.done" and (ev.get("item") or {}).get("type") == "function_call":
            item = ev["item"]
            acc.tool_calls.append((item.get("name", ""), _args(item.get("arguments") or "")))
        elif kind in ("response.completed", "response.incomplete", "response.failed"):
            resp = ev.get("response") or {}
            acc.stop = resp.get("status")
            if (resp.get("incomplete_details") or {}).get("reason"):
                acc.stop = resp["incomplete_details"]["reason"]
        elif kind == "error":
            acc.error = True
    return acc


def accumulate_anthropic(data: bytes) -> Accumulated:
    """Messages events: text/thinking deltas, ``tool_use`` blocks with their ``input_json_delta``, ``stop_reason``."""
    acc = Accumulated()
    blocks: dict[int, dict[str, Any]] = {}
    for event, ev in sse_json(data):
        kind = ev.get("type") or event
        if kind == "content_block_start":
            blk = ev.get("content_block") or {}
            blocks[ev.get("index", len(blocks))] = {"type": blk.get("type"), "name": blk.get("name"), "json": "", "input": blk.get("input")}
            if blk.get("type") == "text":
                acc.text += blk.get("text") or ""
            elif blk.get("type") == "thinking":
                acc.reasoning += blk.get("thinking") or ""
        elif kind == "content_block_delta":
            d = ev.get("delta") or {}
            blk = blocks.get(ev.get("index", -1), {})
            if d.get("type") == "text_delta":
                acc.text += d.get("text") or ""
            elif d.get("type") == "thinking_delta":
                acc.reasoning += d.get("thinking") or ""
            elif d.get("type") == "input_json_delta":
                blk["json"] = blk.get("json", "") + (d.get("partial_json") or "")
        elif kind == "message_delta":
            if (ev.get("delta") or {}).get("stop_reason") is not None:
                acc.stop = ev["delta"]["stop_reason"]
        elif kind == "error":
            acc.error = True
    for _, blk in sorted(blocks.items()):
        if blk["type"] == "tool_use":
            args = _args(blk["json"]) if blk["json"] else (blk["input"] or {})
            acc.tool_calls.append((blk["name"] or "", args))
    return acc


def accumulate_gemini(data: bytes) -> Accumulated:
    """streamGenerateContent?alt=sse chunks: parts of ``candidates[0]`` (``thought`` parts are reasoning)."""
    acc = Accumulated()
    for _, chunk in sse_json(data):
        if "error" in chunk:
            acc.error = True
            continue
        for cand in chunk.get("candidates") or []:
            if cand.get("index", 0) != 0:
                continue
            for part in (cand.get("content") or {}).get("parts") or []:
                if "text" in part:
                    if part.get("thought"):
                        acc.reasoning += part["text"]
                    else:
                        acc.text += part["text"]
                fc = part.get("functionCall") or part.get("function_call")
                if fc:
                    acc.tool_calls.append((fc.get("name", ""), fc.get("args") or {}))
            if cand.get("finishReason") is not None:
                acc.stop = cand["finishReason"]
    return acc


REFERENCE_ACCUMULATORS = {
    "openai-chat": accumulate_openai_chat,
    "openai-responses": accumulate_openai_responses,
    "anthropic": accumulate_anthropic,
    "gemini": accumulate_gemini,
}


def _mapper_accumulated(items: list[Any]) -> Accumulated:
    acc = Accumulated()
    for item in items:
        t = type(item).__struct_config__.tag
        if t == "text":
            acc.text += item.text
        elif t == "reasoning":
            text = item.text if isinstance(getattr(item, "text", None), str) else ""
            summary = item.summary if isinstance(getattr(item, "summary", None), list) else []
            acc.reasoning += text + "".join(summary)
        elif t == "tool_call":
            args = item.arguments if isinstance(getattr(item, "arguments", None), dict) else getattr(item, "arguments_raw", None)
            acc.tool_calls.append((item.name, args))
        elif t == "structured":
            acc.text += json.dumps(item.data)
    return acc


def check_stream(fmt: str, data: bytes, file: str) -> Outcome:
    """The mapper's final items against the reference accumulation of the raw events."""
    check = "stream"
    try:
        ref = REFERENCE_ACCUMULATORS[fmt](data)
    except Exception as exc:  # noqa: BLE001 - a defect of the reference, not of the mapper
        return Outcome(check, file, CRASH, [f"crash of the reference accumulator: {type(exc).__name__}: {exc}"])
    try:
        last = None
        for last in iter_stream(get_mapper(fmt), data):
            pass
    except Exception as exc:  # noqa: BLE001
        return _crash(check, file, exc)
    if isinstance(last, StreamError):
        if ref.error:
            return Outcome(check, file, REFUSED, [f"refused: the stream carries an error event: {last.error.code}: {last.error.message}"])
        return Outcome(check, file, REFUSED, [f"refused: {last.error.code}: {last.error.message}"])
    if not isinstance(last, StreamDone):
        return Outcome(check, file, CRASH, ["crash: the stream ended without a terminal event"])
    got = _mapper_accumulated(last.response.items)  # type: ignore[attr-defined]
    stop = last.response.stop_reason  # type: ignore[attr-defined]
    got.stop = stop.raw if stop is not None and isinstance(getattr(stop, "raw", None), str) else None
    report = last.report
    details, statuses = [], []
    for label, want, have in (
        ("text", ref.text, got.text),
        ("reasoning", ref.reasoning, got.reasoning),
        ("tool calls", ref.tool_calls, got.tool_calls),
        ("stop reason", ref.stop, got.stop),
    ):
        if want == have:
            continue
        if label == "stop reason" and want is None:
            continue
        kind = "drop" if (not have and want) or (isinstance(want, str) and isinstance(have, str) and have in want) else "change"
        if _stream_named(label, report):
            statuses.append(REPORTED)
            details.append(f"reported {label}: {_short(want)} -> {_short(have)}")
        else:
            statuses.append(SILENT_DROP if kind == "drop" else SILENT_CHANGE)
            details.append(f"silent {kind} of {label}: reference {_short(want)} -> mapper {_short(have)}")
    details += [f"report: {e}" for e in report]
    return Outcome(check, file, _worst(statuses) if statuses else LOSSLESS, details if statuses else [])


_STREAM_WORDS = {"text": ("text",), "reasoning": ("reasoning", "thinking", "thought"), "tool calls": ("tool", "function"), "stop reason": ("stop", "finish")}


def _stream_named(label: str, report: Report) -> bool:
    words = _STREAM_WORDS[label]
    return any(e.action in ("dropped", "degraded") and any(w in f"{e.item_type} {e.reason}".lower() for w in words) for e in report)


# ---------------------------------------------------------------------------------------------- cross-provider


@dataclass
class Content:
    """Content units of a request, extracted from its raw JSON."""

    texts: list[str] = field(default_factory=list)
    tool_calls: list[tuple[str, Any]] = field(default_factory=list)
    tool_results: list[Any] = field(default_factory=list)  # texts or JSON values
    images: list[str] = field(default_factory=list)
    reasoning: list[str] = field(default_factory=list)
    strings: list[str] = field(default_factory=list)  # every string of the payload's conversation part

    def haystack(self) -> str:
        return "\x00".join(_ws(s) for s in self.strings)


def _ws(s: str) -> str:
    return " ".join(unicodedata.normalize("NFKC", s).split())


def _strings(value: Any, out: list[str]) -> None:
    if isinstance(value, str):
        out.append(value)
    elif isinstance(value, dict):
        for v in value.values():
            _strings(v, out)
    elif isinstance(value, list):
        for v in value:
            _strings(v, out)


def _jsonish(value: Any) -> Any:
    if isinstance(value, str):
        try:
            return json.loads(value)
        except (json.JSONDecodeError, ValueError):
            return value
    return value


def _result_parts(value: Any) -> list[Any]:
    """A tool result's content as comparable parts: each text (a string), or a JSON value."""
    if isinstance(value, str):
        return [value]
    if isinstance(value, list) and all(isinstance(p, dict) and "type" in p for p in value):
        return [p["text"] for p in value if p.get("type") in ("text", "input_text", "output_text") and isinstance(p.get("text"), str)]
    return [value]


def _canon_json(value: Any) -> str | None:
    """Canonical JSON of a JSON object or array (given as such or as a string holding one)."""
    if isinstance(value, str):
        if not value.lstrip().startswith(("{", "[")):
            return None
        try:
            value = json.loads(value)
        except (json.JSONDecodeError, ValueError):
            return None
    if isinstance(value, (dict, list)):
        return json.dumps(value, sort_keys=True, ensure_ascii=False)
    return None


def _data_url(url: str) -> str:
    return url.split(",", 1)[1] if url.startswith("data:") and "," in url else url


def _extract_chat(body: dict[str, Any], c: Content) -> None:
    for m in body.get("messages") or []:
        role = m.get("role")
        content = m.get("content")
        if role == "tool" or role == "function":
            c.tool_results.extend(_result_parts(content))
            continue
        if isinstance(content, str):
            c.texts.append(content)
        for part in content if isinstance(content, list) else []:
            if not isinstance(part, dict):
                continue
            if part.get("type") == "text" and isinstance(part.get("text"), str):
                c.texts.append(part["text"])
            elif part.get("type") == "image_url":
                url = part.get("image_url")
                url = url.get("url") if isinstance(url, dict) else url
                if isinstance(url, str):
                    c.images.append(_data_url(url))
            elif part.get("type") == "thinking":
                for t in part.get("thinking") or []:
                    if isinstance(t, dict) and isinstance(t.get("text"), str):
                        c.reasoning.append(t["text"])
        for key in ("reasoning_content", "reasoning"):
            if isinstance(m.get(key), str) and m[key]:
                c.reasoning.append(m[key])
        for tc in m.get("tool_calls") or []:
            fn = tc.get("function") or {}
            if fn.get("name"):
                c.tool_calls.append((fn["name"], _jsonish(fn.get("arguments"))))
        if isinstance(m.get("function_call"), dict):
            c.tool_calls.append((m["function_call"].get("name", ""), _jsonish(m["function_call"].get("arguments"))))


def _extract_responses(body: dict[str, Any], c: Content) -> None:
    if isinstance(body.get("instructions"), str):
        c.texts.append(body["instructions"])
    items = body.get("input")
    if isinstance(items, str):
        c.texts.append(items)
        return
    for it in items or []:
        t = it.get("type", "message" if "role" in it else None)
        if t == "message":
            content = it.get("content")
            if isinstance(content, str):
                c.texts.append(content)
            for part in content if isinstance(content, list) else []:
                pt = part.get("type")
                if pt in ("input_text", "output_text", "text") and isinstance(part.get("text"), str):
                    c.texts.append(part["text"])
                elif pt == "input_image":
                    url = part.get("image_url") or part.get("file_id")
                    if isinstance(url, str):
                        c.images.append(_data_url(url))
                elif pt == "refusal" and isinstance(part.get("refusal"), str):
                    c.texts.append(part["refusal"])
        elif t == "function_call":
            c.tool_calls.append((it.get("name", ""), _jsonish(it.get("arguments"))))
        elif t == "function_call_output":
            out = it.get("output")
            if isinstance(out, list):
                for part in out:
                    if isinstance(part, dict) and part.get("type") == "input_image" and isinstance(part.get("image_url"), str):
                        c.images.append(_data_url(part["image_url"]))
            c.tool_results.extend(_result_parts(out))
        elif t == "reasoning":
            for s in it.get("summary") or []:
                if isinstance(s, dict) and s.get("text"):
                    c.reasoning.append(s["text"])
            for s in it.get("content") or []:
                if isinstance(s, dict) and s.get("text"):
                    c.reasoning.append(s["text"])


def _anthropic_image(block: dict[str, Any], c: Content) -> None:
    src = block.get("source") or {}
    v = src.get("data") or src.get("url") or src.get("file_id")
    if isinstance(v, str):
        c.images.append(v)


def _extract_anthropic(body: dict[str, Any], c: Content) -> None:
    system = body.get("system")
    if isinstance(system, str):
        c.texts.append(system)
    for b in system if isinstance(system, list) else []:
        if isinstance(b, dict) and isinstance(b.get("text"), str):
            c.texts.append(b["text"])
    for m in body.get("messages") or []:
        content = m.get("content")
        if isinstance(content, str):
            c.texts.append(content)
            continue
        for b in content or []:
            bt = b.get("type")
            if bt == "text":
                c.texts.append(b.get("text") or "")
            elif bt == "image":
                _anthropic_image(b, c)
            elif bt == "tool_use":
                c.tool_calls.append((b.get("name", ""), b.get("input")))
            elif bt == "tool_result":
                inner = b.get("content")
                for p in inner if isinstance(inner, list) else []:
                    if isinstance(p, dict) and p.get("type") == "image":
                        _anthropic_image(p, c)
                if inner:
                    c.tool_results.extend(_result_parts(inner))
            elif bt == "thinking" and b.get("thinking"):
                c.reasoning.append(b["thinking"])


def _extract_gemini(body: dict[str, Any], c: Content) -> None:
    si = body.get("systemInstruction") or body.get("system_instruction")
    contents = list(body.get("contents") or [])
    if isinstance(si, dict):
        contents.insert(0, si)
    elif isinstance(si, str):
        c.texts.append(si)
    for turn in contents:
        for p in turn.get("parts") or []:
            if isinstance(p.get("text"), str):
                (c.reasoning if p.get("thought") else c.texts).append(p["text"])
            inline = p.get("inlineData") or p.get("inline_data")
            if isinstance(inline, dict) and str(inline.get("mimeType") or inline.get("mime_type") or "").startswith("image/"):
                c.images.append(inline.get("data") or "")
            fdata = p.get("fileData") or p.get("file_data")
            if isinstance(fdata, dict) and str(fdata.get("mimeType") or fdata.get("mime_type") or "").startswith("image/"):
                c.images.append(fdata.get("fileUri") or fdata.get("file_uri") or "")
            fc = p.get("functionCall") or p.get("function_call")
            if isinstance(fc, dict):
                c.tool_calls.append((fc.get("name", ""), fc.get("args") or {}))
            fr = p.get("functionResponse") or p.get("function_response")
            if isinstance(fr, dict):
                c.tool_results.extend(_result_parts(_gemini_response_value(fr.get("response"))))


def _gemini_response_value(resp: Any) -> Any:
    """The tool output inside ``functionResponse.response``: the ``output`` or ``error`` key (Gemini API reference, FunctionResponse.response), or ``result``/``content``, when it is the only one."""
    if isinstance(resp, dict) and len(resp) == 1 and next(iter(resp)) in ("output", "error", "result", "content"):
        return next(iter(resp.values()))
    return resp


def _extract_ollama(body: dict[str, Any], c: Content) -> None:
    for m in body.get("messages") or []:
        if m.get("role") == "tool":
            c.tool_results.extend(_result_parts(m.get("content")))
        elif isinstance(m.get("content"), str):
            c.texts.append(m["content"])
        if isinstance(m.get("thinking"), str):
            c.reasoning.append(m["thinking"])
        for img in m.get("images") or []:
            if isinstance(img, str):
                c.images.append(img)
        for tc in m.get("tool_calls") or []:
            fn = tc.get("function") or {}
            c.tool_calls.append((fn.get("name", ""), _jsonish(fn.get("arguments"))))


EXTRACTORS = {
    "openai-chat": _extract_chat,
    "openai-responses": _extract_responses,
    "anthropic": _extract_anthropic,
    "gemini": _extract_gemini,
    "ollama": _extract_ollama,
}


def extract(fmt: str, body: dict[str, Any]) -> Content:
    """The content units of a request body of ``fmt``, read from its raw JSON."""
    c = Content()
    EXTRACTORS[fmt](body, c)
    for key in CONVERSATION_KEYS.get(fmt, {"messages", "tools"}):
        if key in body:
            _strings(body[key], c.strings)
    c.texts = [t for t in c.texts if t.strip()]
    c.tool_results = [t for t in c.tool_results if t not in ({}, [], None) and (not isinstance(t, str) or t.strip())]
    c.reasoning = [t for t in c.reasoning if t.strip()]
    c.images = [i for i in c.images if i]
    return c


# report item types that may name the loss of each kind of content
_KIND_TYPES = {
    "text": {"text", "raw", "document", "message"},
    "tool call": {"tool_call", "raw"},
    "tool result": {"tool_result", "raw"},
    "image": {"image", "raw", "tool_result"},
    "reasoning": {"reasoning", "raw"},
}


def _cross_named(kind: str, report: Report) -> bool:
    types = _KIND_TYPES[kind]
    word = kind.split()[-1] if kind != "reasoning" else "reasoning"
    for e in report:
        if e.action not in ("dropped", "degraded"):
            continue
        if (e.item_type or "") in types or (kind != "text" and word in e.reason.lower()):
            return True
    return False


def _canon_args(v: Any) -> Any:
    v = _jsonish(v)
    return json.dumps(v, sort_keys=True) if not isinstance(v, str) else v


def _missing(src: Content, out: Content) -> list[tuple[str, str]]:
    """``(kind, what)`` of each source unit not found in ``out``."""
    hay = out.haystack()
    miss: list[tuple[str, str]] = []
    for kind, units in (("text", src.texts), ("reasoning", src.reasoning)):
        for u in units:
            if _ws(u) not in hay:
                miss.append((kind, _short(u, 70)))
    out_values = [*out.tool_results, *out.strings]
    # a value carried with its Gemini wrapper (`{"result": {...}}` written whole) is carried too
    out_values += [_gemini_response_value(v) for v in (_jsonish(v) for v in out.tool_results) if isinstance(v, dict) and len(v) == 1]
    out_json = {j for j in (_canon_json(v) for v in out_values) if j}
    for u in src.tool_results:
        j = _canon_json(u)
        if j is not None and j in out_json:
            continue
        if isinstance(u, str) and _ws(u) in hay:
            continue
        if not isinstance(u, str) and j is None and _ws(json.dumps(u)) in hay:  # a number, a boolean
            continue
        miss.append(("tool result", _short(u, 70)))
    out_calls = [(n, _canon_args(a)) for n, a in out.tool_calls]
    for name, args in src.tool_calls:
        key = (name, _canon_args(args))
        if key in out_calls:
            out_calls.remove(key)
        else:
            miss.append(("tool call", f"{name}({_short(args, 60)})"))
    # Base64 may change alphabet on the way (Gemini accepts URL-safe base64; the canonical form and
    # the other providers take the standard alphabet): compare in the standard one.
    raw_hay = _std_b64("\x00".join(out.strings))
    for img in src.images:
        if _std_b64(img) not in raw_hay:
            miss.append(("image", _short(img[:60], 70)))
    return miss


def _std_b64(text: str) -> str:
    return text.replace("-", "+").replace("_", "/")


def _count(counts: dict[str, int], where: str, what: str, n: int) -> None:
    """Add ``n`` to ``counts["<target>/<policy>|<what>"]``."""
    key = f"{where}|{what}"
    counts[key] = counts.get(key, 0) + n


def check_cross(fmt: str, body: dict[str, Any], file: str) -> Outcome:
    """The request to every other target under each of :data:`CROSS_POLICIES`: each content unit of the
    input is in the output, or a report entry names its loss."""
    check = "cross"
    try:
        dec = get_mapper(fmt).decode_request(body)
    except InterlinguaError as exc:
        return _refused(check, file, exc)
    except Exception as exc:  # noqa: BLE001
        return _crash(check, file, exc)
    src = extract(fmt, body)
    total = len(src.texts) + len(src.tool_calls) + len(src.tool_results) + len(src.images) + len(src.reasoning)
    counts: dict[str, int] = {}
    statuses: list[str] = []
    details: list[str] = []
    for target in TARGETS:
        if target == fmt:
            continue
        for policy in CROSS_POLICIES:
            where = f"{target}/{policy}"
            try:
                enc = get_mapper(target).encode_request(dec.value, model=None, policy=policy)  # type: ignore[arg-type]
            except InterlinguaError as exc:
                statuses.append(REFUSED)
                details.append(f"{where}: refused: {type(exc).__name__}: {exc}")
                _count(counts, where, "refused", total)
                continue
            except Exception as exc:  # noqa: BLE001
                o = _crash(check, file, exc)
                statuses.append(CRASH)
                details.append(f"{where}: {o.details[0]}")
                continue
            report = Report([*dec.report, *enc.report])
            missing = _missing(src, extract(target, enc.value))
            _count(counts, where, "carried", total - len(missing))
            statuses.append(LOSSLESS)
            for kind, what in missing:
                if _cross_named(kind, report):
                    statuses.append(REPORTED)
                    _count(counts, where, f"reported {kind}", 1)
                else:
                    statuses.append(SILENT_DROP)
                    _count(counts, where, f"silent {kind}", 1)
                    details.append(f"{where}: silent drop of {kind} {what}")
    return Outcome(check, file, _worst(statuses), details, counts)


# ---------------------------------------------------------------------------------------------- running


def run_file(entry: Entry, root: Path, check: str) -> Outcome:
    """Run one check on one unpacked file."""
    path = root / entry.file
    if check == "stream":
        return check_stream(entry.format, path.read_bytes(), entry.file)
    body = load_json(path)
    if check == "request-roundtrip":
        return check_request_roundtrip(entry.format, body, entry.file, exact=entry.exact)
    if check == "response-roundtrip":
        return check_response_roundtrip(entry.format, body, entry.file, exact=entry.exact)
    if check == "cross":
        return check_cross(entry.format, body, entry.file)
    raise ValueError(check)


def cases(entries: Iterable[Entry]) -> list[tuple[str, Entry]]:
    """Every ``(check, entry)`` pair the corpus test runs."""
    return [(check, e) for e in entries for check in CHECK_OF_KIND[e.kind] if check in ("request-roundtrip", "response-roundtrip") or e.format in FORMATS]


def _run_case(args: tuple[str, Entry, str]) -> Outcome:
    check, entry, root = args
    return run_file(entry, Path(root), check)


def run_all(root: Path, entries: list[Entry], *, jobs: int | None = None) -> list[Outcome]:
    """Every check on every file, in a process pool of ``jobs`` workers (``os.cpu_count()`` by default)."""
    from concurrent.futures import ProcessPoolExecutor

    work = [(check, e, str(root)) for check, e in cases(entries)]
    jobs = jobs or os.cpu_count() or 1
    if jobs == 1:
        return [_run_case(w) for w in work]
    with ProcessPoolExecutor(jobs) as pool:
        return list(pool.map(_run_case, work, chunksize=32))


# ---------------------------------------------------------------------------------------------- gap classes

# Each silent difference (a ``silent ...`` detail line) is put in the first class whose check and pattern
# match it; a failing outcome belongs to every class one of its lines falls in, and is listed in
# known_gaps.toml under the first of them in this order. The classes name the issue-13 item they belong to
# ("new" when the issue does not name them yet).
GAP_RULES: list[tuple[str, str, str, str]] = [
    # (class, issue item, check or "*", regex over one detail line)
    ("crash", "new", "*", r"^crash"),
    ("stream: Mistral thinking chunks in delta.content lost", "13.3", "stream", r"reasoning"),
    ("stream: other", "new", "stream", r"."),
    ("cross: content dropped without a report", "new", "cross", r"silent drop"),
    ("Anthropic mid-conversation system turn moved to the top-level system", "13.4", "request-roundtrip",
     r'at /(system[/:]|messages/\d+: \{"role": "system")'),
    ("turn order or grouping changed", "13.1",
     "request-roundtrip", r"at /(messages|contents|input)/\d+(/role|/type|/content/\d+(/type)?|/parts/\d+/\w+)?:"),
    ("Gemini toolConfig.includeServerSideToolInvocations dropped", "13.4", "request-roundtrip", r"includeServerSideToolInvocations"),
    ("Gemini toolConfig functionCallingConfig (mode VALIDATED, allowedFunctionNames) changed", "new",
     "request-roundtrip", r"/toolConfig"),
    ("Chat assistant reasoning (reasoning_content, reasoning, reasoning_details) dropped", "13.2",
     "*", r"/(messages|choices/\d+/message)/(\d+/)?reasoning"),
    ("tool call id replaced", "13.2", "*", r"/(tool_calls/\d+/id|tool_call_id|call_id):"),
    ("finish reason outside the provider enum rewritten", "13.2", "response-roundtrip", r"/(finish_reason|stop_reason|finishReason):"),
    ("Anthropic tool_use.caller dropped", "13.2", "response-roundtrip", r"/caller:"),
    ("Responses reasoning item re-encoded as a message", "new", "response-roundtrip", r"/output/\d+/type: \"reasoning\""),
    ("output item content changed", "new", "response-roundtrip",
     r"at /(output/\d+(/content(/\d+)?|/arguments|/name|/encrypted_content)?|choices/\d+/message/content(/\d+)?|candidates/\d+/content|choices/\d+/message/tool_calls/\d+/custom):"),
    ("usage details lost", "13.2", "response-roundtrip", r"at /(usage|usageMetadata|tool_usage|time_info|usage_breakdown|total_tokens)(/|:)"),
    ("response metadata lost (id, model, created, fingerprint, service tier, ...)", "13.2", "response-roundtrip",
     r"at /(id|model|object|created|created_at|completed_at|system_fingerprint|service_tier|serviceTier|modelVersion|responseId|createTime|provider|x_groq|request_id|status):"),
    ("field not modelled on a modelled object dropped or changed", "13.2", "*", r"^silent"),
]


# Classes of the extra corpus's gaps, tried before GAP_RULES: each says why the file fails ("recording": the
# recorded body is not what the provider sends, so the file is not a mapper bug; "25.2" and "new": open
# mapper gaps).
EXTRA_GAP_RULES: list[tuple[str, str, str, str]] = [
    ("Responses input reasoning item with no id (encrypted_content only) left out and reported; the input list "
     "changes length, so the checker cannot tie the shifted items to that report entry and the spelling of the "
     "items after it is not kept", "25.2", "request-roundtrip", r'at /input/\d+/(type: "reasoning"|content/\d+/detail:)'),
    ("Responses output item `status` rewritten", "25.2", "response-roundtrip", r"/output/\d+/status:"),
]


def judge(outcomes: Iterable[Outcome], gaps: dict[tuple[str, str], str]) -> list[str]:
    """What is wrong with ``outcomes`` given the known ``gaps`` (``(check, file) -> class``): failing
    outcomes that are not listed, and listed ones that no longer fail (a strict expected failure)."""
    unexpected, fixed = [], []
    for o in outcomes:
        gap = gaps.get((o.check, o.file))
        if o.failing and gap is None:
            unexpected.append(o.message(limit=8))
        elif gap is not None and not o.failing:
            fixed.append(f"{o.check} {o.file}: now {o.status} (listed as: {gap})")
    problems = []
    if unexpected:
        problems.append(f"{len(unexpected)} file(s) fail and are not known gaps:\n" + "\n".join(unexpected[:10]))
    if fixed:
        problems.append(
            f"{len(fixed)} known gap(s) no longer fail; run `python tools/gen_corpus_gaps.py` to shrink the list:\n"
            + "\n".join(fixed[:20])
        )
    return problems


def gap_classes(outcome: Outcome, *, extra: bool = False) -> list[tuple[str, str]]:
    """``(class, issue item)`` of each kind of silent difference of a failing outcome, in rule order
    (``extra``: the extra corpus's classes first)."""
    found: dict[int, tuple[str, str]] = {}
    rules = [*EXTRA_GAP_RULES, *GAP_RULES] if extra else GAP_RULES
    for line in outcome.details:
        if not (line.startswith("silent") or line.startswith("crash") or ": silent" in line or ": crash" in line):
            continue
        for i, (name, item, check, pattern) in enumerate(rules):
            if check in ("*", outcome.check) and re.search(pattern, line):
                found.setdefault(i, (name, item))
                break
    return [found[i] for i in sorted(found)] or [("unclassified", "new")]
