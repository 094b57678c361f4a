"""``schema_version`` checks: the same major with an equal or newer minor is read."""

from __future__ import annotations

import functools
import re

from ..errors import Problem, VersionError
from ._model import MAJOR, SCHEMA_VERSION


# --------------------------------------------------------------------------- versions


_VERSION_RE = re.compile(r"^([0-9]+)\.([0-9]+)$")


def check_version(version: object, *, pointer: str = "/schema_version") -> tuple[int, int]:
    """Check a ``schema_version`` value against this reader.

    Args:
        version: The value read from a document or envelope.
        pointer: JSON pointer used in the error.

    Returns:
        ``(major, minor)``.

    Raises:
        VersionError: missing or malformed, or a newer major than :data:`SCHEMA_VERSION`,
            or an older major (read those through :mod:`interlingua.compat`).
    """
    if isinstance(version, str):
        return _check_version_str(version, pointer)
    raise VersionError(Problem(pointer, f"schema_version must be a 'MAJOR.MINOR' string, got {version!r}"))


@functools.lru_cache(maxsize=64)
def _check_version_str(version: str, pointer: str) -> tuple[int, int]:
    # Cached: stores and streams check the same few version strings on every row.
    if not (m := _VERSION_RE.match(version)):
        raise VersionError(Problem(pointer, f"schema_version must be a 'MAJOR.MINOR' string, got {version!r}"))
    major, minor = int(m.group(1)), int(m.group(2))
    if major > MAJOR:
        raise VersionError(
            Problem(pointer, f"schema_version {version} is newer than this reader ({SCHEMA_VERSION}); upgrade interlingua to read it")
        )
    if major < MAJOR:
        from ..compat._upcast import registered  # only on this error: compat is not loaded to read current files

        if version in registered():
            advice = "read it through interlingua.compat (`interlingua migrate`)"
        else:  # `migrate` would refuse it too: say what is missing instead of sending the reader there
            advice = "no upcaster for it is registered (interlingua.compat.upcaster), so neither this reader nor `interlingua migrate` reads it"
        raise VersionError(Problem(pointer, f"schema_version {version} is older than this reader ({SCHEMA_VERSION}); {advice}"))
    return major, minor


