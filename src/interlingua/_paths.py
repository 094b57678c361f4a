"""Where an output path is written: replaced through a temporary file, or written in place.

Every writer of a named output (``convert -o``, ``migrate -o`` and its reject file, ``store export -o``,
``view -o``, :func:`interlingua.codec.write_jsonl`, :meth:`SessionStore.export_jsonl`) writes a
temporary file beside the final path and renames it into place, so a reader never sees half a file.
Two kinds of path must not be renamed over:

* a symbolic link: the file it names is replaced (the temporary file goes beside that file), the
  link stays a link;
* a path that exists and is not a regular file (``/dev/null``, ``/dev/stdout``, a named pipe, a
  socket): it is opened and written in place. Renaming over it would replace the device or pipe
  with a regular file (for root, ``-o /dev/null`` would leave a regular file at ``/dev/null``).
"""

from __future__ import annotations

import errno
import os
import stat
from pathlib import Path

__all__ = ["output_target"]


def output_target(path: str | os.PathLike[str]) -> tuple[Path, bool]:
    """``(path to write, in_place)`` for an output path given by the user.

    Returns:
        ``(path, True)`` as given when it exists and is not a regular file (a device, a named
        pipe, ``/dev/stdout``: written in place, no temporary file, no rename); else the path with
        symbolic links resolved and ``False``.

    Raises:
        OSError: (``ELOOP``) the path is a loop of symbolic links; a shell's ``>`` refuses it too.
    """
    try:
        mode = os.stat(path).st_mode
    except OSError as exc:
        if exc.errno == errno.ELOOP:  # a symlink loop: renaming over it would replace the user's link
            raise OSError(errno.ELOOP, os.strerror(errno.ELOOP), os.fspath(path)) from None
        return Path(os.path.realpath(path)), False
    if not stat.S_ISREG(mode):
        # Opened by the name the user gave: ``/dev/stdout`` resolves to ``/proc/PID/fd/pipe:[N]``
        # when stdout is a pipe, a name that cannot be opened.
        return Path(path), True
    return Path(os.path.realpath(path)), False
