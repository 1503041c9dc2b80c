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

        with open(path) as f:
            for number, line in enumerate(f, 1):
                p = line.split()
                if not p:
                    continue
                try:
                    if p[0] in "+ca":
                        size[p[1]] = int(p[3])
                        add(int(p[3]))
                    elif p[0] == "-":
                        remove(size.pop(p[1], 0))  # a block from before the trace: not counted
                    elif p[0] == "r":
                        remove(size.pop(p[2], 0))
                        size[p[1]] = int(p[3])
                        add(int(p[3]))
                except (IndexError, ValueError):
                    sys.exit("%s:%d: not a trace line (OP ADDRESS OLD_ADDRESS BYTES THREAD)"
                             % (path, number))
        mib = 1 << 20
        print(path + ": " + "; ".join(
            ">= %d KiB: allocated %.1f MiB, peak %.1f MiB (%d pages), live at the end %.1f MiB"
            % (t >> 10, allocated[t] / mib, peak[t] / mib, peak[t] // 4096, live[t] / mib)
            for t in THRESHOLDS))


if __name__ == "__main__":
    main(sys.argv[1:])
