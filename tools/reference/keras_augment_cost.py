#!/usr/bin/python3
"""Times the host-side work of Keras 2.0's real-time image augmentation, per sample, on this CPU:
what `--input-ms-per-sample` of `epochcost predict` and a run log's `input_ms_per_sample` column
stand for (docs/run-logs.md, docs/cross-device.md "Input pipeline"). Checking tool: it measures an
input a run states; it never times a model's kernels.

Keras 2.0's `ImageDataGenerator(width_shift_range=W, height_shift_range=H, horizontal_flip=True)`
builds each batch in its `NumpyArrayIterator.next()` one sample at a time: the sample cast to
float32, a random shift drawn (a fraction of the image's height and width), its affine matrix
moved to the image's centre, every channel resampled by `scipy.ndimage.affine_transform` (order
0, fill mode "nearest"), the image flipped left-right with probability 1/2, `standardize` (a
no-op with no centring or scaling set), and the sample written into a float32 batch array. This
script does the same steps with NumPy and SciPy (Debian's python3-numpy and python3-scipy), on
random images of the given shape, and prints the median over rounds of the time per sample, in
milliseconds of one thread (the generator runs on one worker thread by default).

    /usr/bin/python3 tools/reference/keras_augment_cost.py --shape 32,32,3 --shift 0.1 --flip

The cifar10_cnn runs of docs/accuracy.md ("Published runs") used these settings
(../shared/validation/published-models.md, section 2.3).
"""
import argparse
import statistics
import time

import numpy as np

try:
    from scipy import ndimage
except ImportError:
    raise SystemExit("keras_augment_cost.py: needs SciPy (apt-get install python3-scipy)")


def shift_matrix_about_centre(tx, ty, h, w):
    # The shift as a homogeneous matrix, conjugated by the move of the origin to the image's
    # centre (as Keras' transform_matrix_offset_center does; for a pure shift it leaves it as is,
    # but the products are part of the work Keras does per sample).
    shift = np.array([[1, 0, tx], [0, 1, ty], [0, 0, 1]], dtype=np.float64)
    ox, oy = float(h) / 2 + 0.5, float(w) / 2 + 0.5
    to_centre = np.array([[1, 0, ox], [0, 1, oy], [0, 0, 1]], dtype=np.float64)
    back = np.array([[1, 0, -ox], [0, 1, -oy], [0, 0, 1]], dtype=np.float64)
    return np.dot(np.dot(to_centre, shift), back)


def augment(x, rng, shift_h, shift_w, flip):
    h, w = x.shape[0], x.shape[1]
    tx = rng.uniform(-shift_h, shift_h) * h if shift_h else 0.0
    ty = rng.uniform(-shift_w, shift_w) * w if shift_w else 0.0
    if tx != 0 or ty != 0:
        m = shift_matrix_about_centre(tx, ty, h, w)
        channels = np.rollaxis(x, 2, 0)
        moved = [ndimage.affine_transform(c, m[:2, :2], m[:2, 2], order=0, mode="nearest",
                                          cval=0.0) for c in channels]
        x = np.rollaxis(np.stack(moved, axis=0), 0, 3)
    if flip and rng.random() < 0.5:
        x = np.asarray(x).swapaxes(1, 0)[::-1, ...].swapaxes(0, 1)
    return x


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--shape", default="32,32,3", help="height,width,channels of one sample")
    ap.add_argument("--shift", type=float, default=0.1,
                    help="width and height shift range, a fraction of the image (Keras' default 0)")
    ap.add_argument("--flip", action="store_true", help="horizontal_flip=True")
    ap.add_argument("--batch", type=int, default=32)
    ap.add_argument("--batches", type=int, default=100, help="batches per round")
    ap.add_argument("--rounds", type=int, default=5)
    a = ap.parse_args()
    shape = tuple(int(v) for v in a.shape.split(","))
    if len(shape) != 3 or min(shape) < 1:
        ap.error("--shape: three positive sizes, height,width,channels")
    if a.batch < 1 or a.batches < 1 or a.rounds < 1:
        ap.error("--batch, --batches and --rounds must be at least 1")
    rng = np.random.default_rng(0)
    data = rng.integers(0, 256, size=(a.batch * 8,) + shape, dtype=np.uint8)
    per_sample = []
    for _ in range(a.rounds):
        start = time.perf_counter()
        for b in range(a.batches):
            index = rng.permutation(len(data))[: a.batch]
            out = np.zeros((a.batch,) + shape, dtype=np.float32)
            for i, j in enumerate(index):
                out[i] = augment(data[j].astype(np.float32), rng, a.shift, a.shift, a.flip)
        per_sample.append((time.perf_counter() - start) / (a.batches * a.batch) * 1e3)
    print("rounds (ms per sample): " + " ".join("%.4f" % v for v in per_sample))
    print("median %.4f ms per sample (shape %s, shift %g, flip %s, numpy %s)"
          % (statistics.median(per_sample), a.shape, a.shift, a.flip, np.__version__))


if __name__ == "__main__":
    main()
