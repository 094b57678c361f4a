"""A long canonical request converted in windows, its body written as it is produced (ADR 0036).

A provider request body is one JSON object whose conversation is one array member (``messages``,
``contents``, ``input``); the other members (``model``, ``system``, ``tools``, settings) do not
depend on how long the conversation is. So a transcript read item by item
(:class:`~interlingua._docstream.TranscriptStream`) is cut into windows at *safe boundaries* -- a
user text that follows the model's text answer, with no tool call or handoff waiting for its
result -- and each window is converted by the target's own mapper, exactly the steps of
:func:`~interlingua.conversion.convert_request` (preflight with the policy, encode, report), and its
array elements written out at once. Memory holds one window, not the conversation.

What makes the concatenation equal to the whole conversion, checked as the windows go (any
difference and :func:`write_windows` returns ``False``: the caller converts the transcript whole,
which gives the whole conversion's output or error):

- every window is converted with the document's other members (tools, settings, ...) and the model
  the whole transcript chooses (:func:`interlingua.conversion._recorded_model` over every item);
- the transcript's leading system prompt (its first items with role ``system``/``developer``) is
  put before every later window, and what it alone converts to is taken off the front of that
  window's array, so a target that lifts it out of the array (``system``, ``systemInstruction``,
  ``instructions``) gives every window the same member;
- every window but the last is converted with the next window's first item after it, and what that
  item alone adds is taken off the end (a mapper may treat the last assistant message as a prefill);
- every member other than the conversation array must be equal in every window (key order too);
  the array is the one member that differs between the first two windows;
- a mapper whose encoding of an item depends on the items before it says so
  (``window_dependent(item)``, see :class:`~interlingua.mapping.Mapper`): such an item past the
  first window means the whole conversion;
- the framework writers whose output is a message list (``pydantic-ai``, ``langchain``): their list
  is the array; no system prompt before later windows (they keep it in the first request message);
  the transcript's usage and stop reason go to the last window only, which must hold its last answer;
  a writer whose output is a record (``openai-finetune``, ``sharegpt``; the ``otel`` span's
  attributes, which get the system prompt before every window as a provider body does) is windowed
  like a request body: its conversation is the one member that differs (ADR 0047); a writer that
  numbers by place (:data:`_BY_PLACE`: ``vercel-ui``'s ``msg-N`` ids, the readers' ``m<i>``/``t<i>``
  keys its round-trip check compares) numbers each window from where the previous one ended (the
  items and the messages before it); a rule about the whole record (fine-tuning weights, ShareGPT's
  ``images`` list) sends the transcript whole (:data:`_WHOLE_IF`);
- report entries: the preflight entries of all windows, then the encode entries, with item indices
  and ``/items/N`` pointers moved to the item's index in the whole transcript; an entry about no
  item (the model, a setting) must be one the first window made (or, for a framework writer, the
  last), and is kept once, before or after the items' entries as the mapper puts it; the closing
  "no model" note is added once, as the whole conversion adds it;
- the semantic checks of the whole transcript (ids, call ids, results without calls) are run over
  every item first (:func:`plan`): a transcript with a problem is converted whole, so the error is
  the whole conversion's.

That the written bytes and the report equal the whole conversion's for every target is a test
(random window sizes, generated transcripts, every real fixture and corpus recording).
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import IO, Any

import msgspec

from ._gc import with_gc_paused
from .items import HandoffCallItem, HandoffResultItem, Origin, ReasoningItem, RefusalItem, Settings, TextItem, ToolCallItem, ToolResultItem, Transcript
from .mapping.report import Policy, Report, ReportEntry

__all__ = ["WINDOW_ITEMS", "Plan", "plan", "write_windows"]

WINDOW_ITEMS = 2_000
"""Items in a window before the next safe boundary ends it."""

_PROMPT_ROLES = ("system", "developer")
_ITEM_POINTER = re.compile(r"^/items/(\d+)(?=/|$)")
_ITEMS_SPAN = re.compile(r"\(items (\d+)-(\d+)\)")


@dataclass
class Plan:
    """What the first pass over a transcript's items found.

    Attributes:
        cuts: Item indices where a window starts (after the first, which starts at 0), ascending.
        prefix: The leading system prompt items (role ``system``/``developer``), put before every later window.
        providers: ``origin.provider`` of every item (for the model the whole transcript chooses).
        last_answer: Index of the last item the model made (role ``assistant``, a tool call, reasoning,
            a refusal, a handoff), or -1.
        count: Items in the transcript.
        ok: False when the semantic checks found a problem (then the transcript is converted whole).
        item_tokens: The items' offline token estimate
            (:func:`~interlingua.history.estimate_items_tokens`, a sum over the items): the whole
            transcript's context fit is decided on it, never per window.
    """

    cuts: list[int] = field(default_factory=list)
    prefix: list[Any] = field(default_factory=list)
    providers: set[str] = field(default_factory=set)
    last_answer: int = -1
    count: int = 0
    ok: bool = True
    item_tokens: int = 0


def plan(items: Iterable[Any], *, window: int | None = None) -> Plan:
    """One pass over ``items`` (any iterable, e.g. a :class:`~interlingua._docstream.TranscriptStream`):
    the semantic checks of ``interlingua validate`` (in bounded memory), the window cuts, the
    leading system prompt and the providers of the items' origins. A window ends at the first safe
    boundary after ``window`` items (default :data:`WINDOW_ITEMS`)."""
    from .history._tokens import ITEM_TOKENS, _item_tokens
    from .validation._semantic import SessionTable

    window = WINDOW_ITEMS if window is None else window
    out = Plan()
    table = SessionTable()
    pending: set[str] = set()
    start = 0
    prev_answer = False  # the previous item is the model's text answer
    leading = True
    try:
        for i, item in enumerate(items):
            checker = table.get("")
            before = len(checker.seen)
            if checker.check(item, f"/items/{i}"):
                out.ok = False
            table.grew(len(checker.seen) - before)
            role = getattr(item, "role", None)
            if leading and role in _PROMPT_ROLES:
                out.prefix.append(item)
            else:
                leading = False
            origin = getattr(item, "origin", None)
            if isinstance(origin, Origin):
                out.providers.add(origin.provider)
            if isinstance(item, (ToolCallItem, HandoffCallItem)):
                pending.add(item.id)
            elif isinstance(item, (ToolResultItem, HandoffResultItem)):
                pending.discard(item.call_id)
            if prev_answer and not pending and isinstance(item, TextItem) and role == "user" and i - start >= window:
                out.cuts.append(i)
                start = i
            prev_answer = isinstance(item, (TextItem, RefusalItem)) and role == "assistant"
            if role == "assistant" or isinstance(item, (ToolCallItem, HandoffCallItem, ReasoningItem, RefusalItem)):
                out.last_answer = i
            out.count = i + 1
            out.item_tokens += _item_tokens(item) + ITEM_TOKENS
    finally:
        table.close()
    return out


class _Mismatch(Exception):
    """A window does not fit the whole conversion's shape: convert the transcript whole."""


