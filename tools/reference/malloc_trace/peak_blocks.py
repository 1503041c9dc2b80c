#!/usr/bin/python3
"""The large blocks of one traced training step (a trace_step.py trace, shim.c's line format):
for each size threshold, the bytes the step allocates in blocks at least that large, the most of
them live at once (the step's peak above what was live when the trace began), and what is still
live at its end. Checking only (docs/accuracy.md, "Glibc's page faults against the step's large
blocks"): it compares what a step's tensors come to with the minor faults PyTorch takes when glibc
returns that memory; nothing here feeds a prediction.

    /usr/bin/python3 tools/reference/malloc_trace/peak_blocks.py /tmp/mnist_cnn.trace [...]
"""
import sys

import trace_lines

THRESHOLDS = (64 << 10, 256 << 10, 1 << 20)


def main(paths):
    if not paths:
        sys.exit("usage: peak_blocks.py TRACE...")
    for path in paths:
        size = {}  # address -> bytes, of the blocks the trace saw allocated
        allocated = dict.fromkeys(THRESHOLDS, 0)
        live = dict.fromkeys(THRESHOLDS, 0)
        peak = dict.fromkeys(THRESHOLDS, 0)

        def add(n):
            for t in THRESHOLDS:
                if n >= t:
                    allocated[t] += n
                    live[t] += n
                    peak[t] = max(peak[t], live[t])

        def remove(n):
            for t in THRESHOLDS:
                if n >= t:
                    live[t] -= n

        for op, address, old_address, n in trace_lines.events(path, "peak_blocks.py"):
            if op in "+ca":
                size[address] = n
                add(n)
            elif op == "-":
                remove(size.pop(address, 0))  # a block from before the trace: not counted
            elif op == "r":
                remove(size.pop(old_address, 0))
                size[address] = n
                add(n)
        mib = 1 << 20
        print(path + ": " + "; ".join(
            ">= %d KiB: allocated %.1f MiB, peak %.1f MiB (%d pages), live at the end %.1f MiB"
            % (t >> 10, allocated[t] / mib, peak[t] / mib, peak[t] // 4096, live[t] / mib)
            for t in THRESHOLDS))


if __name__ == "__main__":
    main(sys.argv[1:])
