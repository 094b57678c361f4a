"""The optional compiled line check is packaged as ADR 0046 says: a user without a compiler gets the same results.

Wheels are built from this checkout (``pip wheel --no-deps``: the hatch build hook ``hatch_build.py``
runs) once with ``INTERLINGUA_NO_EXTENSIONS=1`` (what a machine without a compiler gets) and once
as is; each is installed with ``--no-deps`` into a fresh virtual environment (dependencies from the
test interpreter through a ``.pth`` line, nothing from the source tree) and reads the same JSON
Lines file, with a planted error, through ``iter_jsonl``.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import sysconfig
import zipfile
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]

pytestmark = pytest.mark.slow

READ = r"""
import hashlib, io, json, sys
from interlingua.codec import _line_shape, encode_envelope, iter_jsonl
out = []
for rec in iter_jsonl(sys.argv[1], errors="yield"):
    if rec.error is not None:
        out.append([rec.line, [[p.pointer, p.message] for p in rec.error.problems]])
    else:
        out.append([rec.line, hashlib.sha256(encode_envelope(rec.envelope)).hexdigest()])
import interlingua
print(json.dumps({"accelerated": _line_shape.ACCELERATED, "records": out, "from": interlingua.__file__}))
"""


def _build(tmp: Path, name: str, env_extra: dict[str, str]) -> Path:
    dist = tmp / name
    env = {k: v for k, v in os.environ.items() if not k.startswith("INTERLINGUA_")} | env_extra
    built = subprocess.run([sys.executable, "-m", "pip", "wheel", "--no-deps", "-q", "-w", str(dist), str(ROOT)], capture_output=True, text=True, env=env, timeout=900)
    assert built.returncode == 0, built.stderr
    return next(dist.glob("interlingua-*.whl"))


def _install_and_read(tmp: Path, name: str, wheel: Path, data: Path) -> dict[str, object]:
    venv = tmp / f"venv-{name}"
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(venv)], check=True, timeout=120)
    py = venv / "bin" / "python"
    site = Path(subprocess.run([str(py), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"], capture_output=True, text=True, check=True).stdout.strip())
    inst = subprocess.run([sys.executable, "-m", "pip", "--python", str(py), "install", "-q", "--no-deps", "--no-index", str(wheel)], capture_output=True, text=True, timeout=600)
    assert inst.returncode == 0, inst.stderr
    (site / "_interlingua_test_deps.pth").write_text(sysconfig.get_paths()["purelib"] + "\n", encoding="utf-8")
    env = {k: v for k, v in os.environ.items() if not k.startswith(("PYTEST", "VIRTUAL_ENV", "PYTHONPATH", "INTERLINGUA_"))}
    run = subprocess.run([str(py), "-c", READ, str(data)], capture_output=True, text=True, env=env, cwd=tmp, timeout=300)
    assert run.returncode == 0, run.stderr
    result: dict[str, object] = json.loads(run.stdout)
    assert str(result.pop("from")).startswith(str(site))  # the wheel's copy, not the checkout's
    return result


def test_the_pure_wheel_and_the_compiled_wheel_read_the_same(tmp_path: Path) -> None:
    lines = (ROOT / "tests" / "fixtures" / "canonical" / "valid_items.jsonl").read_bytes().splitlines()
    items = [line for line in lines if line.strip()]
    envs = [b'{"schema_version":"1.0","session_id":"s1","seq":%d,"item":%s}' % (i, items[i % len(items)]) for i in range(3000)]
    envs[1700] = envs[1700].replace(b',"item":', b',"item":{"a":' + b"[" * 70) + b"]" * 70 + b"}"  # not JSON: a located error
    data = tmp_path / "stream.jsonl"
    data.write_bytes(b"\n".join(envs) + b"\n")

    pure = _build(tmp_path, "pure", {"INTERLINGUA_NO_EXTENSIONS": "1"})
    assert pure.name.endswith("-py3-none-any.whl"), pure.name
    names = zipfile.ZipFile(pure).namelist()
    assert not [n for n in names if "_linecheck" in n], names
    assert "interlingua/codec/_line_shape.py" in names

    compiled = _build(tmp_path, "compiled", {})
    cnames = zipfile.ZipFile(compiled).namelist()
    libs = [n for n in cnames if n.startswith("interlingua/codec/_linecheck.") and not n.endswith(".c")]
    assert not [n for n in cnames if n.endswith(".c")], cnames
    if not libs:
        assert shutil.which(sysconfig.get_config_var("CC").split()[0]) is None, "a compiler is here but the wheel holds no line check"
        pytest.skip("no C compiler here: only the pure wheel could be built")
    assert "-cp311-abi3-" in compiled.name or "-cp3" in compiled.name, compiled.name

    from_pure = _install_and_read(tmp_path, "pure", pure, data)
    from_compiled = _install_and_read(tmp_path, "compiled", compiled, data)
    assert from_pure["accelerated"] is False
    assert from_compiled["accelerated"] is True
    assert from_pure["records"] == from_compiled["records"]
    records = from_pure["records"]
    assert isinstance(records, list) and len(records) == 3000
    assert [r[0] for r in records if isinstance(r[1], list)] == [1701]
