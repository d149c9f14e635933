"""When Python's cyclic garbage collector runs in ``ttr serve``: short young collections on a clock, the survivors
frozen out of its sight, and a whole-heap collection now and then.

Why. A server playing hundreds of games holds a snapshot of each (its engine state, events, rendered states:
a few hundred container objects) and replaces it at every move. Reference counting frees the old snapshot,
and each such free lowers the collector's allocation count, so in a steady load the count that should start a
young collection hardly rises: with the thresholds ``(20_000, 50, 100)`` a young collection ran every 8–10 s
and then found every object made since, the live snapshots of all the games, and took 73–95 ms of CPU,
finding nothing to free (300-game ``ttr loadtest``, callbacks timed with ``time.thread_time``). The default
thresholds were worse: full collections every few seconds, up to 0.7 s each. Whatever the thresholds, a live
object is looked at in each generation it passes through, so the live snapshots made pauses of ~90 ms in one
generation or another.

What instead. Every ``interval`` seconds (default 0.5) a young collection runs, over what was made since the
last one, then everything still alive is frozen (``gc.freeze``): the collector never looks at it again, and
reference counting still frees it as usual. Same run: young collections of 8 ms on average, at most 32 ms.
Only a reference cycle that becomes garbage after it was frozen waits for the next whole-heap collection
(every ``full_every`` seconds, default 600): after 60 s of that load such a collection found 24 objects to
free and took 383 ms. Python's own schedule stays on for bursts of allocation, for what was made since the
last tick.

Memory given back. Python hands its larger blocks (JSON texts, lists, dicts of games) to the C allocator, and
glibc's keeps freed pages in each thread's arena for reuse: under a steady load with worker threads the resident
size kept climbing after the warm-up, +12.0 % between minutes 5 and 10 of a 300-game run (SQLite, games started
over 4 minutes), while the objects alive hardly changed. Every ``trim_every`` seconds (default 60) this thread
calls ``malloc_trim(0)``, which returns those free pages: the same run, trimmed every 30 s, grew +5.2 % and
ended 32 MiB lower (each call 0.3–24 ms, outside the GIL); with the default, the 10-minute runs that start every
game at once ended 14–18 % below their size after the warm-up (SQLite and PostgreSQL, docs/api.md).
"""

from __future__ import annotations

import ctypes
import ctypes.util
import gc
import logging
import threading
import time
from collections.abc import Callable

log = logging.getLogger("ttr.server")

THRESHOLDS = (20_000, 50, 100)  # Python's own schedule, for bursts between two ticks


def malloc_trim() -> Callable[[], object] | None:
    """glibc's ``malloc_trim(0)`` (gives the free pages of every malloc arena back to the system), or None where
    the C library has none (musl, macOS, Windows)."""
    try:
        libc = ctypes.CDLL(ctypes.util.find_library("c") or "libc.so.6")
        trim = libc.malloc_trim
    except (OSError, AttributeError):
        return None
    trim.argtypes, trim.restype = [ctypes.c_size_t], ctypes.c_int
    return lambda: trim(0)


class Collector:
    """Runs the schedule above in a daemon thread (``start``/``stop``); ``tick`` is one step of it."""

    def __init__(self, interval: float = 0.5, full_every: float = 600.0, trim_every: float = 60.0) -> None:
        self.interval = interval
        self.full_every = full_every
        self.trim_every = trim_every
        self._trim = malloc_trim() if trim_every > 0 else None
        self.trims = 0
        self.young = 0  # collections run by this schedule
        self.full = 0
        self._next_full = time.monotonic() + full_every
        self._next_trim = time.monotonic() + trim_every
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None

    def tick(self) -> int:
        """A young collection (the whole heap's when due), then freeze what is alive; returns the objects freed."""
        if self.full_every > 0 and time.monotonic() >= self._next_full:
            return self.collect_all()
        freed = gc.collect(0)
        self.young += 1
        gc.freeze()
        return freed

    def collect_all(self) -> int:
        """A whole-heap collection (frozen objects included), then freeze what is alive; returns the objects freed."""
        gc.unfreeze()
        start = time.perf_counter()
        freed = gc.collect()
        gc.freeze()
        self.full += 1
        self._next_full = time.monotonic() + self.full_every
        log.debug("whole-heap collection: %d objects freed in %.0f ms", freed, 1000 * (time.perf_counter() - start))
        return freed

    def trim(self) -> None:
        """Give the C allocator's free pages back to the system (glibc; nothing elsewhere)."""
        if self._trim is not None:
            start = time.perf_counter()
            self._trim()  # ctypes lets the other threads run meanwhile (it releases the GIL)
            self.trims += 1
            log.debug("malloc_trim in %.1f ms", 1000 * (time.perf_counter() - start))
        self._next_trim = time.monotonic() + self.trim_every

    def _run(self) -> None:
        while not self._stop.wait(self.interval):
            self.tick()
            if self.trim_every > 0 and time.monotonic() >= self._next_trim:
                self.trim()

    def start(self) -> Collector:
        """Start-up: collect and freeze what exists (modules, the editions' tables), then run the schedule."""
        gc.collect()
        gc.freeze()
        gc.set_threshold(*THRESHOLDS)
        if self.interval > 0:
            self._thread = threading.Thread(target=self._run, name="ttr-gc", daemon=True)
            self._thread.start()
        return self

    def stop(self) -> None:
        self._stop.set()
        if self._thread is not None:
            self._thread.join()
