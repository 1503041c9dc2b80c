// The profile store (SQLite: measurements, microbenchmarks, calibrations, and the shipped
// profiles it loads), the shipped calibration table, and the device fingerprint's name.
#include "profiler/profile_store.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <map>

#include "catalog/sqlite.h"
#include "profiler/calibration_table.h"

namespace epochcost::profiler {
namespace {

class ProfileStoreTest : public testing::Test {
 protected:
  void SetUp() override {
    path_ = (std::filesystem::temp_directory_path() /
             ("epochcost_profiles_" + std::to_string(::getpid()) + ".sqlite"))
                .string();
    for (const char* ext : {"", "-wal", "-shm"}) std::filesystem::remove(path_ + ext);
  }
  void TearDown() override {
    for (const char* ext : {"", "-wal", "-shm"}) std::filesystem::remove(path_ + ext);
  }
  std::string path_;
};

Fingerprint TestDevice() { return {"cpu", "Test CPU 9000", "avx2 fma", 4, 8, "oneDNN 2.6.3"}; }

TEST_F(ProfileStoreTest, PutFindExportImport) {
  Result<std::unique_ptr<ProfileStore>> store = ProfileStore::Open(path_);
  ASSERT_TRUE(store.ok()) << store.status().message();
  const OpSignature sig = *OpSignature::Parse("ip_fwd dt=f32 bias=1 ic=8 mb=4 oc=2");
  const Measurement m{Seconds::FromMicroseconds(10), Seconds::FromMicroseconds(9),
                      Seconds::FromMicroseconds(12), 50, Seconds::FromMicroseconds(11)};
  ASSERT_TRUE((*store)->Put(TestDevice(), {sig.ToString(), 2, m, "2026-01-02"}).ok());
  // A measurement without a mean (one imported from an older file) reads its median as its mean.
  const OpSignature old = *OpSignature::Parse("ip_fwd dt=f32 bias=1 ic=8 mb=4 oc=3");
  const Measurement no_mean{Seconds::FromMicroseconds(20), Seconds::FromMicroseconds(19),
                            Seconds::FromMicroseconds(22), 50};
  ASSERT_TRUE((*store)->Put(TestDevice(), {old.ToString(), 2, no_mean, "2026-01-02"}).ok());
  (*store)->SelectDevice(TestDevice());
  std::optional<OpTime> t = (*store)->Find(sig, 2);
  ASSERT_TRUE(t.has_value());
  EXPECT_DOUBLE_EQ(t->median.seconds(), 10e-6);
  EXPECT_DOUBLE_EQ(t->mean.seconds(), 11e-6);
  EXPECT_DOUBLE_EQ((*store)->Find(old, 2)->mean.seconds(), 20e-6);
  EXPECT_EQ(t->source, "measured here (2026-01-02)");
  EXPECT_FALSE((*store)->Find(sig, 1).has_value());  // other thread count
  (*store)->SelectDevice(LocalCpu());
  EXPECT_FALSE((*store)->Find(sig, 2).has_value());  // other device

  Result<std::string> json = (*store)->ExportJson(TestDevice());
  ASSERT_TRUE(json.ok());
  store->reset();
  for (const char* ext : {"", "-wal", "-shm"}) std::filesystem::remove(path_ + ext);
  Result<std::unique_ptr<ProfileStore>> fresh = ProfileStore::Open(path_);
  ASSERT_TRUE(fresh.ok());
  EXPECT_EQ(*(*fresh)->ImportJson(*json, "p.json"), 2);
  (*fresh)->SelectDevice(TestDevice());
  EXPECT_DOUBLE_EQ((*fresh)->Find(sig, 2)->p90.seconds(), 12e-6);
  EXPECT_DOUBLE_EQ((*fresh)->Find(sig, 2)->mean.seconds(), 11e-6);
  EXPECT_EQ(json->find("\"mean_s\": 2e-05"), std::string::npos);  // no mean invented for it
  EXPECT_DOUBLE_EQ((*fresh)->Find(old, 2)->mean.seconds(), 20e-6);
}

// A row timed inside the replayed step says so in the store and in the exported file, and a row
// of a file that says nothing of it reads as timed alone (docs/cross-device.md: only the former
// may carry past its memory bound).
TEST_F(ProfileStoreTest, KeepsWhetherARowWasTimedInTheStep) {
  Result<std::unique_ptr<ProfileStore>> store = ProfileStore::Open(path_);
  ASSERT_TRUE(store.ok()) << store.status().message();
  const Measurement m{Seconds::FromMicroseconds(10), Seconds::FromMicroseconds(9),
                      Seconds::FromMicroseconds(12), 50, Seconds::FromMicroseconds(11)};
  const std::string in_step = "ip_fwd dt=f32 bias=1 ic=8 mb=4 oc=2";
  const std::string alone = "ip_fwd dt=f32 bias=1 ic=8 mb=4 oc=3";
  ASSERT_TRUE((*store)->Put(TestDevice(), {in_step, 1, m, "2026-01-02", true}).ok());
  ASSERT_TRUE((*store)->Put(TestDevice(), {alone, 1, m, "2026-01-02"}).ok());
  auto flags = [](const ProfileStore& s) {
    std::map<std::string, bool> out;
    const Result<std::vector<StoredMeasurement>> rows = s.Measurements(TestDevice());
    for (const StoredMeasurement& r : *rows) out[r.signature] = r.in_step;
    return out;
  };
  const std::map<std::string, bool> expected{{in_step, true}, {alone, false}};
  EXPECT_EQ(flags(**store), expected);
  (*store)->SelectDevice(TestDevice());
  EXPECT_EQ((*store)->Find(*OpSignature::Parse(in_step), 1)->source,
            "measured here in the step (2026-01-02)");
  EXPECT_EQ((*store)->Find(*OpSignature::Parse(alone), 1)->source, "measured here (2026-01-02)");
  Result<std::string> json = (*store)->ExportJson(TestDevice());
  ASSERT_TRUE(json.ok());
  EXPECT_NE(json->find("\"in_step\": true"), std::string::npos);
  EXPECT_EQ(json->find("\"in_step\": false"), std::string::npos);  // said only where true
  store->reset();
  for (const char* ext : {"", "-wal", "-shm"}) std::filesystem::remove(path_ + ext);
  Result<std::unique_ptr<ProfileStore>> fresh = ProfileStore::Open(path_);
  ASSERT_TRUE(fresh.ok());
  ASSERT_EQ(*(*fresh)->ImportJson(*json, "p.json"), 2);
  EXPECT_EQ(flags(**fresh), expected);
}

// A shipped profile loaded into a store (a newer epochcost's) replaces the rows an earlier
// shipped profile brought, never the ones the store's user measured or imported: found when a
// store of rows measured on the Zen 5 VM read the newly shipped Zen 5 rows instead.
TEST_F(ProfileStoreTest, ShippedRowsNeverReplaceTheUsersOwn) {
  Result<std::unique_ptr<ProfileStore>> store = ProfileStore::Open(path_);
  ASSERT_TRUE(store.ok()) << store.status().message();
  using Provenance = ProfileStore::Provenance;
  const OpSignature own = *OpSignature::Parse("ip_fwd dt=f32 ic=8 mb=4 oc=2");
  const OpSignature other = *OpSignature::Parse("ip_fwd dt=f32 ic=8 mb=4 oc=3");
  auto at = [](double us) {
    return Measurement{Seconds::FromMicroseconds(us), Seconds::FromMicroseconds(us),
                       Seconds::FromMicroseconds(us), 5, Seconds::FromMicroseconds(us)};
  };
  ASSERT_TRUE((*store)->Put(TestDevice(), {own.ToString(), 1, at(10), "2026-11-27"}).ok());
  ASSERT_TRUE((*store)->PutMicrobenchmark(TestDevice(), {"dispatch_seconds", 1, 1e-6, "x"}).ok());
  // A shipped profile of the same device, with both ops and the microbenchmark.
  auto shipped = [&](double us) {
    ProfileStore::Provenance from = Provenance::kShipped;
    for (const OpSignature& sig : {own, other})
      EXPECT_TRUE(
          (*store)->Put(TestDevice(), {sig.ToString(), 1, at(us), "2026-11-27"}, from).ok());
    EXPECT_TRUE((*store)
                    ->PutMicrobenchmark(TestDevice(), {"dispatch_seconds", 1, us * 1e-6, "x"}, from)
                    .ok());
  };
  shipped(20);
  (*store)->SelectDevice(TestDevice());
  EXPECT_DOUBLE_EQ((*store)->Find(own, 1)->mean.seconds(), 10e-6);    // the user's, kept
  EXPECT_DOUBLE_EQ((*store)->Find(other, 1)->mean.seconds(), 20e-6);  // new, shipped
  EXPECT_DOUBLE_EQ((*(*store)->Microbenchmarks(TestDevice()))[0].value, 1e-6);
  shipped(30);  // a later shipped profile replaces the earlier one's row
  EXPECT_DOUBLE_EQ((*store)->Find(own, 1)->mean.seconds(), 10e-6);
  EXPECT_DOUBLE_EQ((*store)->Find(other, 1)->mean.seconds(), 30e-6);
  // The user's own measurement, or a file they import, replaces a shipped row.
  ASSERT_TRUE((*store)->Put(TestDevice(), {other.ToString(), 1, at(40), "2026-11-28"}).ok());
  EXPECT_DOUBLE_EQ((*store)->Find(other, 1)->mean.seconds(), 40e-6);
  shipped(50);
  EXPECT_DOUBLE_EQ((*store)->Find(other, 1)->mean.seconds(), 40e-6);
}

// A GPU call's host time is kept, exported and imported; rows without one read 0 (unknown).
TEST_F(ProfileStoreTest, KeepsAGpuCallsHostTime) {
  Result<std::unique_ptr<ProfileStore>> store = ProfileStore::Open(path_);
  ASSERT_TRUE(store.ok()) << store.status().message();
  const Fingerprint gpu{"gpu", "Test GPU", "sm_90", 132, 0, "CUDA 13.0"};
  const OpSignature sig = *OpSignature::Parse("ip_fwd dt=f32 bias=1 ic=8 mb=4 oc=2");
  const OpSignature other = *OpSignature::Parse("ip_fwd dt=f32 bias=1 ic=8 mb=4 oc=3");
  Measurement m{Seconds::FromMicroseconds(10), Seconds::FromMicroseconds(9),
                Seconds::FromMicroseconds(12), 50, Seconds::FromMicroseconds(11)};
  m.host = Seconds::FromMicroseconds(7.5);
  ASSERT_TRUE((*store)->Put(gpu, {sig.ToString(), 1, m, "2026-11-26"}).ok());
  m.host = Seconds();
  ASSERT_TRUE((*store)->Put(gpu, {other.ToString(), 1, m, "2026-11-26"}).ok());
  (*store)->SelectDevice(gpu);
  EXPECT_DOUBLE_EQ((*store)->Find(sig, 1)->host.seconds(), 7.5e-6);
  EXPECT_DOUBLE_EQ((*store)->Find(other, 1)->host.seconds(), 0);
  Result<std::string> json = (*store)->ExportJson(gpu);
  ASSERT_TRUE(json.ok());
  EXPECT_NE(json->find("\"host_s\": 7.49"), std::string::npos) << *json;
  EXPECT_EQ(json->find("\"host_s\": 0"), std::string::npos);  // none written for the other
  store->reset();
  for (const char* ext : {"", "-wal", "-shm"}) std::filesystem::remove(path_ + ext);
  Result<std::unique_ptr<ProfileStore>> fresh = ProfileStore::Open(path_);
  ASSERT_TRUE(fresh.ok());
  ASSERT_EQ(*(*fresh)->ImportJson(*json, "p.json"), 2);
  (*fresh)->SelectDevice(gpu);
  EXPECT_DOUBLE_EQ((*fresh)->Find(sig, 1)->host.seconds(), 7.5e-6);
  EXPECT_DOUBLE_EQ((*fresh)->Find(other, 1)->host.seconds(), 0);
}

// A GPU row without a host time borrows the same signature's from another GPU measured with the
// same libraries; not from one with other libraries, and never on a CPU.
TEST_F(ProfileStoreTest, AGpuRowWithoutHostTimeBorrowsOneOfTheSameLibraries) {
  Result<std::unique_ptr<ProfileStore>> store = ProfileStore::Open(path_);
  ASSERT_TRUE(store.ok()) << store.status().message();
  const Fingerprint measured{"gpu", "GPU A", "sm_90", 132, 0, "CUDA 13.0"};
  const Fingerprint same_libs{"gpu", "GPU B", "sm_90", 132, 0, "CUDA 13.0"};
  const Fingerprint other_libs{"gpu", "GPU C", "sm_90", 132, 0, "CUDA 12.4"};
  const Fingerprint cpu{"cpu", "CPU D", "avx2", 4, 8, "CUDA 13.0"};
  const OpSignature sig = *OpSignature::Parse("ip_fwd dt=f32 bias=1 ic=8 mb=4 oc=2");
  Measurement m{Seconds::FromMicroseconds(10), Seconds::FromMicroseconds(9),
                Seconds::FromMicroseconds(12), 50, Seconds::FromMicroseconds(11)};
  m.host = Seconds::FromMicroseconds(9);
  ASSERT_TRUE((*store)->Put(measured, {sig.ToString(), 1, m, "2026-11-26"}).ok());
  m.host = Seconds();
  for (const Fingerprint& d : {same_libs, other_libs, cpu})
    ASSERT_TRUE((*store)->Put(d, {sig.ToString(), 1, m, "2026-11-26"}).ok());
  (*store)->SelectDevice(same_libs);
  EXPECT_DOUBLE_EQ((*store)->Find(sig, 1)->host.seconds(), 9e-6);
  EXPECT_DOUBLE_EQ((*store)->Find(sig, 1)->mean.seconds(), 11e-6);  // its own op time
  (*store)->SelectDevice(other_libs);
  EXPECT_DOUBLE_EQ((*store)->Find(sig, 1)->host.seconds(), 0);
  (*store)->SelectDevice(cpu);
  EXPECT_DOUBLE_EQ((*store)->Find(sig, 1)->host.seconds(), 0);
}

TEST_F(ProfileStoreTest, BadProfilesChangeNothing) {
  Result<std::unique_ptr<ProfileStore>> store = ProfileStore::Open(path_);
  ASSERT_TRUE(store.ok());
  const std::string head =
      R"({"format": "epochcost-profile", "version": 1, "device": {"kind": "cpu", "model": "X",
          "isa": "", "library": "oneDNN 2.6.3"}, "measurements": [)";
  const std::string good =
      R"({"signature": "ip_fwd dt=f32 ic=8 mb=4 oc=2", "threads": 1, "median_s": 1e-5,
          "p10_s": 1e-5, "p90_s": 2e-5, "count": 3, "measured_at": "2026-01-02"})";
  EXPECT_EQ((*store)
                ->ImportJson(
                    head + good + R"(, {"signature": "ip_fwd dt=f32 ic=2 mb=1 oc=3", "threads": 1,
          "median_s": 2e-5, "p10_s": 3e-5, "p90_s": 4e-5, "count": 3,
          "measured_at": "2026-01-02"}]})",
                    "bad.json")
                .status()
                .message(),
            "bad.json: measurements[1]: times must be positive with p10 <= median <= p90");
  EXPECT_EQ((*store)
                ->ImportJson(head + R"({"signature": "ip_fwd dt=f32 ic=2 mb=1 oc=3", "threads": 1,
          "median_s": 2e-5, "p10_s": 1e-5, "p90_s": 4e-5, "mean_s": "fast", "count": 3,
          "measured_at": "2026-01-02"}]})",
                             "bad.json")
                .status()
                .message(),
            "bad.json: measurements[0].mean_s: expected a positive number of seconds");
  EXPECT_EQ((*store)
                ->ImportJson(head + R"({"signature": "ip_fwd dt=f32 ic=2 mb=1 oc=3", "threads": 1,
          "median_s": 2e-5, "p10_s": 1e-5, "p90_s": 4e-5, "host_s": -3e-6, "count": 3,
          "measured_at": "2026-01-02"}]})",
                             "bad.json")
                .status()
                .message(),
            "bad.json: measurements[0].host_s: expected a positive number of seconds");
  EXPECT_EQ((*store)
                ->ImportJson(head + R"({"signature": "ip_fwd dt=f32 ic=2 mb=1 oc=3", "threads": 1,
          "median_s": 2e-5, "p10_s": 1e-5, "p90_s": 4e-5, "count": 3,
          "measured_at": "2026-01-02", "in_step": "yes"}]})",
                             "bad.json")
                .status()
                .message(),
            "bad.json: measurements[0].in_step: expected true or false");
  EXPECT_EQ((*store)
                ->ImportJson(R"({"format": "epochcost-profile", "version": 7})", "v.json")
                .status()
                .message(),
            "v.json: version: this epochcost reads profile format version 1");
  EXPECT_EQ((*store)->ImportJson("{oops", "x.json").status().message(),
            "x.json: malformed JSON at line 1, column 2");
  Fingerprint x{"cpu", "X", "", 0, 0, "oneDNN 2.6.3"};
  (*store)->SelectDevice(x);
  EXPECT_FALSE((*store)->Find(*OpSignature::Parse("ip_fwd dt=f32 ic=8 mb=4 oc=2"), 1));
}