@dataclass
class _Window:
    body: dict[str, Any]
    fit: list[ReportEntry]
    encode: list[ReportEntry]


@with_gc_paused
def _convert_request(transcript: Transcript, target: str, model: str | None, policy: Policy) -> _Window:
    """:func:`~interlingua.conversion.convert_request` of a canonical transcript after its checks
    (run by :func:`plan`), the preflight and the encode entries apart, without the "no model" note."""
    from .capabilities import fit, resolve
    from .history import repair_items
    from .mapping.registry import get_mapper

    if policy != "error":
        # the history integrity rules must see the whole transcript: a window they would repair
        # (IntegrityError here) is converted whole, so the whole history's repairs are the report's
        repair_items(transcript.items, policy="error", open_end=False, sending=True)
    dst = get_mapper(target)
    fitted = fit(transcript, resolve(target, model, mapper=dst).capabilities, model=model, provider=target, policy=policy)
    conv = dst.encode_request(fitted.transcript, model=model, policy=policy)
    return _Window(conv.value, list(fitted.report), list(fitted.translate(conv.report)))


_BY_PLACE = {"vercel-ui": "", "vercel-model": "", "openai-finetune": "messages", "sharegpt": "conversations"}
"""Writers that number by place, and the member holding the messages they number (``""``: the
output is the list): a UIMessage without an id gets ``msg-<item index>``, and each reader gives a
message without a key of its own the key of its place (``m<i>``, ShareGPT ``t<i>`` and its call ids),
which the writer's round-trip check compares. Each window is written numbered from where the
previous one ended (:class:`~interlingua.compat._store_writing.Start`: the items and the messages
before it), so its bytes and report are the whole conversion's."""


