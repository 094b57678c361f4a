"""docs/format.md: the Python shown next to each JSON example builds exactly that example."""

from __future__ import annotations

import importlib.util
import json
import re
from pathlib import Path

import pytest

from interlingua.codec import encode_item

ROOT = Path(__file__).resolve().parents[2]
EXAMPLES = [line for line in (ROOT / "tests" / "fixtures" / "canonical" / "valid_items.jsonl").read_text().splitlines() if line.strip()]


def _generator():  # type: ignore[no-untyped-def]
    spec = importlib.util.spec_from_file_location("gen_format_doc", ROOT / "tools" / "gen_format_doc.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.mark.parametrize("example", EXAMPLES, ids=[json.loads(e)["type"] + str(i) for i, e in enumerate(EXAMPLES)])
def test_the_python_construction_encodes_to_the_example(example: str) -> None:
    code = _generator().python_construction(example)
    namespace: dict[str, object] = {}
    exec(code, namespace)  # the page's own code, run as a reader would run it
    assert encode_item(namespace["item"]) == example.encode()


def test_the_page_shows_python_next_to_every_json_example() -> None:
    page = (ROOT / "docs" / "format.md").read_text()
    blocks = re.findall(r"```json\n(.*?)\n```\n\n```python\n(.*?)\n```", page, flags=re.S)
    assert sorted(j for j, _ in blocks) == sorted(EXAMPLES)
    assert _generator().render() == page  # the committed page is the generator's output (as `--check` says)
