"""Rows (3) and (3b): validation in process (``validate_path``) and ``interlingua validate FILE`` as a
whole process, against jsonschema and jsonschema-rs on the same schemas."""

from __future__ import annotations

import json
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from harness import (
    NOT_INSTALLED,
    TARGETS,
    Context,
    Measure,
    Row,
    Target,
    _cli_command,
    _floor_orjson,
    _grow_jsonl,
    _peer,
    _time_process,
    _version,
    _x,
    alternate,
    alternate_process,
)
from interlingua.validation import load_schema, schema_names, validate_path


def _schema_registry_py() -> Any:
    from referencing import Registry, Resource

    return Registry().with_resources((load_schema(n)["$id"], Resource.from_contents(load_schema(n))) for n in schema_names())


def row_validate(ctx: Context) -> Row:
    """(3) ``interlingua validate`` end to end on a JSONL file vs JSON Schema validators."""
    ds, path = ctx.ds, ctx.jsonl_path
    nbytes = path.stat().st_size
    il = Measure("interlingua `validation.validate_path` (schema + semantic checks)", "interlingua", nbytes=nbytes, items=ds.items)
    js, jsonschema = _peer(f"jsonschema {_version('jsonschema')} Draft202012Validator", "jsonschema")
    jr, jsonschema_rs = _peer(f"jsonschema-rs {_version('jsonschema-rs')}", "jsonschema_rs")
    fl, orjson = _floor_orjson("raw decode: read file + `orjson.loads` per line")
    fl.nbytes, fl.items = nbytes, ds.items

    def il_run() -> Any:
        result = validate_path([str(path)])
        assert result.ok, result.problems[:3]
        return result

    contenders: list[tuple[Measure, Callable[[], Any]]] = [(il, il_run)]
    loads = orjson.loads if orjson is not None else json.loads
    lines = ds.jsonl.splitlines()
    envelope = load_schema("envelope")
    if jsonschema is not None:
        v = jsonschema.Draft202012Validator(envelope, registry=_schema_registry_py())
        every = ctx.size.jsonschema_every
        sub = lines[::every]
        sub_bytes = sum(len(x) + 1 for x in sub)
        js.nbytes, js.items, js.scale = nbytes, ds.items, nbytes / sub_bytes
        js.note = f"every {every}th line ({len(sub)} lines, {sub_bytes / 1e6:.2f} MB), time scaled x{js.scale:.1f} to the file by bytes"

        def js_run() -> None:
            validate = v.validate
            for line in sub:
                validate(loads(line))

        contenders.append((js, js_run))
    else:
        contenders.append((js, lambda: None))
    if jsonschema_rs is not None:
        reg = jsonschema_rs.Registry([(load_schema(n)["$id"], load_schema(n)) for n in schema_names()])
        vr = jsonschema_rs.validator_for(envelope, registry=reg)
        jr.nbytes, jr.items = nbytes, ds.items
        jr.note = "same schemas through its Registry; reads the file, decodes each line with orjson, `validate`"

        def jr_run() -> None:
            validate = vr.validate
            with open(path, "rb") as fh:
                for line in fh:
                    validate(loads(line))

        contenders.append((jr, jr_run))
    else:
        contenders.append((jr, lambda: None))
    if orjson is not None:

        def fl_run() -> int:
            n = 0
            with open(path, "rb") as fh:
                for line in fh:
                    loads(line)
                    n += 1
            return n

        contenders.append((fl, fl_run))
    else:
        contenders.append((fl, lambda: None))
    alternate(contenders, ctx.size.rounds, ctx.size.warmup)

    row = Row("validate", "(3) validation in process (`validate_path`, no start-up) on the JSONL file", il, [js, jr], fl)
    r_js, mb_s = row.ratio_cpu(js), il.mb_s_cpu
    row.targets = [
        Target(
            f">= {TARGETS['validate_mb_s']:g} MB/s on one core",
            None if mb_s is None else mb_s >= TARGETS["validate_mb_s"],
        ),
        Target(f">= {TARGETS['validate_vs_jsonschema']:g}x jsonschema", None if r_js is None else r_js >= TARGETS["validate_vs_jsonschema"]),
    ]
    row.notes.append("single-threaded; the peers check the JSON Schema only, interlingua also runs the semantic checks (ids, call links, roles, seq)")
    row.extra["cli"] = _time_cli(path)
    cli = row.extra["cli"]
    row.notes.append(
        f"CLI once as a subprocess (`interlingua validate FILE`, exit {cli['exit']}): {cli['seconds']:.2f} s wall, "
        f"{nbytes / 1e6 / cli['seconds']:.1f} MB/s including {cli['startup_seconds']:.2f} s interpreter + import start-up"
    )
    return row