def _weighted(item: Any) -> bool:
    """An item carrying an OpenAI fine-tuning ``weight``: the writer puts the weights back only when
    the whole transcript's messages and the messages written match one to one, a rule about the whole."""
    pd = getattr(item, "provider_data", msgspec.UNSET)
    mine = pd.get("openai-finetune") if isinstance(pd, dict) else None
    return isinstance(mine, dict) and mine.get("weight") is not None


def _placeholder_media(item: Any) -> bool:
    """An image, video or audio by URL: ShareGPT writes it as a ``<image>`` placeholder and its URL in
    the record's ``images`` list, which gathers the whole conversation's in order (two windows each
    with one image of the same path have equal lists, the whole has both: found on a real file)."""
    from .items import AudioItem, ImageItem, UrlSource, VideoItem

    return isinstance(item, (ImageItem, VideoItem, AudioItem)) and isinstance(item.source, UrlSource)


_WHOLE_IF = {"openai-finetune": _weighted, "sharegpt": _placeholder_media}
"""Per writer: an item anywhere in the transcript (the first window too) that means the whole conversion."""


OTEL = "otel"
"""The ``gen_ai.*`` attributes of an OpenTelemetry GenAI span (:func:`interlingua.otel.to_otel`): a record
whose ``gen_ai.input.messages`` is the conversation, written window by window like a request body."""


def _write_framework(transcript: Transcript, target: str, policy: Policy, start: tuple[int, int] = (0, 0)) -> _Window:
    """:func:`interlingua.compat.write` (or, for ``otel``, :func:`interlingua.otel.to_otel`) of the window:
    a message list as the one member ``""``, a record (a JSON object) as it is. ``start``: the items
    and the messages of the whole conversation before the window, for a writer of :data:`_BY_PLACE`."""
    from .compat import _WRITERS, write
    from .compat._store_writing import Start

    if target == OTEL:
        from .otel import to_otel

        conv = to_otel(transcript, policy=policy)
    elif target in _BY_PLACE:
        conv = _WRITERS[target](transcript, policy=policy, start=Start(*start))
    else:
        conv = write(transcript, target, policy=policy)
    # a record (an OpenAI fine-tuning line, a ShareGPT record) is a body like a provider's: its
    # conversation is the one member that differs between windows
    entries = list(conv.report)
    if any(e.pointer == "" for e in entries):
        raise _Mismatch  # an entry about the written value as a whole (it does not read back item for item): the whole decides
    return _Window(conv.value if isinstance(conv.value, dict) else {"": conv.value}, [], entries)


