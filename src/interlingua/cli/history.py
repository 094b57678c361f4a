"""``interlingua repair`` and ``interlingua trim``: make a history sendable, and fit it into a budget."""

# No `from __future__ import annotations`: typer reads the annotations of the command signatures.

import contextlib
import sys
from enum import Enum
from pathlib import Path
from typing import IO, Annotated, Any

import typer

from ._common import EXIT_INVALID, EXIT_USAGE, require_regular_input, require_stdin, write_atomic

__all__ = ["register"]


class RepairPolicy(str, Enum):
    """What ``repair`` does with what breaks the rules."""

    error = "error"
    drop = "drop"
    degrade = "degrade"


def _fail(code: int, message: str) -> typer.Exit:
    typer.echo(f"error: {message}", err=True)
    return typer.Exit(code)


def _read(input: str | None, command: str) -> tuple[bytes, str]:
    if input in (None, "-"):
        require_stdin(command)
        return sys.stdin.buffer.read(), "-"
    require_regular_input(input, command)
    try:
        return Path(input).read_bytes(), input
    except OSError as exc:
        from ._common import os_error_text

        raise _fail(EXIT_USAGE, os_error_text(exc, input)) from exc


def _write(data: bytes, output: Path | None) -> None:
    if output is None:
        try:
            sys.stdout.buffer.write(data)
            sys.stdout.buffer.flush()
        except BrokenPipeError:
            from ._common import quiet_broken_pipe

            quiet_broken_pipe()
        return
    try:
        write_atomic(output, data)
    except OSError as exc:
        from ._common import os_error_text

        raise _fail(EXIT_USAGE, os_error_text(exc, output)) from exc


def _is_session_file(data: bytes, label: str) -> bool:
    from ..session_file import looks_like_session_file

    return label.lower().endswith((".jsonl", ".ndjson")) or looks_like_session_file(data[:4096])


def _repairable(problem: Any) -> bool:
    """A problem the integrity rules handle (a result whose call is not earlier, a reused id): what
    ``repair`` exists to fix and ``trim`` keeps company for, so not refused up front (the rule
    ``convert`` applies to a request: ``conversion._integrity_problem``)."""
    return (problem.pointer.endswith("/call_id") and "which is not an earlier" in problem.message) or (problem.message.startswith("duplicate item id") and "reusing an id" in problem.message)


def _refuse_invalid(source: "IO[bytes] | bytes | str", label: str, session_file: bool) -> None:
    """Refuse (exit 1) an input ``interlingua validate`` rejects, before anything is done or written
    (issue 32: a text item with no role, a tool_call with no arguments went through "nothing to
    repair"): each problem as validate gives it (file, line, JSON pointer, what). The integrity
    rules' warnings are what repair and trim handle: not refused. ``source`` is an open binary file
    (read from its start, left at its start), the input's bytes, or a path; a session file is read
    line by line (bounded memory)."""
    from ..validation import validate_bytes, validate_jsonl_stream, validate_path
    from ..validation._documents import validate_document_bytes

    import os
    import stat

    if isinstance(source, bytes):
        result = validate_bytes(source, file=label)
    elif isinstance(source, str):

        try:
            regular = stat.S_ISREG(os.stat(source).st_mode)
        except OSError:
            return  # the usual path says why it cannot be read
        if not regular:
            return  # a pipe or a device is read once: the conversation read is checked instead
        result = validate_path([source])
    elif session_file:
        result = validate_jsonl_stream(source, file=label)
        source.seek(0)
    elif isinstance(getattr(source, "name", None), str) and os.path.isfile(source.name):
        result = validate_path([source.name])  # a document file (its label is its path) is validated item by item, not read whole
    else:
        result = validate_document_bytes(source.read(), file=label)
        source.seek(0)
    problems = [p for p in result.problems if not _repairable(p)]
    if not problems:
        return  # unreadable: the usual path says why
    shown = 20
    for problem in problems[:shown]:
        typer.echo(f"error: {problem}", err=True)
    if len(problems) > shown:
        typer.echo(f"error: ... and {len(problems) - shown} more problem(s) (`interlingua validate {label}` lists them all)", err=True)
    raise typer.Exit(EXIT_INVALID)