// A store written before measurements kept their mean (no mean_s column) opens, reads its rows'
// medians as their means, and takes new measurements with means.
TEST_F(ProfileStoreTest, StoreFromBeforeMeansIsUpgraded) {
  {
    Result<std::unique_ptr<catalog::Database>> db = catalog::Database::Open(path_, "profile store");
    ASSERT_TRUE(db.ok());
    ASSERT_TRUE((*db)
                    ->Exec("CREATE TABLE devices(id TEXT PRIMARY KEY, kind TEXT NOT NULL, model "
                           "TEXT NOT NULL, isa TEXT NOT NULL, cores INTEGER NOT NULL, "
                           "logical_cpus INTEGER NOT NULL, library TEXT NOT NULL);"
                           "CREATE TABLE measurements(device TEXT NOT NULL REFERENCES devices(id), "
                           "threads INTEGER NOT NULL, signature TEXT NOT NULL, median_s REAL NOT "
                           "NULL, p10_s REAL NOT NULL, p90_s REAL NOT NULL, count INTEGER NOT "
                           "NULL, measured_at TEXT NOT NULL, PRIMARY KEY(device, threads, "
                           "signature));")
                    .ok());
    Result<catalog::Statement> d = (*db)->Prepare(
        "INSERT INTO devices VALUES(?1, 'cpu', 'Test CPU 9000', 'avx2 fma', 4, 8, 'oneDNN 2.6.3')");
    ASSERT_TRUE(d.ok());
    d->Bind(1, TestDevice().id());
    ASSERT_TRUE(d->Run().ok());
    Result<catalog::Statement> q = (*db)->Prepare(
        "INSERT INTO measurements VALUES(?1, 1, 'ip_fwd dt=f32 ic=8 mb=4 oc=2', 3e-5, 2e-5, 4e-5, "
        "9, '2026-01-02')");
    ASSERT_TRUE(q.ok());
    q->Bind(1, TestDevice().id());
    const Status inserted = q->Run();
    ASSERT_TRUE(inserted.ok()) << inserted.message();
  }
  Result<std::unique_ptr<ProfileStore>> store = ProfileStore::Open(path_);
  ASSERT_TRUE(store.ok()) << store.status().message();
  (*store)->SelectDevice(TestDevice());
  const OpSignature sig = *OpSignature::Parse("ip_fwd dt=f32 ic=8 mb=4 oc=2");
  EXPECT_DOUBLE_EQ((*store)->Find(sig, 1)->mean.seconds(), 3e-5);
  const Measurement m{Seconds::FromMicroseconds(10), Seconds::FromMicroseconds(9),
                      Seconds::FromMicroseconds(12), 50, Seconds::FromMicroseconds(11)};
  // Its rows, of a device no profile is shipped for, are its user's: a shipped row leaves them.
  ASSERT_TRUE((*store)
                  ->Put(TestDevice(), {sig.ToString(), 1, m, "2026-01-03"},
                        ProfileStore::Provenance::kShipped)
                  .ok());
  EXPECT_DOUBLE_EQ((*store)->Find(sig, 1)->mean.seconds(), 3e-5);
  ASSERT_TRUE((*store)->Put(TestDevice(), {sig.ToString(), 1, m, "2026-01-03"}).ok());
  EXPECT_DOUBLE_EQ((*store)->Find(sig, 1)->mean.seconds(), 11e-6);
}

