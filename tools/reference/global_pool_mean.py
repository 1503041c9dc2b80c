#!/usr/bin/python3
"""How PyTorch runs a global average pooling over a sequence, against the oneDNN pooling the CPU
lowering times for it (docs/accuracy.md, "Where the remaining gap is").

imdb_fasttext's GlobalAveragePooling1D is x.mean(dim=1) over [32, 400, 50] in the reference
harness (tools/reference/torch_step.py), as in PyTorch models; epochcost lowers it as oneDNN
average pooling with a 400-wide window. Prints the median of 200 calls, 1 thread, of the mean
alone, the mean with its backward, and avg_pool1d over the same values laid out NCW.
    /usr/bin/python3 tools/reference/global_pool_mean.py
"""
from framework_costs import median_seconds  # pins every thread pool to 1 thread
import torch  # noqa: E402

torch.set_num_threads(1)


def median_ms(f):
    return median_seconds(f, repeats=200, warmup=20) * 1e3


def main():
    x = torch.randn(32, 400, 50, requires_grad=True)
    grad = torch.randn(32, 50)

    def forward_backward():
        x.mean(dim=1).backward(grad)

    ncw = x.detach().transpose(1, 2).contiguous()
    print("mean(dim=1) forward            %.3f ms" % median_ms(lambda: x.mean(dim=1)))
    print("mean(dim=1) forward + backward %.3f ms" % median_ms(forward_backward))
    print("avg_pool1d(400) forward, NCW   %.3f ms" %
          median_ms(lambda: torch.nn.functional.avg_pool1d(ncw, 400)))


if __name__ == "__main__":
    main()