def _export_store(url: str, session: str | None, dest: IO[bytes]) -> None:
    """The store's sessions (or ``session``) written to ``dest`` as one session file, like ``store export``."""
    from .store import _run, _with_store

    async def body(store: Any) -> None:
        if session is not None:
            await store.export_jsonl(session, dest)
            return
        offset = 0
        while True:
            page = await store.list_sessions(limit=500, offset=offset)
            for info in page:
                await store.export_jsonl(info.id, dest)
            if len(page) < 500:
                return
            offset += len(page)

    _run(lambda: _with_store(url, body))


def _open_input(input: str | None, store: str | None, session: str | None, stack: contextlib.ExitStack, command: str = "repair") -> tuple[IO[bytes], str]:
    """The input as a binary file read from its start, and its label: the file itself, else a
    temporary copy of stdin or of the store's export (so a session file is read in bounded memory)."""
    import shutil
    import tempfile

    if store is not None:
        spool = stack.enter_context(tempfile.TemporaryFile())
        _export_store(store, session, spool)
        if not spool.tell():
            raise _fail(EXIT_INVALID, "the store holds no session")
        spool.seek(0)
        return spool, "store.jsonl"
    if input in (None, "-"):
        require_stdin(command)
        spool = stack.enter_context(tempfile.TemporaryFile())
        shutil.copyfileobj(sys.stdin.buffer, spool, 1 << 20)
        spool.seek(0)
        return spool, "-"
    require_regular_input(input, "repair")
    try:
        fh: IO[bytes] = stack.enter_context(open(input, "rb"))
        if not fh.seekable():  # a pipe given by name (`<(...)`): copied, as stdin
            spool = stack.enter_context(tempfile.TemporaryFile())
            shutil.copyfileobj(fh, spool, 1 << 20)
            spool.seek(0)
            fh = spool
    except OSError as exc:
        from ._common import os_error_text

        raise _fail(EXIT_USAGE, os_error_text(exc, input)) from exc
    return fh, input


def _repair_sessions(fh: IO[bytes], label: str, policy: str, open_end: bool, output: Path | None, quiet: bool) -> None:
    """Repair a session file a session at a time into ``output`` (or stdout), atomically; then report.

    Memory stays bounded by the largest session: each session is read, repaired and written before
    the next is read; the report lines wait in a temporary file. A problem anywhere in the file
    leaves nothing written (the output goes through a temporary file renamed into place at the end).
    """
    import tempfile

    from ..history._files import iter_repaired_sessions
    from ._common import atomic_output

    sessions = changed = 0
    with tempfile.TemporaryFile() as notes:
        try:
            with atomic_output(output) as out:
                for lines, repaired in iter_repaired_sessions(fh, policy=policy, open_end=open_end, label=label):  # type: ignore[arg-type]
                    out.write(lines)
                    sessions += 1
                    if repaired.report:
                        changed += 1
                        notes.write(b"".join(f"{repaired.session_id}: {entry}\n".encode() for entry in repaired.report))
        except OSError as exc:
            from ._common import os_error_text

            raise _fail(EXIT_USAGE, os_error_text(exc, output)) from exc
        if quiet:
            return
        notes.seek(0)
        count = 0
        for line in notes:
            typer.echo(line.decode().rstrip("\n"), err=True)
            count += 1
    typer.echo(f"{count} change(s) in {changed} of {sessions} session(s)" if count else "nothing to repair", err=True)