def _context_fits_whole(shell: Transcript, the_plan: Plan, target: str, model: str | None, policy: Policy) -> bool:
    """Whether the whole transcript passes the context-fit check of
    :func:`~interlingua.capabilities.fit`: the offline estimate of its tools and items (summed item
    by item by :func:`plan`, the same figure :func:`~interlingua.history.count_tokens` gives the
    whole) plus the output asked for, within the model's context window. Then every window's check
    passes too (a window's items are some of the whole's, its tools the same). Otherwise, and when
    the transcript records usage (which seeds the count from the whole history), the transcript is
    converted whole: the check decides once, on all of it. The check applies only under ``error``
    and for a model whose context window is known."""
    if policy != "error":
        return True
    from .history import model_limits
    from .history._tokens import _tools_tokens

    window = model_limits(target, model).context_window
    if window is None:
        return True
    if shell.responses:
        return False
    settings = shell.settings
    asked = settings.max_output_tokens if isinstance(settings, Settings) and isinstance(settings.max_output_tokens, int) else 0
    return _tools_tokens(shell) + the_plan.item_tokens + asked <= window


def _moved(entry: ReportEntry, local: int, offset: int, shift: tuple[str, int] | None = None) -> ReportEntry:
    """``entry`` of a window whose item ``local`` is the transcript's item ``local + offset``;
    ``shift``: the output array's key and how far the window's elements moved in it (a reason or
    pointer may name an element, ``/messages/N``)."""
    pointer, reason = entry.pointer, entry.reason
    if pointer:
        pointer = _ITEM_POINTER.sub(lambda m: f"/items/{int(m.group(1)) + offset}", pointer)
    if shift is not None and shift[0] and shift[1]:
        named = re.compile("/" + re.escape(shift[0]) + r"/(\d+)")
        reason = named.sub(lambda m: f"/{shift[0]}/{int(m.group(1)) + shift[1]}", reason)
        if pointer:
            pointer = named.sub(lambda m: f"/{shift[0]}/{int(m.group(1)) + shift[1]}", pointer)
    return ReportEntry(entry.action, reason, local + offset, entry.item_type, pointer)


class _Entries:
    """The report entries of one step (preflight or encode) of every window, in the whole
    conversion's order: the entries about no item that the step makes before the items' (the
    model, settings), the items' entries window after window (moved to the items' indices in the
    whole transcript), then those it makes after them."""

    def __init__(self) -> None:
        self.items = Report(aggregate=True)  # a million repeats of one entry are one aggregated entry (ADR 0047)
        self.globals: list[ReportEntry] = []
        self.place: dict[ReportEntry, str] = {}
        self.started = False

    def take(self, entries: list[ReportEntry], offset: int, skip: int, stop: int, *, first: bool = False, shift: tuple[str, int] | None = None) -> None:
        """Keep the entries of a window's own items (local ``skip`` <= index < ``stop``), moved by ``offset``.

        ``first``: the first window, or the last window of a framework writer (the only one given
        the transcript's usage and stop reason), whose entries about no item are kept.

        Raises:
            _Mismatch: an entry about no item that the first window did not make (nor, for a
                framework writer, the last), or one made among the items' entries or on the other
                side of them than before.
        """
        where = [n for n, e in enumerate(entries) if _local(e) is not None]
        cursor = -1  # where in self.globals the last entry about no item of this window is
        for n, entry in enumerate(entries):
            local = _local(entry)
            if local is None:
                if first and not self.started:  # the first window: every one, in order
                    self.globals.append(entry)
                elif entry in self.globals:
                    cursor = self.globals.index(entry)
                elif first:  # new in the last window of a framework writer: after the one before it in this window
                    cursor += 1
                    self.globals.insert(cursor, entry)
                else:
                    raise _Mismatch
                if where:
                    side = "before" if n < where[0] else "after" if n > where[-1] else None
                    if side is None or self.place.setdefault(entry, side) != side:
                        raise _Mismatch
            elif skip <= local < stop:
                self.items.add_entry(entry if offset == 0 else _moved(entry, local, offset, shift))
        self.started = True

    def entries(self) -> list[ReportEntry]:
        before = [e for e in self.globals if self.place.get(e, "before") == "before"]
        after = [e for e in self.globals if self.place.get(e) == "after"]
        return [*before, *self.items.entries, *after]


