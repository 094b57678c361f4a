"""The error raised when a part of the testing kit misses its optional dependency."""

from __future__ import annotations

__all__ = ["EXTRA_HINT", "missing_extra"]

EXTRA_HINT = "pip install 'interlingua[testing]'"


def missing_extra(module: str, needed_by: str, cause: ModuleNotFoundError | None = None) -> ModuleNotFoundError:
    """A :class:`ModuleNotFoundError` naming the ``testing`` extra that brings ``module``.

    Re-raises ``cause`` unchanged when it is about another module (a broken install of
    something else must not be reported as a missing extra).
    """
    if cause is not None and cause.name is not None and cause.name.split(".")[0] != module:
        return cause
    return ModuleNotFoundError(f"{needed_by} needs {module}, which is not installed: {EXTRA_HINT}", name=module)
