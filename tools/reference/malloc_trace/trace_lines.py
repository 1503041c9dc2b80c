"""Reads a trace in shim.c's line format ("OP ADDRESS OLD_ADDRESS BYTES THREAD"), for the
checking scripts beside it (peak_blocks.py, heap_sim.py)."""
import os
import sys


def events(path, program):
    """Yields (op, address, old_address, size) for each line of the trace at `path`: op '+'
    malloc, 'c' calloc, 'a' aligned allocation, '-' free, 'r' realloc (old_address the block it
    replaces), 'm' a mark between steps. Exits with a line naming the file and line on a line
    that is not a trace line, or when there is no such file (`program` names the caller)."""
    if not os.path.isfile(path):
        sys.exit("%s: %s: no such trace file" % (program, path))
    with open(path) as f:
        for number, line in enumerate(f, 1):
            p = line.split()
            if not p:
                continue
            try:
                if p[0] not in "+ca-rm" or len(p[0]) != 1:
                    raise ValueError(p[0])
                yield p[0], p[1], p[2], int(p[3])
            except (IndexError, ValueError):
                sys.exit("%s:%d: not a trace line (OP ADDRESS OLD_ADDRESS BYTES THREAD)"
                         % (path, number))