def _tail(alone: _Window | None, key: str, front: list[Any]) -> list[Any]:
    """What the next window's first item alone (after the prefix) adds to the array ``key``."""
    if alone is None:
        return []
    elements = alone.body.get(key)
    if not isinstance(elements, list) or elements[: len(front)] != front or len(elements) == len(front):
        raise _Mismatch
    return elements[len(front) :]


_NOT_ITEMS = frozenset({"tool", "tools", "tool_choice", "settings", "stop_reason", "response"})
"""Report ``item_type`` values whose ``index`` is not an item's (a tool's index in ``tools``, ...)."""


def _local(entry: ReportEntry) -> int | None:
    """The index of the item ``entry`` is about, in the transcript the window converted; None for an entry about no item."""
    if entry.item_type in _NOT_ITEMS:
        return None
    if entry.index is not None:
        return entry.index
    m = _ITEM_POINTER.match(entry.pointer or "")
    return int(m.group(1)) if m else None


class _Writer:
    """Writes the body as ``convert``'s pretty-printer writes a whole body (the same bytes): the
    members before the conversation array ``key`` (taken from ``body``), the array's elements as
    they come, then the members after it."""

    def __init__(self, out: IO[bytes], body: dict[str, Any], key: str) -> None:
        self.out, self.body, self.key = out, body, key
        self.keys = list(body)
        self.elements = 0
        self.indent = b"\n    "

    def _members(self, keys: list[str], first: bool) -> None:
        for n, key in enumerate(keys):
            value = _indent(msgspec.json.format(msgspec.json.encode(self.body[key]), indent=2), b"\n  ")
            self.out.write((b"\n  " if first and not n else b",\n  ") + msgspec.json.encode(key) + b": " + value)

    def head(self) -> None:
        if self.key == "":  # a framework's message list: the whole output is the array
            self.indent = b"\n  "
            return
        at = self.keys.index(self.key)
        self.out.write(b"{")
        self._members(self.keys[:at], True)
        self.out.write((b",\n  " if at else b"\n  ") + msgspec.json.encode(self.key) + b": ")

    def extend(self, elements: list[Any]) -> None:
        sep, first = b"," + self.indent, b"[" + self.indent
        for element in elements:
            text = _indent(msgspec.json.format(msgspec.json.encode(element), indent=2), self.indent)
            self.out.write(sep if self.elements else first)
            self.out.write(text)
            self.elements += 1

    def tail(self) -> None:
        if self.key == "":
            self.out.write(b"\n]\n" if self.elements else b"[]\n")
            return
        self.out.write(b"\n  ]" if self.elements else b"[]")
        self._members(self.keys[self.keys.index(self.key) + 1 :], False)
        self.out.write(b"\n}\n")


def _indent(text: bytes, newline: bytes) -> bytes:
    # a newline in JSON text is always formatting (in strings it is escaped)
    return text.replace(b"\n", newline)


