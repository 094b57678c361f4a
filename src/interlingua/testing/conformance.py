"""A reusable pytest suite proving a mapper keeps the mapper contract.

Subclass :class:`MapperConformance` in a test module, set ``mapper`` and ``profile``,
and pytest runs every rule against your mapper::

    from interlingua.testing.conformance import ConformanceProfile, MapperConformance
    from my_package import mapper

    class TestMyMapper(MapperConformance):
        mapper = mapper
        profile = ConformanceProfile(streams=["tests/data/stream.sse"])

Rules (each failure message starts with ``[rule: <name>]``):

* ``inputs-not-mutated``: no method changes its input (deep comparison before/after).
* ``round-trip``: transcripts of the declared supported subset (``profile.transcripts``) and
  wire bodies of it (``profile.requests``) come back unchanged, with an empty report.
* ``losses-reported``: every item dropped or changed on the way through the mapper is in the report
  (not losses: fields added on the way back, ``false``/empty-list fields coming back absent,
  ``developer`` text coming back as ``system``; of equal items, a report naming any copy counts).
* ``one-terminal``: accumulating a recorded stream ends with exactly one terminal event, last.
* ``truncated``: a stream cut before its completion marker ends in ``StreamError(code="truncated")``.
* ``malformed-arguments``: tool-call arguments that are not a JSON object never become ``{}``.
* ``tool-call-ids``: emitted tool-call ids obey the declared id rule and results still link.
* ``no-secret-leak``: a sentinel in foreign opaque state, foreign raw items and foreign
  ``provider_data`` appears in no output, report or error message.

Requires ``pytest`` and ``hypothesis`` (the ``dev`` extra).
"""

from __future__ import annotations

import contextlib
import copy
import json
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, ClassVar

import msgspec
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from ..codec import SCHEMA_VERSION, to_builtins
from ..errors import InterlinguaError
from ..items import (
    OpaqueReasoning,
    RawItem,
    ReasoningItem,
    TextItem,
    ToolCallItem,
    ToolDefinition,
    ToolResultItem,
    Transcript,
)
from ..mapping.ids import IdRule
from ..mapping.protocol import Mapper, ModelResponse
from ..mapping.report import Report
from ..streaming.events import StreamError, StreamEvent, is_terminal
from ..streaming.framing import iter_frames
from . import strategies

__all__ = ["SECRET_SENTINEL", "ConformanceProfile", "MapperConformance", "RULES"]

RULES = (
    "inputs-not-mutated",
    "round-trip",
    "losses-reported",
    "one-terminal",
    "truncated",
    "malformed-arguments",
    "tool-call-ids",
    "no-secret-leak",
)
"""Names of the rules, as they appear in failure messages."""

SECRET_SENTINEL = "SENTINEL-7f3a-do-not-leak"
"""Placed where a mapper must never copy it from (foreign opaque state, foreign raw items)."""

_FOREIGN = "conformance-foreign"
_UNSET = object()


@dataclass
class ConformanceProfile:
    """What a mapper declares it supports, for :class:`MapperConformance`.

    Attributes:
        transcripts: Canonical transcripts of the supported subset; each must survive
            ``encode_request`` -> ``decode_request`` unchanged (up to ``ignore``) with empty reports.
            ``None``: the round trip is checked on ``requests`` only.
        requests: Wire request bodies of the supported subset; each must survive
            ``decode_request`` -> ``encode_request`` unchanged (up to ``request_settings``).
        ignore: Canonical item fields the round trip ignores (representation choices of the format).
        request_settings: Top-level wire keys not carried by a transcript (``model``, ``stream``, ...).
        streams: Recorded streams (paths or bytes) for the stream rules.
        samples: Real wire bodies (paths to ``.json`` files or dicts), requests or responses, used for
            the mutation rule.
        malformed_samples: Wire bodies holding a tool call whose argument text is not a JSON object;
            decoding must keep the text (``arguments_raw``). For formats with string arguments.
        id_rule: The tool-call id rule emitted ids obey; defaults to ``mapper.id_rule``. ``None`` and
            a mapper without a rule: the rule is not checked (reported as a skip).
        loss_kinds: Item kinds thrown at the mapper for the loss rule (everything by default).
        model: Model name passed to ``encode_request``/``encode_response``.
        max_examples: Hypothesis examples per property rule (small by default; raise it in CI nightly).
        derandomize: Draw the same examples on every run (for suites that must fail reproducibly).
        known_gaps: Rule name -> why the mapper is known to break it. A failure of that rule then
            shows as ``xfail`` with the reason instead of failing the run (non-strict: hypothesis may
            not find the case every run). Keep it short and fix the gaps.
    """

    transcripts: st.SearchStrategy[Transcript] | None = None
    requests: st.SearchStrategy[dict[str, Any]] | None = None
    ignore: Sequence[str] = ()
    request_settings: Sequence[str] = ("model", "stream")
    streams: Sequence[Path | str | bytes] = ()
    samples: Sequence[Path | str | Mapping[str, Any]] = ()
    malformed_samples: Sequence[Mapping[str, Any]] = ()
    id_rule: IdRule | None | object = _UNSET
    loss_kinds: Sequence[str] = strategies.ITEM_TYPES
    model: str | None = None
    max_examples: int = 25
    derandomize: bool = False
    known_gaps: Mapping[str, str] = field(default_factory=dict)
    extra: dict[str, Any] = field(default_factory=dict)


