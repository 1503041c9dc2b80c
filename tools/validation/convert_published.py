#!/usr/bin/env python3
"""Converts ../shared/validation/published-runs.csv (the published runs collected for this
project) into the run-log format `epochcost validate` reads (docs/run-logs.md), written to
data/validation/published-runs.csv. Usage: convert_published.py SOURCE.csv [--with-isa] > OUT.csv

--with-isa adds the isa column (the vector set each CPU run's TensorFlow was built for). The
shipped log leaves it out: docs/accuracy.md ("The framework build's instruction set") measures
why, and this flag reproduces that experiment.

Every value comes from the source row; the only mappings are from the source's machine
descriptions to epochcost targets, from model names to the samples each epoch ran (the scripts'
data sets, ../shared/validation/published-models.md), and to the CPU time of a script's input
pipeline per sample (INPUT_MS, measured, not from the source)."""
import csv
import re
import sys

# Training and validation samples per epoch, from the benchmark scripts.
SAMPLES = {
    "mnist_mlp": (60000, 10000),
    "mnist_cnn": (60000, 10000),
    "cifar10_cnn": (49984, 10000),  # fit_generator: 1562 steps of 32
    "imdb_fasttext": (25000, 25000),
    "imdb_bidirectional_lstm": (25000, 25000),
    "lstm_text_generation": (200285, 0),
    "text_generator_keras": (200285, 0),
}
MODEL = {"tf_lstm_char_cnn": "lstm_char_cnn"}
# How recurrent layers ran (../shared/validation/published-models.md): Woolf's July 2017 Keras 2.0
# LSTM (implementation 0 or 2) runs Keras' per-step loop (K.rnn) on CPU and GPU alike (CuDNNLSTM
# only came with the Nov 2017 scripts, none of which are here), and tf-lstm-char-cnn unrolls 35
# BasicLSTMCell steps statically; neither ran a fused RNN kernel.
RNN = "unrolled"
# The input pipeline's CPU time per training sample, milliseconds of one vCPU (the run log's
# input_ms_per_sample). Woolf's cifar10_cnn trains through Keras' ImageDataGenerator (shifts of
# 0.1 and horizontal flips, in Python and NumPy on the host, one generator worker:
# published-models.md, section 2.3); the other scripts feed in-memory arrays. Measured by
# tools/reference/keras_augment_cost.py --shape 32,32,3 --shift 0.1 --flip on the ninth Zen 4
# development VM, 2026-12-02 (tools/validation/runs/zen4-ninth-keras-augment.txt): a 2026 core,
# so a lower bound for the 2017 GCE vCPUs, whose speed at this work no source gives.
INPUT_MS = {"cifar10_cnn": "0.123"}
# The model parameters a script sets at run time and the source does not give (the run log's
# unstated column: `validate` reports such a run, `calibrate` fits nothing to it). Woolf's
# imdb_fasttext.py (ngram_range = 2) sizes its embedding table as 20,001 plus the distinct
# bigrams of the IMDB training set, a count it computes and prints but the logs do not keep.
UNSTATED = {"imdb_fasttext": "max_features"}


def isa(row):
    """The vector instructions a CPU run's TensorFlow was built for (docs/run-logs.md). The notes
    give the flags of a build compiled from source (Woolf: -mavx -mavx2 -mfma). A prebuilt
    TensorFlow before 1.6 targets the x86-64 baseline, SSE2: "Prebuilt binaries will use AVX
    instructions" is new in 1.6 (tensorflow/tensorflow RELEASE.md), and the older pip wheels warn
    "Your CPU supports instructions that this TensorFlow binary was not compiled to use: SSE4.1
    SSE4.2 AVX AVX2 FMA". A GPU run's arithmetic is the GPU's: no column."""
    if row["gpu_count"] != "0":
        return ""
    flags = re.search(r"compiled from source with ([^(;]*)", row["notes"])
    if flags:
        f = flags.group(1).split()
        if "-mavx2" in f and "-mfma" in f:
            return "avx2"
        return "avx" if "-mavx" in f else "sse2"
    major, minor = (int(x) for x in re.findall(r"\d+", row["framework_version"])[:2])
    if row["compiled"] != "yes" and (major, minor) < (1, 6):
        return "sse2"
    return ""


def target(row):
    label = row["instance_type"]
    m = re.match(r"GCE (n1-highcpu-\d+)", label)
    if m:
        return "gcp:" + m.group(1)
    if label.startswith("GCE K80 + n1-standard-1"):
        return "gcp:n1-standard-1+K80"
    m = re.match(r"AWS ([a-z0-9]+\.[a-z0-9]+)", label)
    if m:
        return "aws:" + m.group(1)
    raise SystemExit("no target for " + label)


def kind(label):
    for k in ("preemptible", "spot", "on-demand"):
        if k in label:
            return k
    return "on-demand"


def main():
    rows = list(csv.DictReader(open(sys.argv[1], newline="")))
    with_isa = "--with-isa" in sys.argv[2:]
    out = csv.writer(sys.stdout, lineterminator="\n")
    out.writerow(["model", "target", "kind", "label", "batch", "precision", "optimizer", "rnn"] +
                 (["isa"] if with_isa else []) +
                 ["threads", "gpus", "samples", "val_samples", "seconds_per_epoch",
                  "first_epoch_seconds", "usd_per_hour", "framework", "framework_version",
                  "source", "input_ms_per_sample", "unstated"])
    for r in rows:
        model = MODEL.get(r["model"], r["model"])
        batch = int(r["batch_size"])
        if model in SAMPLES:
            samples, val = SAMPLES[model]
        else:  # lstm_char_cnn: batches per epoch from the notes, sequences of 35 words
            batches = int(re.search(r"batches/epoch=(\d+)", r["notes"]).group(1))
            samples, val = batches * batch, 0
        version = r["framework_version"].replace(" (see notes)", "").replace(" or ", "/")
        if r["compiled"] == "yes":
            version += " compiled"
        src = re.search(r"file=(\S+)", r["notes"])
        source = r["source"] + (" " + src.group(1) if src else "")
        gpus = r["gpu_count"] if r["gpu_count"] != "0" else ""
        out.writerow([model, target(r), kind(r["instance_type"]), r["instance_type"], batch,
                      "fp32", "", RNN] + ([isa(r)] if with_isa else []) + ["", gpus,
                      samples, val, r["seconds_per_epoch"], r["first_epoch_seconds"],
                      r["price_per_hour_usd"], r["framework"], version, source,
                      INPUT_MS.get(model, ""), UNSTATED.get(model, "")])


main()