def write_windows(
    items: Iterable[Any], shell: Transcript, the_plan: Plan, *, target: str, model: str | None, policy: Policy, out: IO[bytes], report: Report
) -> bool:
    """Convert the request whose items ``items`` yields (the same items :func:`plan` read) to
    ``target``, window by window, writing the body to ``out`` as ``convert`` pretty-prints a body.

    ``shell`` holds the document's other members (its ``items`` are not read). On success the
    whole conversion's report entries are appended to ``report`` and True is returned. False when
    the transcript must be converted whole instead (a check failed, a window raised, or a window
    does not fit the whole conversion's shape, see the module docstring); then ``out`` holds a
    partial body to discard and ``report`` is untouched.
    """
    if not the_plan.ok or not the_plan.cuts:
        return False
    from .capabilities import check, deprecation_warning, resolve
    from .capabilities._resolve import unknown_model_text
    from .compat import WRITERS
    from .conversion import _recorded_model_of
    from .errors import InterlinguaError
    from .mapping.registry import get_mapper
    from .mapping.settings import note_model
    from .mapping.spelling import _own

    settings = shell.settings if isinstance(shell.settings, Settings) else Settings()
    chosen = model
    noted = Report()  # what choosing the model reports (a carried model renamed): kept only on success
    writes = target in WRITERS or target == OTEL  # not a provider: no model, no preflight
    if chosen is None and not writes:
        chosen = _recorded_model_of(the_plan.providers, settings, "canonical", target, noted)
    defaults = None  # an unknown model: the wire format's defaults, checked window by window for the warning
    if not writes:
        if _own(settings.provider_data, get_mapper(target).name):
            return False  # the source's spelling kept for the target (ADR 0027) is placed by the whole body's paths
        if not _context_fits_whole(shell, the_plan, target, chosen, policy):
            return False  # the whole conversion decides (and refuses, when the exact count says so)
        resolution = resolve(target, chosen, mapper=get_mapper(target))
        if resolution.source == "unknown":
            defaults = resolution.defaults
    would: set[str] = set()
    members = {f.name: getattr(shell, f.name) for f in msgspec.structs.fields(Transcript) if f.name != "items"}

    middle = {**members, "usage": msgspec.UNSET, "stop_reason": msgspec.UNSET, "response": msgspec.UNSET}

    def transcript(its: list[Any], last: bool = True) -> Transcript:
        # a framework writer puts the transcript's usage and stop reason on its last response:
        # only the last window has them (a provider request carries neither: every window has the same)
        return Transcript(items=its, **(members if last or not framework else middle))

    framework = target in WRITERS
    # a framework writer keeps the system prompt in the first request message: no prompt before later windows
    prefix = [] if framework else the_plan.prefix

    dependent = None if writes else getattr(get_mapper(target), "window_dependent", None)
    whole_if = _WHOLE_IF.get(target)
    placed = _BY_PLACE.get(target)  # the member whose messages the writer numbers by place, or None

    def _convert(t: Transcript, target: str, model: str | None, policy: Policy, start: tuple[int, int] = (0, 0)) -> _Window:
        return _write_framework(t, target, policy, start) if writes else _convert_request(t, target, model, policy)

    fits, encodes = _Entries(), _Entries()
    # "first": the first window, "writer", "front": what the prefix alone gives; "messages": the
    # elements of the conversation array before the window (a by-place writer numbers from there)
    state: dict[str, Any] = {"messages": 0}

    def array(win: _Window, key: str, front: list[Any], tail: list[Any]) -> list[Any]:
        """The window's own elements: without ``front`` (what the prefix gives) and ``tail`` (what the next window's first item gives)."""
        elements = win.body.get(key)
        if not isinstance(elements, list) or elements[: len(front)] != front:
            raise _Mismatch
        if tail:
            if len(elements) < len(front) + len(tail) or elements[len(elements) - len(tail) :] != tail:
                raise _Mismatch
            return elements[len(front) : len(elements) - len(tail)]
        return elements[len(front) :]

    def flush(its: list[Any], at: int, after: Any) -> None:
        """Convert the window ``its`` (its first item is item ``at``); ``after``: the next window's first item, or None."""
        later = "first" in state
        skip = len(prefix) if later else 0
        head = [*prefix, *its] if later else its
        last = after is None
        if whole_if is not None and any(whole_if(it) for it in its):
            raise _Mismatch  # a rule about the whole transcript: the whole conversion decides
        whole_window = transcript([*head, after] if after is not None else head, last)
        start = (at - skip, state["messages"])
        win = _convert(whole_window, target, chosen, policy, start)
        if defaults is not None:  # the reasons the defaults give, spans of items moved to the whole transcript's
            offset = at - skip
            would.update(_ITEMS_SPAN.sub(lambda m: f"(items {int(m.group(1)) + offset}-{int(m.group(2)) + offset})", v.reason) for v in check(whole_window, defaults, provider=target))
        if last and ends and _convert(transcript(head, False), target, chosen, policy, start).body == win.body:
            raise _Mismatch  # the usage and stop reason found no place in the last window: the whole conversion decides
        # what the next item alone gives: only its body is read (its place numbers, msg-<item index>,
        # are the item's; the messages before it only number the round-trip check's report, not read here)
        alone = _convert(transcript([*prefix, after], False), target, chosen, policy, (at + len(its) - len(prefix), 0)) if after is not None else None
        if placed is not None:  # the next window's messages are numbered after this one's own
            state["messages"] += len(array(win, placed, [], _tail(alone, placed, [])))
        if not later:  # the first window: kept until the second says which member is the conversation
            state["first"] = (win, alone)
            fits.take(win.fit, 0, 0, len(its), first=True)
            encodes.take(win.encode, 0, 0, len(its), first=True)
            return
        if dependent is not None and any(dependent(it) for it in its):
            raise _Mismatch  # its encoding depends on the items of the windows before
        first, first_alone = state["first"]
        if list(win.body) != list(first.body):
            raise _Mismatch
        if "writer" not in state:  # the second window: find the array, write the head and the first window
            differing = [""] if "" in first.body else [k for k in first.body if first.body[k] != win.body[k]]
            if len(differing) != 1:
                raise _Mismatch
            key = differing[0]
            if placed is not None and key != placed:
                raise _Mismatch  # the messages numbered by place are not the conversation that differs
            front: list[Any] = []
            if prefix:
                front = _convert(transcript(list(prefix)), target, chosen, policy).body.get(key, [])
            state["front"] = front if isinstance(front, list) else None
            if state["front"] is None or not isinstance(first.body[key], list):
                raise _Mismatch
            writer = state["writer"] = _Writer(out, first.body, key)
            writer.head()
            writer.extend(array(first, key, [], _tail(first_alone, key, state["front"])))  # the first window's prefix is its own
            first.body[key] = None  # written: not held
        writer = state["writer"]
        key = writer.key
        for k in first.body:
            if k != key and win.body[k] != first.body[k]:
                raise _Mismatch
        shift = (key, writer.elements - len(state["front"]))  # the window's elements move this far in the array
        writer.extend(array(win, key, state["front"], _tail(alone, key, state["front"])))
        fits.take(win.fit, at - skip, skip, skip + len(its), first=framework and last, shift=shift)
        encodes.take(win.encode, at - skip, skip, skip + len(its), first=framework and last, shift=shift)

    ends = framework and any(v is not msgspec.UNSET for v in (shell.usage, shell.stop_reason, shell.response))
    kept = [c for c in the_plan.cuts if c <= the_plan.last_answer] if ends else the_plan.cuts  # the last answer in the last window
    if not kept:
        return False
    try:
        start = 0
        cuts = iter([*kept, the_plan.count])
        end = next(cuts)
        window: list[Any] = []
        for i, item in enumerate(items):
            if i == end:
                flush(window, start, item)
                window, start = [], i
                end = next(cuts)
            window.append(item)
        flush(window, start, None)
        if "writer" not in state:
            return False
        state["writer"].tail()
    except (_Mismatch, InterlinguaError, StopIteration):
        return False
    if writes:
        report.extend(encodes.entries())
        return True
    report.extend(noted.entries)
    if defaults is not None:
        report.add("changed", unknown_model_text(target, chosen, would))
    elif (past := deprecation_warning(target, chosen)) is not None:  # as the whole conversion says it
        report.add("changed", past, pointer="/model")
    report.extend(fits.entries())
    encoded = encodes.entries()
    report.extend(encoded)
    if chosen is None and not any(e.pointer == "/model" for e in encoded):
        note_model(report, None, settings, target, in_body=getattr(get_mapper(target), "model_in_body", True) is not False)
    return True
