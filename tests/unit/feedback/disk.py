"""Real storage failures for the feedback store: a tiny tmpfs that can be filled up, and
a read-only volume. Mounting needs root (CAP_SYS_ADMIN), as in CI; elsewhere the tests
that need it fail with a message saying so (they never skip)."""

from __future__ import annotations

import contextlib
import errno
import os
import subprocess
import tempfile
from collections.abc import Iterator
from pathlib import Path


def _run(argv: list[str]) -> None:
    done = subprocess.run(argv, capture_output=True, text=True, check=False)
    if done.returncode != 0:
        raise RuntimeError(
            f"`{' '.join(argv)}` failed: {done.stderr.strip()} "
            "(these tests mount a tmpfs: run them as root, as CI does)"
        )


@contextlib.contextmanager
def tmpfs(size: str = "512k") -> Iterator[Path]:
    """A fresh tmpfs of this size, world-writable, unmounted afterwards."""
    path = Path(tempfile.mkdtemp(prefix="feedback-tmpfs-"))
    try:
        _run(["mount", "-t", "tmpfs", "-o", f"size={size},mode=0777", "tmpfs", str(path)])
        yield path
    finally:
        if os.path.ismount(path):
            done = subprocess.run(["umount", str(path)], capture_output=True, check=False)
            if done.returncode != 0:  # a process still holds a file: detach lazily
                subprocess.run(["umount", "-l", str(path)], capture_output=True, check=False)
        path.rmdir()


def fill(mount: Path) -> Path:
    """Write zeros until the file system is full; returns the filler file."""
    filler = mount / "filler.bin"
    block = b"\0" * 4096
    with filler.open("wb", buffering=0) as out:
        while True:
            try:
                out.write(block)
            except OSError as exc:
                if exc.errno != errno.ENOSPC:
                    raise
                return filler


def set_read_only(mount: Path, read_only: bool) -> None:
    _run(["mount", "-o", f"remount,{'ro' if read_only else 'rw'}", str(mount)])
