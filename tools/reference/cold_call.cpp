// What one ATen call costs when the caches hold something else: a four-value product y = y * c
// timed alone, call after call, each right after an untimed read of KB kilobytes (0: none), with
// autograd recording it (x requires the gradient) and without. Prints the median and 10th
// percentile of 1,500 calls each. The profile's framework_call_seconds times such calls back to
// back, their code and data in the caches; in a training step each call follows a kernel that
// has read megabytes, and this shows what that does to a call (docs/accuracy.md, "A third Intel
// Xeon (AMX) VM"). Not used by the product.
//
//   g++ -O2 -std=c++17 tools/reference/cold_call.cpp -I/usr/include/torch/csrc/api/include \
//     -ltorch_cpu -lc10 -o /tmp/cold_call
//   /tmp/cold_call [THREADS]
#include <ATen/ATen.h>
#include <ATen/Parallel.h>
#include <torch/csrc/autograd/variable.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <vector>

namespace {

volatile float sink = 0;  // keeps the reads from being optimised away

double Micros(std::chrono::steady_clock::time_point a, std::chrono::steady_clock::time_point b) {
  return std::chrono::duration<double, std::micro>(b - a).count();
}

}  // namespace

int main(int argc, char** argv) {
  const int threads = argc > 1 ? std::atoi(argv[1]) : 1;
  if (threads < 1) {
    std::fprintf(stderr, "cold_call: THREADS must be at least 1, got %s\n", argv[1]);
    return 2;
  }
  at::set_num_threads(threads);
  std::printf("threads %d\n", threads);
  for (bool grad : {false, true}) {
    at::Tensor x = at::full({4}, 0.5).set_requires_grad(grad);
    const at::Tensor c = at::full({4}, 0.999);
    for (long kb : {0L, 256L, 1024L, 2048L, 4096L, 16384L}) {
      const std::vector<float> buffer(kb * 256 + 1, 1.f);
      std::vector<double> calls;
      for (int chain = 0; chain < 5; ++chain) {
        at::Tensor y = x;
        for (int i = 0; i < 300; ++i) {
          if (kb > 0) {
            float sum = 0;
            for (float v : buffer) sum += v;
            sink = sink + sum;
          }
          const auto start = std::chrono::steady_clock::now();
          y = y.mul(c);
          calls.push_back(Micros(start, std::chrono::steady_clock::now()));
        }
      }
      std::sort(calls.begin(), calls.end());
      std::printf("autograd %-3s after reading %5ld KB: median %6.2f us, p10 %6.2f us\n",
                  grad ? "on" : "off", kb, calls[calls.size() / 2], calls[calls.size() / 10]);
    }
  }
}
