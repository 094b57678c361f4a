"""Testing kit for interlingua users and mapper authors.

* :mod:`interlingua.testing.strategies`: hypothesis strategies for items and transcripts;
* :mod:`interlingua.testing.conformance`: the reusable mapper conformance suite;
* :mod:`interlingua.testing.assertions`: :func:`assert_valid_transcript`;
* :mod:`interlingua.testing.snapshot`: the syrupy ``TranscriptSnapshotExtension``;
* :mod:`interlingua.testing.pytest_plugin`: fixtures, registered through the ``pytest11`` entry point.

Submodules are imported on use: ``strategies`` and ``conformance`` need hypothesis/pytest,
``snapshot`` needs syrupy (all in the ``testing`` extra: ``pip install 'interlingua[testing]'``; a missing one is an
error naming it).
"""

from .assertions import TranscriptAssertionError, assert_valid_transcript

__all__ = ["TranscriptAssertionError", "assert_valid_transcript"]
