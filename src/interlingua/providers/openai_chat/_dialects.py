"""The OpenAI-compatible dialects' rules, as the host registry holds them.

Reading accepts every dialect's fields whatever the dialect (``reasoning``, ``reasoning_content``,
``reasoning_details``, Mistral thinking chunks); the rules decide what is *written*: where reasoning
goes back (or that it cannot), the output budget field, the effort field, whether ``top_k`` is taken,
which ``tool_choice`` modes exist, and the ``finish_reason`` values outside OpenAI's enum that a host
returns. One entry per host, with its public source, in :data:`interlingua.hosts.HOSTS`.
"""

from __future__ import annotations

from ...hosts import HOSTS, Host

__all__ = ["DIALECT_RULES", "DialectRules"]

DialectRules = Host
"""What one OpenAI-compatible host's Chat Completions takes and returns (:class:`interlingua.hosts.Host`)."""

DIALECT_RULES: dict[str, Host] = HOSTS
"""Every dialect's rules, by name (the host registry itself)."""
