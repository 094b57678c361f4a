"""A model whose catalogue deprecation date (or override retirement date) is before today gets a
warning in convert and replay preflight; the date is the catalogue's, today is injected."""

from __future__ import annotations

import datetime
import json
from pathlib import Path
import pytest
from typer.testing import CliRunner

import interlingua.capabilities._resolve as resolve_mod
from interlingua import convert_request
from interlingua.capabilities import deprecation_warning
from interlingua.cli import app
from interlingua.models import lookup

runner = CliRunner()
BODY = {"model": "gpt-3.5-turbo", "messages": [{"role": "user", "content": "hi"}]}


def test_dates_come_from_the_catalogue() -> None:
    date = lookup("openai-chat", "gpt-3.5-turbo").deprecation_date
    assert date == "2026-10-23"
    day = datetime.date.fromisoformat(date)
    assert deprecation_warning("openai-chat", "gpt-3.5-turbo", on=day) is None  # on the day: not yet past
    text = deprecation_warning("openai-chat", "gpt-3.5-turbo", on=day + datetime.timedelta(days=1))
    assert text is not None and "past its deprecation date 2026-10-23" in text and "openai/gpt-3.5-turbo" in text
    assert deprecation_warning("openai-chat", "gpt-3.5-turbo", on=day - datetime.timedelta(days=30)) is None


def test_models_without_a_date_or_unknown_never_warn() -> None:
    far = datetime.date(2100, 1, 1)
    assert lookup("openai-chat", "gpt-4.1").deprecation_date is None or deprecation_warning("openai-chat", "gpt-4.1", on=far) is not None
    assert deprecation_warning("openai-chat", "no-such-model-q", on=far) is None
    assert deprecation_warning("openai-chat", None, on=far) is None


@pytest.mark.parametrize(("today", "warns"), [(datetime.date(2026, 10, 1), False), (datetime.date(2026, 12, 2), True)])
def test_convert_warns_by_the_injected_date(today: datetime.date, warns: bool, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(resolve_mod, "today", lambda: today)
    out = convert_request(BODY, source="openai-chat", target="openai-chat")
    past = [e for e in out.report if "past its deprecation date" in e.reason]
    assert bool(past) is warns
    result = runner.invoke(app, ["convert", "-", "--from", "openai-chat", "--to", "openai-chat"], input=json.dumps(BODY))
    assert result.exit_code == 0
    assert ("past its deprecation date 2026-10-23" in result.stderr) is warns


def test_replay_preflight_warns(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from tests.transport._server import Reply, ScriptedServer

    monkeypatch.setattr(resolve_mod, "today", lambda: datetime.date(2026, 12, 2))
    monkeypatch.setenv("OPENAI_API_KEY", "k")
    raw = (Path(__file__).parent.parent / "fixtures/real/openai_chat/openai_python.completion_text.response.json").read_bytes()
    doc = tmp_path / "t.json"
    doc.write_text(json.dumps({"schema_version": "1.0", "items": [{"type": "text", "role": "user", "text": "hi"}]}))
    with ScriptedServer([Reply(200, headers={"content-type": "application/json"}, chunks=[raw])]) as srv:
        result = runner.invoke(app, ["replay", str(doc), "--provider", "openai-chat", "--model", "gpt-3.5-turbo", "--base-url", srv.url, "--no-stream"])
    assert result.exit_code == 0, result.output
    assert "warning: changed: /model: model 'gpt-3.5-turbo' is past its deprecation date 2026-10-23" in result.stderr
