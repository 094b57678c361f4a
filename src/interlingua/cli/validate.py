"""``interlingua validate`` and ``interlingua schema``."""

# No `from __future__ import annotations`: typer reads the annotations of the command signatures at every start, and
# real objects spare it an `eval` of each string (start-up of `interlingua validate`).

import sys
from enum import Enum
from pathlib import Path
from typing import Annotated

import typer

from ..errors import Problem
from ..validation import ValidationResult, expand_paths, load_schema, schema_names, validate_path
from ._common import require_stdin

__all__ = ["register"]


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


def validate(
    paths: Annotated[list[str], typer.Argument(metavar="PATH...", help="Files (.json documents, .jsonl envelope streams), directories, or - for stdin.", show_default=False)],
    strict: Annotated[
        bool,
        typer.Option(
            "--strict/--no-strict",
            help="Reject item types this version does not know, and count history integrity warnings (dangling calls, results "
            "out of turn, empty texts, ...) as errors (default: preserve unknown types, report integrity problems as warnings).",
        ),
    ] = False,
    fmt: Annotated[OutputFormat, typer.Option("--format", metavar="text|json|github", help="Output format: text, json or github (GitHub Actions annotations).")] = OutputFormat.text,
    only_transcripts: Annotated[
        bool,
        typer.Option(
            "--only-transcripts",
            help="Skip files that are not interlingua documents or envelope streams (judged by content: "
            "package.json, tsconfig.json, ... are skipped and listed), for hooks in repositories holding other JSON.",
        ),
    ] = False,
    quiet: Annotated[bool, typer.Option("--quiet", "-q", help="No progress display (shown on long runs).")] = False,
) -> None:
    """Check transcripts against the JSON Schemas and the semantic rules.

    Prints every problem with file, line (JSON Lines), JSON pointer and reason, then a
    summary line. Exit 0 valid, 1 invalid, 2 usage error or unreadable input.
    """
    from ._progress import Progress

    if "-" in paths:
        require_stdin("validate", "PATH")
    total = 0
    for _label, path in expand_paths(paths):
        try:
            total += path.stat().st_size if path is not None and path.is_file() else 0
        except OSError:
            pass
    with Progress("validating", total=total, quiet=quiet) as bar:
        result = validate_path(paths, mode="strict" if strict else "preserving", only_transcripts=only_transcripts, progress=bar.advance)
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
        typer.echo(json.dumps(payload, indent=2))
    else:
        for p in problems:
            typer.echo(_problem_line(p, fmt))
        for p in warned:
            typer.echo(_problem_line(p, fmt, warning=True))
        if result.skipped:
            shown = ", ".join(result.skipped[:5]) + (f", ... ({len(result.skipped) - 5} more)" if len(result.skipped) > 5 else "")
            what = "file that is not an interlingua transcript" if len(result.skipped) == 1 else "files that are not interlingua transcripts"
            typer.echo(f"skipped {len(result.skipped)} {what}: {shown}")
        typer.echo(_summary(result, len(warned), hidden))
    if result.unreadable:
        raise typer.Exit(2)
    raise typer.Exit(0 if result.ok else 1)


def schema(
    out: Annotated[Path | None, typer.Option("--out", help="Write every bundled schema as <name>.json into this directory.")] = None,
    name: Annotated[str | None, typer.Argument(help="One schema to print (e.g. transcript, envelope, text); default: all, as one JSON object.")] = None,
) -> None:
    """Print or write the bundled JSON Schemas (Draft 2020-12)."""
    import json

    if name is not None and name not in schema_names():
        typer.echo(f"error: no schema {name!r}; known: {', '.join(schema_names())}", err=True)
        raise typer.Exit(2)
    names = [name] if name else list(schema_names())
    if out is not None:
        try:
            out.mkdir(parents=True, exist_ok=True)
            for n in names:
                (out / f"{n}.json").write_text(json.dumps(load_schema(n), indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
        except OSError as exc:
            typer.echo(f"error: cannot write to {out}: {exc.strerror or exc}", err=True)
            raise typer.Exit(2) from exc
        typer.echo(f"wrote {len(names)} schema{'s' if len(names) != 1 else ''} to {out}", err=True)
        return
    doc = load_schema(names[0]) if name else {n: load_schema(n) for n in names}
    sys.stdout.write(json.dumps(doc, indent=2, ensure_ascii=False) + "\n")


def register(app: typer.Typer) -> None:
    """Add ``validate`` and ``schema`` to the app."""
    app.command("validate")(validate)
    app.command("schema")(schema)
