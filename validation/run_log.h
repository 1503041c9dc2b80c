// Real training runs, as `epochcost validate` and `calibrate` read them: the project's run-log
// CSV (docs/run-logs.md; written by tools/reference/torch_step.py, and the shape the published
// runs are shipped in) and Keras CSVLogger files with an elapsed-seconds column per epoch, whose
// run settings come from the command line.
#ifndef EPOCHCOST_VALIDATION_RUN_LOG_H_
#define EPOCHCOST_VALIDATION_RUN_LOG_H_

#include <functional>
#include <initializer_list>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "engine/csv.h"
#include "engine/status.h"

namespace epochcost::validation {

struct RunRecord {
  std::string origin;  // "FILE:LINE", for messages
  // A Keras log's run: its settings came from the command line's options, not from columns.
  bool settings_from_options = false;
  std::string model;   // zoo name or model file
  std::string target;  // what `predict --on` takes: local-cpu, gcp:n1-highcpu-8, gpu:K80, ...
  std::string kind = "on-demand";  // on-demand, preemptible, spot
  std::string label;               // how the source names the machine (display only)
  int64_t batch = 0;
  std::string precision = "fp32";
  std::string optimizer;  // empty: the model's own
  // How the framework ran recurrent layers: "unrolled" (per-step ops), "fused" (one RNN kernel,
  // cuDNN's or oneDNN's); empty: predict's default for the device kind.
  std::string rnn;
  bool channels_last = false;  // layout nhwc: PyTorch's channels_last memory format
  // The vector instructions the framework's CPU kernels were built for (sse2, avx, avx2, avx512,
  // native); empty: native.
  std::string isa;
  int threads = 0;  // 0: not stated (local-cpu: 1)
  int gpus = 0;     // 0: the target's own
  int64_t samples = 0;
  int64_t val_samples = 0;
  double seconds_per_epoch = 0;
  std::optional<double> first_epoch_seconds;
  std::optional<double> usd_per_hour;  // the price the run paid
  // Minor page faults per training step, as the harness counts them (getrusage): not predicted,
  // but `validate` prices them at page_fault_us, else at the profiled CPU's 1-thread
  // page_fault_seconds (docs/run-logs.md).
  std::optional<int64_t> faults_per_step;
  // What one of those faults cost on the run's machine, in microseconds per 4 KiB (column
  // page_fault_us, the harness's in-process microbenchmark): `validate` prices the run's faults
  // at it rather than at its profile's page_fault_seconds, which another VM of the same CPU may
  // have measured at a seventh of it (docs/run-logs.md).
  std::optional<double> page_fault_us;
  // What one of the framework's parallel passes cost beyond its work at the run's thread count,
  // in microseconds, measured before its timed steps (after the warm-up) and after them (columns
  // parallel_pass_us_before and parallel_pass_us_after, the harness's ATen microbenchmark; given
  // together or not at all). Not predicted: where a VM's vCPUs sit on cores whose caches lie far
  // apart every pass pays for it, and `validate` splits its errors by it (docs/run-logs.md).
  std::optional<double> parallel_pass_us_before, parallel_pass_us_after;
  // Whether the host allocator keeps the memory a step frees (column allocator: "keeps", as
  // jemalloc, tcmalloc or glibc with its trim and mmap thresholds raised do) or returns it to the
  // operating system ("returns" or not stated: glibc's malloc with its defaults), to be faulted
  // in again the next step: a calibration's memory passes apply only to the latter.
  bool allocator_keeps = false;
  const char* allocator() const { return allocator_keeps ? "keeps" : "returns"; }
  // The CPU time of the run's input pipeline per training sample, in milliseconds of one vCPU
  // (column input_ms_per_sample: reading, decoding, augmenting, as `predict
  // --input-ms-per-sample` takes it); 0: none (synthetic or in-memory data).
  double input_ms_per_sample = 0;
  // The model parameters the run's source leaves unstated (column unstated, names separated by
  // ';', e.g. max_features: imdb_fasttext's bigram vocabulary, built at run time): the run is
  // predicted with the model's defaults for them, so the network predicted is not the one that
  // ran. `validate` reports it and says so; `calibrate` fits nothing to it (docs/run-logs.md).
  std::vector<std::string> unstated;
  // The run log it was read from, as the command line named it ("@published-runs", a path):
  // its origin without the line.
  std::string log() const { return origin.substr(0, origin.rfind(':')); }
  std::string framework;  // "pytorch", "keras+tensorflow"
  std::string framework_version;
  std::string source;
};

// How reports name a run's precision and layout: "amp", or "amp nhwc" for a channels-last run.
inline std::string PrecisionLabel(const std::string& precision, bool channels_last) {
  return channels_last ? precision + " nhwc" : precision;
}
inline std::string PrecisionLabel(const RunRecord& r) {
  return PrecisionLabel(r.precision, r.channels_last);
}

// Reads a run log. Required columns: model, target, batch, samples, seconds_per_epoch,
// framework; the others of RunRecord are optional. A file in the published-runs format
// (validation/published_runs.h: instance_type and batch_size, no target) is read as that. A record
// with an empty, non-numeric or non-positive number, or an unknown kind or precision, is an error
// naming FILE:LINE and the column; with `skip_bad` it is reported in `skipped` instead and the rest
// are read.
struct RunLog {
  std::vector<RunRecord> runs;
  std::vector<std::string> skipped;
};
Result<RunLog> ParseRunLog(std::string_view text, const std::string& origin, bool skip_bad);

// What the run-log formats share. RunColumns: the columns a format reads, the required ones
// checked against the header (an error names the missing one), the optional ones read as empty
// where absent. ReadRuns: each record read into a run by `read` (every field but origin); a record
// it refuses is an error naming FILE:LINE, or with `skip_bad` a line of `skipped`. The field
// readers' errors name `column`; ParseCount takes empty or "0" as 0 (not stated).
class RunColumns {
 public:
  static Result<RunColumns> Of(const CsvTable& t, std::initializer_list<const char*> required,
                               std::initializer_list<const char*> optional);
  std::string operator()(const CsvRecord& r, const std::string& name) const;

