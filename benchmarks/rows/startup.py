"""Row (9): whole-process start-up of ``interlingua validate small.json`` against the library's decode
path alone and a bare interpreter."""

from __future__ import annotations

import sys

from harness import HERE, TARGETS, Context, Measure, Row, Target, _cli_command, alternate_processes


def row_startup(ctx: Context) -> Row:
    """(9) Whole-process start-up: ``interlingua validate small.json`` vs the library's decode path and a bare interpreter."""
    small = ctx.workdir / "small.json"
    small.write_bytes((HERE.parent / "examples" / "transcripts" / "weather.json").read_bytes())
    cli = _cli_command()
    il = Measure(f"`interlingua validate small.json` ({small.stat().st_size} bytes, 6 items)", "interlingua", nbytes=small.stat().st_size, items=6)
    imp = Measure(
        '`python -c "from interlingua import decode_envelope"`',
        "peer",
        note="the library's decode path (models, codec, decoders): the target's yardstick; `import interlingua` alone is lazy and loads none of it",
    )
    hlp = Measure("`interlingua --help`", "peer", note="the command group alone (no command module imported)")
    fl = Measure("`python -c pass` (the interpreter's own start-up)", "floor")
    rounds = ctx.size.rounds
    alternate_processes(
        [
            (il, [*cli, "validate", str(small)]),
            (imp, [sys.executable, "-c", "from interlingua import decode_envelope"]),
            (hlp, [*cli, "--help"]),
            (fl, [sys.executable, "-c", "pass"]),
        ],
        rounds,
        max(ctx.size.warmup, 1),
        cwd=ctx.workdir,
    )
    row = Row("startup", "(9) start-up: `interlingua validate small.json` as a whole process", il, [imp, hlp], fl)
    r_imp = row.ratio_cpu(imp)
    limit = TARGETS["startup_vs_import"]
    row.targets = [Target(f'<= {limit:g}x `python -c "from interlingua import decode_envelope"`', None if r_imp is None else 1 / r_imp <= limit)]
    row.notes.append(
        "each sample is a fresh process (the console script, as a user or a pre-commit hook runs it); CPU is the child's "
        "user + system time; rounds alternate A B C D, D C B A; interlingua's bytecode is compiled first (as a wheel install "
        "has it), so no sample compiles sources"
    )
    if r_imp:
        row.notes.append(f"validate takes {1 / r_imp:.2f}x the CPU of `from interlingua import decode_envelope` (target <= {limit:g}x)")
    return row