// A store from before rows said where they came from takes the rows of a device a profile is
// shipped for as shipped, and loads the shipped profiles again over them.
TEST_F(ProfileStoreTest, StoreFromBeforeProvenanceTakesTheShippedProfilesAgain) {
  const OpSignature sig = *OpSignature::Parse("binary dt=bf16 alg=add n=12845056");
  Fingerprint h100;
  {
    Result<std::unique_ptr<ProfileStore>> fresh = ProfileStore::Open(path_);
    ASSERT_TRUE(fresh.ok()) << fresh.status().message();
    Result<std::vector<Fingerprint>> devices = (*fresh)->Devices();
    ASSERT_TRUE(devices.ok());
    for (const Fingerprint& d : *devices)
      if (d.model == "NVIDIA H100 80GB HBM3") h100 = d;
  }
  ASSERT_EQ(h100.kind, "gpu");
  {
    // The same store as an older epochcost left it: no shipped column, a stale row of the H100.
    Result<std::unique_ptr<catalog::Database>> db = catalog::Database::Open(path_, "profile store");
    ASSERT_TRUE(db.ok());
    ASSERT_TRUE((*db)
                    ->Exec("ALTER TABLE measurements DROP COLUMN shipped;"
                           "ALTER TABLE microbenchmarks DROP COLUMN shipped;")
                    .ok());
    Result<catalog::Statement> q = (*db)->Prepare(
        "UPDATE measurements SET mean_s = 1, median_s = 1 WHERE device = ?1 AND signature = ?2");
    ASSERT_TRUE(q.ok());
    q->Bind(1, h100.id()).Bind(2, sig.ToString());
    ASSERT_TRUE(q->Run().ok());
  }
  Result<std::unique_ptr<ProfileStore>> store = ProfileStore::Open(path_);
  ASSERT_TRUE(store.ok()) << store.status().message();
  (*store)->SelectDevice(h100);
  std::optional<OpTime> t = (*store)->Find(sig, 1);
  ASSERT_TRUE(t.has_value());
  EXPECT_LT(t->mean.seconds(), 0.01);  // the shipped row again, not the stale one
}

