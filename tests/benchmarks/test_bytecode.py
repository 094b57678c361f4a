"""The whole-process rows time the library, not the compiler: bytecode is ready before they run."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path
from types import ModuleType

import interlingua

BENCH = Path(__file__).resolve().parents[2] / "benchmarks"


def _run_module() -> ModuleType:
    if str(BENCH) not in sys.path:
        sys.path.insert(0, str(BENCH))
    name = "interlingua_bench_run"
    if name in sys.modules:
        return sys.modules[name]
    spec = importlib.util.spec_from_file_location(name, BENCH / "run.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return module


def test_cli_command_compiles_the_package_first() -> None:
    run = _run_module()
    source = Path(interlingua.__file__).parent / "cli" / "_progress.py"
    cached = Path(importlib.util.cache_from_source(str(source)))
    cached.unlink(missing_ok=True)
    run._BYTECODE_READY.clear()
    run._cli_command()
    assert cached.exists()
    # the cache is the current source's: its header records the source's size (PEP 552, bytes 12-16)
    assert int.from_bytes(cached.read_bytes()[12:16], "little") == source.stat().st_size
