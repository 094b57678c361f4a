"""Refresh ``src/interlingua/data/catalogue.json``, the pinned snapshot of the model catalogue.

The catalogue is the JSON file that the ``litellm`` wheel carries
(``litellm/model_prices_and_context_window_backup.json``, MIT licence; see ADR 0030 for why this one).
The tool reads it out of the *wheel* of the pinned release (``pip download --no-deps``: nothing is
installed, so litellm's dependencies never enter the test environment), checks the file's SHA-256
against the pin, keeps only the providers interlingua maps and only the fields it derives
capabilities and prices from, and writes the snapshot with sorted keys (a refresh of the same pin is
byte-identical).

Usage::

    python tools/refresh_models.py                    # rewrite the snapshot, print what changed
    python tools/refresh_models.py --check            # exit 1 when the committed snapshot differs
    python tools/refresh_models.py --json FILE        # use a local copy of the JSON (offline)

To move to a newer catalogue: set ``PIN`` below to the new release (its version, the SHA-256 of its
JSON file as printed by a run with the new version and ``--accept-sha``, and today's date), run the
tool, read the printed changes, run the capability tests.

Exit codes: 0 written / up to date, 1 ``--check`` found a difference, 2 the wheel or file could not
be fetched or does not match the pin.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import subprocess
import sys
import tempfile
import zipfile
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
OUT = ROOT / "src" / "interlingua" / "data" / "catalogue.json"
sys.path.insert(0, str(ROOT / "src"))

PIN = {
    "package": "litellm",
    "version": "1.110.2",
    "file": "litellm/model_prices_and_context_window_backup.json",
    "sha256": "8943af58bf9f979c6a4bef815687117ffa341e462a41faed9be17b5c33d3dcc2",
    "date": "2026-12-01",
    "license": "MIT",
    "homepage": "https://github.com/BerriAI/litellm",
}
"""The pinned source: package release, the file inside its wheel, that file's SHA-256, the date the pin
was taken (shown by ``interlingua models --source``)."""

MODES = frozenset({"chat", "responses"})
"""Catalogue ``mode`` values of conversational models (embedding, image, audio models are left out)."""

FIELDS = (
    "max_input_tokens",
    "max_tokens",
    "max_output_tokens",
    "supports_function_calling",
    "supports_parallel_function_calling",
    "supports_tool_choice",
    "supports_vision",
    "supports_pdf_input",
    "supports_audio_input",
    "supports_video_input",
    "supports_audio_output",
    "supported_modalities",
    "supported_output_modalities",
    "supports_reasoning",
    "reasoning_effort_levels",
    "supports_none_reasoning_effort",
    "supports_minimal_reasoning_effort",
    "supports_xhigh_reasoning_effort",
    "supports_max_reasoning_effort",
    "supports_adaptive_thinking",
    "supports_output_config",
    "thinking_always_on",
    "supports_response_schema",
    "supports_native_structured_output",
    "supports_prompt_caching",
    "supports_assistant_prefill",
    "input_cost_per_token",
    "output_cost_per_token",
    "cache_read_input_token_cost",
    "cache_creation_input_token_cost",
    "output_cost_per_reasoning_token",
    "deprecation_date",
    "mode",
)
"""The catalogue fields interlingua derives from (``interlingua.models`` documents each); the rest is dropped."""


def _catalogue_providers() -> dict[str, tuple[str, ...]]:
    """Wire format -> its catalogue providers, and the gateways' catalogue providers (``gateways``)."""
    from interlingua.models._sources import CATALOGUE_PROVIDERS, GATEWAY_CATALOGUES

    return {**CATALOGUE_PROVIDERS, "gateways": GATEWAY_CATALOGUES}


def _strip_prefix(key: str, provider: str) -> str:
    """``gemini/gemini-2.5-flash`` -> ``gemini-2.5-flash`` (the catalogue's own provider prefix)."""
    head, sep, tail = key.partition("/")
    if sep and head.replace("-", "_") == provider.replace("-", "_"):
        return tail
    return key


def derive(raw: dict[str, Any]) -> dict[str, Any]:
    """The snapshot document for the catalogue ``raw``."""
    wanted = {src for sources in _catalogue_providers().values() for src in sources}
    providers: dict[str, dict[str, dict[str, Any]]] = {}
    for key, row in raw.items():
        if not isinstance(row, dict) or row.get("mode") not in MODES:
            continue
        provider = row.get("litellm_provider")
        if provider not in wanted:
            continue
        kept = {f: row[f] for f in FIELDS if f in row and row[f] is not None}
        name = _strip_prefix(key, provider).lower()
        models = providers.setdefault(provider, {})
        # An unprefixed key and its prefixed twin (deepseek-chat, deepseek/deepseek-chat): the unprefixed one wins.
        if name in models and key.lower() != name:
            continue
        models[name] = kept
    return {
        "schema_version": "1.0",
        "source": dict(PIN),
        "providers": {p: dict(sorted(m.items())) for p, m in sorted(providers.items())},
    }


