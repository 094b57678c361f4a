"""What ``interlingua validate`` does and prints, without typer.

:func:`run_validate` is the command's whole body: both the typer command (:mod:`.validate`) and the
typer-free fast path (:mod:`._validate_fast`) call it with their own ``echo``, so they print the same.
"""

from __future__ import annotations

from collections.abc import Callable
from enum import Enum

from ..errors import Problem
from ..validation import ValidationResult, expand_paths, validate_path

__all__ = ["OutputFormat", "run_validate"]


class OutputFormat(str, Enum):
    """How problems are printed."""

    text = "text"
    json = "json"
    github = "github"


def _gh_escape(value: str, *, prop: bool = False) -> str:
    value = value.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")
    if prop:
        value = value.replace(":", "%3A").replace(",", "%2C")
    return value


def _problem_line(p: Problem, fmt: OutputFormat, *, warning: bool = False) -> str:
    if fmt is OutputFormat.github:
        props = [f"file={_gh_escape(p.file or '-', prop=True)}"]
        if p.line is not None:
            props.append(f"line={p.line}")
        props.append("title=interlingua validate")
        return f"::{'warning' if warning else 'error'} {','.join(props)}::{_gh_escape((p.pointer or '/') + ': ' + p.message)}"
    return f"warning: {p}" if warning else str(p)


def _summary(result: ValidationResult, warned: int = 0, hidden: int = 0) -> str:
    errors = len(result.problems) + len(result.unreadable) + hidden
    tail = f", {warned} warning{'s' if warned != 1 else ''}" if warned else ""
    return f"{result.files} file{'s' if result.files != 1 else ''}, {result.items} item{'s' if result.items != 1 else ''}, {errors} error{'s' if errors != 1 else ''}{tail}"


def run_validate(paths: list[str], *, strict: bool, fmt: OutputFormat, only_transcripts: bool, quiet: bool, echo: Callable[[str], None]) -> int:
    """Validate ``paths`` and print every problem, then a summary line, through ``echo`` (one line a call).

    Returns:
        The exit code: 0 valid, 1 invalid, 2 unreadable input or standard input named twice.
    """
    from ._progress import Progress

    if paths.count("-") > 1:
        import sys

        sys.stderr.write("error: '-' (standard input) is named more than once; it can be read only once\n")
        return 2

    total = 0
    for _label, path in expand_paths(paths):
        try:
            total += path.stat().st_size if path is not None and path.is_file() else 0
        except OSError:
            pass
    with Progress("validating", total=total, quiet=quiet) as bar:
        result = validate_path(paths, mode="strict" if strict else "preserving", only_transcripts=only_transcripts, progress=bar.advance)
    hidden = 0
    if result.problems:  # (the hints' module and the json it reads with are imported only then)
        from ._validate_hints import add_stored_format_hints

        hidden = add_stored_format_hints(result)  # errors not shown, less the hint lines
    if strict and result.warnings:
        result.problems.extend(result.warnings)
        result.problems.sort(key=lambda p: (p.file or "", p.line or 0))
        result.warnings = []
    problems = result.unreadable + result.problems
    warned = result.warnings
    if fmt is OutputFormat.json:
        import json

        payload = {
            "valid": result.ok,
            "files": result.files,
            "items": result.items,
            "errors": len(problems) + hidden,
            "problems": [{"file": p.file, "line": p.line, "pointer": p.pointer, "message": p.message} for p in problems],
            "warnings": [{"file": p.file, "line": p.line, "pointer": p.pointer, "message": p.message} for p in warned],
        }
        if only_transcripts:
            payload["skipped"] = result.skipped
        echo(json.dumps(payload, indent=2))
    else:
        for p in problems:
            echo(_problem_line(p, fmt))
        for p in warned:
            echo(_problem_line(p, fmt, warning=True))
        if result.skipped:
            shown = ", ".join(result.skipped[:5]) + (f", ... ({len(result.skipped) - 5} more)" if len(result.skipped) > 5 else "")
            what = "file that is not an interlingua transcript" if len(result.skipped) == 1 else "files that are not interlingua transcripts"
            echo(f"skipped {len(result.skipped)} {what}: {shown}")
        echo(_summary(result, len(warned), hidden))
    if result.unreadable:
        return 2
    return 0 if result.ok else 1
