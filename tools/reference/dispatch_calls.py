"""Counts the calls that reach PyTorch's dispatcher, as they reach its Python key
(TorchDispatchMode: below autograd, so each kernel call once, view ops such as t() and
unsafe_split included, autograd's own bookkeeping not). Used by optimizer_calls.py and
torch_step.py --calls; never an input to a prediction.

    with DispatchCalls() as calls:
        calls.phase = "forward"   # optional: counts are kept per (phase, op)
        ...
    calls.names()                 # the ops in call order
    calls.counts()                # {(phase, op): calls}
"""
from torch.utils._python_dispatch import TorchDispatchMode


class DispatchCalls(TorchDispatchMode):
    def __init__(self):
        super().__init__()
        self.phase = None
        self.calls = []  # (phase, op name), in call order

    def __torch_dispatch__(self, func, types, args=(), kwargs=None):
        self.calls.append((self.phase, func.overloadpacket.__name__))
        return func(*args, **(kwargs or {}))

    def names(self):
        return [name for _, name in self.calls]

    def counts(self):
        out = {}
        for key in self.calls:
            out[key] = out.get(key, 0) + 1
        return out
