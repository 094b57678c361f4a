#!/usr/bin/env python
"""Compare the structure of two generated reports (``run.py --out``): the same sections, rows, sides,
targets and notes, whatever the figures.

Numbers are masked (``#``), as are the time unit beside a number (``ms``/``s``), whether a target was
met, the run's temporary directory and the ``--out`` path; what is left must be equal. For checking
that a change to the harness (e.g. splitting ``run.py``) changed no row::

    python benchmarks/run.py --size tiny --out before.md      # on the old tree
    python benchmarks/run.py --size tiny --out after.md       # on the new tree
    python benchmarks/compare_structure.py before.md after.md

Exit status: 0 when the structures are equal, 1 when they differ (the unified diff is printed),
2 when a file cannot be read.
"""

from __future__ import annotations

import argparse
import difflib
import re
import sys
from pathlib import Path


def structure(text: str) -> list[str]:
    """The report's lines with what changes from run to run masked."""
    text = re.sub(r"/tmp/interlingua-bench-[^/\s]+/", "/tmp/WORKDIR/", text)
    text = re.sub(r"--out \S+", "--out OUT", text)
    text = re.sub(r"\d[\d,]*(\.\d+)?", "#", text)
    text = re.sub(r"# (ms|s)\b", "# T", text)
    text = re.sub(r"\*\*missed\*\*|\bmet\b", "MET?", text)
    return text.splitlines()


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("before", type=Path)
    ap.add_argument("after", type=Path)
    args = ap.parse_args(argv)
    try:
        a, b = args.before.read_text(encoding="utf-8"), args.after.read_text(encoding="utf-8")
    except OSError as e:
        print(f"error: {e}", file=sys.stderr)
        return 2
    diff = list(difflib.unified_diff(structure(a), structure(b), str(args.before), str(args.after), lineterm="", n=1))
    if diff:
        print("\n".join(diff))
        return 1
    print(f"same structure: {len(structure(a))} lines (sections, rows, sides, targets, notes); only figures differ")
    return 0


if __name__ == "__main__":
    sys.exit(main())