// The shipped profiles (data/profiles) load into a new store: the development CPU and the H100.
TEST_F(ProfileStoreTest, NewStoreHoldsTheShippedProfiles) {
  Result<std::unique_ptr<ProfileStore>> store = ProfileStore::Open(path_);
  ASSERT_TRUE(store.ok()) << store.status().message();
  Result<std::vector<Fingerprint>> devices = (*store)->Devices();
  ASSERT_TRUE(devices.ok());
  const Fingerprint* h100 = nullptr;
  for (const Fingerprint& d : *devices)
    if (d.model == "NVIDIA H100 80GB HBM3") h100 = &d;
  ASSERT_NE(h100, nullptr);
  EXPECT_EQ(h100->kind, "gpu");
  (*store)->SelectDevice(*h100);
  std::optional<OpTime> t =
      (*store)->Find(*OpSignature::Parse("binary dt=bf16 alg=add n=12845056"), 1);
  ASSERT_TRUE(t.has_value());
  EXPECT_EQ(t->source, "measured here (2026-11-26)");
  Result<std::vector<Microbenchmark>> benches = (*store)->Microbenchmarks(*h100);
  ASSERT_TRUE(benches.ok());
  EXPECT_EQ(benches->size(), 7u);
}

TEST_F(ProfileStoreTest, CalibrationsAreStoredAndReplaced) {
  Result<std::unique_ptr<ProfileStore>> store = ProfileStore::Open(path_);
  ASSERT_TRUE(store.ok());
  EXPECT_EQ((*store)->FindCalibration("jax", "cpu").status().message(),
            "no calibration for jax on cpu in the profile store or shipped; run: epochcost "
            "calibrate RUNS...");
  StoredCalibration c{.framework = "jax",
                      .device_kind = "cpu",
                      .kernel_scale = 1.5,
                      .per_op_overhead = Seconds::FromMicroseconds(12),
                      .runs = 12,
                      .folds = 5,
                      .mape_before = 60,
                      .mape_after = 20,
                      .fitted_at = "2026-11-22",
                      .origin = "runs.csv",
                      .per_step_overhead = Seconds::FromMilliseconds(1.5)};
  ASSERT_TRUE((*store)->PutCalibrations({c}).ok());
  c.kernel_scale = 2;
  ASSERT_TRUE((*store)->PutCalibrations({c}).ok());
  Result<StoredCalibration> got = (*store)->FindCalibration("jax", "cpu");
  ASSERT_TRUE(got.ok());
  EXPECT_DOUBLE_EQ(got->kernel_scale, 2);
  EXPECT_DOUBLE_EQ(got->per_op_overhead.seconds(), 12e-6);
  EXPECT_DOUBLE_EQ(got->per_step_overhead.seconds(), 1.5e-3);
  EXPECT_EQ(got->runs, 12);
  EXPECT_FALSE(got->shipped);
  EXPECT_FALSE(got->per_op_overhead_threads.has_value());  // stored as NULL, read back unset
  EXPECT_EQ((*store)->Calibrations()->size(), 1 + ShippedCalibrations()->size());
  EXPECT_FALSE((*store)->FindCalibration("jax", "gpu").ok());
  // One per-op overhead for steps on one thread and one for steps on more.
  c.per_op_overhead_threads = Seconds::FromMicroseconds(30);
  ASSERT_TRUE((*store)->PutCalibrations({c}).ok());
  got = (*store)->FindCalibration("jax", "cpu");
  ASSERT_TRUE(got.ok());
  ASSERT_TRUE(got->per_op_overhead_threads.has_value());
  EXPECT_DOUBLE_EQ(got->per_op_overhead_threads->seconds(), 30e-6);
  EXPECT_DOUBLE_EQ(got->correction().PerOpOverhead(false).seconds(), 12e-6);
  EXPECT_DOUBLE_EQ(got->correction().PerOpOverhead(true).seconds(), 30e-6);
}