def render(doc: dict[str, Any]) -> str:
    """One model a line: small diffs, a compact file."""
    lines = ["{", f' "schema_version": {json.dumps(doc["schema_version"])},', f' "source": {json.dumps(doc["source"], sort_keys=True)},', ' "providers": {']
    plist = list(doc["providers"].items())
    for pi, (provider, models) in enumerate(plist):
        lines.append(f"  {json.dumps(provider)}: {{")
        mlist = list(models.items())
        for mi, (name, row) in enumerate(mlist):
            comma = "," if mi < len(mlist) - 1 else ""
            lines.append(f"   {json.dumps(name)}: {json.dumps(row, sort_keys=True, separators=(',', ':'))}{comma}")
        lines.append("  }" + ("," if pi < len(plist) - 1 else ""))
    lines += [" }", "}", ""]
    return "\n".join(lines)


def _fetch(cache: Path) -> bytes:
    """The pinned JSON file out of the pinned wheel (downloaded into ``cache`` once)."""
    wheels = sorted(cache.glob(f"{PIN['package']}-{PIN['version']}-*.whl"))
    if not wheels:
        cmd = [sys.executable, "-m", "pip", "download", "--quiet", "--no-deps", "--only-binary=:all:", f"{PIN['package']}=={PIN['version']}", "-d", str(cache)]
        done = subprocess.run(cmd, capture_output=True, text=True, check=False)
        if done.returncode != 0:
            raise SystemExit(f"error: could not download {PIN['package']}=={PIN['version']}: {done.stderr.strip() or done.stdout.strip()}")
        wheels = sorted(cache.glob(f"{PIN['package']}-{PIN['version']}-*.whl"))
    if not wheels:
        raise SystemExit(f"error: pip downloaded no wheel of {PIN['package']}=={PIN['version']} into {cache}")
    with zipfile.ZipFile(wheels[0]) as zf:
        try:
            return zf.read(PIN["file"])
        except KeyError:
            raise SystemExit(f"error: {wheels[0].name} holds no {PIN['file']}") from None


def _names(names: list[str], limit: int = 25) -> str:
    shown = ", ".join(names[:limit])
    return shown if len(names) <= limit else f"{shown} and {len(names) - limit} more"


def _changes(old: dict[str, Any] | None, new: dict[str, Any]) -> list[str]:
    if old is None:
        return [f"new snapshot: {sum(len(m) for m in new['providers'].values())} models"]
    out: list[str] = []
    if old.get("source") != new["source"]:
        out.append(f"source: {old.get('source', {}).get('version')} -> {new['source']['version']}")
    for provider in sorted(set(old.get("providers", {})) | set(new["providers"])):
        a, b = old.get("providers", {}).get(provider, {}), new["providers"].get(provider, {})
        added, removed = sorted(set(b) - set(a)), sorted(set(a) - set(b))
        if added:
            out.append(f"{provider}: {len(added)} added: {_names(added)}")
        if removed:
            out.append(f"{provider}: {len(removed)} removed: {_names(removed)}")
        for name in sorted(set(a) & set(b)):
            if a[name] != b[name]:
                keys = sorted(k for k in set(a[name]) | set(b[name]) if a[name].get(k) != b[name].get(k))
                diffs = ", ".join(f"{k} {a[name].get(k)!r} -> {b[name].get(k)!r}" for k in keys)
                out.append(f"{provider}/{name}: {diffs}")
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true", help="fail when the committed snapshot differs from the pinned catalogue's")
    parser.add_argument("--json", type=Path, help="read the catalogue JSON from this file instead of the pinned wheel")
    parser.add_argument("--cache", type=Path, default=None, help="where the wheel is downloaded (default: a temporary folder)")
    parser.add_argument("--accept-sha", action="store_true", help="print the file's SHA-256 instead of refusing a mismatch (when bumping PIN)")
    args = parser.parse_args(argv)
    if args.json is not None:
        data = args.json.read_bytes()
    else:
        cache = args.cache or Path(os.environ.get("INTERLINGUA_REFRESH_CACHE", "") or tempfile.mkdtemp(prefix="refresh_models-"))
        cache.mkdir(parents=True, exist_ok=True)
        data = _fetch(cache)
    digest = hashlib.sha256(data).hexdigest()
    if digest != PIN["sha256"]:
        if not args.accept_sha:
            print(f"error: {PIN['file']} of {PIN['package']}=={PIN['version']} has SHA-256 {digest}, the pin says {PIN['sha256']}", file=sys.stderr)
            return 2
        print(f"sha256 of {PIN['file']}: {digest}")
    doc = derive(json.loads(data))
    text = render(doc)
    old = json.loads(OUT.read_text(encoding="utf-8")) if OUT.exists() else None
    changes = _changes(old, doc)
    current = OUT.read_text(encoding="utf-8") if OUT.exists() else ""
    if args.check:
        if current != text:
            print(f"{OUT.relative_to(ROOT)} differs from the snapshot of {PIN['package']}=={PIN['version']}; run python tools/refresh_models.py", file=sys.stderr)
            for line in changes[:50]:
                print(f"  {line}", file=sys.stderr)
            return 1
        print(f"{OUT.relative_to(ROOT)} is the snapshot of {PIN['package']}=={PIN['version']}")
        return 0
    OUT.write_text(text, encoding="utf-8")
    for line in changes:
        print(line)
    print(f"wrote {OUT.relative_to(ROOT)} ({len(text.encode()):,} bytes, {sum(len(m) for m in doc['providers'].values())} models)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