def repair(
    input: Annotated[str | None, typer.Argument(metavar="INPUT", help="Transcript document (.json) or session file (.jsonl); `-` or nothing for stdin; left out with --store.", show_default=False)] = None,
    policy: Annotated[
        RepairPolicy,
        typer.Option(
            "--policy",
            metavar="drop|degrade|error",
            help="degrade: a dangling call gets a stub result saying none was recorded, a reused call id is renamed; "
            "drop: what breaks the rules is left out; error: change nothing, exit 1 listing every problem.",
        ),
    ] = RepairPolicy.degrade,
    open_end: Annotated[bool, typer.Option("--open-end", help="Keep calls still awaiting their results at the very end (a session in progress).")] = False,
    output: Annotated[Path | None, typer.Option("-o", "--output", help="Write the repaired history here (default: stdout).", show_default=False)] = None,
    store: Annotated[
        str | None,
        typer.Option(
            "--store",
            help="Read the sessions of this session store (all, or --session) and write them repaired as a session file; "
            "the store is not changed (`interlingua store import` the result under new ids).",
            show_default=False,
        ),
    ] = None,
    session: Annotated[str | None, typer.Option("--session", help="With --store: the one session to repair.", show_default=False)] = None,
    quiet: Annotated[bool, typer.Option("--quiet", "-q", help="No report on stderr (the exit code still says what happened).")] = False,
) -> None:
    """Rewrite histories so that they keep the integrity rules, reporting every change.

    The rules (dangling calls, orphan and duplicate results, reused call ids, results out of turn,
    empty texts, reasoning cut from its output) are those `interlingua validate` warns about and
    `interlingua convert` applies. A session file is repaired session by session (envelopes
    renumbered), read and written one session at a time, so its size does not matter; the output
    is written whole or not at all. Repairing the output again changes nothing. Every change is one
    line on stderr.

    Exit codes: 0 written (repaired or already sound), 1 invalid input or problems under --policy error, 2 usage error or unreadable input.
    """
    from ..codec import decode_transcript, encode_transcript
    from ..errors import DocumentError, IntegrityError

    if store is not None and input is not None:
        raise _fail(EXIT_USAGE, "give INPUT or --store URL, not both")
    if session is not None and store is None:
        raise _fail(EXIT_USAGE, "--session needs --store URL")
    changes: list[str] = []
    with contextlib.ExitStack() as stack:
        fh, label = _open_input(input, store, session, stack)
        head = fh.read(4096)
        fh.seek(0)
        _refuse_invalid(fh, label, _is_session_file(head, label))
        try:
            if _is_session_file(head, label):
                _repair_sessions(fh, label, policy.value, open_end, output, quiet)
                return
            from ..history import repair as repair_transcript
            from ..history._document import scan_document, write_repaired

            # a document is read item by item, never whole (issue 32): the integrity rules first,
            # then the rewrite's rounds, each written to a temporary file (a sound document: as read)
            facts = scan_document(fh, policy.value, open_end=open_end)
            if facts is not None:
                from ._common import atomic_output

                try:
                    with atomic_output(output) as sink:
                        report = write_repaired(fh, sink, facts, policy.value, open_end=open_end)
                except OSError as exc:
                    from ._common import os_error_text

                    raise _fail(EXIT_USAGE, os_error_text(exc, output)) from exc
                if not quiet:
                    lines = [str(entry) for entry in report]
                    for line in lines:
                        typer.echo(line, err=True)
                    typer.echo(f"{len(lines)} change(s)" if lines else "nothing to repair", err=True)
                return
            fh.seek(0)
            try:
                data = fh.read()  # read whole
            except OSError as exc:
                from ._common import os_error_text

                raise _fail(EXIT_USAGE, os_error_text(exc, label)) from exc
            transcript = decode_transcript(data)
            result = repair_transcript(transcript, policy.value, open_end=open_end)
            out = encode_transcript(result.value) + b"\n"
            changes.extend(str(entry) for entry in result.report)
            summary = f"{len(changes)} change(s)"
        except IntegrityError as exc:
            raise _fail(EXIT_INVALID, f"{label}: {exc}") from exc
        except DocumentError as exc:
            raise _fail(EXIT_INVALID, str(exc.located(file=label) if hasattr(exc, "located") else exc)) from exc
    _write(out, output)
    if not quiet:
        for line in changes:
            typer.echo(line, err=True)
        typer.echo(summary if changes else "nothing to repair", err=True)


