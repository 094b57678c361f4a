"""``interlingua view`` writes the page as it reads the file: the same page as :func:`render_html`,
in memory that does not grow with the conversation (a 1M-item transcript peaked at 1.98 GB before).
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from interlingua.codec import decode_transcript
from interlingua.session_file import read_sessions
from interlingua.view import document_sections, iter_html, render_html, session_sections

ROOT = Path(__file__).resolve().parents[2]
CLI = [sys.executable, "-c", "from interlingua.cli import main; main()"]
REAL = ROOT / "tests" / "fixtures" / "real"
SOURCES = [
    ("anthropic", "pai_anthropic_parallel_tool_calls.1.request.json"),
    ("openai_chat", None),
    ("openai_responses", None),
    ("gemini", None),
]


@pytest.fixture(scope="module")
def documents(tmp_path_factory: pytest.TempPathFactory) -> list[Path]:
    """Real recorded requests of four providers as canonical transcript documents, plus the example."""
    tmp = tmp_path_factory.mktemp("docs")
    out = [ROOT / "examples" / "transcripts" / "weather.json"]
    for folder, name in SOURCES:
        candidates = [REAL / folder / name] if name else sorted((REAL / folder).glob("pai_*.request.json"))[:3]
        for src in candidates:
            dest = tmp / f"{folder}-{src.stem}.json"
            proc = subprocess.run([*CLI, "convert", "--from", folder.replace("_", "-"), "--to", "canonical", str(src), "-o", str(dest)], capture_output=True, text=True, timeout=120)
            if proc.returncode == 0:
                out.append(dest)
    assert len(out) >= 8
    return out


def test_streamed_document_pages_are_render_html(documents: list[Path]) -> None:
    for path in documents:
        doc = decode_transcript(path.read_bytes())
        streamed = document_sections(str(path))
        assert streamed is not None, path
        sections, items = streamed
        assert items == len(doc.items)
        assert "".join(iter_html(sections, title="t", items=items, conversations=1)) == render_html(doc, title="t"), path


def test_streamed_session_pages_are_render_html(documents: list[Path], tmp_path: Path) -> None:
    path = tmp_path / "all.jsonl"
    proc = subprocess.run([*CLI, "migrate", *map(str, documents), "-o", str(path), "-q"], capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr
    blocks = list(read_sessions(path.open("rb")))
    assert len(blocks) == len(documents)
    sections, items, count = session_sections(str(path))
    assert count == len(blocks)
    assert "".join(iter_html(sections, title="t", items=items, conversations=count)) == render_html(blocks, title="t")
    one = blocks[1].session_id
    sections, items, count = session_sections(str(path), session=one)
    assert count == 1
    assert "".join(iter_html(sections, title="t", items=items, conversations=count)) == render_html([blocks[1]], title="t")


@pytest.mark.parametrize("budget", [0, 3])
def test_a_file_past_the_link_id_budget_reads_each_sessions_ids_ahead(documents: list[Path], tmp_path: Path, budget: int, monkeypatch: pytest.MonkeyPatch) -> None:
    # a 1 GB file of 270,000 sessions kept every session's call and result ids from the first pass
    # (502 MB peak): past the budget a reader one session ahead gives each session's ids; the same page
    import interlingua.view as view

    path = tmp_path / "all.jsonl"
    proc = subprocess.run([*CLI, "migrate", *map(str, documents), "-o", str(path), "-q"], capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr
    blocks = list(read_sessions(path.open("rb")))
    monkeypatch.setattr(view, "LINK_IDS", budget)
    sections, items, count = session_sections(str(path))
    page = "".join(iter_html(sections, title="t", items=items, conversations=count))
    assert page == render_html(blocks, title="t") and 'href="#' in page  # the calls still link to their results
    for k in (1, len(blocks) - 1):
        sections, items, count = session_sections(str(path), session=blocks[k].session_id)
        assert "".join(iter_html(sections, title="t", items=items, conversations=count)) == render_html([blocks[k]], title="t")


def _peak_kb(args: list[str]) -> int:
    """The command's own peak RSS: ``VmHWM`` of its process (``ru_maxrss`` would report the forking
    parent's peak when that was higher: Linux keeps it across ``exec``)."""
    code = (
        "import sys; from interlingua.cli import main\n"
        "try:\n    main()\nexcept SystemExit as e:\n    assert not e.code, e.code\n"
        "print([l.split()[1] for l in open('/proc/self/status') if l.startswith('VmHWM')][0], file=sys.stderr)"
    )
    proc = subprocess.run([sys.executable, "-c", code, *args], capture_output=True, text=True, timeout=600)
    assert proc.returncode == 0, proc.stderr
    return int(proc.stderr.strip().splitlines()[-1])


def test_view_memory_does_not_grow_with_the_conversation(tmp_path: Path) -> None:
    """Peak RSS of ``view`` at 5,000 and 50,000 items: before, the page, every item as a dict and
    every rendered turn were held at once (+~100 MB per 100,000 items); now a turn at a time."""
    peaks = []
    for n in (5_000, 50_000):
        doc = tmp_path / f"t{n}.json"
        items = [{"type": "text", "role": "user" if i % 2 == 0 else "assistant", "text": f"message {i} " + "x" * 40} for i in range(n)]
        doc.write_text(json.dumps({"schema_version": "1.0", "items": items}))
        peaks.append(_peak_kb(["view", str(doc), "-o", str(tmp_path / f"v{n}.html")]))
    growth_mb = (peaks[1] - peaks[0]) / 1024
    assert growth_mb < 15, f"peak grew by {growth_mb:.1f} MB from 5,000 to 50,000 items ({peaks})"
