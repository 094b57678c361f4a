"""Progress display for long commands (``validate``, ``migrate``, ``store import``/``export``).

One helper for all of them: on a terminal (stderr) a rich progress bar, shown once the
work is past :data:`THRESHOLD_BYTES`; elsewhere (a CI log, a file) one plain line on
stderr at most every :data:`INTERVAL_SECONDS`; nothing at all with ``quiet``. rich is
imported only when a bar is actually shown.
"""

from __future__ import annotations

import sys
import time
from typing import IO, Any

__all__ = ["INTERVAL_SECONDS", "THRESHOLD_BYTES", "CountingReader", "CountingWriter", "Progress"]

THRESHOLD_BYTES = 4 * 1024 * 1024
"""Work smaller than this shows no bar (it ends before a bar would help)."""

INTERVAL_SECONDS = 10.0
"""At most one plain progress line per this many seconds when stderr is not a terminal."""


def _mb(n: float) -> str:
    return f"{n / 1e6:.1f} MB"


class Progress:
    """Progress of one job measured in bytes, reported on stderr.

    Args:
        label: What is being done (``"validating"``, ``"migrating"``, ...).
        total: Bytes the job will process, when known (``None``: a running count).
        quiet: Show nothing.
        force: Show the bar even under the threshold, and off a terminal a last line at the end
            even when the job took less than ``interval`` (``migrate --progress``).
        stream: Where to report (default ``sys.stderr``).
        interval: Seconds between plain lines (default :data:`INTERVAL_SECONDS`).
        threshold: Bytes before a bar is shown, unless ``force`` (default :data:`THRESHOLD_BYTES`).

    Use as a context manager; :meth:`advance` as bytes are done, with optional counters
    (``conversations=12``) shown beside the bytes.
    """

    def __init__(
        self,
        label: str,
        *,
        total: int | None = None,
        quiet: bool = False,
        force: bool = False,
        stream: IO[str] | None = None,
        interval: float | None = None,
        threshold: int | None = None,
    ) -> None:
        self.label = label
        self.total = total
        self.done = 0
        self.counters: dict[str, int] = {}
        self.stream = stream if stream is not None else sys.stderr
        self.interval = INTERVAL_SECONDS if interval is None else interval
        self.force = force
        self.threshold = 0 if force else (THRESHOLD_BYTES if threshold is None else threshold)
        self.enabled = not quiet
        self.lines_written = 0
        self._bar: Any = None
        self._task: Any = None
        self._started = time.monotonic()
        self._last_line = self._started
        try:
            self.tty = bool(self.stream.isatty())
        except (AttributeError, ValueError, OSError):
            self.tty = False

    def __enter__(self) -> Progress:
        if self.enabled and self.tty and self.total is not None and self.total >= self.threshold:
            self._start_bar()
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # ------------------------------------------------------------------ updates

    def advance(self, nbytes: int, **counters: int) -> None:
        """Count ``nbytes`` more done; ``counters`` replace the shown counts (e.g. ``conversations=3``)."""
        self.done += nbytes
        if counters:
            self.counters.update(counters)
        if not self.enabled:
            return
        if self.tty:
            if self._bar is None and self.done >= self.threshold:
                self._start_bar()
            if self._bar is not None:
                self._bar.update(self._task, completed=self.done, info=self._counts())
            return
        now = time.monotonic()
        if now - self._last_line >= self.interval:  # a slow job of any size gets its line
            self._last_line = now
            self._line(now)

    def close(self) -> None:
        """Stop the bar; after plain lines were written (or when forced), write a last one with the final count."""
        if self._bar is not None:
            self._bar.update(self._task, completed=self.done, info=self._counts())
            self._bar.stop()
            self._bar = None
        elif self.enabled and not self.tty and (self.lines_written or self.force):
            self._line(time.monotonic(), final=True)

    # ------------------------------------------------------------------ output

    def _counts(self) -> str:
        return ", ".join(f"{v} {k}" for k, v in self.counters.items())

    def _line(self, now: float, *, final: bool = False) -> None:
        elapsed = now - self._started
        if self.total:
            share = min(self.done / self.total, 1.0)
            where = f"{_mb(self.done)} of {_mb(self.total)} ({share:.0%})"
        else:
            where = _mb(self.done)
        counts = self._counts()
        text = f"{self.label}: {where}{', ' + counts if counts else ''}, {elapsed:.0f} s{' (done)' if final else ''}"
        try:
            self.stream.write(text + "\n")
            self.stream.flush()
        except (OSError, ValueError):
            self.enabled = False
            return
        self.lines_written += 1

    def _start_bar(self) -> None:
        from rich.console import Console
        from rich.progress import BarColumn, DownloadColumn, Progress as RichProgress, TextColumn, TimeRemainingColumn, TransferSpeedColumn

        columns: list[Any] = [TextColumn(self.label)]
        if self.total is not None:
            columns += [BarColumn(), DownloadColumn(), TimeRemainingColumn()]
        else:
            columns += [DownloadColumn(), TransferSpeedColumn()]
        columns.append(TextColumn("{task.fields[info]}"))
        self._bar = RichProgress(*columns, console=Console(file=self.stream), transient=False)
        self._bar.start()
        self._task = self._bar.add_task(self.label, total=self.total, completed=self.done, info=self._counts())


class CountingReader:
    """A binary file wrapper that reports the bytes read to a :class:`Progress`."""

    def __init__(self, raw: IO[bytes], progress: Progress) -> None:
        self._raw = raw
        self._progress = progress

    def read(self, size: int = -1) -> bytes:
        data = self._raw.read(size)
        self._progress.advance(len(data))
        return data

    def readline(self, size: int = -1) -> bytes:
        data = self._raw.readline(size)
        self._progress.advance(len(data))
        return data

    def __iter__(self) -> CountingReader:
        return self

    def __next__(self) -> bytes:
        data = self.readline()
        if not data:
            raise StopIteration
        return data

    def __getattr__(self, name: str) -> Any:
        return getattr(self._raw, name)


class CountingWriter:
    """A binary file wrapper that reports the bytes written to a :class:`Progress`."""

    def __init__(self, raw: IO[bytes], progress: Progress) -> None:
        self._raw = raw
        self._progress = progress

    def write(self, data: bytes) -> int:
        n = self._raw.write(data)
        self._progress.advance(len(data))
        return n

    def __getattr__(self, name: str) -> Any:
        return getattr(self._raw, name)