# --------------------------------------------------------------------------- helpers


def _fail(rule: str, message: str) -> None:
    pytest.fail(f"[rule: {rule}] {message}", pytrace=False)


def _check(rule: str, ok: bool, message: str | Callable[[], str]) -> None:
    if not ok:
        _fail(rule, message() if callable(message) else message)


def _settings(profile: ConformanceProfile) -> settings:
    return settings(
        max_examples=profile.max_examples,
        derandomize=profile.derandomize,
        deadline=None,
        database=None,
        suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large, HealthCheck.filter_too_much],
    )


def _strip(item: Any, ignore: Sequence[str]) -> Any:
    data = to_builtins(item)
    if isinstance(data, dict):
        for key in ignore:
            data.pop(key, None)
    return data


def _covers(got: Any, want: Any) -> bool:
    """Whether ``got`` carries every field of ``want`` unchanged.

    Added fields (e.g. a role the format always writes) are no loss, nor is a ``false`` or
    empty-list field that comes back absent (the schema default).
    """
    if isinstance(want, dict) and isinstance(got, dict):
        return all((k in got and _covers(got[k], v)) or (k not in got and (v is False or v == [])) for k, v in want.items())
    if isinstance(want, list) and isinstance(got, list):
        return len(want) == len(got) and all(_covers(g, w) for g, w in zip(got, want, strict=True))
    return _equal(got, want)


def _system(data: Any) -> Any:
    """``developer`` text counts as ``system`` (formats without a developer role send it as system)."""
    if isinstance(data, dict) and data.get("role") == "developer":
        return {**data, "role": "system"}
    return data


def _short(data: Any, limit: int = 2000) -> str:
    text = json.dumps(data, ensure_ascii=False)
    return text if len(text) <= limit else text[:limit] + " ..."


def _equal(a: Any, b: Any) -> bool:
    return json.dumps(a, sort_keys=True) == json.dumps(b, sort_keys=True)


def _load(sample: Path | str | bytes | Mapping[str, Any]) -> Any:
    if isinstance(sample, Mapping):
        return dict(sample)
    if isinstance(sample, bytes):
        return json.loads(sample)
    return json.loads(Path(sample).read_text(encoding="utf-8"))


def _stream_bytes(stream: Path | str | bytes) -> bytes:
    return stream if isinstance(stream, bytes) else Path(stream).read_bytes()


def _stream_name(stream: Path | str | bytes) -> str:
    return "<bytes>" if isinstance(stream, bytes) else Path(stream).name


def _calls(items: Sequence[Any]) -> list[ToolCallItem]:
    return [it for it in items if isinstance(it, ToolCallItem)]


def _attempt(fn: Callable[[], Any]) -> Any:
    """Run a conversion; a documented refusal (an interlingua error) gives ``None``."""
    try:
        return fn()
    except InterlinguaError:
        return None