def trim(
    input: Annotated[str | None, typer.Argument(metavar="INPUT", help="Transcript document (.json) or session file (.jsonl, one session or --session); `-` for stdin.", show_default=False)] = None,
    max_input_tokens: Annotated[int | None, typer.Option("--max-input-tokens", help="Budget in input tokens (default: the model's context window less its output budget).", show_default=False)] = None,
    model: Annotated[str | None, typer.Option("--model", help="The model the history is for (default: the conversation's settings.model).", show_default=False)] = None,
    provider: Annotated[str | None, typer.Option("--provider", help="Wire format of --model (anthropic, openai-chat, gemini, ...), for its limits.", show_default=False)] = None,
    keep_first: Annotated[int, typer.Option("--keep-first", help="Always keep the first N turns.")] = 0,
    marker: Annotated[bool, typer.Option("--marker", help="Put a user text item where turns were removed.")] = False,
    session: Annotated[str | None, typer.Option("--session", help="The session of a session file to trim.", show_default=False)] = None,
    output: Annotated[Path | None, typer.Option("-o", "--output", help="Write the trimmed transcript document here (default: stdout).", show_default=False)] = None,
    quiet: Annotated[bool, typer.Option("--quiet", "-q", help="No report on stderr.")] = False,
) -> None:
    """Drop the oldest turns of a history until it fits a token budget.

    Keeps the system prompt and instructions, never splits a tool call from its result or
    reasoning from its output, and starts the kept history on a user turn. Token figures are the
    offline estimate (seeded by reported usage where the history has it). Writes a transcript
    document; every dropped turn is one line on stderr.

    Exit codes: 0 written, 1 invalid input or the newest turn alone exceeds the budget, 2 usage error or unreadable input.
    """
    if keep_first < 0:
        raise _fail(EXIT_USAGE, "--keep-first must be 0 or more")
    if max_input_tokens is not None and max_input_tokens < 0:
        raise _fail(EXIT_USAGE, "--max-input-tokens must be 0 or more")
    if provider is not None:  # checked before reading: with --max-input-tokens too, a typo is not silently taken
        from .models import require_known_provider

        require_known_provider(provider)
    require_regular_input(input, "trim")
    with contextlib.ExitStack() as stack:
        source: str | bytes | None = None
        if session is None:
            # a transcript document is read item by item, twice (issue 32): the turns' compact
            # facts first, then what is kept is written as it is read again
            from ..errors import DocumentError
            from ..history._document import read_trim_facts

            fh, label = _open_input(input, None, None, stack, "trim")
            head = fh.read(4096)
            fh.seek(0)
            _refuse_invalid(fh, label, _is_session_file(head, label))
            fh.seek(len(head))
            if not _is_session_file(head, label):
                try:
                    facts = read_trim_facts(fh)
                except DocumentError as exc:
                    raise _fail(EXIT_INVALID, str(exc.located(file=label))) from exc
                if facts is not None:
                    _trim_streamed(fh, label, facts, max_input_tokens, model, provider, keep_first, marker, output, quiet)
                    return
            if input in (None, "-"):
                fh.seek(0)
                source = fh.read()
        elif input in (None, "-"):
            source, _ = _read(input, "trim")
        whole: str | bytes = source if source is not None else str(input)
        _trim_whole(whole, "-" if input in (None, "-") else str(input), session,
                    max_input_tokens, model, provider, keep_first, marker, output, quiet)


def _budget_model(settings: Any, max_input_tokens: int | None, model: str | None, provider: str | None) -> tuple[str | None, str | None]:
    """The model and wire format whose limits give the budget: the conversation's own model
    (``settings.model``) when none is given, and the wire format whose catalogue describes it."""
    if max_input_tokens is None and model is None:
        # the conversation's own model (settings.model), as replay takes it
        recorded = getattr(settings, "model", None)
        if not isinstance(recorded, str) or not recorded:
            raise _fail(EXIT_USAGE, "give --max-input-tokens N, or --model (with --provider when the catalogue does not tell) to use the model's context window "
                        "(the conversation's settings name no model)")
        model, given = recorded, f"the conversation's model {recorded}"
    else:
        given = f"--model {model}"
    if model is not None and not provider and max_input_tokens is None:
        # the budget comes from the model's limits, looked up per wire format: the one whose catalogue
        # rows or overrides describe the model (gpt-4o: openai-chat); a budget given needs none
        provider = _provider_of(model)
        if provider is None:
            raise _fail(
                EXIT_USAGE,
                f"{given} is in no wire format's catalogue: give --provider NAME (anthropic, openai-chat, gemini, ...) "
                "for its limits, or --max-input-tokens N",
            )
    return model, provider


