"""Build hook: compiles the optional line check ``interlingua.codec._linecheck`` (ADR 0046).

hatchling runs this for every wheel and editable install (``[tool.hatch.build.targets.wheel.hooks.custom]``
in pyproject.toml). It compiles ``src/interlingua/codec/_linecheck.c`` with setuptools' ``build_ext``
(the platform's own compiler and flags) against Python's stable ABI, and:

- a wheel: puts the library into the wheel, tagged ``cp311-abi3-<platform>`` (one wheel per platform
  for Python 3.11 and later; a version-specific tag where the stable ABI does not apply);
- an editable install (``pip install -e .``): builds it in place, beside the C source, where the
  ``.pth`` line of the editable install (and ``PYTHONPATH=src``) finds it.

When it cannot be built (no compiler, no setuptools, a compile error, or the result does not import)
the build goes on without it and the wheel stays pure (``py3-none-any``): the package then uses the
pure-Python line check, with the same results. ``INTERLINGUA_NO_EXTENSIONS=1`` skips the compile (and
an editable install removes an in-place build); ``INTERLINGUA_REQUIRE_EXTENSIONS=1`` makes a failed
compile fail the build instead (CI, release builds).

Run as a script, ``python hatch_build.py`` (re)builds the library in place for a source checkout
(``python hatch_build.py --clean`` removes it).
"""

from __future__ import annotations

import importlib.machinery
import importlib.util
import os
import shutil
import sys
import sysconfig
import tempfile
from pathlib import Path
from typing import Any

try:
    from hatchling.builders.hooks.plugin.interface import BuildHookInterface  # type: ignore[import-not-found,unused-ignore]
except ImportError:  # run as a script: only the in-place build below is used
    BuildHookInterface = object  # type: ignore[assignment,misc,unused-ignore]

MODULE = "interlingua.codec._linecheck"
SOURCE = Path("src/interlingua/codec/_linecheck.c")
OFF = "INTERLINGUA_NO_EXTENSIONS"
REQUIRE = "INTERLINGUA_REQUIRE_EXTENSIONS"


def _flag(name: str) -> bool:
    return os.environ.get(name, "") not in ("", "0")


def _stable_abi() -> bool:
    """The stable ABI applies: CPython with the GIL (free-threaded builds have no abi3)."""
    return sys.implementation.name == "cpython" and not sysconfig.get_config_var("Py_GIL_DISABLED")


def compile_extension(root: Path, build_dir: Path) -> Path:
    """Compile the line check under ``build_dir``; returns the library's path.

    Raises whatever setuptools raises (``ImportError`` without setuptools, ``CompileError`` /
    ``LinkError`` / ``PlatformError`` without a working compiler), or ``ImportError`` when the
    result does not load.
    """
    from setuptools import Distribution, Extension  # type: ignore[import-untyped,unused-ignore]
    from setuptools.command.build_ext import build_ext  # type: ignore[import-untyped,unused-ignore]

    limited = _stable_abi()
    ext = Extension(
        MODULE,
        sources=[str(root / SOURCE)],
        py_limited_api=limited,
        define_macros=[("Py_LIMITED_API", "0x030B0000")] if limited else [],
    )
    cmd = build_ext(Distribution({"name": "interlingua-linecheck", "ext_modules": [ext]}))
    cmd.build_lib = str(build_dir)
    cmd.build_temp = str(build_dir / "tmp")
    cmd.ensure_finalized()
    cmd.run()
    built = Path(cmd.get_ext_fullpath(MODULE))
    # it must load in this interpreter (a broken toolchain can link a library that does not)
    spec = importlib.util.spec_from_file_location(MODULE, built)
    if spec is None or spec.loader is None:
        raise ImportError(f"cannot load {built}")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    if module.line_shape(b'{"a":[1]}\n{}\n', 0, 13, 3) != (2, 1, False):
        raise ImportError(f"{built} gives wrong answers")
    return built


def _try_compile(root: Path, build_dir: Path) -> Path | None:
    try:
        return compile_extension(root, build_dir)
    except (Exception, SystemExit) as exc:  # distutils may exit
        if _flag(REQUIRE):
            raise RuntimeError(f"{REQUIRE} is set and the line check did not build: {exc}") from exc
        print(f"interlingua: the optional compiled line check was not built ({exc}); the pure-Python one is used", file=sys.stderr)
        return None


def in_place_libraries(root: Path) -> list[Path]:
    """Line check libraries built in place beside the C source (any Python version's suffix)."""
    folder = (root / SOURCE).parent
    return [p for p in folder.glob("_linecheck.*") if p.suffix in (".so", ".pyd")]


def build_in_place(root: Path) -> Path | None:
    """Build the library into the source tree (replacing any earlier one); ``None`` when it cannot be built."""
    with tempfile.TemporaryDirectory(prefix="interlingua-linecheck-") as tmp:
        built = _try_compile(root, Path(tmp))
        if built is None:
            return None
        for old in in_place_libraries(root):
            old.unlink()
        target = (root / SOURCE).parent / built.name
        shutil.copyfile(built, target)
        return target


def _wheel_tag() -> str | None:
    """``cp311-abi3-<platform>`` as hatchling picks the platform (``None``: let hatchling infer the whole tag)."""
    if not _stable_abi() or sys.platform == "darwin":  # macOS: hatchling's own deployment-target handling
        return None
    from packaging.tags import sys_tags

    platform = next(t.platform for t in sys_tags() if "manylinux" not in t.platform and "musllinux" not in t.platform)
    return f"cp311-abi3-{platform}"


class LineCheckBuildHook(BuildHookInterface):  # type: ignore[misc,valid-type,unused-ignore]
    """Compiles ``interlingua.codec._linecheck`` into wheels and editable installs when it can."""

    PLUGIN_NAME = "custom"

    def dependencies(self) -> list[str]:
        return [] if _flag(OFF) else ["setuptools>=64"]

    def initialize(self, version: str, build_data: dict[str, Any]) -> None:
        if self.target_name != "wheel":
            return
        root = Path(self.root)
        if version == "editable":
            if _flag(OFF):
                for old in in_place_libraries(root):
                    old.unlink()
                return
            build_in_place(root)
            return
        if _flag(OFF):
            return
        self._build_dir = Path(tempfile.mkdtemp(prefix="interlingua-linecheck-"))
        built = _try_compile(root, self._build_dir)
        if built is None:
            return
        build_data["force_include"][str(built)] = f"interlingua/codec/{built.name}"
        build_data["pure_python"] = False
        tag = _wheel_tag()
        if tag is None:
            build_data["infer_tag"] = True
        else:
            build_data["tag"] = tag

    def finalize(self, version: str, build_data: dict[str, Any], artifact_path: str) -> None:
        build_dir = getattr(self, "_build_dir", None)
        if build_dir is not None:
            shutil.rmtree(build_dir, ignore_errors=True)


if __name__ == "__main__":
    here = Path(__file__).resolve().parent
    if sys.argv[1:] == ["--clean"]:
        for lib in in_place_libraries(here):
            lib.unlink()
            print(f"removed {lib.relative_to(here)}")
    elif sys.argv[1:]:
        sys.exit("usage: python hatch_build.py [--clean]")
    else:
        built = build_in_place(here)
        sys.exit(1 if built is None else print(f"built {built.relative_to(here)}"))
