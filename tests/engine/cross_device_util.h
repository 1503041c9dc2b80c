// Helpers of the cross-device tests (cross_device_test.cpp, machine_test.cpp): signatures,
// rooflines, ops measured at a given efficiency, and machines of the hardware tables' rows.
#ifndef EPOCHCOST_TESTS_ENGINE_CROSS_DEVICE_UTIL_H_
#define EPOCHCOST_TESTS_ENGINE_CROSS_DEVICE_UTIL_H_

#include "engine/machine.h"

namespace epochcost::test_util {

inline OpSignature Sig(const char* text) { return *OpSignature::Parse(text); }

// An op measured on `r` at `efficiency` of its roofline bound.
inline MeasuredOp MeasuredAt(const Roofline& r, const char* text, double efficiency) {
  const OpSignature s = Sig(text);
  return MeasuredOp{s, r.Bound(s) / efficiency};
}

inline Roofline Device(double tflops, double gbps, double latency_us) {
  Roofline r;
  r.kind = DeviceKind::kGpu;
  r.name = "test";
  r.fp32 = FlopsPerSecond::FromTflops(tflops);
  r.bandwidth = BytesPerSecond::FromGBps(gbps);
  r.latency = Seconds::FromMicroseconds(latency_us);
  return r;
}

// A machine of `gpus` GPUs of a data/hardware/gpus.csv row and `vcpus` vCPUs.
inline Machine GpuMachine(const char* gpu, int gpus, double vcpus) {
  Machine m;
  m.gpu = *FindGpu(gpu);
  m.gpus = gpus;
  m.vcpus = vcpus;
  return m;
}

// A CPU instance of `vcpus` hyperthreaded vCPUs of a family in data/hardware/cpus.csv.
inline Machine CpuMachine(const char* name, const char* family, double vcpus) {
  Machine m;
  m.name = name;
  m.cpu = *FindCpu(family);
  m.vcpus = vcpus;
  m.smt = true;
  return m;
}

}  // namespace epochcost::test_util

#endif  // EPOCHCOST_TESTS_ENGINE_CROSS_DEVICE_UTIL_H_
