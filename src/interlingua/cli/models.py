"""``interlingua models``: list models.

Usage::

    interlingua models --remote --provider NAME [--base-url URL] [--json]

``--remote`` asks the provider's own list endpoint (``GET /v1/models``, Gemini ``models.list``, Ollama
``/api/tags``, Bedrock ``ListFoundationModels``, ...) with the key from the provider's usual environment
variable; each model is merged with what the model catalogue knows of it.

Exit codes: 0 listed; 1 the call failed (``error: CODE: message``); 2 usage error.
"""

from __future__ import annotations

from typing import Annotated

import typer

__all__ = ["register"]


def models(
    remote: Annotated[bool, typer.Option("--remote", help="Ask the provider's own list endpoint (needs its key, or none for local servers).")] = False,
    provider: Annotated[str, typer.Option("--provider", metavar="NAME", help="Provider to ask (openai-chat, anthropic, gemini, ollama, ...).", show_default=False)] = "",
    base_url: Annotated[str | None, typer.Option("--base-url", help="API root (OpenAI-compatible server, proxy, local Ollama).", show_default=False)] = None,
    as_json: Annotated[bool, typer.Option("--json", help="Print a JSON array instead of a table.")] = False,
) -> None:
    """List models (--remote: from the provider's own list endpoint)."""
    if not remote:
        typer.echo("error: give --remote --provider NAME to list the models a provider offers", err=True)
        raise typer.Exit(2)
    if not provider:
        typer.echo("error: --remote needs --provider NAME", err=True)
        raise typer.Exit(2)
    from .models_remote import remote_models

    raise typer.Exit(remote_models(provider, base_url, as_json))


def register(app: typer.Typer) -> None:
    """Add the ``models`` command to ``app``."""
    app.command("models")(models)
