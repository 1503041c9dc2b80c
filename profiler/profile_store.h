// Measured op times, persisted in SQLite and keyed by device fingerprint, thread count and op
// signature, with the device's microbenchmarks. It is the engine's OpTimeSource for one device.
// Profiles move between machines as JSON (docs/profiles.md); the profiles shipped in
// data/profiles are loaded into a new store.
#ifndef EPOCHCOST_PROFILER_PROFILE_STORE_H_
#define EPOCHCOST_PROFILER_PROFILE_STORE_H_

#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "engine/machine.h"
#include "engine/step_time.h"
#include "profiler/backend.h"
#include "profiler/fingerprint.h"

namespace epochcost::catalog {
class Database;
class Statement;
}  // namespace epochcost::catalog

namespace epochcost::profiler {

struct StoredMeasurement {
  std::string signature;
  int threads = 1;
  Measurement measurement;
  std::string measured_at;  // YYYY-MM-DD
  // Timed inside the replayed step (`profile --in-step`), its operands where the step leaves
  // them, rather than alone in a loop that finds them warm. Only such a row may carry to another
  // CPU faster than its memory bound there (docs/cross-device.md).
  bool in_step = false;
};

struct Microbenchmark {
  std::string name;  // peak_gemm_flops, triad_bytes_per_second, dispatch_seconds
  int threads = 1;
  double value = 0;
  std::string measured_at;
};

// A framework's correction on one kind of device, fitted by `epochcost calibrate`
// (validation/calibration.h, docs/calibration.md), with how well it did under cross-validation.
struct StoredCalibration {
  std::string framework;    // as run logs name it: "pytorch", "keras+tensorflow"
  std::string device_kind;  // "cpu" or "gpu"
  double kernel_scale = 1;
  Seconds per_op_overhead;
  int runs = 0, folds = 0;
  double mape_before = 0, mape_after = 0;  // percent, cross-validated
  std::string fitted_at;                   // YYYY-MM-DD
  std::string origin;                      // the run logs it was fitted to
  Seconds per_step_overhead;               // 0 where the fit left it out
  double memory_passes = 0;                // 0 where the fit left them out
  bool shipped = false;  // from data/calibrations, not fitted by this store's user
  // Shipped ones: the models of the runs it was fitted to (space-separated), and its held-out
  // MAPE with one model per fold (does it carry to a model it has not seen?); unset elsewhere.
  std::string models;
  std::optional<double> model_mape_before, model_mape_after;
  // Shipped ones: the models of its fit whose runs it predicted worse than no calibration, held
  // out in its K-fold cross-validation, as "MODEL=BEFORE/AFTER" (held-out MAPE, percent),
  // space-separated; it is not applied to them.
  std::string models_worse;
  // A CPU calibration fitted to runs on one thread and on more: the per-op overhead of a step on
  // more than one thread (per_op_overhead is then that of a step on one). Unset: one for all.
  std::optional<Seconds> per_op_overhead_threads;

  // Whether it applies to `model`: always, except a shipped one to a model of `models_worse`, or to
  // a model outside its fit when it does not predict unseen models better than no calibration
  // (then `why` says so).
  bool AppliesTo(const std::string& model, std::string* why) const;
  // The run logs of `origin` and the models of `models`, each list split at its spaces.
  std::set<std::string> RunLogs() const { return Words(origin); }
  std::set<std::string> Models() const { return Words(models); }
  // The models of `models_worse`, with their held-out MAPE uncalibrated and calibrated (none
  // where the list does not parse; the shipped table is checked when read).
  std::map<std::string, std::pair<double, double>> ModelsWorse() const;
  // A `models_worse` list, or an error naming the entry that is not MODEL=BEFORE/AFTER with
  // BEFORE and AFTER numbers at least 0.
  static Result<std::map<std::string, std::pair<double, double>>> ParseModelsWorse(
      const std::string& list);

  KernelCorrection correction() const {
    return {kernel_scale, per_op_overhead, per_step_overhead, memory_passes,
            per_op_overhead_threads};
  }

 private:
  static std::set<std::string> Words(const std::string& list);
};

class ProfileStore : public OpTimeSource {
 public:
  // Opens (creating) the store at `path` and loads the shipped profiles it has not seen yet.
  static Result<std::unique_ptr<ProfileStore>> Open(const std::string& path);
  // $EPOCHCOST_PROFILES, else $XDG_DATA_HOME/epochcost/profiles.sqlite, else ~/.local/share/...
  static std::string DefaultPath();
  ~ProfileStore() override;

  // Which device Find() answers for.
  void SelectDevice(const Fingerprint& device) { device_ = device; }
  const Fingerprint& device() const { return device_; }

  // Where a row comes from. The store's user's own rows (measured here, or imported with
  // `profile import`) replace any row of the same key; a shipped profile's rows (loaded when a
  // newer epochcost ships a changed profile) replace only earlier shipped rows, never the user's.
  enum class Provenance { kUser, kShipped };

  Status Put(const Fingerprint& device, const StoredMeasurement& m,
             Provenance from = Provenance::kUser);
  Status PutMicrobenchmark(const Fingerprint& device, const Microbenchmark& b,
                           Provenance from = Provenance::kUser);
  std::optional<OpTime> Find(const OpSignature& sig, int threads) const override;
  Result<std::vector<Microbenchmark>> Microbenchmarks(const Fingerprint& device) const;
  Result<std::vector<Fingerprint>> Devices() const;
  Result<std::vector<StoredMeasurement>> Measurements(const Fingerprint& device) const;

  // Calibrations, one per framework and device kind (a new one replaces the old); all or none
  // of them are stored. Calibrations() and FindCalibration() also answer with the shipped ones
  // (profiler/calibration_table.h) for a framework and kind the store has none of.
  Status PutCalibrations(const std::vector<StoredCalibration>& cs);
  Result<std::vector<StoredCalibration>> Calibrations() const;
  Result<StoredCalibration> FindCalibration(const std::string& framework,
                                            const std::string& device_kind) const;
  // Removes the store's own calibrations of `framework` (both device kinds); the shipped ones
  // answer for it again. Returns how many were removed.
  Result<int> ForgetCalibrations(const std::string& framework);

  // JSON export of one device's profile, and import (one transaction; a bad file changes nothing).
  Result<std::string> ExportJson(const Fingerprint& device) const;
  Result<int> ImportJson(std::string_view text, const std::string& origin,
                         Provenance from = Provenance::kUser);

 private:
  explicit ProfileStore(std::unique_ptr<catalog::Database> db);
  // ImportJson, in the same transaction first marking every row of the profile's device as
  // shipped where `claim_device_rows` (a store from before rows said where they came from).
  Result<int> Import(std::string_view text, const std::string& origin, Provenance from,
                     bool claim_device_rows);
  std::unique_ptr<catalog::Database> db_;
  Fingerprint device_;
  // Find()'s query, prepared once: a prediction looks up every op, and `validate` and each
  // `predict` (for its path's record) predict every shipped run. Finalised before db_ closes.
  mutable std::unique_ptr<catalog::Statement> find_;
  // A GPU row without a host time borrows one: the same signature's on another GPU measured with
  // the same libraries (the host time is the host's and the libraries', not the GPU's).
  mutable std::unique_ptr<catalog::Statement> borrowed_host_;
};

}  // namespace epochcost::profiler

#endif  // EPOCHCOST_PROFILER_PROFILE_STORE_H_
