#!/usr/bin/env python3
"""Converts ../shared/validation/published-runs.csv (the published runs collected for this
project) into the run-log format `epochcost validate` reads (docs/run-logs.md), written to
data/validation/published-runs.csv. Usage: convert_published.py SOURCE.csv > OUT.csv

Every value comes from the source row; the only mapping is from the source's machine descriptions
to epochcost targets and from model names to the samples each epoch ran (the scripts' data sets,
../shared/validation/published-models.md)."""
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
    out = csv.writer(sys.stdout, lineterminator="\n")
    out.writerow(["model", "target", "kind", "label", "batch", "precision", "optimizer", "rnn",
                  "threads", "gpus", "samples", "val_samples", "seconds_per_epoch",
                  "first_epoch_seconds", "usd_per_hour", "framework", "framework_version",
                  "source"])
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
        out.writerow([model, target(r), kind(r["instance_type"]), r["instance_type"], batch,
                      "fp32", "", RNN, "", r["gpu_count"] if r["gpu_count"] != "0" else "",
                      samples, val, r["seconds_per_epoch"], r["first_epoch_seconds"],
                      r["price_per_hour_usd"], r["framework"], version, source])


main()
