"""Keep freed memory in the process, for programs that evaluate big batches again and again.

glibc hands large numpy arrays (an 80 MB output column at 10 million trainees) straight back to
the operating system when they are freed, and trims its heap when a few chunk-sized temporaries
are freed together. The next evaluation then pays the kernel again to map and zero every page it
touches: on the virtual machines we measure on, that system time can exceed the arithmetic
itself. A long-running process (the simulator, the benchmark) can ask glibc to keep freed memory
for reuse instead; its peak memory is unchanged, it is simply not returned between evaluations.
A one-off `jobgrant quote` has no reason to.
"""

from __future__ import annotations

# mallopt parameters (glibc's malloc.h)
M_TRIM_THRESHOLD = -1
M_MMAP_MAX = -4
NEVER_TRIM = 2**31 - 1  # the largest value mallopt accepts


def keep_freed_memory() -> bool:
    """Serve every allocation from the heap and never trim it; False where glibc is absent."""
    import ctypes  # here: importing ctypes costs a process that never calls this 20 ms
    import ctypes.util

    try:
        libc = ctypes.CDLL(ctypes.util.find_library("c") or "libc.so.6")
        mallopt = libc.mallopt
    except (OSError, AttributeError):
        return False
    mallopt.argtypes, mallopt.restype = [ctypes.c_int, ctypes.c_int], ctypes.c_int
    return bool(mallopt(M_MMAP_MAX, 0)) and bool(mallopt(M_TRIM_THRESHOLD, NEVER_TRIM))