def _time_cli(path: Path) -> dict[str, Any]:
    """Time ``interlingua validate PATH`` once as a subprocess, and the bare start-up once."""
    t0 = time.perf_counter()
    start = subprocess.run([sys.executable, "-c", "import interlingua.cli"], capture_output=True, check=False)
    startup = time.perf_counter() - t0
    t0 = time.perf_counter()
    proc = subprocess.run([*_cli_command(), "validate", str(path)], capture_output=True, check=False)
    seconds = time.perf_counter() - t0
    return {
        "seconds": seconds,
        "startup_seconds": startup,
        "exit": proc.returncode,
        "startup_exit": start.returncode,
        "summary": proc.stdout.decode(errors="replace").strip().splitlines()[-1:] or [""],
    }


# --------------------------------------------------------------------------- (3b) whole processes

_RS_SCRIPT = r"""
import json, os, sys
import orjson, jsonschema_rs
d = sys.argv[1]
schemas = [json.load(open(os.path.join(d, n))) for n in sorted(os.listdir(d)) if n.endswith(".json")]
reg = jsonschema_rs.Registry([(s["$id"], s) for s in schemas])
v = jsonschema_rs.validator_for(next(s for s in schemas if s["$id"].endswith("/envelope.json")), registry=reg)
bad = n = 0
with open(sys.argv[2], "rb") as fh:
    for n, line in enumerate(fh, 1):
        if line.strip():
            inst = orjson.loads(line)
            if not v.is_valid(inst):
                bad += 1
                for e in v.iter_errors(inst):
                    print(f"{sys.argv[2]}:{n}: {e.message}")
print(f"{n} lines, {bad} invalid")
sys.exit(1 if bad else 0)
"""

_JS_SCRIPT = r"""
import json, os, resource, sys, time
import orjson, jsonschema
from referencing import Registry, Resource
d = sys.argv[1]
schemas = [json.load(open(os.path.join(d, n))) for n in sorted(os.listdir(d)) if n.endswith(".json")]
reg = Registry().with_resources((s["$id"], Resource.from_contents(s)) for s in schemas)
v = jsonschema.Draft202012Validator(next(s for s in schemas if s["$id"].endswith("/envelope.json")), registry=reg)
r = resource.getrusage(resource.RUSAGE_SELF)
start = r.ru_utime + r.ru_stime
bad = n = 0
with open(sys.argv[2], "rb") as fh:
    for n, line in enumerate(fh, 1):
        if line.strip():
            inst = orjson.loads(line)
            if not v.is_valid(inst):
                bad += 1
r = resource.getrusage(resource.RUSAGE_SELF)
print(json.dumps({"startup_cpu": start, "loop_cpu": r.ru_utime + r.ru_stime - start, "lines": n, "bad": bad}))
"""


def _schemas_dir() -> Path:
    from importlib import resources

    return Path(str(resources.files("interlingua") / "schemas"))