def _accumulate(mapper: Mapper, frames: Sequence[Any]) -> tuple[list[StreamEvent], int, list[str]]:
    """Feed frames until a terminal event; return (events, index of the frame that ended it or len, problems)."""
    acc = mapper.accumulator()
    events: list[StreamEvent] = []
    problems: list[str] = []
    for n, frame in enumerate(frames):
        batch = list(acc.feed(frame))
        events.extend(batch)
        terminals = [i for i, ev in enumerate(batch) if is_terminal(ev)]
        if terminals:
            if len(terminals) > 1:
                problems.append(f"frame {n} produced {len(terminals)} terminal events")
            if terminals[0] != len(batch) - 1:
                problems.append(f"frame {n} produced events after its terminal event: {[type(e).__name__ for e in batch[terminals[0] + 1 :]]}")
            late = [type(e).__name__ for e in acc.finish() if is_terminal(e)]
            if late:
                problems.append(f"finish() after the terminal event of frame {n} produced another terminal: {late}")
            return events, n, problems
    batch = list(acc.finish())
    events.extend(batch)
    terminals = [i for i, ev in enumerate(batch) if is_terminal(ev)]
    if len(terminals) != 1:
        problems.append(f"finish() produced {len(terminals)} terminal events (exactly one required)")
    elif terminals[0] != len(batch) - 1:
        problems.append("finish() produced events after its terminal event")
    return events, len(frames), problems


def _secret_transcript() -> Transcript:
    items: list[Any] = [
        TextItem(role="user", text="hello"),
        ReasoningItem(text="thinking", opaque=OpaqueReasoning(namespace=f"{_FOREIGN}.state", issuer=_FOREIGN, value=SECRET_SENTINEL)),
        ReasoningItem(redacted=True, opaque=OpaqueReasoning(namespace=f"{_FOREIGN}.redacted", issuer=_FOREIGN, value=SECRET_SENTINEL)),
        RawItem(provider=_FOREIGN, value={"secret": SECRET_SENTINEL}),
        TextItem(role="assistant", text="hi"),
    ]
    tools = [ToolDefinition(name="lookup", description="look up", parameters={"type": "object"}, provider_data={_FOREIGN: {"key": SECRET_SENTINEL}})]
    return Transcript(schema_version=SCHEMA_VERSION, items=items, tools=tools)


_BAD_IDS = ("call_" + "x" * 70 + "$", "toolu_01A.b:c", "a b", "1")


def _id_transcript(arguments_raw: str | None = None) -> Transcript:
    items: list[Any] = [TextItem(role="user", text="weather in Paris and Rome?")]
    for n, call_id in enumerate(_BAD_IDS):
        if arguments_raw is None:
            items.append(ToolCallItem(id=call_id, name="get_weather", arguments={"city": f"c{n}"}))
        else:
            items.append(ToolCallItem(id=call_id, name="get_weather", arguments_raw=arguments_raw, arguments_error="unterminated string"))
    for n, call_id in enumerate(_BAD_IDS):
        items.append(ToolResultItem(call_id=call_id, content=[TextItem(text=f"sunny {n}")]))
    tools = [ToolDefinition(name="get_weather", description="weather", parameters={"type": "object", "properties": {"city": {"type": "string"}}})]
    return Transcript(schema_version=SCHEMA_VERSION, items=items, tools=tools)


# --------------------------------------------------------------------------- the suite


def _recorded_model(t: Transcript) -> str | None:
    """The model a transcript's settings record, if any."""
    settings = t.settings
    model = getattr(settings, "model", None)
    return model if isinstance(model, str) else None


