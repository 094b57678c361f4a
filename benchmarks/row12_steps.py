#!/usr/bin/env python
"""Instruction counts of row (12)'s steps, each alone: ``convert_request`` (OpenAI Chat -> Anthropic),
its mapper pair, the record-free decode, the Anthropic encode of the fitted transcripts, ``fit``, the
limits check, ``kind_of``, ``keep_company``, model resolution, and LiteLLM's ``transform_request``.

Run under ``valgrind --tool=callgrind --instr-atstart=no`` on the input of ``callgrind_rows.py prepare``;
the step runs once uninstrumented (warm-up), then once with instrumentation switched on around it only
(the helper of ``growth_callgrind.py``); the ``totals:`` line of the output is the step's count::

    python benchmarks/callgrind_rows.py prepare /tmp/cg --conversations 100
    valgrind --tool=callgrind --instr-atstart=no --callgrind-out-file=call.out \\
        python benchmarks/row12_steps.py call /tmp/cg
"""

from __future__ import annotations

import copy
import gc
import json
import os
import sys
from pathlib import Path
from typing import Any, Callable

sys.path.insert(0, str(Path(__file__).resolve().parent))
from growth_callgrind import _helper  # noqa: E402

MODEL = "claude-sonnet-4-5"
STEPS = ("call", "pair", "decode", "encode", "fit", "limits", "kind_of", "company", "resolve", "litellm")


def steps(src: Path) -> dict[str, tuple[Callable[[], Any], Callable[[], Any]]]:
    """``step -> (prepare, run)`` on the prepared OpenAI Chat bodies."""
    import interlingua
    from interlingua.capabilities import fit, resolve
    from interlingua.conversion import check_limits, keep_company
    from interlingua.mapping import get_mapper
    from interlingua.mapping.report import Report
    from interlingua.mapping.spelling import spelling_unused

    chat = json.loads((src / "chat_bodies.json").read_text())
    an, oc = get_mapper("anthropic"), get_mapper("openai-chat")
    with spelling_unused():
        ts = [oc.decode_request(b).value for b in chat]
    caps = resolve("anthropic", MODEL, mapper=an).capabilities
    fitted = [fit(t, caps, model=MODEL, provider="anthropic", policy="drop").transcript for t in ts]

    def decode() -> Any:
        with spelling_unused():
            return [oc.decode_request(b).value for b in chat]

    def limits(t: Any) -> int:
        check_limits(t.items, measure_strings=False)
        return len(t.items)

    nothing: Callable[[], Any] = lambda: None  # noqa: E731
    out: dict[str, tuple[Callable[[], Any], Callable[[], Any]]] = {
        "call": (nothing, lambda: [interlingua.convert_request(b, source="openai-chat", target="anthropic", model=MODEL, policy="drop").value for b in chat]),
        "pair": (nothing, lambda: [an.encode_request(oc.decode_request(b).value, model=MODEL, policy="drop").value for b in chat]),
        "decode": (nothing, decode),
        "encode": (nothing, lambda: [an.encode_request(t, model=MODEL, policy="drop").value for t in fitted]),
        "fit": (nothing, lambda: [fit(t, caps, model=MODEL, provider="anthropic", policy="drop") for t in ts]),
        "limits": (nothing, lambda: [limits(t) for t in ts]),
        "kind_of": (nothing, lambda: [oc.kind_of(b) for b in chat]),
        "company": (nothing, lambda: [keep_company(t, Report()) for t in ts]),
        "resolve": (nothing, lambda: [resolve("anthropic", MODEL, mapper=an) for _ in chat]),
    }
    try:
        os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")
        import litellm  # type: ignore[import-not-found,unused-ignore]
    except ImportError:
        return out
    cfg = litellm.AnthropicConfig()
    copies: list[Any] = []

    def fresh() -> None:  # LiteLLM changes the messages it is given
        copies[:] = [copy.deepcopy(b["messages"]) for b in chat]

    out["litellm"] = (fresh, lambda: [cfg.transform_request(model=MODEL, messages=m, optional_params={"max_tokens": 64000}, litellm_params={}, headers={}) for m in copies])
    return out


def main() -> int:
    if len(sys.argv) != 3 or sys.argv[1] not in STEPS:
        raise SystemExit(f"usage: row12_steps.py STEP INPUT_DIR (steps: {', '.join(STEPS)})")
    prep, run = steps(Path(sys.argv[2]))[sys.argv[1]]
    helper = _helper()
    prep()
    run()
    prep()
    gc.collect()
    helper.il_start()
    kept = run()
    helper.il_stop()
    del kept
    return 0


if __name__ == "__main__":
    sys.exit(main())
