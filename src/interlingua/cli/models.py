"""``interlingua models``: what interlingua knows about models, and where each fact came from.

``--remote --provider NAME`` asks the provider's own list endpoint instead (``GET /v1/models``,
Gemini ``models.list``, Ollama ``/api/tags``, Bedrock ``ListFoundationModels``, ...) with the key
from the provider's usual environment variable; each model is merged with what the catalogue knows.
"""

from __future__ import annotations

import json
import sys
from typing import Annotated, Any

import typer

from ._common import EXIT_USAGE

__all__ = ["register"]

_FACT_ORDER = (
    "context_window",
    "max_output_tokens",
    "input_modalities",
    "output_modalities",
    "tools",
    "parallel_tool_calls",
    "reasoning",
    "reasoning_settings",
    "reasoning_control",
    "structured_output",
    "prompt_caching",
    "stop_sequences",
    "assistant_prefill",
    "requires_tool_definitions",
    "raw_round_trip",
    "streaming",
    "max_tool_calls_per_turn",
    "prices",
)


def _providers() -> list[str]:
    from ..models._sources import CATALOGUE_PROVIDERS

    return list(CATALOGUE_PROVIDERS)


def require_known_provider(provider: str) -> None:
    """Exit 2 with ``error: unknown provider 'NAME'; known: ...`` unless ``provider`` names a wire
    format with a model catalogue or a registered mapper (``openai-chat:HOST`` for a known host).

    Shared by ``models --provider`` and ``trim --provider``: both print the same message.

    Raises:
        typer.Exit: (code 2) the provider is unknown.
    """
    providers = _providers()
    if provider in providers:
        return
    from ..mapping.registry import is_known

    if not is_known(provider):
        typer.echo(f"error: unknown provider {provider!r}; known: {', '.join(providers)}", err=True)
        raise typer.Exit(EXIT_USAGE)


def _value(value: Any) -> Any:
    from dataclasses import asdict, is_dataclass

    if is_dataclass(value) and not isinstance(value, type):
        return {k: v for k, v in asdict(value).items() if v is not None and v != ""}
    return value


def _show(provider: str, model: str, as_json: bool) -> dict[str, Any]:
    from ..models import lookup

    info = lookup(provider, model)
    facts = {name: {"value": _value(f.value), "origin": f.origin, "detail": f.detail} for name, f in info.facts.items()}
    ordered = {n: facts[n] for n in _FACT_ORDER if n in facts}
    ordered.update({n: f for n, f in facts.items() if n not in ordered})
    doc = {
        "provider": provider,
        "model": model,
        "known": info.known,
        "catalogue_row": info.catalogue_row,
        "deprecation_date": info.deprecation_date,
        "retired": info.retired,
        "resolved_as": info.resolved_as,
        "facts": ordered,
    }
    if as_json:
        return doc
    typer.echo(f"{provider} {model}: " + (f"known (catalogue row {info.catalogue_row})" if info.catalogue_row else ("known (overrides)" if info.override is not None else "known (your model table)") if info.known else "UNKNOWN"))
    if not info.known:
        typer.echo("  its capabilities are unknown: preflight cannot check a conversation against them and refuses nothing on them")
    if info.resolved_as:
        typer.echo(f"  read as: {info.resolved_as}")
    if info.retired:
        typer.echo(f"  RETIRED by its provider on {info.retired}: the facts below are its last known ones; requests to it fail")
    if info.deprecation_date:
        typer.echo(f"  deprecation date: {info.deprecation_date}")
    width = max(len(n) for n in ordered)
    for name, fact in ordered.items():
        value = fact["value"]
        origin = f"[{fact['origin']}{': ' + fact['detail'] if fact['detail'] and fact['origin'] != 'override' else ''}]"
        if value is None and name == "reasoning_settings":
            # null reads "as reasoning" (ModelCapabilities.reasoning_settings): say so, with the reasoning fact's value
            reasoning = ordered.get("reasoning", {}).get("value")
            shown = "as reasoning" + (f" ({json.dumps(reasoning)})" if reasoning is not None else "")
        elif value is None:
            shown = "unknown"
            if fact["origin"] != "unknown":  # an unknown value has no override, catalogue or default behind it
                origin = "[no source states it]"
        else:
            shown = json.dumps(value, ensure_ascii=False) if not isinstance(value, str) else value
        typer.echo(f"  {name:<{width}}  {shown}  {origin}")
    override = info.override
    if override is not None:
        from ..capabilities._table import spelled_fields

        note = override.note if isinstance(override.note, str) else ""
        spelled = spelled_fields(override)
        where = f"  override: models.json pattern {override.pattern!r} of {override.provider}"
        typer.echo(where + (f", source {override.source}" if isinstance(override.source, str) else ""))
        if spelled is not None:
            typer.echo("    states: " + (", ".join(sorted(spelled)) or "nothing") + " (the other facts: catalogue or defaults)")
        if note:
            typer.echo(f"    {note}")
    return doc


