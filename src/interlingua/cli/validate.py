"""``interlingua validate`` and ``interlingua schema``."""

# No `from __future__ import annotations`: typer reads the annotations of the command signatures at every start, and
# real objects spare it an `eval` of each string (start-up of `interlingua validate`).

import sys
from pathlib import Path
from typing import Annotated

import typer

from ..validation import load_schema, schema_names
from ._common import require_stdin
from ._validate_run import OutputFormat, run_validate

__all__ = ["register"]


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
    if "-" in paths:
        require_stdin("validate", "PATH")
    raise typer.Exit(run_validate(paths, strict=strict, fmt=fmt, only_transcripts=only_transcripts, quiet=quiet, echo=typer.echo))


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