// A store without a calibration of its own for a framework answers with the shipped one; one the
// user fits replaces it for that framework and device kind only.
TEST_F(ProfileStoreTest, ShippedCalibrationsAnswerUntilTheUserFitsOne) {
  Result<std::vector<StoredCalibration>> shipped = ShippedCalibrations();
  ASSERT_TRUE(shipped.ok()) << shipped.status().message();
  ASSERT_FALSE(shipped->empty());
  Result<std::unique_ptr<ProfileStore>> store = ProfileStore::Open(path_);
  ASSERT_TRUE(store.ok());
  Result<StoredCalibration> before = (*store)->FindCalibration("pytorch", "cpu");
  ASSERT_TRUE(before.ok()) << before.status().message();
  EXPECT_TRUE(before->shipped);
  StoredCalibration own = *before;
  own.kernel_scale = 1.25;
  own.shipped = false;
  ASSERT_TRUE((*store)->PutCalibrations({own}).ok());
  Result<StoredCalibration> after = (*store)->FindCalibration("pytorch", "cpu");
  ASSERT_TRUE(after.ok());
  EXPECT_FALSE(after->shipped);
  EXPECT_DOUBLE_EQ(after->kernel_scale, 1.25);
  EXPECT_EQ((*store)->Calibrations()->size(), shipped->size());
  Result<StoredCalibration> gpu = (*store)->FindCalibration("pytorch-ngc", "gpu");
  ASSERT_TRUE(gpu.ok());
  EXPECT_TRUE(gpu->shipped);
  // Forgetting the user's calibration brings the shipped one back; the shipped ones stay.
  EXPECT_EQ(*(*store)->ForgetCalibrations("pytorch"), 1);
  EXPECT_TRUE((*store)->FindCalibration("pytorch", "cpu")->shipped);
  EXPECT_EQ(*(*store)->ForgetCalibrations("pytorch"), 0);
  EXPECT_EQ((*store)->Calibrations()->size(), shipped->size());
}

