#!/usr/bin/env python3
"""Writes data/validation/lambda-resnet50.csv: Lambda's published ResNet50 training throughputs
(PyTorch, NVIDIA DeepLearningExamples) as an epochcost run log (docs/run-logs.md).

Source: github.com/lambdal/deeplearning-benchmark
  pytorch/pytorch-train-throughput-fp32.csv and -fp16.csv at commit 0551cb70ff (images per
  second, the `resnet50` column; fp16 is the benchmark's AMP run), and the batch sizes of
  pytorch/scripts/config_v1/config_pytorch_{16,24,80}GB.sh at 357c49a7cc / 188936494f
  (`--batch-size` per GPU, `--data-backend synthetic`, `--training-only`).
The benchmark trains DeepLearningExamples' `resnet50` (ResNet50 v1.5: epochcost's
`resnet50_v1_5`) with SGD and momentum in an NGC PyTorch container, which runs fp32
convolutions and products as TF32 on Ampere and Hopper (hence `tf32` there, `fp32` on the V100).
An epoch is ImageNet's 1,281,167 training images at the published throughput; no validation.
Only GPUs epochcost's hardware table names without guessing are kept; the V100 rows are Lambda
Cloud's 16 GB V100s, taken as SXM2 (the table's `V100`).

    python3 tools/validation/lambda_resnet50_runs.py > data/validation/lambda-resnet50.csv
"""
import csv
import sys

IMAGENET = 1281167
SOURCE = ("lambdal/deeplearning-benchmark pytorch/pytorch-train-throughput-%s.csv@0551cb70ff "
          "(%s images/s, row '%s'); batch per GPU from pytorch/scripts/config_v1/"
          "config_pytorch_%s.sh")

# (row in Lambda's tables, epochcost target, GPUs, config, per-GPU batch fp32 / AMP,
#  images/s fp32 / AMP, precision of the fp32 run)
ROWS = [
    ("LambdaCloud V100 16GB", "gpu:V100", 1, "16GB", 128, 256, 369, 833, "fp32"),
    ("LambdaCloud 2x V100 16GB", "gpu:V100", 2, "16GB", 128, 256, 710, 1571, "fp32"),
    ("LambdaCloud 4xV100 16GB", "gpu:V100", 4, "16GB", 128, 256, 1422, 3107, "fp32"),
    ("LambdaCloud 8xV100 16GB", "gpu:V100", 8, "16GB", 128, 256, 2817, 6174, "fp32"),
    ("LambdaCloud A10", "gpu:A10", 1, "24GB", 224, 448, 349, 638, "tf32"),
    ("A100 80GB PCIe", "gpu:A100 PCIe 80GB", 1, "80GB", 640, 1280, 1014, 1527, "tf32"),
    ("A100 80GB SXM4", "gpu:A100-80GB", 1, "80GB", 640, 1280, 1066, 1582, "tf32"),
    ("2x A100 80GB SXM4", "gpu:A100-80GB", 2, "80GB", 640, 1280, 2029, 3038, "tf32"),
    ("4x A100 80GB SXM4", "gpu:A100-80GB", 4, "80GB", 640, 1280, 4042, 6070, "tf32"),
    ("8x A100 80GB SXM4", "gpu:A100-80GB", 8, "80GB", 640, 1280, 7397, 11439, "tf32"),
    ("H100 80GB PCIe Gen5", "gpu:H100 PCIe 80GB", 1, "80GB", 640, 1280, 1197, 1866, "tf32"),
    ("H100 80GB SXM5", "gpu:H100", 1, "80GB", 640, 1280, 1753, 2616, "tf32"),
    ("2x H100 80GB SXM5", "gpu:H100", 2, "80GB", 640, 1280, 3477, 5179, "tf32"),
    ("4x H100 80GB SXM5", "gpu:H100", 4, "80GB", 640, 1280, 6930, 10406, "tf32"),
    ("8x H100 80GB SXM5", "gpu:H100", 8, "80GB", 640, 1280, 13856, 20728, "tf32"),
]


# NVIDIA's DeepLearningExamples ResNet50 v1.5 in the NGC container, kept apart from plain
# PyTorch so that their calibrations do not mix. Lambda's "fp16" runs are its AMP runs: config_v1
# passes `--amp --static-loss-scale 256` (autocast over fp32 weights, GradScaler), with no
# `--memory-format`, so NCHW, and `--data-backend synthetic`; they are written as precision
# `amp`, which epochcost lowers as autocast (LoweringOptions::amp).
FRAMEWORK = "pytorch-ngc"


def main():
    w = csv.writer(sys.stdout, lineterminator="\n")
    w.writerow(["model", "target", "label", "batch", "precision", "optimizer", "gpus", "samples",
                "val_samples", "seconds_per_epoch", "framework", "framework_version", "source"])
    for label, target, gpus, config, b32, b16, ips32, ips16, p32 in ROWS:
        for precision, batch, ips, table in ((p32, b32, ips32, "fp32"), ("amp", b16, ips16, "fp16")):
            w.writerow(["resnet50_v1_5", target, "Lambda: " + label, batch * gpus, precision,
                        "momentum", gpus, IMAGENET, 0, "%.2f" % (IMAGENET / ips), FRAMEWORK,
                        "NGC container (Lambda deeplearning-benchmark)",
                        SOURCE % (table, ips, label, config)])


if __name__ == "__main__":
    main()
