#!/usr/bin/python3
"""A model of glibc's main-arena heap (checking only; nothing here feeds a prediction), fed by a
whole-process trace of trace_step.py --from-start (shim.c's line format): the pages each step
faults in when its blocks are placed best-fit in the heap's free chunks, else at its top; blocks
at or above the mmap threshold mapped on their own; the threshold raised to each mapped block
freed (at most 32 MiB) and the trim threshold to twice it; the top returned to the kernel, less
128 KiB, when a free of at least 64 KiB leaves it at least that large. Steps are the trace's 'm'
marks.

    /usr/bin/python3 tools/reference/malloc_trace/heap_sim.py /tmp/mnist_cnn.whole [MIN_BYTES]

MIN_BYTES (default 0) leaves out the blocks smaller than it. docs/accuracy.md (section "The
tenth Zen 4 VM") compares it with what glibc did: it is glibc's rules in outline, not its bins,
and reads mnist_cnn's heap at about half of what glibc grows it by.
"""
import sys

import trace_lines

PAGE = 4096
MMAP_MAX = 32 << 20
TOP_PAD = 128 << 10
CONSOLIDATION = 64 << 10  # glibc's FASTBIN_CONSOLIDATION_THRESHOLD: a smaller free never trims


def up(x, a):
    return (x + a - 1) // a * a


class Heap:
    def __init__(self):
        self.mmap_threshold = 128 << 10
        self.trim_threshold = 128 << 10
        self.top = 0        # where the top chunk starts
        self.mapped = 0     # the heap's end (brk)
        self.resident = 0   # the end of the pages already faulted in
        self.free = {}      # start -> size of each free chunk below the top
        self.free_at_end = {}  # end -> start of the same chunks
        self.live = {}      # address in the trace -> (start, size, mapped on its own)
        self.faults = 0

    @staticmethod
    def chunk(n):
        return max(32, up(n + 8, 16))

    def touch(self, end):
        """Faults in the pages up to `end` that are not resident yet."""
        if up(end, PAGE) > up(self.resident, PAGE):
            self.faults += (up(end, PAGE) - up(self.resident, PAGE)) // PAGE
        self.resident = max(self.resident, end)

    def malloc(self, key, n):
        size = self.chunk(n)
        if size >= self.mmap_threshold:
            self.faults += up(n + 16, PAGE) // PAGE
            self.live[key] = (0, up(n + 16, PAGE), True)
            return
        fits = [(s, a) for a, s in self.free.items() if s >= size]
        if fits:
            s, a = min(fits)
            del self.free[a], self.free_at_end[a + s]
            if s - size >= 32:
                self.free[a + size] = s - size
                self.free_at_end[a + s] = a + size
            else:
                size = s
            self.live[key] = (a, size, False)
            return
        start = self.top
        self.top += size
        if self.top > self.mapped:
            self.mapped = up(self.top + TOP_PAD, PAGE)
        self.touch(self.top)
        self.live[key] = (start, size, False)

    def release(self, key):
        if key not in self.live:
            return  # allocated before the trace began
        start, size, mapped = self.live.pop(key)
        if mapped:
            if self.mmap_threshold < size <= MMAP_MAX:
                self.mmap_threshold = size
                self.trim_threshold = 2 * size
            return
        freed = size
        if start in self.free_at_end:  # merge with the free chunk below
            below = self.free_at_end.pop(start)
            size += self.free.pop(below)
            start = below
        end = start + size
        if end == self.top:
            self.top = start
            if freed >= CONSOLIDATION and self.mapped - self.top >= self.trim_threshold:
                self.mapped = up(self.top + TOP_PAD, PAGE)
                self.resident = min(self.resident, self.mapped)
            return
        if end in self.free:  # merge with the free chunk above
            above = self.free.pop(end)
            del self.free_at_end[end + above]
            size += above
        self.free[start] = size
        self.free_at_end[start + size] = start


def main(path, min_bytes):
    heap, per_step, before = Heap(), [], 0
    for op, address, old_address, size in trace_lines.events(path, "heap_sim.py"):
        if op == "m":
            per_step.append(heap.faults - before)
            before = heap.faults
        elif op in "+ca":
            if size >= min_bytes:
                heap.malloc(address, size)
        elif op == "-":
            heap.release(address)
        elif op == "r":
            heap.release(old_address)
            if size >= min_bytes:
                heap.malloc(address, size)
    per_step.append(heap.faults - before)
    print("%s: modelled faults of each step (from the trace's start to its first mark, then "
          "mark to mark): %s" % (path, " ".join(str(n) for n in per_step)))


if __name__ == "__main__":
    if len(sys.argv) not in (2, 3):
        sys.exit("usage: heap_sim.py TRACE [MIN_BYTES]")
    main(sys.argv[1], int(sys.argv[2]) if len(sys.argv) > 2 else 0)