// Regression: a shipped calibration fitted to one model (pytorch-ngc, Lambda's ResNet50 v1.5
// runs) was applied to every other model, though no model could be held out to show it carries.
TEST(CalibrationTable, ShippedFromOneModelAppliesToThatModelOnly) {
  StoredCalibration c{
      .framework = "pytorch-ngc", .device_kind = "gpu", .shipped = true, .models = "resnet50_v1_5"};
  std::string why;
  EXPECT_TRUE(c.AppliesTo("resnet50_v1_5", &why));
  EXPECT_FALSE(c.AppliesTo("vit_b16", &why));
  EXPECT_EQ(why,
            "the shipped pytorch-ngc calibration on gpu was not applied to vit_b16: it was fitted "
            "to resnet50_v1_5 only, so whether it carries to another model is not known; fit one "
            "to runs of yours: epochcost calibrate RUNS...");
  c.shipped = false;  // a user's own applies to any model
  EXPECT_TRUE(c.AppliesTo("vit_b16", &why));
}

// A shipped calibration applies to the models it was fitted to, and to others only where one
// model held out at a time it predicted better than no calibration; a user's applies to any.
TEST(CalibrationTable, ShippedAppliesToItsModelsOrWhereItCarries) {
  StoredCalibration c{.framework = "pytorch",
                      .device_kind = "gpu",
                      .shipped = true,
                      .models = "mnist_mlp resnet50",
                      .model_mape_before = 35.8,
                      .model_mape_after = 57.7};
  std::string why;
  EXPECT_TRUE(c.AppliesTo("resnet50", &why));
  EXPECT_FALSE(c.AppliesTo("vit_b16", &why));
  EXPECT_EQ(why,
            "the shipped pytorch calibration on gpu was not applied to vit_b16: it was fitted to "
            "other models (mnist_mlp resnet50) and does not carry to a model it has not seen (one "
            "model held out at a time: MAPE 35.8% uncalibrated, 57.7% calibrated); fit one to runs "
            "of yours: epochcost calibrate RUNS...");
  c.model_mape_after = 26.3;
  EXPECT_TRUE(c.AppliesTo("vit_b16", nullptr));
  c.model_mape_after = 57.7;
  c.shipped = false;
  EXPECT_TRUE(c.AppliesTo("vit_b16", nullptr));
}

// A model of its fit whose runs a shipped calibration predicted worse than none, held out, is
// left uncalibrated, with the figures; a user's calibration applies to it.
TEST(CalibrationTable, ShippedSkipsTheModelsItPredictedWorse) {
  StoredCalibration c{.framework = "pytorch",
                      .device_kind = "gpu",
                      .folds = 5,
                      .shipped = true,
                      .models = "gpt2_small mnist_mlp",
                      .model_mape_before = 35.2,
                      .model_mape_after = 35.3,
                      .models_worse = "gpt2_small=4.1/20.5"};
  std::string why;
  EXPECT_TRUE(c.AppliesTo("mnist_mlp", &why));
  EXPECT_FALSE(c.AppliesTo("gpt2_small", &why));
  EXPECT_EQ(why,
            "the shipped pytorch calibration on gpu was not applied to gpt2_small: held out in its "
            "5-fold cross-validation, it predicted gpt2_small's runs worse than no calibration "
            "(MAPE 4.1% uncalibrated, 20.5% calibrated); fit one to runs of yours: epochcost "
            "calibrate RUNS...");
  c.shipped = false;
  EXPECT_TRUE(c.AppliesTo("gpt2_small", nullptr));
}

