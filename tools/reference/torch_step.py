#!/usr/bin/python3
"""Times real PyTorch training steps of an epochcost model on this machine.

The model is built from the project's own model description (data/models/NAME.json, or any file
in that format), so epochcost and PyTorch train the same architecture. Data are synthetic tensors
of the right shapes. Prints the median, p10, p90 and mean of the step time after warm-up, and
the median time the host took to make a step's calls (on a GPU, its kernels may run on after it).

    /usr/bin/python3 tools/reference/torch_step.py data/models/mnist_cnn.json --threads 1
    python3 tools/reference/torch_step.py data/models/resnet50.json --device cuda --precision bf16

Supports the layer kinds of the benchmark models and of ResNet50, BERT and GPT-2 (input, dense,
conv2d, zero padding, max/avg pooling, global average pooling, flatten, dropout, activation,
embedding, LSTM/GRU, batch and layer norm, add, multi-head attention written out as PyTorch
models write it without a fused kernel, slice, reshape, loss).

On a GPU: cudnn.benchmark is on (cuDNN picks each convolution's algorithm by timing, as
epochcost's GPU profiler does); fp32 runs without TF32 (allow_tf32 off for cuDNN and cuBLAS),
tf32 with it; bf16 and fp16 convert the whole model (weights, activations, optimizer) to that
type, as epochcost's --precision lowers it. Each step is timed from host to host with the
device synchronized. Use it to check predictions, never to produce them.

--run-log FILE appends the run to FILE in the run-log format `epochcost validate` and
`epochcost calibrate` read (docs/run-logs.md), writing the header when the file is new. The run's
target is device:NAME, NAME being the GPU's name or the CPU's /proc/cpuinfo model name followed
by its ISA extensions in brackets, as `epochcost profile` fingerprints them, so the log validates
against that device's profile on any machine; seconds_per_epoch is the median step times the steps of an epoch (the model's training
samples, or --samples, over the batch), without a validation pass.

--calls, after the timed steps, counts one step's calls through PyTorch's dispatcher per phase and
per op (docs/accuracy.md, "PyTorch's calls a step, counted").

--host-ops FILE, after the timed steps, appends the host's time per phase (zero_grad, forward,
backward, optimizer) and per top-level PyTorch op to FILE as one JSON line
(tools/reference/host_ops.py): what PyTorch's own host work costs, which a GPU step waits for when
it is host-bound (docs/accuracy.md, "The host's side of a PyTorch step, phase by phase").
"""
import argparse
import csv
import datetime
import json
import math
import mmap
import os
import resource
import sys
import time

import pin_threads  # noqa: E402,F401  (every thread pool pinned to --threads)
import torch  # noqa: E402
from torch import nn  # noqa: E402

ACT = {"relu": nn.ReLU, "tanh": nn.Tanh, "sigmoid": nn.Sigmoid, "linear": nn.Identity,
       "softmax": lambda: nn.Softmax(dim=-1), "gelu": nn.GELU, "relu6": nn.ReLU6}


