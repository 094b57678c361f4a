"""Issuer matching for opaque reasoning state and raw items.

Opaque state (``reasoning.opaque``) and ``raw`` items go back only to the issuer
that produced them; a mapper asks :func:`replayable` and reports what it leaves out.
"""

from __future__ import annotations

import msgspec

from ..items import OpaqueReasoning

__all__ = ["replayable"]


def replayable(opaque: OpaqueReasoning, issuer: str, model: str | None, *, model_bound: bool) -> tuple[bool, str | None]:
    """Whether ``opaque`` may be sent to ``issuer``/``model``.

    Args:
        opaque: The state.
        issuer: The target's issuer string.
        model: The target model, if known.
        model_bound: Whether the target binds this state to the model that made it.

    Returns:
        ``(True, None)``, or ``(False, reason)`` for the report.
    """
    if opaque.issuer != issuer:
        return False, f"opaque {opaque.namespace} was issued by {opaque.issuer}, not {issuer}"
    if model_bound and model and opaque.model is not msgspec.UNSET and opaque.model and opaque.model != model:
        return False, f"opaque {opaque.namespace} was issued by model {opaque.model}, not {model}"
    return True, None
