"""The host heap setting while a call runs (floor 3, backend): IREE's large per-call host blocks
served from glibc's heap and kept for reuse (HostHeap, HOST_HEAP).
"""

from __future__ import annotations

import ctypes
import os
import threading

# glibc mallopt parameters (malloc.h) and glibc's default M_MMAP_MAX
_M_TRIM_THRESHOLD, _M_MMAP_MAX = -1, -4
_DEFAULT_MMAP_MAX = 65536
_HOST_HEAP_RETAINED = 1 << 30


class HostHeap:
    """Serves the large host blocks IREE allocates during a call from glibc's heap, kept for reuse.

    A module with `?` dims cannot have its transient buffers packed at compile time, so IREE 3.13
    sums them into one allocation per call (86 MB for attention over (4, 4, 512, 512) scores,
    against 35 MB for the static module, whose buffers share memory by lifetime). local-task
    serves queue allocations from a pool with a 64 MB range; a larger one goes to a pass-through
    pool that mallocs it, and glibc maps every block over 32 MB afresh and unmaps it on free. So
    each call took ~22,000 page faults: the same attention took 15.3 ms at 448 keys (66 MB, under
    the range) and 47.8 ms at 512. IREE's caching allocator does not see these allocations (they
    bypass the device allocator).

    So while a call runs (`with HOST_HEAP:`), glibc serves large blocks from its heap
    (M_MMAP_MAX = 0; restored to glibc's default when the last running call ends, so allocations
    outside calls, PyTorch's included, are mapped as before), and freed heap up to 1 GiB is kept
    (M_TRIM_THRESHOLD, set once). A reused block costs a memset (IREE zeroes what it allocates)
    instead of page faults: 30.6 -> 15.8 ms at 512 keys, static 6.5 ms. The process keeps its
    peak transient memory, as PyTorch's caching allocators do. Cost on small calls: two mallopt
    calls, 6 us on a 160 us call (a 16x16 Linear at batch 8, interleaved in one process).
    Since then the CPU modules whose transient size IREE can compute before a call take their
    transients from one buffer symhlo's runtime keeps (symhlo-externalize-transients-for-iree),
    so no per-call block at all; the heap setting still serves the others (sizes from data,
    control flow) and the outputs. SYMHLO_HOST_MALLOC=system leaves glibc alone. Non-glibc platforms: nothing is set.
    """

    def __init__(self):
        self._lock = threading.Lock()
        self._active = 0
        self._mallopt = None
        self._ready = False

    def enabled(self) -> bool:
        """Whether calls run with the heap setting (glibc, and not opted out)."""
        if not self._ready:
            self._ready = True
            if os.environ.get("SYMHLO_HOST_MALLOC", "").lower() == "system":
                return False
            try:
                mallopt = ctypes.CDLL(None).mallopt
            except (OSError, AttributeError):  # not glibc (musl, macOS)
                return False
            if mallopt(_M_TRIM_THRESHOLD, _HOST_HEAP_RETAINED):
                self._mallopt = mallopt
        return self._mallopt is not None

    def __enter__(self):
        if self.enabled():
            with self._lock:
                self._active += 1
                if self._active == 1:
                    self._mallopt(_M_MMAP_MAX, 0)
        return self

    def __exit__(self, *exc):
        if self._mallopt is not None:
            with self._lock:
                self._active -= 1
                if self._active == 0:
                    self._mallopt(_M_MMAP_MAX, _DEFAULT_MMAP_MAX)
        return False


HOST_HEAP = HostHeap()