class MapperConformance:
    """Base class of the conformance suite; subclass it as ``Test<Something>``.

    Attributes:
        mapper: The mapper under test.
        profile: Its :class:`ConformanceProfile`.
    """

    mapper: ClassVar[Any] = None
    profile: ClassVar[ConformanceProfile] = ConformanceProfile()

    # ----- set-up

    def _mapper(self) -> Mapper:
        if self.mapper is None:
            pytest.fail(f"{type(self).__name__} sets no `mapper`", pytrace=False)
        return self.mapper

    @contextlib.contextmanager
    def _rule(self, rule: str) -> Iterator[None]:
        """Turn a failure of a declared known gap into ``xfail``."""
        reason = self.profile.known_gaps.get(rule)
        if reason is None:
            yield
            return
        try:
            yield
        except pytest.fail.Exception as exc:
            pytest.xfail(f"known gap: {reason} ({exc})")

    def _id_rule(self) -> IdRule | None:
        rule = self.profile.id_rule
        return getattr(self._mapper(), "id_rule", None) if rule is _UNSET else rule  # type: ignore[return-value]

    # ----- inputs-not-mutated

    def test_inputs_not_mutated_encode(self) -> None:
        """``encode_request``/``encode_response`` leave the transcript and response untouched."""
        mapper, profile = self._mapper(), self.profile
        pool = strategies.transcripts(max_items=8)
        if profile.transcripts is not None:
            pool = profile.transcripts | pool

        @_settings(profile)
        @given(pool, st.sampled_from(("error", "drop", "degrade")))
        def run(t: Transcript, policy: Any) -> None:
            before = to_builtins(t)
            _attempt(lambda: mapper.encode_request(t, model=profile.model, policy=policy))
            _check("inputs-not-mutated", to_builtins(t) == before, "encode_request changed the transcript it was given")
            response = ModelResponse(items=list(t.items))
            items_before = to_builtins(response.items)
            _attempt(lambda: mapper.encode_response(response, model=profile.model, policy=policy))
            _check("inputs-not-mutated", to_builtins(response.items) == items_before, "encode_response changed the response items it was given")

        with self._rule("inputs-not-mutated"):
            run()

    def test_inputs_not_mutated_decode(self) -> None:
        """``decode_request``/``decode_response`` leave wire bodies untouched (samples and encoded ones)."""
        mapper, profile = self._mapper(), self.profile
        bodies = [_load(s) for s in profile.samples]
        if profile.transcripts is not None:

            @_settings(profile)
            @given(profile.transcripts)
            def collect(t: Transcript) -> None:
                enc = _attempt(lambda: mapper.encode_request(t, model=profile.model, policy="degrade"))
                if enc is not None:
                    bodies.append(enc.value)

            collect()
        if not bodies:
            pytest.skip("profile declares no samples and no transcripts: nothing to decode")
        for n, body in enumerate(bodies):
            before = copy.deepcopy(body)
            kind = mapper.kind_of(body) or "request"
            decode = mapper.decode_request if kind == "request" else mapper.decode_response
            _attempt(lambda: decode(body))
            _check("inputs-not-mutated", body == before, f"decode_{kind} changed the body it was given (body {n})")

    # ----- round-trip

    def test_round_trip_transcripts(self) -> None:
        """Transcripts of the supported subset: canonical -> wire -> canonical unchanged, nothing reported."""
        mapper, profile = self._mapper(), self.profile
        if profile.transcripts is None:
            pytest.skip("profile declares no supported transcripts")

        @_settings(profile)
        @given(profile.transcripts)
        def run(t: Transcript) -> None:
            # The model goes in through model= only (ADR 0007) and comes back in the settings.
            model = profile.model or _recorded_model(t) or "conformance-model"
            enc = mapper.encode_request(t, model=model)
            _check("round-trip", not enc.report, lambda: f"encode_request reported losses on a supported transcript: {[str(e) for e in enc.report]}")
            dec = mapper.decode_request(enc.value)
            _check("round-trip", not dec.report, lambda: f"decode_request reported losses on its own output: {[str(e) for e in dec.report]}")
            sent = to_builtins(t)
            if dec.value.settings is msgspec.UNSET:
                sent.pop("settings", None)  # a mapper that carries no settings (they are optional)
            else:
                sent["settings"] = {**sent.get("settings", {}), "model": model}
            want = {**sent, "items": [_strip(i, profile.ignore) for i in t.items]}
            got = {**to_builtins(dec.value), "items": [_strip(i, profile.ignore) for i in dec.value.items]}
            _check("round-trip", got == want, lambda: f"transcript changed on the round trip:\n  sent:     {want}\n  returned: {got}")

        with self._rule("round-trip"):
            run()

    def test_round_trip_requests(self) -> None:
        """Wire requests of the supported subset: wire -> canonical -> wire unchanged, nothing reported."""
        mapper, profile = self._mapper(), self.profile
        if profile.requests is None:
            pytest.skip("profile declares no supported wire requests")

        @_settings(profile)
        @given(profile.requests)
        def run(body: dict[str, Any]) -> None:
            dec = mapper.decode_request(body)
            _check("round-trip", not dec.report, lambda: f"decode_request reported losses on a supported body: {[str(e) for e in dec.report]}")
            enc = mapper.encode_request(dec.value, model=body.get("model"))
            _check("round-trip", not enc.report, lambda: f"encode_request reported losses: {[str(e) for e in enc.report]}")
            want = {k: v for k, v in body.items() if k not in profile.request_settings}
            got = {k: v for k, v in enc.value.items() if k not in profile.request_settings}
            _check("round-trip", got == want, lambda: f"wire body changed on the round trip:\n  sent:     {want}\n  returned: {got}")

        with self._rule("round-trip"):
            run()

    # ----- losses-reported

    def test_losses_are_reported(self) -> None:
        """Any transcript under policy ``drop``/``degrade``: an item that does not come back is in the report."""
        mapper, profile = self._mapper(), self.profile
        ignore = ("message", "origin", *profile.ignore)
        pool = strategies.transcripts(tuple(profile.loss_kinds), max_items=8)
        if profile.transcripts is not None:
            pool = pool | profile.transcripts

        @_settings(profile)
        @given(pool, st.sampled_from(("drop", "degrade")))
        def run(t: Transcript, policy: Any) -> None:
            enc = _attempt(lambda: mapper.encode_request(t, model=profile.model, policy=policy))
            if enc is None:
                return  # refused outright: nothing was lost silently
            dec = _attempt(lambda: mapper.decode_request(enc.value))
            report = Report()
            report.extend(enc.report)
            if dec is None:
                _check("losses-reported", bool(report), "decode_request refused the mapper's own output and nothing was reported")
                return
            report.extend(dec.report)
            back = [_system(_strip(item, ignore)) for item in dec.value.items]
            sent = [_system(_strip(item, ignore)) for item in t.items]
            used: set[int] = set()
            lost = []
            for n, want in enumerate(sent):
                match = next((k for k, got in enumerate(back) if k not in used and _covers(got, want)), None)
                if match is None:
                    lost.append((n, type(t.items[n]).__name__))
                else:
                    used.add(match)
            # settings entries (a body without a model, a setting the target lacks) name no item
            reported = {e.index for e in report if e.item_type != "settings"}
            # equal items cannot be told apart: a report naming any copy names the lost one
            named = None in reported or any(m in reported for n, _ in lost for m, other in enumerate(sent) if other == sent[n])
            _check(
                "losses-reported",
                not lost or (bool(reported) and named),
                lambda: f"items dropped or changed without a report entry naming them: {lost}; report: {[str(e) for e in report]}\n"
                f"  sent (policy {policy!r}): {_short(to_builtins(t.items))}\n  returned: {_short(back)}",
            )

        with self._rule("losses-reported"):
            run()

    # ----- streams

    def _streams(self) -> list[tuple[str, list[Any]]]:
        mapper = self._mapper()
        if not self.profile.streams:
            pytest.skip("profile declares no recorded streams")
        return [(_stream_name(s), list(iter_frames(mapper.framing, _stream_bytes(s)))) for s in self.profile.streams]

    def test_stream_ends_with_one_terminal(self) -> None:
        """Each recorded stream: exactly one terminal event, and nothing after it."""
        mapper = self._mapper()
        for name, frames in self._streams():
            events, _, problems = _accumulate(mapper, frames)
            _check("one-terminal", not problems, lambda: f"{name}: {'; '.join(problems)}")
            count = sum(1 for e in events if is_terminal(e))
            _check("one-terminal", count == 1 and is_terminal(events[-1]), f"{name}: {count} terminal events")

    def test_cut_stream_is_truncated(self) -> None:
        """Each recorded stream cut at every frame boundary before its completion marker: ``truncated``."""
        mapper = self._mapper()
        for name, frames in self._streams():
            _, end, _ = _accumulate(mapper, frames)
            for cut in range(min(end, len(frames) - 1) + 1):
                events, _, problems = _accumulate(mapper, frames[:cut])
                _check("one-terminal", not problems, lambda: f"{name} cut after {cut} frames: {'; '.join(problems)}")
                last = events[-1] if events else None
                _check(
                    "truncated",
                    isinstance(last, StreamError) and last.error.code == "truncated",
                    lambda: f"{name} cut after {cut} of {len(frames)} frames ended in {type(last).__name__} "
                    f"{getattr(getattr(last, 'error', None), 'code', '')!s}, not StreamError(code='truncated')",
                )

    # ----- malformed-arguments

    def test_malformed_arguments_never_become_empty(self) -> None:
        """A call whose arguments are not a JSON object is refused, reported, or kept raw; never ``{}``."""
        mapper, profile = self._mapper(), self.profile
        for raw in ('{"city": "Par', "[1, 2]", "not json"):
            t = _id_transcript(arguments_raw=raw)
            for policy in ("error", "drop", "degrade"):
                enc = _attempt(lambda: mapper.encode_request(t, model=profile.model, policy=policy))  # noqa: B023
                if enc is None:
                    continue
                dec = _attempt(lambda: mapper.decode_request(enc.value))  # noqa: B023
                calls = _calls(dec.value.items) if dec is not None else []
                for call in calls:
                    _check(
                        "malformed-arguments",
                        not (call.arguments_raw is msgspec.UNSET and call.arguments == {}),
                        f"policy {policy!r}: arguments {raw!r} came back as {{}} (call {call.id!r})",
                    )
                _check(
                    "malformed-arguments",
                    len(calls) == len(_BAD_IDS) or bool(enc.report),
                    f"policy {policy!r}: calls with arguments {raw!r} were left out without a report entry",
                )
        for n, body in enumerate(profile.malformed_samples):
            kind = mapper.kind_of(body) or "request"
            conv = (mapper.decode_request if kind == "request" else mapper.decode_response)(body)
            items = conv.value.items
            bad = [c.id for c in _calls(items) if c.arguments_raw is msgspec.UNSET]
            _check("malformed-arguments", bool(_calls(items)) and not bad, f"malformed sample {n}: calls {bad} lost their raw argument text")

    # ----- tool-call-ids

    def test_tool_call_ids_obey_rule(self) -> None:
        """Ids that break the rule are replaced (and reported) by ids that obey it; results follow."""
        mapper, profile = self._mapper(), self.profile
        rule = self._id_rule()
        if rule is None:
            pytest.skip("mapper declares no tool-call id rule")
        enc = mapper.encode_request(_id_transcript(), model=profile.model)
        dec = mapper.decode_request(enc.value)
        calls = _calls(dec.value.items)
        _check("tool-call-ids", len(calls) == len(_BAD_IDS), f"expected {len(_BAD_IDS)} tool calls back, got {len(calls)}")
        bad = [c.id for c in calls if not rule.accepts(c.id)]
        _check("tool-call-ids", not bad, f"emitted tool-call ids break rule {rule.name!r}: {bad}")
        _check("tool-call-ids", len({c.id for c in calls}) == len(calls), f"emitted tool-call ids collide: {[c.id for c in calls]}")
        results = [it.call_id for it in dec.value.items if isinstance(it, ToolResultItem)]
        _check("tool-call-ids", results == [c.id for c in calls], f"results no longer link to their calls: calls {[c.id for c in calls]}, results {results}")
        _check("tool-call-ids", any(e.action == "changed" for e in enc.report), "tool-call ids were replaced without a report entry")
        out = _attempt(lambda: mapper.encode_response(ModelResponse(items=list(_calls(_id_transcript().items))), model=profile.model))
        if out is not None:
            back = _calls(mapper.decode_response(out.value).value.items)
            bad = [c.id for c in back if not rule.accepts(c.id)]
            _check("tool-call-ids", not bad, f"encode_response emitted tool-call ids breaking rule {rule.name!r}: {bad}")

    # ----- no-secret-leak

    def test_no_secret_in_output(self) -> None:
        """Foreign opaque state, raw items and provider_data never reach the output or the report."""
        mapper, profile = self._mapper(), self.profile
        t = _secret_transcript()
        for policy in ("error", "drop", "degrade"):
            try:
                enc = mapper.encode_request(t, model=profile.model, policy=policy)
            except InterlinguaError as exc:
                _check("no-secret-leak", SECRET_SENTINEL not in str(exc), f"policy {policy!r}: the error message holds the secret")
                continue
            text = json.dumps(enc.value, default=str) + "\n".join(str(e) for e in enc.report)
            _check("no-secret-leak", SECRET_SENTINEL not in text, f"policy {policy!r}: encode_request output or report holds the secret")
            response = ModelResponse(items=list(t.items))
            out = _attempt(lambda: mapper.encode_response(response, model=profile.model, policy=policy))  # noqa: B023
            if out is not None:
                text = json.dumps(out.value, default=str) + "\n".join(str(e) for e in out.report)
                _check("no-secret-leak", SECRET_SENTINEL not in text, f"policy {policy!r}: encode_response output or report holds the secret")
