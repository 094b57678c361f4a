"""How the recorded span fixtures here were made (run by hand, not by the tests).

Tracing libraries keep the spans they export in their test suites as inline snapshots
(Python literals). This script reads one test file from a git mirror of the library, finds
every snapshot dict holding a ``gen_ai.input.messages`` or ``gen_ai.output.messages`` list,
and writes that span's ``gen_ai.*`` attributes (the literal ones only; values such as
``IsStr()`` are left out) with their source to ``<prefix>.<test>.<n>.json``.

    python extract_spans.py GIT_DIR COMMIT PATH PREFIX [TEST ...]
"""

from __future__ import annotations

import ast
import json
import subprocess
import sys
from pathlib import Path

HERE = Path(__file__).parent


def _spans(tree: ast.AST):
    for fn in ast.walk(tree):
        if not isinstance(fn, ast.FunctionDef | ast.AsyncFunctionDef) or not fn.name.startswith("test_"):
            continue
        n = 0
        for node in ast.walk(fn):
            if not isinstance(node, ast.Dict):
                continue
            keys = [k.value if isinstance(k, ast.Constant) else None for k in node.keys]
            if not any(k in ("gen_ai.input.messages", "gen_ai.output.messages") for k in keys):
                continue
            attrs = {}
            for k, v in zip(keys, node.values):
                if not isinstance(k, str) or not k.startswith("gen_ai."):
                    continue
                try:
                    attrs[k] = ast.literal_eval(v)
                except ValueError:
                    continue
            msgs = attrs.get("gen_ai.input.messages", attrs.get("gen_ai.output.messages"))
            if not isinstance(msgs, list) or not msgs:  # the logfire.json_schema entries are dicts
                continue
            yield fn.name, n, attrs, node.lineno
            n += 1


def main() -> None:
    git_dir, commit, path, prefix, *tests = sys.argv[1:]
    repo = Path(git_dir).parent.name.replace("+", "/")
    text = subprocess.run(["git", "--git-dir", git_dir, "show", f"{commit}:{path}"], capture_output=True, text=True, check=True).stdout
    for name, n, attrs, line in _spans(ast.parse(text)):
        if tests and name not in tests:
            continue
        out = {"source": {"repo": repo, "commit": commit, "path": path, "line": line, "test": name}, "attributes": attrs}
        (HERE / f"{prefix}.{name}.{n}.json").write_text(json.dumps(out, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
        print(f"{prefix}.{name}.{n}.json")


if __name__ == "__main__":
    main()