class Attention(nn.Module):
    """Multi-head self-attention as BERT and GPT-2 implementations write it out: Q, K and V
    projections, scaled Q.K^T, a causal mask where asked, softmax, P.V, merged heads, output
    projection."""

    def __init__(self, d, heads, causal, bias=True):
        super().__init__()
        self.h, self.causal = heads, causal
        self.q, self.k, self.v, self.o = (nn.Linear(d, d, bias=bias) for _ in range(4))

    def forward(self, x):
        b, s, d = x.shape
        split = lambda t: t.view(b, s, self.h, d // self.h).transpose(1, 2)
        q, k, v = split(self.q(x)), split(self.k(x)), split(self.v(x))
        scores = torch.matmul(q, k.transpose(-1, -2)) / math.sqrt(d // self.h)
        if self.causal:
            mask = torch.ones(s, s, dtype=torch.bool, device=x.device).triu(1)
            scores = scores.masked_fill(mask, float("-inf"))
        y = torch.matmul(scores.softmax(dim=-1), v)
        return self.o(y.transpose(1, 2).reshape(b, s, d))


def padding_for(size, kernel, stride):
    """Keras "same" padding of one axis: (before, after)."""
    out = -(-size // stride)
    total = max((out - 1) * stride + kernel - size, 0)
    return total // 2, total - total // 2


def resolve(v, params):
    if isinstance(v, str) and v.startswith("$"):
        return params[v[1:]]
    if isinstance(v, list):
        return [resolve(x, params) for x in v]
    return v


class Net(nn.Module):
    """Runs the layers in file order; 2-D maps are kept NCHW (PyTorch's layout)."""

    def __init__(self, doc):
        super().__init__()
        params = doc.get("parameters", {})
        self.layers = [{k: resolve(v, params) for k, v in l.items()} for l in doc["layers"]]
        self.mods = nn.ModuleDict()
        self.shape = {}
        self.losses = []
        for l in self.layers:
            name, kind = l["name"], l["kind"]
            ins = l.get("inputs", [])
            src = self.shape.get(ins[0]) if ins else None
            if kind == "input":
                s = list(l["shape"])
                self.shape[name] = [s[2], s[0], s[1]] if len(s) == 3 else s
                continue
            if kind == "dense":
                m = nn.Linear(src[-1], l["units"], bias=l.get("use_bias", True))
                if "shared_weights" in l:  # tied to an embedding table (GPT-2's lm_head)
                    m.weight = self.mods[l["shared_weights"]].weight
                self.mods[name] = nn.Sequential(m, ACT[l.get("activation", "linear")]())
                self.shape[name] = src[:-1] + [l["units"]]
            elif kind == "conv2d":
                k = l["kernel"]
                k = k if isinstance(k, list) else [k, k]
                st = l.get("strides", [1, 1])
                mods = []
                if l.get("padding") == "same":
                    (t, b), (lf, r) = (padding_for(src[1], k[0], st[0]),
                                       padding_for(src[2], k[1], st[1]))
                    if t == b and lf == r:
                        conv_pad = (t, lf)
                    else:
                        mods.append(nn.ZeroPad2d((lf, r, t, b)))
                        conv_pad = 0
                else:
                    conv_pad = 0
                mods.append(nn.Conv2d(src[0], l["filters"] if "filters" in l else l["units"], k,
                                      stride=st, padding=conv_pad, bias=l.get("use_bias", True)))
                mods.append(ACT[l.get("activation", "linear")]())
                self.mods[name] = nn.Sequential(*mods)
                with torch.no_grad():
                    out = self.mods[name](torch.zeros([1] + src))
                self.shape[name] = list(out.shape[1:])
            elif kind == "zero_padding2d":
                t, b, lf, r = l["pads"]
                self.mods[name] = nn.ZeroPad2d((lf, r, t, b))
                self.shape[name] = [src[0], src[1] + t + b, src[2] + lf + r]
            elif kind in ("max_pool2d", "avg_pool2d"):
                cls = nn.MaxPool2d if kind == "max_pool2d" else nn.AvgPool2d
                self.mods[name] = cls(l["kernel"], l.get("strides"))
                with torch.no_grad():
                    out = self.mods[name](torch.zeros([1] + src))
                self.shape[name] = list(out.shape[1:])
            elif kind == "global_avg_pool2d":
                self.shape[name] = [src[0]]
            elif kind == "add":
                self.shape[name] = src
            elif kind == "layer_norm":
                self.mods[name] = nn.LayerNorm(src[-1])
                self.shape[name] = src
            elif kind == "attention":
                self.mods[name] = Attention(src[-1], l["heads"], l.get("causal", False),
                                            l.get("use_bias", True))
                self.shape[name] = src
            elif kind == "slice":
                self.shape[name] = list(src)
                self.shape[name][l["axis"]] = l["end"] - l["start"]
            elif kind == "reshape":
                self.shape[name] = list(l["target_shape"])
            elif kind == "global_avg_pool1d":
                self.shape[name] = [src[-1]]
            elif kind == "flatten":
                n = 1
                for d in src:
                    n *= d
                self.shape[name] = [n]
            elif kind == "dropout":
                self.mods[name] = nn.Dropout(l.get("rate", 0.0))
                self.shape[name] = src
            elif kind == "activation":
                self.mods[name] = ACT[l["activation"]]()
                self.shape[name] = src
            elif kind == "batch_norm":
                # Over the channels of NCHW maps, else over the last axis.
                self.mods[name] = (nn.BatchNorm2d(src[0]) if len(src) == 3
                                   else nn.BatchNorm1d(src[-1]))
                self.shape[name] = src
            elif kind == "embedding":
                self.mods[name] = nn.Embedding(l["vocab"], l["units"])
                self.shape[name] = src + [l["units"]]
            elif kind in ("lstm", "gru"):
                cls = nn.LSTM if kind == "lstm" else nn.GRU
                bi = l.get("bidirectional", False)
                self.mods[name] = cls(src[-1], l["units"], batch_first=True, bidirectional=bi)
                width = l["units"] * (2 if bi else 1)
                self.shape[name] = [src[0], width] if l.get("output") == "sequence" else [width]
            elif kind == "loss":
                self.losses.append((name, ins[0], l.get("loss"), l.get("weight", 1.0)))
                continue
            else:
                raise SystemExit("torch_step.py: layer kind '%s' (%s) is not supported" %
                                 (kind, name))

    def forward(self, inputs):
        values = dict(inputs)
        for l in self.layers:
            name, kind = l["name"], l["kind"]
            if kind in ("input", "loss"):
                continue
            x = values[l["inputs"][0]]
            if kind == "flatten":
                values[name] = x.flatten(1)
            elif kind == "global_avg_pool1d":
                values[name] = x.mean(dim=1)
            elif kind == "global_avg_pool2d":
                values[name] = x.mean(dim=(2, 3))
            elif kind == "add":
                y = x
                for other in l["inputs"][1:]:
                    y = y + values[other]
                values[name] = y
            elif kind == "slice":
                idx = [slice(None)] * x.dim()
                idx[l["axis"] + 1] = slice(l["start"], l["end"])
                values[name] = x[tuple(idx)]
            elif kind == "reshape":
                values[name] = x.reshape([x.shape[0]] + list(l["target_shape"]))
            elif kind in ("lstm", "gru"):
                y, h = self.mods[name](x)
                if l.get("output") == "sequence":
                    values[name] = y
                else:
                    h = h[0] if kind == "lstm" else h
                    values[name] = torch.cat([h[i] for i in range(h.shape[0])], dim=1)
            else:
                values[name] = self.mods[name](x)
        return values


RUN_LOG_COLUMNS = ["model", "target", "kind", "label", "batch", "precision", "optimizer",
                   "layout", "threads", "gpus", "samples", "val_samples", "seconds_per_epoch",
                   "first_epoch_seconds", "usd_per_hour", "framework", "framework_version",
                   "source", "faults_per_step", "allocator", "page_fault_us",
                   "parallel_pass_us_before", "parallel_pass_us_after"]


def page_fault_us(rounds=5):
    """What faulting in 4 KiB of fresh memory costs this process, in microseconds (the run log's
    page_fault_us): an anonymous private 64 MiB mapping touched a page at a time and unmapped, as
    epochcost's page_fault_seconds microbenchmark does (profiler/microbench.cpp), less the same
    touches of pages already there (Python's loop); the median of `rounds`. The price is the
    VM's, not the CPU model's: 1.6 us and 12 us on two VMs of the same Zen 5 CPU
    (docs/accuracy.md, "A third Zen 5 VM")."""
    size, page = 64 << 20, 4096
    costs = []
    for _ in range(rounds):
        start = time.perf_counter()
        m = mmap.mmap(-1, size, flags=mmap.MAP_PRIVATE | mmap.MAP_ANONYMOUS)
        for i in range(0, size, page):
            m[i] = 1
        faulted = time.perf_counter()
        for i in range(0, size, page):
            m[i] = 2
        touched = time.perf_counter()
        m.close()
        end = time.perf_counter()
        costs.append(((faulted - start) - (touched - faulted) + (end - touched))
                     / (size // page) * 1e6)
    costs.sort()
    return costs[len(costs) // 2]


def cpu_model():
    """The model name as epochcost's fingerprint keeps it (profiler/fingerprint.h): a masked name
    without a digit ("AMD EPYC") gets the CPUID family and model."""
    fields = {}
    with open("/proc/cpuinfo") as f:
        for line in f:
            if ":" in line:
                key, value = line.split(":", 1)
                fields.setdefault(key.strip(), value.strip())
    name = fields.get("model name") or "unknown CPU"
    family, model = fields.get("cpu family", ""), fields.get("model", "")
    if not any(c.isdigit() for c in name) and family and model:
        name += " (family %s, model %s)" % (family, model)
    return name


def cpu_isa():
    """The ISA extensions epochcost's fingerprint lists (profiler/fingerprint.cpp), in its order:
    `device:MODEL [ISA]` names the one profile of that CPU when the store holds several with the
    same model string (the development VMs' "AMD EPYC" with and without AVX-512)."""
    with open("/proc/cpuinfo") as f:
        for line in f:
            if line.startswith("flags"):
                flags = set(line.split(":", 1)[1].split())
                return " ".join(x for x in ("avx2", "fma", "avx512f", "avx512_vnni",
                                            "avx512_bf16", "amx_tile") if x in flags)
    return ""


def allocator():
    """The host allocator the run used, as its environment sets it: a preloaded library (jemalloc,
    tcmalloc) or glibc's malloc with any MALLOC_* settings; it can move a CPU step by 2x
    (docs/accuracy.md)."""
    preload = [os.path.basename(p) for p in os.environ.get("LD_PRELOAD", "").split() if p]
    tuned = sorted("%s=%s" % (k, v) for k, v in os.environ.items() if k.startswith("MALLOC_"))
    return " ".join(preload + ["glibc malloc" if not preload else ""] + tuned).strip()


def allocator_keeps():
    """Whether the allocator keeps the memory a step frees (the run log's `allocator` column,
    docs/run-logs.md): jemalloc or tcmalloc preloaded, or glibc's malloc told to keep it with
    MALLOC_TRIM_THRESHOLD_ and MALLOC_MMAP_THRESHOLD_ both set to 1 GiB or more (what this
    project measured: docs/accuracy.md, "Glibc's page faults, replayed")."""
    preload = os.environ.get("LD_PRELOAD", "")
    if "jemalloc" in preload or "tcmalloc" in preload:
        return True

    def at_least_1g(key):
        try:
            return int(os.environ.get(key, "0")) >= 1 << 30
        except ValueError:
            return False
    return at_least_1g("MALLOC_TRIM_THRESHOLD_") and at_least_1g("MALLOC_MMAP_THRESHOLD_")


def thread_runtime():
    """OpenMP settings the environment gives the run (OMP_WAIT_POLICY, GOMP_SPINCOUNT, ...), or
    "defaults": the wait policy alone moved a 2-thread CPU step by up to 2.9x either way on a
    2-vCPU VM (docs/accuracy.md). OMP_NUM_THREADS is the run's thread count, set by pin_threads."""
    keys = sorted(k for k in os.environ
                  if (k.startswith("OMP_") or k.startswith("GOMP_") or k.startswith("KMP_"))
                  and k != "OMP_NUM_THREADS")
    return " ".join("%s=%s" % (k, os.environ[k]) for k in keys) or "defaults"


def recipe(a):
    """How the step was run beyond the model, batch, precision and optimizer: "plain" (the whole
    model in --precision, NCHW: what epochcost's profiler measures), or "amp" and/or
    "channels_last"."""
    parts = (["amp"] if a.amp else []) + (["channels_last"] if a.channels_last else [])
    return ",".join(parts) or "plain"


def parallel_pass_us(threads, calls=2000):
    """What one of ATen's parallel passes costs beyond its work at `threads` threads, in
    microseconds: an add over 65,536 floats (two of ATen's 32,768-element grains) timed at
    `threads` and at 1 thread, the median of `calls` each, the first less the second's share of
    one thread. Where a VM's vCPUs run on cores whose caches lie far apart every pass pays for it:
    on a 2-vCPU Zen 4 VM 1.1 us when a cache line took ~60 ns there and back between them, 3.3 us
    when it took ~370 ns (docs/accuracy.md, "Near and far vCPUs"). The thread count is restored."""
    x, y, z = torch.rand(65536), torch.rand(65536), torch.empty(65536)

    def median_ns(n):
        ts = []
        for _ in range(n):
            t = time.perf_counter_ns()
            torch.add(x, y, out=z)
            ts.append(time.perf_counter_ns() - t)
        ts.sort()
        return ts[len(ts) // 2]

    torch.set_num_threads(threads)
    median_ns(200)  # warm-up
    many = median_ns(calls)
    torch.set_num_threads(1)
    median_ns(200)
    one = median_ns(calls)
    torch.set_num_threads(threads)
    return max(0.0, (many - one / threads) * 1e-3)


def sched_counters():
    """This process's CPU seconds (all its threads), voluntary and involuntary context switches,
    and the machine's idle (idle + iowait) and stolen seconds from /proc/stat's cpu line."""
    r = resource.getrusage(resource.RUSAGE_SELF)
    with open("/proc/stat") as f:
        fields = [int(v) for v in f.readline().split()[1:]]
    hz = os.sysconf("SC_CLK_TCK")
    stolen = fields[7] if len(fields) > 7 else 0
    return (time.process_time(), r.ru_nvcsw, r.ru_nivcsw, (fields[3] + fields[4]) / hz,
            stolen / hz)


def print_sched(name, threads, sched):
    """--sched: one line each for the fast steps (under 1.5x the fastest) and the slow ones."""
    fastest = min(s[0] for s in sched)
    for mode, steps in (("fast", [s for s in sched if s[0] < 1.5 * fastest]),
                        ("slow", [s for s in sched if s[0] >= 1.5 * fastest])):
        if not steps:
            print("%s threads=%d sched %s steps=0" % (name, threads, mode))
            continue
        n, wall = len(steps), sum(s[0] for s in steps)
        total = lambda k: sum(s[k] for s in steps)
        print("%s threads=%d sched %s steps=%d mean_ms=%.3f cpu_per_wall=%.2f "
              "voluntary_per_step=%.1f involuntary_per_step=%.1f idle_cpus=%.2f stolen_cpus=%.3f"
              % (name, threads, mode, n, wall / n * 1e3, total(1) / wall, total(2) / n,
                 total(3) / n, total(4) / wall, total(5) / wall), flush=True)


def write_run_log(a, doc, dev, batch, opt_name, median, p10, p90, mean):
    device = torch.cuda.get_device_name(dev) if dev.type == "cuda" else cpu_model()
    target = device
    if dev.type != "cuda" and cpu_isa():
        target += " [%s]" % cpu_isa()
    samples = a.samples or doc.get("training", {}).get("samples", 0)
    if samples <= 0:
        raise SystemExit("--run-log: the model has no training samples; give --samples N")
    steps = math.ceil(samples / batch)
    new = not os.path.exists(a.run_log) or os.path.getsize(a.run_log) == 0
    if not new:
        with open(a.run_log, newline="") as f:
            if next(csv.reader(f), None) != RUN_LOG_COLUMNS:
                sys.exit("%s: its header is not this harness's (%s); write to a new file"
                         % (a.run_log, ",".join(RUN_LOG_COLUMNS)))
    with open(a.run_log, "a", newline="") as f:
        w = csv.writer(f, lineterminator="\n")
        if new:
            w.writerow(RUN_LOG_COLUMNS)
        cpu = dev.type != "cuda"
        # Autocast runs are precision amp (fp16) or amp-bf16, as epochcost's --precision names them.
        precision = ("amp" if a.precision == "fp16" else "amp-bf16") if a.amp else a.precision
        w.writerow([doc["name"], a.target or "device:" + target, "on-demand", device, batch, precision, opt_name,
                    "nhwc" if a.channels_last else "", a.threads if cpu else "",
                    "" if cpu else 1, samples, 0,
                    "%.6g" % ((mean if a.epoch_from == "mean" else median) * steps), "", "",
                    "pytorch", torch.__version__,
                    "tools/reference/torch_step.py %s: %s of %d steps after %d warm-up "
                    "(median %.3f ms, p10 %.3f ms, p90 %.3f ms, mean %.3f ms; host %.3f ms) x %d "
                    "steps; %.0f minor page faults per step at %.2f us each; allocator: %s; "
                    "OpenMP: %s; recipe: %s; lr %g" %
                    (datetime.date.today().isoformat(), a.epoch_from, a.steps, a.warmup,
                     median * 1e3, p10 * 1e3, p90 * 1e3, mean * 1e3, a.host_ms, steps,
                     a.faults_per_step, a.page_fault_us,
                     allocator(), thread_runtime(),
                     recipe(a), a.lr), "%.0f" % a.faults_per_step,
                    ("keeps" if allocator_keeps() else "returns") if cpu else "",
                    "%.2f" % a.page_fault_us if cpu else ""] +
                   (["%.2f" % v for v in a.parallel_pass] if a.parallel_pass else ["", ""]))


def count_calls(step, name, batch):
    """Prints the calls one training step makes through PyTorch's dispatcher, per phase
    (dispatch_calls.py), to compare with the framework calls `epochcost models ops MODEL
    --batch B` counts (its last line)."""
    from dispatch_calls import DispatchCalls

    calls = DispatchCalls()

    def mark(phase):
        calls.phase = phase

    with calls:
        step(mark)
    counts = calls.counts()
    phases = {}
    for (phase, _), n in counts.items():
        phases[phase] = phases.get(phase, 0) + n
    print("calls %s batch=%d total=%d %s" % (
        name, batch, sum(phases.values()),
        " ".join("%s=%d" % (p, phases[p]) for p in ("zero_grad", "forward", "backward",
                                                      "optimizer") if p in phases)))
    for (phase, op), n in sorted(counts.items(), key=lambda kv: -kv[1])[:25]:
        print("  %-9s %-32s %6d" % (phase, op, n))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("model")
    ap.add_argument("--threads", type=int, default=1)
    ap.add_argument("--batch", type=int, default=0)
    ap.add_argument("--steps", type=int, default=30)
    ap.add_argument("--warmup", type=int, default=5)
    ap.add_argument("--device", default="cpu", help="cpu or cuda")
    ap.add_argument("--precision", default="fp32", help="fp32, tf32 (cuda), bf16 or fp16")
    ap.add_argument("--kernels", type=int, default=0,
                    help="also list the N kernels with the most device time over "
                         "--kernel-steps steps (torch.profiler), to see what the framework ran")
    ap.add_argument("--kernel-steps", type=int, default=3,
                    help="steps the --kernels listing covers (default 3)")
    ap.add_argument("--kernel-shapes", action="store_true",
                    help="list the --kernels by input shapes too (record_shapes)")
    ap.add_argument("--optimizer", default="",
                    help="sgd, momentum, rmsprop, adam, adamw or adadelta (default: the model's)")
    ap.add_argument("--channels-last", action="store_true",
                    help="4-D tensors in channels-last (NHWC) memory format, as NVIDIA's "
                         "ResNet50 recipe trains; not what epochcost's profiler measures")
    ap.add_argument("--amp", action="store_true",
                    help="automatic mixed precision: fp32 weights, the step under autocast to "
                         "--precision (fp16 with a gradient scaler, or bf16); not what "
                         "epochcost's profiler measures")
    ap.add_argument("--run-log", help="append the run to this run-log CSV (docs/run-logs.md)")
    ap.add_argument("--target", default="",
                    help="--run-log's target column instead of device:NAME: the instance the run "
                         "was on (gcp:n1-highcpu-16, aws:g5.xlarge), so that `epochcost validate` "
                         "compares it with that instance's prediction")
    ap.add_argument("--calls", action="store_true",
                    help="after the timed steps, count one step's calls through PyTorch's "
                         "dispatcher, per phase and per op (TorchDispatchMode)")
    ap.add_argument("--host-ops",
                    help="after the timed steps, append the host's time per phase and per "
                    "top-level PyTorch op to this JSON-lines file (tools/reference/host_ops.py)")
    ap.add_argument("--epoch-from", choices=["median", "mean"], default="median",
                    help="the step statistic --run-log multiplies by the steps of an epoch: "
                    "median (default, issue 3's reference) or mean (what an epoch takes: at 2 "
                    "threads on a 2-vCPU VM up to 2x the median, docs/accuracy.md)")
    ap.add_argument("--samples", type=int, default=0,
                    help="training samples per epoch for --run-log (default: the model's)")
    ap.add_argument("--sched", action="store_true",
                    help="also print, for the timed steps split into fast ones (under 1.5x the "
                    "fastest) and slow ones, the process's CPU seconds per wall second and its "
                    "voluntary and involuntary context switches a step, and the machine's idle "
                    "and stolen time (/proc/stat): whether a slow step waited for a core or slept")
    ap.add_argument("--window-file",
                    help="write the CLOCK_MONOTONIC seconds at which the timed steps start and "
                    "end to this file (tools/reference/perf_ops.py keeps perf's samples between "
                    "them)")
    a = ap.parse_args()
    torch.set_num_threads(a.threads)
    torch.manual_seed(0)
    dev = torch.device(a.device)
    dtype = {"fp32": torch.float32, "tf32": torch.float32, "bf16": torch.bfloat16,
             "fp16": torch.float16}[a.precision]
    if dev.type == "cuda":
        torch.backends.cudnn.benchmark = True
        torch.backends.cudnn.allow_tf32 = a.precision == "tf32"
        torch.backends.cuda.matmul.allow_tf32 = a.precision == "tf32"
    sync = torch.cuda.synchronize if dev.type == "cuda" else (lambda: None)
    doc = json.load(open(a.model))
    train = doc.get("training", {})
    batch = a.batch or train.get("batch", 32)
    net = Net(doc)
    amp_dtype = dtype if a.amp else None
    if a.amp:
        if a.precision not in ("fp16", "bf16"):
            raise SystemExit("--amp needs --precision fp16 or bf16")
        dtype = torch.float32  # weights, inputs and optimizer stay fp32 under autocast
    net.to(device=dev, dtype=dtype)
    if a.channels_last:
        net.to(memory_format=torch.channels_last)
    for m in net.modules():  # a dtype change leaves cuDNN's packed RNN weights unpacked
        if isinstance(m, nn.RNNBase):
            m.flatten_parameters()
    inputs = {}
    for l in net.layers:
        if l["kind"] != "input":
            continue
        s = net.shape[l["name"]]
        if l.get("dtype", "").startswith("int"):
            consumer = next(c for c in net.layers if l["name"] in c.get("inputs", []))
            inputs[l["name"]] = torch.randint(0, consumer.get("vocab", 2), [batch] + s,
                                              device=dev)
        else:
            inputs[l["name"]] = torch.rand([batch] + s, device=dev, dtype=dtype)
            if a.channels_last and inputs[l["name"]].dim() == 4:
                inputs[l["name"]] = inputs[l["name"]].contiguous(memory_format=torch.channels_last)
    opt_name = a.optimizer or train.get("optimizer", "sgd")
    # The model's own learning rate where it gives one and its optimizer is the one trained:
    # data-dependent kernels (max pooling) run at the speed of the activations training leaves
    # them, and cifar10_cnn's RMSprop at 10x its authors' rate kills most of its ReLUs within
    # three steps (docs/accuracy.md, "Max pooling runs at the speed of its data").
    own = train.get("learning_rate") if opt_name == train.get("optimizer") else None
    lr = lambda default: own or default
    opt = {"sgd": lambda p: torch.optim.SGD(p, lr=lr(0.01)),
           "momentum": lambda p: torch.optim.SGD(p, lr=lr(0.01), momentum=0.9),
           "rmsprop": lambda p: torch.optim.RMSprop(p, lr=lr(0.001)),
           "adam": lambda p: torch.optim.Adam(p, lr=lr(0.001)),
           "adamw": lambda p: torch.optim.AdamW(p, lr=lr(0.001)),
           "adadelta": lambda p: torch.optim.Adadelta(p, lr=lr(1.0))}[opt_name](net.parameters())
    a.lr = opt.param_groups[0]["lr"]
    targets = {}
    for name, src, fn, w in net.losses:
        width = net.shape[src][-1]
        if fn == "binary_crossentropy":
            targets[name] = torch.randint(0, 2, (batch, width), device=dev).to(dtype)
        elif fn == "mse":
            targets[name] = torch.rand([batch] + net.shape[src], device=dev, dtype=dtype)
        else:
            targets[name] = torch.randint(0, width, (batch,) + tuple(net.shape[src][:-1]),
                                          device=dev)

    scaler = None
    if amp_dtype == torch.float16 and dev.type == "cuda":
        scaler = (torch.amp.GradScaler("cuda") if hasattr(torch.amp, "GradScaler")
                  else torch.cuda.amp.GradScaler())

    def step(mark=lambda phase: None):
        # mark(PHASE) as each phase starts, mark(None) at the end (--host-ops times them).
        mark("zero_grad")
        opt.zero_grad()
        mark("forward")
        if amp_dtype is not None:
            with torch.autocast(device_type=dev.type, dtype=amp_dtype):
                total = forward()
        else:
            total = forward()
        mark("backward")
        if scaler:
            scaler.scale(total).backward()
            mark("optimizer")
            scaler.step(opt)
            scaler.update()
        else:
            total.backward()
            mark("optimizer")
            opt.step()
        mark(None)

    def forward():
        values = net(inputs)
        total = 0
        for name, src, fn, w in net.losses:
            p = values[src]
            if fn == "binary_crossentropy":
                if p.dtype == torch.bfloat16 and p.device.type == "cpu":
                    # PyTorch 1.13 has no bf16 binary_cross_entropy on a CPU: cast up, as a
                    # user must (two small casts the lowering does not charge).
                    p = p.float()
                total = total + w * nn.functional.binary_cross_entropy(p, targets[name].to(p.dtype))
            elif fn == "mse":
                total = total + w * nn.functional.mse_loss(p, targets[name])
            elif fn in ("categorical_crossentropy",):
                total = total + w * nn.functional.nll_loss(torch.log(p + 1e-7), targets[name])
            else:
                logits = p.reshape(-1, p.shape[-1])
                total = total + w * nn.functional.cross_entropy(logits, targets[name].reshape(-1))
        return total

    net.train()
    cpu_threads = dev.type != "cuda" and a.threads > 1
    for _ in range(a.warmup):
        step()
    sync()
    # After the warm-up, with the thread pools started and their memory in place: timed before
    # it, 5 of 18 runs of one log read 5.7-6.1 us between two near cache-line round trips
    # (docs/accuracy.md, "vCPU placement in `validate`").
    a.parallel_pass = [parallel_pass_us(a.threads)] if cpu_threads else []
    times, host = [], []
    faults = resource.getrusage(resource.RUSAGE_SELF).ru_minflt
    window_start = time.clock_gettime(time.CLOCK_MONOTONIC)
    sched = []  # --sched: (wall, cpu, voluntary, involuntary, idle, stolen) a step
    for _ in range(a.steps):
        before = sched_counters() if a.sched else None
        t = time.perf_counter()
        step()
        # On a GPU, the host's part: the step's calls returned, its kernels maybe still running.
        host.append(time.perf_counter() - t)
        sync()
        times.append(time.perf_counter() - t)
        if a.sched:
            after = sched_counters()
            sched.append((times[-1],) + tuple(y - x for x, y in zip(before, after)))
    if a.window_file:
        with open(a.window_file, "w") as f:
            f.write("%.6f %.6f %d\n" % (window_start, time.clock_gettime(time.CLOCK_MONOTONIC),
                                        a.steps))
    if cpu_threads:
        a.parallel_pass.append(parallel_pass_us(a.threads))
    host.sort()
    a.host_ms = host[len(host) // 2] * 1e3
    # Pages the timed steps faulted in: on a CPU mostly memory glibc returned to the kernel and
    # the next step touched again (docs/accuracy.md, "Where the remaining gap is").
    a.faults_per_step = (resource.getrusage(resource.RUSAGE_SELF).ru_minflt - faults) / a.steps
    a.page_fault_us = page_fault_us() if dev.type != "cuda" else 0.0
    times.sort()
    q = lambda f: times[min(len(times) - 1, int(f * (len(times) - 1) + 0.5))]
    if a.kernels:
        from torch.profiler import ProfilerActivity, profile
        acts = [ProfilerActivity.CPU] + ([ProfilerActivity.CUDA] if dev.type == "cuda" else [])
        with profile(activities=acts, record_shapes=a.kernel_shapes) as prof:
            for _ in range(a.kernel_steps):
                step()
            sync()
        key = "self_cuda_time_total" if dev.type == "cuda" else "self_cpu_time_total"
        print(prof.key_averages(group_by_input_shape=a.kernel_shapes).table(
            sort_by=key, row_limit=a.kernels, max_name_column_width=70,
            max_shapes_column_width=60))
    where = (torch.cuda.get_device_name(dev) if dev.type == "cuda"
             else "threads=%d" % a.threads)
    # The mean beside the median: an epoch takes the sum of its steps, and where steps are
    # bimodal (two thread pools on two vCPUs) the two differ by up to 3x (docs/accuracy.md).
    print("%s device=%s precision=%s batch=%d optimizer=%s median_ms=%.3f p10_ms=%.3f "
          "p90_ms=%.3f mean_ms=%.3f host_ms=%.3f torch=%s recipe=%s lr=%g%s" %
          (doc["name"], where.replace(" ", "_"), a.precision, batch, opt_name, q(0.5) * 1e3,
           q(0.1) * 1e3, q(0.9) * 1e3, sum(times) / len(times) * 1e3, a.host_ms,
           torch.__version__, recipe(a), a.lr,
           " parallel_pass_us=%.2f,%.2f" % tuple(a.parallel_pass) if a.parallel_pass else ""),
          flush=True)
    if a.sched:
        print_sched(doc["name"], a.threads, sched)
    if a.calls:
        count_calls(step, doc["name"], batch)
    if a.host_ops:
        import host_ops
        host_ops.measure(step, sync, a.steps, 5,
                         {"model": doc["name"], "device": dev.type, "device_name": where,
                          "precision": a.precision, "amp": a.amp, "batch": batch,
                          "optimizer": opt_name, "torch": torch.__version__,
                          "host_cpu": cpu_model(), "step_ms": round(q(0.5) * 1e3, 4),
                          "params": sum(1 for _ in net.parameters())}, a.host_ops)
    # After the step line, so that a run-log error does not lose the measurement.
    if a.run_log:
        write_run_log(a, doc, dev, batch, opt_name, q(0.5), q(0.1), q(0.9),
                      sum(times) / len(times))


if __name__ == "__main__":
    main()