def models(
    model: Annotated[str | None, typer.Argument(metavar="MODEL", help="A model to show (default: list the models).", show_default=False)] = None,
    provider: Annotated[
        str | None,
        typer.Option("--provider", "-p", metavar="NAME", help="Wire format (anthropic, openai-chat, openai-chat:groq, ...); default: every built-in one.", show_default=False),
    ] = None,
    source: Annotated[bool, typer.Option("--source", help="Print where the catalogue snapshot comes from (package, version, date) and exit.")] = False,
    as_json: Annotated[bool, typer.Option("--json", help="Print JSON instead of text.")] = False,
    remote: Annotated[bool, typer.Option("--remote", help="Ask the provider's own list endpoint (needs --provider, and its key unless a local server).")] = False,
    base_url: Annotated[str | None, typer.Option("--base-url", help="With --remote: API root (OpenAI-compatible server, proxy, local Ollama).", show_default=False)] = None,
) -> None:
    """Show what interlingua knows about models and where each fact came from.

    Without MODEL, lists the models the catalogue snapshot and the overrides describe (per wire
    format). With MODEL, shows each fact (context window, maximum output, modalities, tools,
    reasoning, prices, ...) and its origin: `user` (INTERLINGUA_MODELS), `override` (models.json, with
    its source), `catalogue` (the pinned snapshot's row), `default` (the wire format's) or `unknown`.

    With --remote --provider NAME: the models the provider's own list endpoint offers, each merged
    with the catalogue's facts.

    Off a terminal the list is one model per line, `provider<TAB>model`.

    Exit codes: 0 shown, 1 MODEL is not in the catalogue nor the overrides (its default facts are still
    shown), the user's model table is invalid or the remote call failed, 2 usage error (unknown --provider).
    """
    from ..errors import InterlinguaError

    if remote:
        if not provider:
            typer.echo("error: --remote needs --provider NAME", err=True)
            raise typer.Exit(EXIT_USAGE)
        from .models_remote import remote_models

        raise typer.Exit(remote_models(provider, base_url, as_json))
    if base_url is not None:
        typer.echo("error: --base-url goes with --remote", err=True)
        raise typer.Exit(EXIT_USAGE)

    providers = _providers()
    if provider is not None:
        require_known_provider(provider)
        providers = [provider]
    try:
        if source:
            from ..models import source as catalogue_source

            src = catalogue_source()
            if as_json:
                typer.echo(json.dumps(src.__dict__, indent=2))
            else:
                typer.echo(f"catalogue: {src.package} {src.version}, file {src.file} (sha256 {src.sha256[:12]}...)")
                typer.echo(f"snapshot date: {src.date}; licence {src.license}; {src.homepage}")
                typer.echo("refresh: python tools/refresh_models.py (see docs/capabilities.md)")
            return
        if model is not None:
            from ..models import lookup

            chosen = providers if provider is not None else _describing(providers, model)
            docs = [_show(p, model, as_json) for p in chosen]
            if as_json:
                typer.echo(json.dumps(docs if len(docs) > 1 else docs[0], indent=2, ensure_ascii=False))
            if not any(d["known"] for d in docs):
                where = f" of {provider}" if provider is not None else ""
                typer.echo(
                    f"error: model {model!r} is not in the catalogue{where} nor in the overrides "
                    "(above: the defaults a call would be checked against); list the known ones with `interlingua models`",
                    err=True,
                )
                raise typer.Exit(1)
            return
        _list(providers, as_json)
    except InterlinguaError as exc:
        typer.echo(f"error: {exc}", err=True)
        raise typer.Exit(1) from None


def _describing(providers: list[str], model: str) -> list[str]:
    """The wire formats whose own catalogue rows or (non-wildcard) overrides describe ``model``;
    ``openai-chat`` (to show it unknown) when none does."""
    from ..models import lookup
    from ..models._sources import CATALOGUE_PROVIDERS

    own = []
    for p in providers:
        info = lookup(p, model)
        row = info.catalogue_row.split("/", 1)[0] if info.catalogue_row else None
        if (row is not None and row in CATALOGUE_PROVIDERS.get(p, ())) or (info.override is not None and info.override.provider == p and info.override.pattern != "*"):
            own.append(p)
    return own or ["openai-chat"]


def _list(providers: list[str], as_json: bool) -> None:
    from ..capabilities import default_table
    from ..models import catalogue_models

    from ..models._info import _user_entries, _user_path

    table = default_table()
    # the user's model table (INTERLINGUA_MODELS) is read here too: a missing or invalid one is the
    # same error as for one model, and its patterns are listed ("user"; only when a table is set)
    user_path = _user_path()
    user = _user_entries(user_path) if user_path is not None else ()
    out: dict[str, dict[str, list[str]]] = {}
    for p in providers:
        out[p] = {"catalogue": catalogue_models(p), "overrides": [e.pattern for e in table.entries if e.provider == p]}
        if user_path is not None:
            out[p]["user"] = [entry[1] for entry in user if entry[0] == p]
    if as_json:
        typer.echo(json.dumps(out, indent=2))
        return
    if not sys.stdout.isatty():
        # for scripts (grep, cut, sort): one model per line, provider<TAB>model; override patterns with a
        # wildcard describe families, not models, and are left out (`--json` has them)
        for p, found in out.items():
            seen: set[str] = set()
            for name in [*found["catalogue"], *(o for o in [*found["overrides"], *found.get("user", [])] if "*" not in o and "?" not in o)]:
                if name not in seen:
                    seen.add(name)
                    typer.echo(f"{p}\t{name}")
        return
    import shutil
    import textwrap

    width = max(40, shutil.get_terminal_size().columns)
    for p, found in out.items():
        typer.echo(f"{p}: {len(found['catalogue'])} catalogue models, {len(found['overrides'])} override patterns")
        for label, names in (("user", found.get("user", [])), ("overrides", found["overrides"]), ("catalogue", found["catalogue"])):
            if names:
                typer.echo(textwrap.fill(", ".join(names), width=width, initial_indent=f"  {label}: ", subsequent_indent="    ", break_on_hyphens=False, break_long_words=False))


def register(app: typer.Typer) -> None:
    """Add the ``models`` command to ``app``."""
    app.command("models")(models)