TEST(CalibrationTable, WritesAndReadsBack) {
  const StoredCalibration c{.framework = "keras+tensorflow",
                            .device_kind = "gpu",
                            .kernel_scale = 3.35274,
                            .per_op_overhead = Seconds::FromMicroseconds(23.7044),
                            .runs = 7,
                            .folds = 5,
                            .mape_before = 72.7936,
                            .mape_after = 52.6697,
                            .fitted_at = "2026-11-25",
                            .origin = "@published-runs \"my runs\".csv",
                            .per_step_overhead = Seconds::FromMilliseconds(3.16155),
                            .memory_passes = 0.5433,
                            .models = "mnist_cnn mnist_mlp",
                            .model_mape_before = 72.8,
                            .model_mape_after = 55.4,
                            .models_worse = "mnist_mlp=71/182"};
  const std::string csv = CalibrationsCsv({c});
  EXPECT_EQ(csv,
            "framework,device_kind,kernel_scale,per_op_overhead_us,per_step_overhead_ms,runs,folds,"
            "mape_before,mape_after,fitted_at,origin,models,model_mape_before,model_mape_after,"
            "models_worse,memory_passes,per_op_overhead_threads_us\n"
            "keras+tensorflow,gpu,3.35274,23.7044,3.16155,7,5,72.7936,52.6697,2026-11-25,"
            "\"@published-runs \"\"my runs\"\".csv\",\"mnist_cnn mnist_mlp\",72.8,55.4,"
            "\"mnist_mlp=71/182\",0.5433,\n");
  Result<std::vector<StoredCalibration>> back = ParseCalibrationsCsv(csv, "t.csv");
  ASSERT_TRUE(back.ok()) << back.status().message();
  ASSERT_EQ(back->size(), 1u);
  EXPECT_EQ((*back)[0].framework, c.framework);
  EXPECT_DOUBLE_EQ((*back)[0].kernel_scale, 3.35274);
  EXPECT_NEAR((*back)[0].per_op_overhead.seconds(), 23.7044e-6, 1e-15);
  EXPECT_NEAR((*back)[0].per_step_overhead.seconds(), 3.16155e-3, 1e-15);
  EXPECT_DOUBLE_EQ((*back)[0].memory_passes, 0.5433);
  EXPECT_EQ((*back)[0].runs, 7);
  EXPECT_EQ((*back)[0].origin, c.origin);
  EXPECT_EQ((*back)[0].models_worse, c.models_worse);
  EXPECT_EQ((*back)[0].ModelsWorse().at("mnist_mlp"), std::make_pair(71.0, 182.0));
  EXPECT_FALSE((*back)[0].shipped);
  EXPECT_FALSE((*back)[0].per_op_overhead_threads.has_value());  // empty: one for all
  // A CPU calibration with a per-op overhead for steps on more than one thread.
  StoredCalibration threaded = c;
  threaded.device_kind = "cpu";
  threaded.per_op_overhead_threads = Seconds::FromMicroseconds(9.20223);
  const std::string with = CalibrationsCsv({threaded});
  EXPECT_TRUE(with.ends_with(",0.5433,9.20223\n")) << with;
  back = ParseCalibrationsCsv(with, "t.csv");
  ASSERT_TRUE(back.ok()) << back.status().message();
  ASSERT_TRUE((*back)[0].per_op_overhead_threads.has_value());
  EXPECT_NEAR((*back)[0].per_op_overhead_threads->seconds(), 9.20223e-6, 1e-15);
}

TEST(CalibrationTable, BadRowsAreErrorsNamingLineAndField) {
  const std::string head =
      "framework,device_kind,kernel_scale,per_op_overhead_us,per_step_overhead_ms,runs,folds,"
      "mape_before,mape_after,fitted_at,origin,models,model_mape_before,model_mape_after\n";
  auto error = [&](const std::string& rows) {
    Result<std::vector<StoredCalibration>> r = ParseCalibrationsCsv(head + rows, "c.csv");
    return r.ok() ? std::string("ok") : r.status().message();
  };
  EXPECT_EQ(error("pytorch,tpu,1,0,0,5,5,10,5,2026-11-25,x,,,\n"),
            "c.csv:2: device_kind 'tpu' is not cpu or gpu");
  EXPECT_EQ(error("pytorch,cpu,0,0,0,5,5,10,5,2026-11-25,x,,,\n"),
            "c.csv:2: kernel_scale 0 is not positive");
  EXPECT_EQ(error("pytorch,cpu,1,-2,0,5,5,10,5,2026-11-25,x,,,\n"),
            "c.csv:2: per_op_overhead_us -2 is not at least 0");
  EXPECT_EQ(error("pytorch,cpu,1,0,fast,5,5,10,5,2026-11-25,x,,,\n"),
            "c.csv:2: per_step_overhead_ms 'fast' is not a number");
  EXPECT_EQ(error("pytorch,cpu,1,0,0,2.5,5,10,5,2026-11-25,x,,,\n"),
            "c.csv:2: runs 2.5 is not a whole number at least 3");
  EXPECT_EQ(
      error("pytorch,cpu,1,0,0,5,5,10,5,2026-11-25,x,,,\npytorch,cpu,1,0,0,5,5,10,5,d,y,,,\n"),
      "c.csv:3: a second pytorch calibration on cpu");
  EXPECT_EQ(error("pytorch,cpu,1,0,0,5,5,10,5,2026-11-25,x,m,30,\n"),
            "c.csv:2: model_mape_before and model_mape_after: one is empty");
  const std::string with_threads =
      "framework,device_kind,kernel_scale,per_op_overhead_us,per_step_overhead_ms,runs,folds,"
      "mape_before,mape_after,fitted_at,origin,models,model_mape_before,model_mape_after,"
      "models_worse,memory_passes,per_op_overhead_threads_us\n";
  Result<std::vector<StoredCalibration>> r = ParseCalibrationsCsv(
      with_threads + "pytorch,cpu,1,0,0,5,5,10,5,2026-11-25,x,,,,,0,-1\n", "c.csv");
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().message(), "c.csv:2: per_op_overhead_threads_us -1 is not at least 0");
  // A file from before the models_worse column reads as none; one with it is checked.
  EXPECT_EQ(error("pytorch,cpu,1,0,0,5,5,10,5,2026-11-25,x,m,,\n"), "ok");
  const std::string with_worse = head.substr(0, head.size() - 1) + ",models_worse\n";
  auto worse_error = [&](const std::string& worse) {
    Result<std::vector<StoredCalibration>> r = ParseCalibrationsCsv(
        with_worse + "pytorch,cpu,1,0,0,5,5,10,5,2026-11-25,x,m n,,," + worse + "\n", "c.csv");
    return r.ok() ? std::string("ok") : r.status().message();
  };
  EXPECT_EQ(worse_error("m=1/2"), "ok");
  EXPECT_EQ(worse_error("m"), "c.csv:2: models_worse: 'm' is not MODEL=BEFORE/AFTER");
  EXPECT_EQ(worse_error("x=1/2"), "c.csv:2: models_worse: x is not among its models");
  EXPECT_EQ(worse_error("m=1/lots"), "c.csv:2: models_worse 'lots' is not a number");
  // A file from before the memory_passes column reads as none; one with it is checked.
  Result<std::vector<StoredCalibration>> no_gb =
      ParseCalibrationsCsv(head + "pytorch,cpu,1,0,0,5,5,10,5,2026-11-25,x,m,,\n", "c.csv");
  ASSERT_TRUE(no_gb.ok());
  EXPECT_EQ((*no_gb)[0].memory_passes, 0);
  auto gb_error = [&](const std::string& gb) {
    Result<std::vector<StoredCalibration>> r =
        ParseCalibrationsCsv(with_worse.substr(0, with_worse.size() - 1) + ",memory_passes\n" +
                                 "pytorch,cpu,1,0,0,5,5,10,5,2026-11-25,x,m,,,," + gb + "\n",
                             "c.csv");
    return r.ok() ? std::string("ok") : r.status().message();
  };
  EXPECT_EQ(gb_error("0.54"), "ok");
  EXPECT_EQ(gb_error("-1"), "c.csv:2: memory_passes -1 is not at least 0");
  EXPECT_EQ(gb_error(""), "c.csv:2: memory_passes '' is not a number");
  Result<std::vector<StoredCalibration>> no_origin =
      ParseCalibrationsCsv("framework,device_kind\npytorch,cpu\n", "c.csv");
  ASSERT_FALSE(no_origin.ok());
  EXPECT_NE(no_origin.status().message().find("c.csv"), std::string::npos);
}

