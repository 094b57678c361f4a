"""One registry of hosts (issue 28): each OpenAI-compatible host is one entry of ``interlingua.hosts.HOSTS``,
and everything else (mapper dialects, base URLs and key variables, CLI help, capability defaults, docs) is
derived from it. The last test proves nothing else lists hosts."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from typer.testing import CliRunner

from interlingua.cli import app
from interlingua.hosts import HOSTS, Host, host_names
from interlingua.mapping import get_mapper
from interlingua.models import lookup
from interlingua.providers.openai_chat import DIALECTS
from interlingua.transport import provider_spec

ROOT = Path(__file__).resolve().parents[3]


@pytest.mark.parametrize("name", host_names())
def test_every_host_is_a_dialect_a_transport_and_a_capability_default(name: str) -> None:
    host = HOSTS[name]
    assert name in DIALECTS
    mapper = get_mapper(f"openai-chat:{name}")
    assert mapper.dialect == name
    spec = provider_spec(f"openai-chat:{name}")
    assert spec is not None and spec.default_base_url == host.base_url and spec.env_vars == host.env_vars
    assert spec.requires_key == bool(host.env_vars) and (host.local == (not host.env_vars))
    caps = mapper.capabilities(None)
    for field, value in host.capabilities.items():
        assert getattr(caps, field) == value, (name, field)
    # a model nothing describes on the host: the host's wire rules, nothing model-level borrowed
    assert not lookup(f"openai-chat:{name}", "no-such-model-x1").known
    assert host.source and "." in host.source


def test_adding_a_host_is_one_entry(monkeypatch: pytest.MonkeyPatch) -> None:
    """A new entry is a dialect, a transport spec with its base URL and key, a capability default and CLI help."""
    new = Host(
        "examplehost", "reasoning_content", base_url="https://api.example.test/v1", env_vars=("EXAMPLE_API_KEY",),
        capabilities={"prompt_caching": False}, source="example.test/docs (test entry)",
    )
    monkeypatch.setitem(HOSTS, "examplehost", new)
    import interlingua.providers.openai_chat._common as common
    import interlingua.providers.openai_chat._mapper as mapper_module

    monkeypatch.setattr(common, "DIALECTS", tuple(HOSTS))
    monkeypatch.setattr(mapper_module, "DIALECTS", tuple(HOSTS))
    spec = provider_spec("openai-chat:examplehost")
    assert spec is not None and spec.default_base_url == "https://api.example.test/v1" and spec.env_vars == ("EXAMPLE_API_KEY",)
    mapper = mapper_module.OpenAIChatMapper(dialect="examplehost")
    assert mapper.capabilities(None).prompt_caching is False
    assert "examplehost" in host_names()


def test_cli_help_lists_the_registry() -> None:
    r = CliRunner().invoke(app, ["convert", "--help"], env={"COLUMNS": "400"})
    assert r.exit_code == 0
    assert ", ".join(host_names()) in " ".join(r.stdout.split())


# Where host names may appear together: the registry itself, and files generated from it.
_ALLOWED = {
    "src/interlingua/hosts.py",
    # which hosts pydantic-ai's recordings come from (a fact about the data), not what interlingua supports
    "tools/gen_corpus_doc.py",
    "docs/corpus.md",
}
_GENERATED = {
    "docs/capabilities.md": ("<!-- catalogue:begin -->", "<!-- catalogue:end -->"),
    "docs/providers/openai_chat.md": ("<!-- hosts:begin -->", "<!-- hosts:end -->"),
}
_HOST_WORDS = [n for n in host_names() if n not in ("ollama", "openrouter", "deepseek")]  # also names of formats or models


def _without_generated(rel: str, text: str) -> str:
    if rel in _GENERATED:
        begin, end = _GENERATED[rel]
        head, rest = text.split(begin, 1)
        return head + rest.split(end, 1)[1]
    return text


def test_nothing_else_lists_hosts() -> None:
    """No source file, tool or doc outside the registry names three or more hosts in one paragraph (a list of hosts)."""
    files = [*ROOT.joinpath("src").rglob("*.py"), *ROOT.joinpath("tools").rglob("*.py"), *ROOT.joinpath("docs").rglob("*.md"), ROOT / "README.md"]
    found: dict[str, list[str]] = {}
    for path in files:
        rel = str(path.relative_to(ROOT))
        if rel in _ALLOWED:
            continue
        text = _without_generated(rel, path.read_text(encoding="utf-8"))
        for para in re.split(r"\n\s*\n", text):
            names = sorted({w for w in _HOST_WORDS if re.search(rf"(?<![\w-]){re.escape(w)}(?![\w-])", para, re.IGNORECASE)})
            if len(names) >= 3:
                found.setdefault(rel, []).append(", ".join(names))
    assert found == {}, "host lists outside interlingua.hosts:\n" + "\n".join(f"  {f}: {v}" for f, v in found.items())