def _trim_streamed(fh: IO[bytes], label: str, facts: Any, max_input_tokens: int | None, model: str | None, provider: str | None,
                   keep_first: int, marker: bool, output: Path | None, quiet: bool) -> None:
    """``trim`` of a transcript document read item by item (see :mod:`interlingua.history._document`):
    the same output, report and exit codes as the whole path, in bounded memory."""
    from ..errors import BudgetError
    from ..history._document import count_document, write_trimmed
    from ..history._tokens import TokenCount, _tools_tokens
    from ..history._trim import input_budget, plan_trim
    from ..history._document import _shell_transcript
    from ._common import atomic_output

    model, provider = _budget_model(facts.shell.settings, max_input_tokens, model, provider)
    try:
        budget = input_budget(facts.shell.settings, max_input_tokens, model, provider)
        plan = None
        if count_document(facts, model).input_tokens > budget:
            plan = plan_trim(facts.turns, _tools_tokens(_shell_transcript(facts.shell)), budget, keep_first=keep_first, marker=marker)
    except BudgetError as exc:
        raise _fail(EXIT_INVALID, f"{label}: {exc}") from exc
    try:
        with atomic_output(output) as sink:
            kept, tokens = write_trimmed(fh, sink, facts, plan, marker=marker)
    except OSError as exc:
        from ._common import os_error_text

        raise _fail(EXIT_USAGE, os_error_text(exc, output)) from exc
    if not quiet:
        if plan is not None and plan.dropped:
            for entry in plan.report():
                typer.echo(str(entry), err=True)
        after = TokenCount(tokens, exact=False, method="estimate", estimated_tokens=tokens, model=model)
        typer.echo(f"kept {kept} of {facts.count} item(s), {after}", err=True)


def _trim_whole(source: str | bytes, label: str, session: str | None, max_input_tokens: int | None, model: str | None, provider: str | None,
                keep_first: int, marker: bool, output: Path | None, quiet: bool) -> None:
    """``trim`` of the conversation read whole: one session of a session file (read a session at a
    time up to the one chosen), or a document the item-by-item reader leaves to the whole one."""
    from ..codec import encode_transcript
    from ..errors import BudgetError, DocumentError, SessionChoiceError, UnknownFormatError
    from ..history import count_tokens
    from ..history import trim as trim_transcript
    from ..session_file import read_conversation

    try:
        transcript = read_conversation(source, session=session, label=label)
    except SessionChoiceError as exc:
        raise _fail(EXIT_USAGE, str(exc)) from exc
    except DocumentError as exc:
        raise _fail(EXIT_INVALID, str(exc)) from exc
    except OSError as exc:
        from ._common import os_error_text

        raise _fail(EXIT_USAGE, os_error_text(exc, label)) from exc
    from ..validation import check_transcript

    problems = [p for p in check_transcript(transcript) if not _repairable(p)]  # what validate rejects is refused (a session of a file, stdin)
    if problems:
        raise _fail(EXIT_INVALID, "; ".join(str(p.located(file=label)) for p in problems[:20]))
    model, provider = _budget_model(transcript.settings, max_input_tokens, model, provider)
    try:
        result = trim_transcript(transcript, max_input_tokens, model, provider=provider, keep_first=keep_first, marker=marker)
    except SessionChoiceError as exc:
        raise _fail(EXIT_USAGE, str(exc)) from exc
    except UnknownFormatError as exc:  # a provider the catalogue knows but no mapper reads
        raise _fail(EXIT_USAGE, str(exc)) from exc
    except (DocumentError, BudgetError) as exc:
        raise _fail(EXIT_INVALID, f"{label}: {exc}" if isinstance(exc, BudgetError) else str(exc)) from exc
    _write(encode_transcript(result.value) + b"\n", output)
    if not quiet:
        for entry in result.report:
            typer.echo(str(entry), err=True)
        after: Any = count_tokens(result.value, model)
        typer.echo(f"kept {len(result.value.items)} of {len(transcript.items)} item(s), {after}", err=True)


def _provider_of(model: str) -> str | None:
    """The first built-in wire format whose own catalogue rows or overrides describe ``model`` (as
    ``interlingua models MODEL`` picks them), or ``None``."""
    from ..models import lookup
    from .models import _describing, _providers

    found = _describing(_providers(), model)

    return found[0] if found and lookup(found[0], model).known else None


def register(app: typer.Typer) -> None:
    """Add ``repair`` and ``trim`` to the app."""
    app.command("repair")(repair)
    app.command("trim")(trim)