 private:
  std::map<std::string, int> index_;  // -1: an optional column the file lacks
};
Result<RunLog> ReadRuns(const CsvTable& t, const std::string& origin, bool skip_bad,
                        const std::function<Status(const CsvRecord&, RunRecord&)>& read);
Result<double> ParsePositive(const std::string& text, const std::string& column);
// A run's measured times and the price it paid, from its record's columns: seconds_per_epoch
// (required), first_epoch_seconds and the price column `usd_column` (optional; positive when
// given). `field` returns a column's text, empty where the file lacks it.
Status ParseTimesAndPrice(const std::function<std::string(const char*)>& field,
                          const char* usd_column, RunRecord& run);
Result<int64_t> ParsePositiveCount(const std::string& text, const std::string& column);
Result<int64_t> ParseCount(const std::string& text, const std::string& column);

// The text of a run log shipped in data/validation, by its stem ("published-runs"), and the
// stems there are.
Result<std::string_view> ShippedRunLog(const std::string& stem);
std::vector<std::string> ShippedRunLogNames();
// The stems of the shipped run logs holding at least one run of `framework` (on `kind`, "cpu" or
// "gpu", where given: a run on GPUs states its GPU count or names a gpu: target), for the hint
// where no calibration of it is stored.
std::vector<std::string> ShippedRunLogsOf(const std::string& framework, const std::string& kind);

// A Keras CSVLogger file (a header with "epoch" and an elapsed-seconds column, one row per
// epoch): the median elapsed seconds of the epochs after the first, and the first's. `column`
// names the elapsed column; empty tries "elapsed", "time", "seconds", "epoch_time".
struct KerasLogTimes {
  double seconds_per_epoch = 0;  // median of epochs 2..N (the first when there is only one)
  double first_epoch_seconds = 0;
  int epochs = 0;
};
Result<KerasLogTimes> ParseKerasLog(std::string_view text, const std::string& origin,
                                    const std::string& column);

}  // namespace epochcost::validation

#endif  // EPOCHCOST_VALIDATION_RUN_LOG_H_
