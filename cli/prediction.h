// One prediction, as `predict`, `validate` and `calibrate` make it: on a measured device from its
// own op times (local-cpu, local-gpu, device:NAME for a profiled device), or on any other
// machine with op times scaled from a measured reference (cli/targets.h), optionally corrected
// by a stored calibration. Keeps the terms a calibration acts on.
#ifndef EPOCHCOST_CLI_PREDICTION_H_
#define EPOCHCOST_CLI_PREDICTION_H_

#include <map>
#include <memory>
#include <optional>
#include <string>

#include "catalog/store.h"
#include "cli/lowering_flags.h"
#include "engine/machine.h"
#include "profiler/profile_store.h"
#include "validation/calibration.h"

namespace epochcost::cli {

// Whether `model` has an LSTM or GRU layer.
bool HasRecurrentLayer(const Model& model);

struct PredictionRequest {
  std::string model;  // zoo name or file
  std::string on = "local-cpu";
  int threads = 0;                                    // measured CPUs: 0 = 1 thread
  int gpus = 0;                                       // gpu:NAME targets
  int64_t batch = 0, samples = -1, val_samples = -1;  // <= 0 / < 0: the model's own
  LoweringFlags lowering;
  std::optional<Seconds> overhead;  // overrides the per-op overhead (and a calibration's)
  // The vector set the framework's CPU kernels were built for (ParseVectorIsa; empty: native).
  // Only for CPUs epochcost scales to: a measured device's times are its libraries' own.
  std::string isa;
  std::string framework;              // non-empty: apply its stored calibration
  bool calibration_optional = false;  // without one for the device kind: uncalibrated, no error
  // The host allocator keeps the memory a step frees (jemalloc, tcmalloc, glibc with its
  // thresholds raised): a calibration's memory passes, which stand for the faults of memory
  // returned to the operating system, do not apply.
  bool allocator_keeps = false;
  // The input pipeline's CPU time per training sample on one vCPU (MachineSettings).
  Seconds input_per_sample;
};

struct Prediction {
  std::optional<Model> model;
  std::string model_name;
  int64_t batch = 0, samples = 0, val_samples = 0;
  LoweringOptions lowering;
  std::string optimizer;
  bool gpu = false;
  bool measured = false;  // on the measured device itself
  std::string device;     // the measured device's model string (measured)
  int threads = 1;        // measured CPU
  size_t distinct_ops = 0;
  std::optional<Machine> machine;               // elsewhere
  std::optional<MachinePrediction> on_machine;  // elsewhere (its epoch is `epoch`)
  EpochPrediction epoch;
  Seconds overhead;
  // Whether `overhead` is PyTorch's cost per call (framework_call_seconds), not a oneDNN
  // primitive's dispatch, a calibration's or a given one; and the CPU whose profile measured it,
  // where not this one ("" where it is, or on a machine predicted by scaling).
  bool framework_overhead = false;
  std::string framework_overhead_from;
  double kernel_scale = 1;
  Seconds per_step_overhead;     // a calibration's, added to every training step
  double memory_passes = 0;      // a calibration's, over each op's traffic at `bandwidth`
  bool allocator_keeps = false;  // the request's: a calibration's memory passes left out
  BytesPerSecond bandwidth;      // CPU: the memory bandwidth of the cores used (0: unknown)
  // Measured CPU: to fault in 4 KiB of fresh memory, one thread faulting (0: unknown). The
  // 1-thread figure at any thread count: a framework's step faults its fresh pages in from one
  // thread, and that price read 2-thread glibc logs of four CPUs better than the microbenchmark's
  // two threads faulting at once (docs/accuracy.md, "A second Intel Xeon (AMX) VM").
  Seconds page_fault;
  // The input pipeline (PredictionRequest::input_per_sample): its CPU time per step, what it adds
  // to the step, and whether the step waits for it (a GPU's host). On a machine, as
  // MachinePrediction has them.
  Seconds input_pipeline, input_added;
  bool input_bound = false;
  double host_vcpus = 0;  // a measured GPU's host (local-gpu: this machine's), where it counts
  std::optional<profiler::StoredCalibration> calibration;
  std::string calibration_not_applied;  // why --framework's shipped calibration was not, or ""
  // Without --framework: the calibrations (stored or shipped) of this device kind that would
  // apply to the model, for the output to name (`--framework NAME` applies one).
  std::vector<profiler::StoredCalibration> calibrations_available;
  std::string path;  // "same device", "scaled from DEVICE", "analytic"

  // "gpu" or "cpu", as calibrations and validation reports name device kinds.
  const char* device_kind() const { return gpu ? "gpu" : "cpu"; }
};

// ", recurrent layers as PyTorch's own (timed whole)" (or call by call, or fused) for a model
// with recurrent layers, after the prediction's header line; "" for others.
std::string RecurrentText(const Prediction& p);

class Predictor {
 public:
  // Opens the profile store now and the catalog when a target needs it (empty: default paths).
  static Result<std::unique_ptr<Predictor>> Open(const std::string& profiles,
                                                 const std::string& catalog);
  Result<Prediction> Predict(const PredictionRequest& request);
  profiler::ProfileStore& profiles() { return *profiles_; }
  // Predicts every GPU as if it had not been measured: from the other GPUs' profiles only, a
  // profiled device (device:NAME) as its data/hardware/gpus.csv row (validate --hold-out-gpu).
  void HoldOutOwnGpu(bool on) { hold_out_gpu_ = on; }

 private:
  Predictor() = default;
  Result<Prediction> PredictMeasured(const PredictionRequest& r, const Model& model,
                                     const profiler::Fingerprint& device);
  Result<Prediction> PredictElsewhere(const PredictionRequest& r, const Model& model);
  // The per-op overhead and kernel scale: the request's overhead, else the calibration of
  // r.framework for this kind of device (recorded in p), else none (the measured dispatch).
  Status ApplyCalibration(const PredictionRequest& r, const std::string& kind, Prediction* p,
                          MachineSettings* settings);
  // Adds the input pipeline's CPU time (per_sample x the batch) to a measured device's step; a
  // GPU's needs its host's vCPUs (0: unknown, an error).
  static Status AddInputPipeline(Seconds per_sample, double host_vcpus, Prediction* p);
  // The model's name, batch, samples and lowering for p->gpu's device kind.
  Status ResolveSizes(const PredictionRequest& r, const Model& model, Prediction* p);

  std::string catalog_path_;
  std::unique_ptr<profiler::ProfileStore> profiles_;
  std::unique_ptr<catalog::CatalogStore> catalog_;
  bool hold_out_gpu_ = false;
  // The measured references by the GPU left out of them (its gpus.csv row; "" for none).
  std::map<std::string, References> references_;
  std::map<std::string, Model> models_;          // loaded, by the request's model
  std::map<std::string, LoweringCache> caches_;  // by the request's model (a name or a file)
  // Resolved --on targets by (target, GPUs): a catalog target reads every offer of its provider,
  // and a run log names the same few machines many times.
  std::map<std::pair<std::string, int>, Result<Machine>> targets_;
};

// The prediction path of an op-time source as the engine states it ("scaled from DEVICE (DATE),
// ...", "analytic (...)"): "scaled from DEVICE" or "analytic", as `validate` groups runs.
std::string PathOfSource(const std::string& source);

// The terms of a prediction a calibration acts on.
validation::PredictionTerms TermsOf(const Prediction& p);

}  // namespace epochcost::cli

#endif  // EPOCHCOST_CLI_PREDICTION_H_
