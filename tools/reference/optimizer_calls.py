#!/usr/bin/python3
"""Counts the ATen calls torch.optim's default update makes per parameter tensor on this CPU
(PyTorch's for-loop implementation, foreach off), with zero_grad's zero_ and the autograd
engine's accumulation of each new gradient (AccumulateGrad's add_ into the zeroed gradient): the
source of EagerOptimizerCalls (engine/eager_optimizer.cpp). Calls are counted as they reach the
dispatcher's Python key (TorchDispatchMode); each count is the difference between the same call
over two parameter tensors and over one, so the calls made once per step (the profiling hooks'
record_function) drop out. A check for the lowering, never an input to a prediction.

    /usr/bin/python3 tools/reference/optimizer_calls.py
"""
import torch
from dispatch_calls import DispatchCalls

OPTIMIZERS = {
    "sgd": lambda p: torch.optim.SGD(p, lr=0.01),
    "momentum": lambda p: torch.optim.SGD(p, lr=0.01, momentum=0.9),
    "rmsprop": lambda p: torch.optim.RMSprop(p, lr=0.001),
    "adam": lambda p: torch.optim.Adam(p, lr=0.001),
    "adamw": lambda p: torch.optim.AdamW(p, lr=0.001),
    "adadelta": lambda p: torch.optim.Adadelta(p, lr=1.0),
}


def calls(alg, tensors):
    """The calls of zero_grad, of the backward pass's accumulations and of step()."""
    params = [torch.nn.Parameter(torch.randn(10)) for _ in range(tensors)]
    opt = OPTIMIZERS[alg](params)

    def backward():
        sum((w * w).sum() for w in params).backward()

    for _ in range(3):  # past the first steps, which make the state
        opt.zero_grad()
        backward()
        opt.step()
    out = []
    for f in (opt.zero_grad, backward, opt.step):
        with DispatchCalls() as c:
            f()
        out.append(c.names())
    # The backward pass's accumulations: the add_ after each parameter's own gradient ops.
    out[1] = [n for n in out[1] if n == "add_"]
    return out


def main():
    print("torch %s" % torch.__version__)
    print("%-9s %9s %10s %4s %5s  step()'s calls for one tensor" %
          ("optimizer", "zero_grad", "accumulate", "step", "total"))
    for alg in OPTIMIZERS:
        one, two = calls(alg, 1), calls(alg, 2)
        per = [len(b) - len(a) for a, b in zip(one, two)]
        print("%-9s %9d %10d %4d %5d  %s" % (alg, per[0], per[1], per[2], sum(per),
                                              " ".join(one[2][-per[2]:])))


if __name__ == "__main__":
    main()
