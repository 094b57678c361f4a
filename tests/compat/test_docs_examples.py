"""The worked examples in docs/migrating.md are what the readers produce."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from interlingua.codec import to_builtins
from interlingua.compat import read_any

DOC = Path(__file__).resolve().parents[2] / "docs" / "migrating.md"


def _pairs() -> list[tuple[str, object, list[dict]]]:
    text = DOC.read_text(encoding="utf-8")
    pairs = []
    for section in re.split(r"^### ", text, flags=re.M)[1:]:
        blocks = re.findall(r"```json\n(.*?)```", section, flags=re.S)
        if len(blocks) == 2:
            title = section.splitlines()[0]
            pairs.append((title, json.loads(blocks[0]), [json.loads(line) for line in blocks[1].splitlines() if line.strip()]))
    return pairs


PAIRS = _pairs()


def test_every_format_has_a_worked_example() -> None:
    assert len(PAIRS) == 7 + 6  # + the stored-conversation formats with a whole example (issue 26)


@pytest.mark.parametrize(("title", "stored", "expected"), PAIRS, ids=[p[0] for p in PAIRS])
def test_worked_example(title: str, stored: object, expected: list[dict]) -> None:
    assert to_builtins(read_any(stored).transcript)["items"] == expected
