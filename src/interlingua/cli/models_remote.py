"""``interlingua models --remote``: the models a provider's own list endpoint offers.

Kept apart from the ``models`` command's registration so the command can grow other modes (the
model catalogue) without touching this one. The key comes from the provider's usual environment
variable, never from the command line.
"""

from __future__ import annotations

import asyncio
import json
from typing import Any

import typer

from ..errors import TransportError

__all__ = ["remote_models"]


def _row(info: Any) -> dict[str, Any]:
    return {
        "provider": info.provider,
        "id": info.id,
        "display_name": info.display_name,
        "created": info.created,
        "owned_by": info.owned_by,
        "context_window": info.context_window,
        "max_output_tokens": info.max_output_tokens,
        "input_modalities": list(info.input_modalities) if info.input_modalities is not None else None,
        "in_catalogue": info.capabilities is not None,
    }


def remote_models(provider: str, base_url: str | None, as_json: bool) -> int:
    """List ``provider``'s models on stdout; the exit code (0 listed, 1 the call failed, 2 usage error).

    Text: one model a line, ``ID  CONTEXT  MAX_OUTPUT  NAME`` (``-`` where unknown; ``*`` after the id
    when the model catalogue knows the model). ``--json``: an array of objects with the fields of
    :class:`~interlingua.transport.ModelInfo` (``raw`` and ``capabilities`` left out; ``in_catalogue``).
    """
    from ..transport import Client, redact
    from ..transport._calls import url_parts

    if base_url is not None and not url_parts(base_url)[0]:  # the rule of check_config and replay --base-url
        typer.echo(f"error: --base-url {redact(base_url, (), kind='url')!r} is not an http(s) URL with a host and a port from 1 to 65535 if any (e.g. http://127.0.0.1:8000/v1)", err=True)
        return 2
    try:
        client = Client(provider, base_url=base_url)
    except TransportError as exc:
        code = 2 if exc.code == "invalid_request" else 1
        typer.echo(f"error: {exc}", err=True)
        return code
    except ValueError as exc:
        typer.echo(f"error: {exc}", err=True)
        return 2

    async def run() -> list[Any]:
        async with client:
            return await client.list_models()

    try:
        models = asyncio.run(run())
    except TransportError as exc:
        typer.echo(f"error: {exc}", err=True)
        return 1
    if as_json:
        typer.echo(json.dumps([_row(m) for m in models], indent=2, ensure_ascii=False))
        return 0
    rows = [(m.id + ("*" if m.capabilities is not None else ""), str(m.context_window or "-"), str(m.max_output_tokens or "-"), m.display_name or "") for m in models]
    header = ("ID", "CONTEXT", "MAX_OUTPUT", "NAME")
    widths = [max(len(r[i]) for r in [header, *rows]) for i in range(3)]
    for r in [header, *rows]:
        typer.echo("  ".join(r[i].ljust(widths[i]) for i in range(3)) + "  " + r[3])
    typer.echo(f"{len(models)} model(s) from {provider}; * = known to the model catalogue", err=True)
    return 0