def row_validate_process(ctx: Context) -> list[Row]:
    """(3b) ``interlingua validate FILE`` as a whole process vs jsonschema-rs and Python jsonschema as whole processes."""
    rows = []
    schemas = _schemas_dir()
    rs_script = ctx.workdir / "jsonschema_rs_validate.py"
    rs_script.write_text(_RS_SCRIPT)
    js_script = ctx.workdir / "jsonschema_validate.py"
    js_script.write_text(_JS_SCRIPT)
    have_rs = _peer("jsonschema-rs", "jsonschema_rs")[1] is not None and _peer("orjson", "orjson")[1] is not None
    for mb in ctx.size.process_mb:
        path = ctx.workdir / f"process-{mb}mb.jsonl"
        # whole copies of the dataset, the number nearest to `mb`
        nbytes, _copies = _grow_jsonl(ctx.ds.jsonl, max(1, round(mb * 1_000_000 / len(ctx.ds.jsonl))) * len(ctx.ds.jsonl) - 1, path)
        il = Measure(f"`interlingua validate FILE` (whole process, {nbytes / 1e6:.0f} MB)", "interlingua", nbytes=nbytes)
        rs = Measure(f"jsonschema-rs {_version('jsonschema-rs')} + orjson, `python script.py FILE` (whole process)", "peer", nbytes=nbytes)
        js = Measure(f"jsonschema {_version('jsonschema')} Draft202012Validator + orjson, `python script.py FILE` (whole process)", "peer", nbytes=nbytes)
        contenders: list[tuple[Measure, Callable[[], Any]]] = [(il, _time_process(il, [*_cli_command(), "validate", str(path)]))]
        if have_rs:
            contenders.append((rs, _time_process(rs, [sys.executable, str(rs_script), str(schemas), str(path)])))
            # Python jsonschema validates a subsample file (every n-th line): its start-up once, plus its loop
            # time scaled to the whole file by bytes
            every = max(1, ctx.size.jsonschema_every * max(1, mb // 10))
            sub = ctx.workdir / f"process-{mb}mb-every{every}.jsonl"
            with open(path, "rb") as src, open(sub, "wb") as dst:
                for i, line in enumerate(src):
                    if i % every == 0:
                        dst.write(line)
            sub_bytes = sub.stat().st_size
            factor = nbytes / sub_bytes

            def js_scale(r: dict[str, Any], factor: float = factor) -> float:
                d = json.loads(r["out"])
                assert d["bad"] == 0
                return float(d["startup_cpu"] + d["loop_cpu"] * factor)

            js.note = f"every {every}th line ({sub_bytes / 1e6:.2f} MB): its start-up CPU time once plus its loop's CPU time x{factor:.1f} (bytes)"
            contenders.append((js, _time_process(js, [sys.executable, str(js_script), str(schemas), str(sub)], js_scale)))
        else:
            rs.missing = js.missing = True
            rs.note = js.note = f"{NOT_INSTALLED} (pip install -r benchmarks/requirements.txt)"
        rounds = ctx.size.rounds if mb <= 20 else max(3, ctx.size.rounds // 2)
        alternate_process(contenders, rounds, 1)
        rs.note = rs.note or "same bundled schemas through its Registry (envelope.json), every line; reads the file, `orjson.loads` + `is_valid` per line"
        row = Row(f"validate-process-{mb}", f"(3b) `interlingua validate FILE`, whole process (start-up included), {nbytes / 1e6:.0f} MB", il, [rs, js], None)
        r_rs, r_js = row.ratio_cpu(rs), row.ratio_cpu(js)
        row.targets = [
            Target(f">= {TARGETS['process_vs_jsonschema_rs']:g}x jsonschema-rs whole process", None if r_rs is None else r_rs >= TARGETS["process_vs_jsonschema_rs"], _x(r_rs)),
            Target(f">= {TARGETS['process_vs_jsonschema']:g}x Python jsonschema whole process", None if r_js is None else r_js >= TARGETS["process_vs_jsonschema"], _x(r_js)),
        ]
        peak = max(il.rss_kb) / 1024 if il.rss_kb else None
        row.extra["il_peak_rss_mb"] = peak
        row.notes.append(
            "CPU time is the child's own (user + system, from `wait4`), start-up and imports included; wall time likewise. "
            "interlingua checks the envelope schema (typed msgspec decode) and the semantic rules (ids, call links, roles, seq); "
            "the peers check the JSON Schema only; interlingua's bytecode is compiled before the first run (as a wheel install has it)"
        )
        if peak is not None:
            row.notes.append(f"`interlingua validate` peak RSS: {peak:.1f} MB (ru_maxrss); jsonschema-rs script: {max(rs.rss_kb) / 1024 if rs.rss_kb else float('nan'):.1f} MB")
        if mb < 10:
            row.notes.append(f"scaled down at size `{ctx.size_name}`: the issue's rows are 10 MB and 100 MB (`--size small` or larger)")
        rows.append(row)
        path.unlink()
    return rows