// Regression: a store written before calibrations had a per-step overhead (or memory passes)
// gains the columns on open, and its calibrations read with none.
TEST_F(ProfileStoreTest, CalibrationsFromBeforeThePerStepOverheadReadAsZero) {
  {
    Result<std::unique_ptr<catalog::Database>> db = catalog::Database::Open(path_, "profile store");
    ASSERT_TRUE(db.ok());
    ASSERT_TRUE((*db)
                    ->Exec("CREATE TABLE calibrations(framework TEXT NOT NULL, device_kind TEXT "
                           "NOT NULL, kernel_scale REAL NOT NULL, per_op_overhead_s REAL NOT "
                           "NULL, runs INTEGER NOT NULL, folds INTEGER NOT NULL, mape_before "
                           "REAL NOT NULL, mape_after REAL NOT NULL, fitted_at TEXT NOT NULL, "
                           "origin TEXT NOT NULL, PRIMARY KEY(framework, device_kind));"
                           "INSERT INTO calibrations VALUES('pytorch', 'cpu', 1.25, 8e-6, 12, 5, "
                           "18.5, 17.3, '2026-11-24', 'runs.csv');")
                    .ok());
  }
  Result<std::unique_ptr<ProfileStore>> store = ProfileStore::Open(path_);
  ASSERT_TRUE(store.ok()) << store.status().message();
  Result<StoredCalibration> got = (*store)->FindCalibration("pytorch", "cpu");
  ASSERT_TRUE(got.ok());
  EXPECT_DOUBLE_EQ(got->kernel_scale, 1.25);
  EXPECT_DOUBLE_EQ(got->per_step_overhead.seconds(), 0);
  EXPECT_DOUBLE_EQ(got->memory_passes, 0);
  // The new columns are written and read back.
  StoredCalibration c = *got;
  c.per_step_overhead = Seconds::FromMilliseconds(1.5);
  c.memory_passes = 0.5433;
  ASSERT_TRUE((*store)->PutCalibrations({c}).ok());
  got = (*store)->FindCalibration("pytorch", "cpu");
  ASSERT_TRUE(got.ok());
  EXPECT_DOUBLE_EQ(got->per_step_overhead.seconds(), 1.5e-3);
  EXPECT_DOUBLE_EQ(got->memory_passes, 0.5433);
}

// Cloud VMs mask the CPU's part number; the fingerprint then carries CPUID's family and model,
// so a Zen 5 "AMD EPYC" VM is not taken for another "AMD EPYC" VM whose profile is shipped
// (regression: predicted 45-93% too fast as "same device").
TEST(FingerprintTest, MaskedCpuNamesCarryTheirCpuidFamilyAndModel) {
  EXPECT_EQ(WithCpuidWhereMasked("AMD EPYC", "26", "2"), "AMD EPYC (family 26, model 2)");
  EXPECT_EQ(WithCpuidWhereMasked("Intel Xeon Processor (Cascadelake)", "6", "85"),
            "Intel Xeon Processor (Cascadelake) (family 6, model 85)");
  EXPECT_EQ(WithCpuidWhereMasked("Intel(R) Xeon(R) Platinum 8481C CPU @ 2.70GHz", "6", "143"),
            "Intel(R) Xeon(R) Platinum 8481C CPU @ 2.70GHz");
  EXPECT_EQ(WithCpuidWhereMasked("AMD EPYC", "", ""), "AMD EPYC");  // not x86 /proc/cpuinfo
}

}  // namespace
}  // namespace epochcost::profiler
