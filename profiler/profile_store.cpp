#include "profiler/profile_store.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <functional>
#include <sstream>

#include "catalog/sqlite.h"
#include "engine/file_util.h"
#include "engine/json_util.h"
#include "profiler/calibration_table.h"

namespace epochcost {
// Generated from data/profiles/*.json (scripts/embed_files.cmake).
const std::vector<std::pair<std::string_view, std::string_view>>& ShippedProfiles();
}  // namespace epochcost

namespace epochcost::profiler {
namespace {

using catalog::Database;
using catalog::Statement;
using catalog::Transaction;
// Written with keys in the order they are set; read as plain JSON (engine/json_util.h).
using OutJson = nlohmann::ordered_json;

constexpr const char* kSchema = R"sql(
CREATE TABLE IF NOT EXISTS meta(key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS devices(
  id TEXT PRIMARY KEY, kind TEXT NOT NULL, model TEXT NOT NULL, isa TEXT NOT NULL,
  cores INTEGER NOT NULL, logical_cpus INTEGER NOT NULL, library TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS measurements(
  device TEXT NOT NULL REFERENCES devices(id), threads INTEGER NOT NULL, signature TEXT NOT NULL,
  median_s REAL NOT NULL, p10_s REAL NOT NULL, p90_s REAL NOT NULL, count INTEGER NOT NULL,
  measured_at TEXT NOT NULL, mean_s REAL, host_s REAL, in_step INTEGER NOT NULL DEFAULT 0,
  PRIMARY KEY(device, threads, signature));
CREATE TABLE IF NOT EXISTS microbenchmarks(
  device TEXT NOT NULL REFERENCES devices(id), name TEXT NOT NULL, threads INTEGER NOT NULL,
  value REAL NOT NULL, measured_at TEXT NOT NULL, PRIMARY KEY(device, name, threads));
CREATE TABLE IF NOT EXISTS calibrations(
  framework TEXT NOT NULL, device_kind TEXT NOT NULL, kernel_scale REAL NOT NULL,
  per_op_overhead_s REAL NOT NULL, runs INTEGER NOT NULL, folds INTEGER NOT NULL,
  mape_before REAL NOT NULL, mape_after REAL NOT NULL, fitted_at TEXT NOT NULL,
  origin TEXT NOT NULL, per_step_overhead_s REAL NOT NULL DEFAULT 0,
  memory_passes REAL NOT NULL DEFAULT 0, per_op_overhead_threads_s REAL,
  PRIMARY KEY(framework, device_kind));
)sql";

constexpr int kFormatVersion = 1;

// Whether `table` has `column`.
Result<bool> HasColumn(Database& db, const std::string& table, const std::string& column) {
  Result<Statement> q =
      db.Prepare("SELECT 1 FROM pragma_table_info('" + table + "') WHERE name = ?1");
  if (!q.ok()) return q.status();
  q->Bind(1, column);
  return q->Step();
}

// Adds `column` (with its SQL definition) to `table` of a store made before it existed.
Status AddColumnIfMissing(Database& db, const std::string& table, const std::string& column,
                          const std::string& definition) {
  Result<bool> has = HasColumn(db, table, column);
  if (!has.ok()) return has.status();
  return *has ? Status::Ok()
              : db.Exec("ALTER TABLE " + table + " ADD COLUMN " + column + " " + definition);
}

Status PutDevice(Database& db, const Fingerprint& d) {
  Result<Statement> q =
      db.Prepare("INSERT OR IGNORE INTO devices VALUES(?1, ?2, ?3, ?4, ?5, ?6, ?7)");
  if (!q.ok()) return q.status();
  q->Bind(1, d.id()).Bind(2, d.kind).Bind(3, d.model).Bind(4, d.isa);
  q->Bind(5, int64_t{d.cores}).Bind(6, int64_t{d.logical_cpus}).Bind(7, d.library);
  return q->Run();
}

// An optional field of seconds: absent leaves `out` as it is (0: unknown); present, it must be
// a positive finite number.
Status OptionalSeconds(const Json& e, const char* key, const std::string& path, Seconds* out) {
  if (!e.contains(key)) return Status::Ok();
  const Json& v = e[key];
  if (!v.is_number() || !(v.get<double>() > 0) || !std::isfinite(v.get<double>()))
    return Status::InvalidArgument(path + "." + key + ": expected a positive number of seconds");
  *out = Seconds::FromSeconds(v.get<double>());
  return Status::Ok();
}

// Reads a profile document; every field error names its path.
Status ParseProfile(const Json& doc, Fingerprint* device, std::vector<StoredMeasurement>* ms,
                    std::vector<Microbenchmark>* bs) {
  if (!doc.is_object() || doc.value("format", "") != "epochcost-profile")
    return Status::InvalidArgument("format: expected \"epochcost-profile\"");
  Result<int64_t> version = IntegerField(doc, "version", 0, 0, INT32_MAX);
  if (!version.ok() || *version != kFormatVersion)
    return Status::Unsupported("version: this epochcost reads profile format version " +
                               std::to_string(kFormatVersion));
  const Json& d = doc.value("device", Json::object());
  for (const char* k : {"kind", "model", "isa", "library"})
    if (!d.contains(k) || !d[k].is_string())
      return Status::InvalidArgument(std::string("device.") + k + ": expected a string");
  device->kind = d["kind"];
  device->model = d["model"];
  device->isa = d["isa"];
  device->library = d["library"];
  Result<int64_t> cores = IntegerField(d, "cores", 0, 0, 1 << 20, "device");
  if (!cores.ok()) return cores.status();
  Result<int64_t> logical = IntegerField(d, "logical_cpus", 0, 0, 1 << 20, "device");
  if (!logical.ok()) return logical.status();
  device->cores = static_cast<int>(*cores);
  device->logical_cpus = static_cast<int>(*logical);
  const Json& m = doc.value("measurements", Json::array());
  if (!m.is_array()) return Status::InvalidArgument("measurements: expected an array");
  for (size_t i = 0; i < m.size(); ++i) {
    const std::string path = "measurements[" + std::to_string(i) + "]";
    const Json& e = m[i];
    if (!e.is_object() || !e.contains("signature") || !e["signature"].is_string())
      return Status::InvalidArgument(path + ".signature: expected a string");
    Result<OpSignature> sig = OpSignature::Parse(e["signature"].get<std::string>());
    if (!sig.ok()) return sig.status().WithContext(path + ".signature");
    StoredMeasurement s;
    s.signature = sig->ToString();
    Result<int64_t> threads = IntegerField(e, "threads", 0, 1, 1 << 20, path);
    if (!threads.ok()) return threads.status();
    Result<int64_t> count = IntegerField(e, "count", 0, 0, INT32_MAX, path);
    if (!count.ok()) return count.status();
    s.threads = static_cast<int>(*threads);
    const double median = e.value("median_s", -1.0), p10 = e.value("p10_s", -1.0),
                 p90 = e.value("p90_s", -1.0);
    if (!(median > 0) || !(p10 > 0) || !(p90 > 0) || !(p10 <= median && median <= p90))
      return Status::InvalidArgument(path + ": times must be positive with p10 <= median <= p90");
    s.measurement = {Seconds::FromSeconds(median), Seconds::FromSeconds(p10),
                     Seconds::FromSeconds(p90), static_cast<int>(*count)};
    // Optional: files written before 2026-11-24 lack the mean, GPU files measured before
    // 2026-11-26 (and CPU files) the host time.
    EPOCHCOST_RETURN_IF_ERROR(OptionalSeconds(e, "mean_s", path, &s.measurement.mean));
    EPOCHCOST_RETURN_IF_ERROR(OptionalSeconds(e, "host_s", path, &s.measurement.host));
    s.measured_at = e.value("measured_at", "");
    if (s.measured_at.size() != 10)
      return Status::InvalidArgument(path + ".measured_at: YYYY-MM-DD");
    // Optional: files written before 2026-11-28 (thirty-seventh session) say nothing of how a row
    // was timed: alone.
    if (e.contains("in_step")) {
      if (!e["in_step"].is_boolean())
        return Status::InvalidArgument(path + ".in_step: expected true or false");
      s.in_step = e["in_step"].get<bool>();
    }
    ms->push_back(std::move(s));
  }
  const Json& b = doc.value("microbenchmarks", Json::array());
  if (!b.is_array()) return Status::InvalidArgument("microbenchmarks: expected an array");
  for (size_t i = 0; i < b.size(); ++i) {
    const std::string path = "microbenchmarks[" + std::to_string(i) + "]";
    const Json& e = b[i];
    if (!e.is_object() || !e.contains("name") || !e["name"].is_string() ||
        e["name"].get<std::string>().empty())
      return Status::InvalidArgument(path + ".name: expected a non-empty string");
    Result<int64_t> threads = IntegerField(e, "threads", 1, 1, 1 << 20, path);
    if (!threads.ok()) return threads.status();
    const double value = e.value("value", -1.0);
    if (!(value >= 0) || !std::isfinite(value))
      return Status::InvalidArgument(path + ".value: expected a finite non-negative number");
    bs->push_back({e["name"].get<std::string>(), static_cast<int>(*threads), value,
                   e.value("measured_at", "")});
  }
  return Status::Ok();
}

struct ParsedProfile {
  Fingerprint device;
  std::vector<StoredMeasurement> ms;
  std::vector<Microbenchmark> bs;
};

// Profile JSON `text` (docs/profiles.md), its errors named after `origin`.
Result<ParsedProfile> ParseProfileText(std::string_view text, const std::string& origin) {
  Result<Json> doc = ParseJson(text, origin);
  if (!doc.ok()) return doc.status();
  ParsedProfile p;
  EPOCHCOST_RETURN_IF_ERROR(GuardJson("", [&] {
                              return ParseProfile(*doc, &p.device, &p.ms, &p.bs);
                            }).WithContext(origin));
  return p;
}

}  // namespace

ProfileStore::ProfileStore(std::unique_ptr<Database> db) : db_(std::move(db)) {}
ProfileStore::~ProfileStore() = default;

std::string ProfileStore::DefaultPath() {
  return DataFilePath("EPOCHCOST_PROFILES", "profiles.sqlite");
}

Result<std::unique_ptr<ProfileStore>> ProfileStore::Open(const std::string& path) {
  std::error_code ec;
  const std::filesystem::path parent = std::filesystem::path(path).parent_path();
  if (!parent.empty()) std::filesystem::create_directories(parent, ec);
  if (ec) return Status::IoError(parent.string() + ": cannot create directory: " + ec.message());
  Result<std::unique_ptr<Database>> db = Database::Open(path, "profile store");
  if (!db.ok()) return db.status();
  std::unique_ptr<ProfileStore> store(new ProfileStore(std::move(*db)));
  EPOCHCOST_RETURN_IF_ERROR(store->db_->Exec(kSchema));
  // Stores made before measurements kept their mean (or a GPU call's host time) read their rows
  // as "no mean" ("no host time"); calibrations stored before the per-step overhead or the memory
  // passes were fitted read them as 0.
  for (const char* column : {"mean_s", "host_s"})
    EPOCHCOST_RETURN_IF_ERROR(AddColumnIfMissing(*store->db_, "measurements", column, "REAL"));
  // Rows stored before a row said how it was timed read as timed alone.
  EPOCHCOST_RETURN_IF_ERROR(
      AddColumnIfMissing(*store->db_, "measurements", "in_step", "INTEGER NOT NULL DEFAULT 0"));
  for (const char* column : {"per_step_overhead_s", "memory_passes"})
    EPOCHCOST_RETURN_IF_ERROR(
        AddColumnIfMissing(*store->db_, "calibrations", column, "REAL NOT NULL DEFAULT 0"));
  // Calibrations stored before the per-op overhead was fitted per thread count have none (NULL).
  EPOCHCOST_RETURN_IF_ERROR(
      AddColumnIfMissing(*store->db_, "calibrations", "per_op_overhead_threads_s", "REAL"));
  // Each row says whether a shipped profile brought it (column `shipped`, since 2026-11-27). A
  // store made before cannot tell its rows apart: those of a device a profile is shipped for are
  // taken as shipped (they were, unless its user measured on that very CPU, when the load
  // replaced them as it always had) and every shipped profile is loaded again.
  Result<bool> knows_provenance = HasColumn(*store->db_, "measurements", "shipped");
  if (!knows_provenance.ok()) return knows_provenance.status();
  for (const char* table : {"measurements", "microbenchmarks"})
    EPOCHCOST_RETURN_IF_ERROR(
        AddColumnIfMissing(*store->db_, table, "shipped", "INTEGER NOT NULL DEFAULT 0"));
  // Shipped profiles are (re)loaded whenever their content differs from what was last loaded, so
  // a newer epochcost brings its newer measurements into an existing store, beside (not over)
  // what its user measured.
  for (const auto& [name, text] : ShippedProfiles()) {
    const std::string key = "shipped:" + std::string(name);
    const std::string digest = std::to_string(std::hash<std::string_view>{}(text));
    Result<Statement> q = store->db_->Prepare("SELECT value FROM meta WHERE key = ?1");
    if (!q.ok()) return q.status();
    q->Bind(1, key);
    Result<bool> row = q->Step();
    if (!row.ok()) return row.status();
    if (*knows_provenance && *row && q->Text(0) == digest) continue;
    const std::string origin = "data/profiles/" + std::string(name) + ".json";
    Result<int> n = store->Import(text, origin, Provenance::kShipped, !*knows_provenance);
    if (!n.ok()) return n.status();
    Result<Statement> put = store->db_->Prepare("INSERT OR REPLACE INTO meta VALUES(?1, ?2)");
    if (!put.ok()) return put.status();
    put->Bind(1, key).Bind(2, digest);
    EPOCHCOST_RETURN_IF_ERROR(put->Run());
  }
  return store;
}

// A user's row (?11 = 0) replaces any row of its key; a shipped one (1) only a shipped one.
Status ProfileStore::Put(const Fingerprint& device, const StoredMeasurement& m, Provenance from) {
  EPOCHCOST_RETURN_IF_ERROR(PutDevice(*db_, device));
  Result<Statement> q = db_->Prepare(
      "INSERT INTO measurements(device, threads, signature, median_s, p10_s, p90_s, count, "
      "measured_at, mean_s, host_s, shipped, in_step) "
      "VALUES(?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, NULLIF(?9, 0), NULLIF(?10, 0), ?11, ?12) "
      "ON CONFLICT(device, threads, signature) DO UPDATE SET median_s = excluded.median_s, "
      "p10_s = excluded.p10_s, p90_s = excluded.p90_s, count = excluded.count, "
      "measured_at = excluded.measured_at, mean_s = excluded.mean_s, host_s = excluded.host_s, "
      "shipped = excluded.shipped, in_step = excluded.in_step "
      "WHERE excluded.shipped = 0 OR measurements.shipped = 1");
  if (!q.ok()) return q.status();
  q->Bind(1, device.id()).Bind(2, int64_t{m.threads}).Bind(3, m.signature);
  q->Bind(4, m.measurement.median.seconds()).Bind(5, m.measurement.p10.seconds());
  q->Bind(6, m.measurement.p90.seconds()).Bind(7, int64_t{m.measurement.count});
  q->Bind(8, m.measured_at).Bind(9, m.measurement.mean.seconds());
  q->Bind(10, m.measurement.host.seconds());
  q->Bind(11, int64_t{from == Provenance::kShipped}).Bind(12, int64_t{m.in_step});
  return q->Run();
}

Status ProfileStore::PutMicrobenchmark(const Fingerprint& device, const Microbenchmark& b,
                                       Provenance from) {
  EPOCHCOST_RETURN_IF_ERROR(PutDevice(*db_, device));
  Result<Statement> q = db_->Prepare(
      "INSERT INTO microbenchmarks(device, name, threads, value, measured_at, shipped) "
      "VALUES(?1, ?2, ?3, ?4, ?5, ?6) ON CONFLICT(device, name, threads) DO UPDATE SET "
      "value = excluded.value, measured_at = excluded.measured_at, shipped = excluded.shipped "
      "WHERE excluded.shipped = 0 OR microbenchmarks.shipped = 1");
  if (!q.ok()) return q.status();
  q->Bind(1, device.id()).Bind(2, b.name).Bind(3, int64_t{b.threads}).Bind(4, b.value);
  q->Bind(5, b.measured_at).Bind(6, int64_t{from == Provenance::kShipped});
  return q->Run();
}

std::optional<OpTime> ProfileStore::Find(const OpSignature& sig, int threads) const {
  if (!find_) {
    Result<Statement> q = db_->Prepare(
        "SELECT median_s, p10_s, p90_s, measured_at, IFNULL(mean_s, median_s), IFNULL(host_s, 0), "
        "in_step FROM measurements WHERE device = ?1 AND threads = ?2 AND signature = ?3");
    if (!q.ok()) return std::nullopt;
    find_ = std::make_unique<Statement>(std::move(*q));
  }
  Statement& q = *find_;
  q.Reset();
  q.Bind(1, device_.id()).Bind(2, int64_t{threads}).Bind(3, sig.ToString());
  Result<bool> row = q.Step();
  if (!row.ok() || !*row) return std::nullopt;
  OpTime t{
      Seconds::FromSeconds(q.Double(0)),
      Seconds::FromSeconds(q.Double(1)),
      Seconds::FromSeconds(q.Double(2)),
      Seconds::FromSeconds(q.Double(4)),
      std::string("measured here") + (q.Int(6) != 0 ? " in the step" : "") + " (" + q.Text(3) + ")",
      Seconds::FromSeconds(q.Double(5))};
  q.Reset();  // ends the read, so that a writer (profile, import) is not kept waiting
  if (t.host.seconds() > 0 || device_.kind != "gpu") return t;
  if (!borrowed_host_) {
    Result<Statement> b = db_->Prepare(
        "SELECT m.host_s FROM measurements m JOIN devices d ON d.id = m.device "
        "WHERE d.kind = 'gpu' AND d.library = ?1 AND m.device != ?2 AND m.threads = ?3 "
        "AND m.signature = ?4 AND m.host_s > 0 ORDER BY m.measured_at DESC, d.id LIMIT 1");
    if (!b.ok()) return t;
    borrowed_host_ = std::make_unique<Statement>(std::move(*b));
  }
  Statement& b = *borrowed_host_;
  b.Reset();
  b.Bind(1, device_.library).Bind(2, device_.id()).Bind(3, int64_t{threads});
  b.Bind(4, sig.ToString());
  Result<bool> found = b.Step();
  if (found.ok() && *found) t.host = Seconds::FromSeconds(b.Double(0));
  b.Reset();
  return t;
}

Result<std::vector<Microbenchmark>> ProfileStore::Microbenchmarks(const Fingerprint& d) const {
  Result<Statement> q = db_->Prepare(
      "SELECT name, threads, value, measured_at FROM microbenchmarks WHERE device = ?1 "
      "ORDER BY name, threads");
  if (!q.ok()) return q.status();
  q->Bind(1, d.id());
  std::vector<Microbenchmark> out;
  for (;;) {
    Result<bool> row = q->Step();
    if (!row.ok()) return row.status();
    if (!*row) break;
    out.push_back({q->Text(0), static_cast<int>(q->Int(1)), q->Double(2), q->Text(3)});
  }
  return out;
}

Result<std::vector<Fingerprint>> ProfileStore::Devices() const {
  Result<Statement> q = db_->Prepare(
      "SELECT kind, model, isa, cores, logical_cpus, library FROM devices ORDER BY id");
  if (!q.ok()) return q.status();
  std::vector<Fingerprint> out;
  for (;;) {
    Result<bool> row = q->Step();
    if (!row.ok()) return row.status();
    if (!*row) break;
    out.push_back({q->Text(0), q->Text(1), q->Text(2), static_cast<int>(q->Int(3)),
                   static_cast<int>(q->Int(4)), q->Text(5)});
  }
  return out;
}

Result<std::vector<StoredMeasurement>> ProfileStore::Measurements(const Fingerprint& d) const {
  Result<Statement> q = db_->Prepare(
      "SELECT signature, threads, median_s, p10_s, p90_s, count, measured_at, IFNULL(mean_s, 0), "
      "IFNULL(host_s, 0), in_step FROM measurements WHERE device = ?1 ORDER BY threads, signature");
  if (!q.ok()) return q.status();
  q->Bind(1, d.id());
  std::vector<StoredMeasurement> out;
  for (;;) {
    Result<bool> row = q->Step();
    if (!row.ok()) return row.status();
    if (!*row) break;
    out.push_back(
        {q->Text(0), static_cast<int>(q->Int(1)),
         Measurement{Seconds::FromSeconds(q->Double(2)), Seconds::FromSeconds(q->Double(3)),
                     Seconds::FromSeconds(q->Double(4)), static_cast<int>(q->Int(5)),
                     Seconds::FromSeconds(q->Double(7)), "", Seconds::FromSeconds(q->Double(8))},
         q->Text(6), q->Int(9) != 0});
  }
  return out;
}

std::set<std::string> StoredCalibration::Words(const std::string& list) {
  std::set<std::string> out;
  std::istringstream words(list);
  for (std::string w; words >> w;) out.insert(w);
  return out;
}

Result<std::map<std::string, std::pair<double, double>>> StoredCalibration::ParseModelsWorse(
    const std::string& list) {
  std::map<std::string, std::pair<double, double>> out;
  for (const std::string& w : Words(list)) {
    const size_t eq = w.rfind('='), slash = w.rfind('/');
    if (eq == std::string::npos || slash == std::string::npos || slash < eq)
      return Status::InvalidArgument("models_worse: '" + w + "' is not MODEL=BEFORE/AFTER");
    double figures[2];
    const std::string texts[2] = {w.substr(eq + 1, slash - eq - 1), w.substr(slash + 1)};
    for (int i = 0; i < 2; ++i) {
      char* end = nullptr;
      figures[i] = std::strtod(texts[i].c_str(), &end);
      if (texts[i].empty() || end != texts[i].c_str() + texts[i].size() ||
          !std::isfinite(figures[i]))
        return Status::InvalidArgument("models_worse '" + texts[i] + "' is not a number");
      if (figures[i] < 0)
        return Status::InvalidArgument("models_worse " + texts[i] + " is not at least 0");
    }
    out[w.substr(0, eq)] = {figures[0], figures[1]};
  }
  return out;
}

std::map<std::string, std::pair<double, double>> StoredCalibration::ModelsWorse() const {
  Result<std::map<std::string, std::pair<double, double>>> parsed = ParseModelsWorse(models_worse);
  return parsed.ok() ? *parsed : std::map<std::string, std::pair<double, double>>{};
}

bool StoredCalibration::AppliesTo(const std::string& model, std::string* why) const {
  if (!shipped) return true;
  if (const auto worse = ModelsWorse(); worse.contains(model)) {
    char figures[96];
    std::snprintf(figures, sizeof figures, "MAPE %.1f%% uncalibrated, %.1f%% calibrated",
                  worse.at(model).first, worse.at(model).second);
    if (why)
      *why = "the shipped " + framework + " calibration on " + device_kind +
             " was not applied to " + model + ": held out in its " + std::to_string(folds) +
             "-fold cross-validation, it predicted " + model +
             "'s runs worse than no calibration (" + figures +
             "); fit one to runs of yours: epochcost calibrate RUNS...";
    return false;
  }
  if (Models().contains(model)) return true;
  if (!model_mape_before || !model_mape_after) {
    if (models.empty()) return true;  // no record of the models it was fitted to
    // Fitted to one model: no model was held out, so nothing says it carries to another.
    if (why)
      *why = "the shipped " + framework + " calibration on " + device_kind +
             " was not applied to " + model + ": it was fitted to " + models +
             " only, so whether it carries to another model is not known; fit one to runs of "
             "yours: epochcost calibrate RUNS...";
    return false;
  }
  if (*model_mape_after < *model_mape_before) return true;
  char figures[96];
  std::snprintf(figures, sizeof figures, "MAPE %.1f%% uncalibrated, %.1f%% calibrated",
                *model_mape_before, *model_mape_after);
  const std::string text = "the shipped " + framework + " calibration on " + device_kind +
                           " was not applied to " + model + ": it was fitted to other models (" +
                           models +
                           ") and does not carry to a model it has not seen (one model "
                           "held out at a time: " +
                           figures + "); fit one to runs of yours: epochcost calibrate RUNS...";
  if (why) *why = text;
  return false;
}

Status ProfileStore::PutCalibrations(const std::vector<StoredCalibration>& cs) {
  Result<std::unique_ptr<Transaction>> tx = Transaction::Begin(*db_);
  if (!tx.ok()) return tx.status();
  Result<Statement> q = db_->Prepare(
      "INSERT OR REPLACE INTO calibrations(framework, device_kind, kernel_scale, "
      "per_op_overhead_s, runs, folds, mape_before, mape_after, fitted_at, origin, "
      "per_step_overhead_s, memory_passes, per_op_overhead_threads_s) VALUES(?1, ?2, ?3, ?4, ?5, "
      "?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13)");
  if (!q.ok()) return q.status();
  for (const StoredCalibration& c : cs) {
    q->Bind(1, c.framework).Bind(2, c.device_kind).Bind(3, c.kernel_scale);
    q->Bind(4, c.per_op_overhead.seconds()).Bind(5, int64_t{c.runs}).Bind(6, int64_t{c.folds});
    q->Bind(7, c.mape_before).Bind(8, c.mape_after).Bind(9, c.fitted_at).Bind(10, c.origin);
    q->Bind(11, c.per_step_overhead.seconds()).Bind(12, c.memory_passes);
    if (c.per_op_overhead_threads)
      q->Bind(13, c.per_op_overhead_threads->seconds());
    else
      q->BindNull(13);
    EPOCHCOST_RETURN_IF_ERROR(q->Run());
  }
  return (*tx)->Commit();
}

Result<std::vector<StoredCalibration>> ProfileStore::Calibrations() const {
  Result<Statement> q = db_->Prepare(
      "SELECT framework, device_kind, kernel_scale, per_op_overhead_s, runs, folds, mape_before, "
      "mape_after, fitted_at, origin, per_step_overhead_s, memory_passes, "
      "per_op_overhead_threads_s FROM calibrations "
      "ORDER BY framework, device_kind");
  if (!q.ok()) return q.status();
  std::vector<StoredCalibration> out;
  for (;;) {
    Result<bool> row = q->Step();
    if (!row.ok()) return row.status();
    if (!*row) break;
    out.push_back({q->Text(0), q->Text(1), q->Double(2), Seconds::FromSeconds(q->Double(3)),
                   static_cast<int>(q->Int(4)), static_cast<int>(q->Int(5)), q->Double(6),
                   q->Double(7), q->Text(8), q->Text(9), Seconds::FromSeconds(q->Double(10)),
                   q->Double(11)});
    if (!q->IsNull(12)) out.back().per_op_overhead_threads = Seconds::FromSeconds(q->Double(12));
  }
  Result<std::vector<StoredCalibration>> shipped = ShippedCalibrations();
  if (!shipped.ok()) return shipped.status();
  const size_t stored = out.size();
  for (const StoredCalibration& s : *shipped)
    if (std::none_of(out.begin(), out.begin() + stored, [&](const StoredCalibration& c) {
          return c.framework == s.framework && c.device_kind == s.device_kind;
        }))
      out.push_back(s);
  return out;
}

Result<StoredCalibration> ProfileStore::FindCalibration(const std::string& framework,
                                                        const std::string& device_kind) const {
  Result<std::vector<StoredCalibration>> all = Calibrations();
  if (!all.ok()) return all.status();
  for (const StoredCalibration& c : *all)
    if (c.framework == framework && c.device_kind == device_kind) return c;
  return Status::NotFound("no calibration for " + framework + " on " + device_kind +
                          " in the profile store or shipped; run: epochcost calibrate RUNS...");
}

Result<int> ProfileStore::ForgetCalibrations(const std::string& framework) {
  Result<Statement> count = db_->Prepare("SELECT COUNT(*) FROM calibrations WHERE framework = ?1");
  if (!count.ok()) return count.status();
  count->Bind(1, framework);
  Result<bool> row = count->Step();
  if (!row.ok()) return row.status();
  const int n = static_cast<int>(count->Int(0));
  Result<Statement> q = db_->Prepare("DELETE FROM calibrations WHERE framework = ?1");
  if (!q.ok()) return q.status();
  q->Bind(1, framework);
  EPOCHCOST_RETURN_IF_ERROR(q->Run());
  return n;
}

Result<std::string> ProfileStore::ExportJson(const Fingerprint& d) const {
  OutJson doc;
  doc["format"] = "epochcost-profile";
  doc["version"] = kFormatVersion;
  doc["device"] = {{"kind", d.kind},
                   {"model", d.model},
                   {"isa", d.isa},
                   {"cores", d.cores},
                   {"logical_cpus", d.logical_cpus},
                   {"library", d.library}};
  Result<std::vector<Microbenchmark>> bs = Microbenchmarks(d);
  if (!bs.ok()) return bs.status();
  doc["microbenchmarks"] = OutJson::array();
  for (const Microbenchmark& b : *bs)
    doc["microbenchmarks"].push_back({{"name", b.name},
                                      {"threads", b.threads},
                                      {"value", b.value},
                                      {"measured_at", b.measured_at}});
  Result<std::vector<StoredMeasurement>> ms = Measurements(d);
  if (!ms.ok()) return ms.status();
  doc["measurements"] = OutJson::array();
  for (const StoredMeasurement& m : *ms) {
    OutJson e = {{"signature", m.signature},
                 {"threads", m.threads},
                 {"median_s", m.measurement.median.seconds()},
                 {"p10_s", m.measurement.p10.seconds()},
                 {"p90_s", m.measurement.p90.seconds()}};
    if (m.measurement.mean.seconds() > 0) e["mean_s"] = m.measurement.mean.seconds();
    if (m.measurement.host.seconds() > 0) e["host_s"] = m.measurement.host.seconds();
    e["count"] = m.measurement.count;
    e["measured_at"] = m.measured_at;
    if (m.in_step) e["in_step"] = true;
    doc["measurements"].push_back(std::move(e));
  }
  return doc.dump(1) + "\n";
}

Result<int> ProfileStore::ImportJson(std::string_view text, const std::string& origin,
                                     Provenance from) {
  return Import(text, origin, from, /*claim_device_rows=*/false);
}

Result<int> ProfileStore::Import(std::string_view text, const std::string& origin, Provenance from,
                                 bool claim_device_rows) {
  Result<ParsedProfile> p = ParseProfileText(text, origin);
  if (!p.ok()) return p.status();
  Result<std::unique_ptr<Transaction>> tx = Transaction::Begin(*db_);
  if (!tx.ok()) return tx.status();
  if (claim_device_rows)
    for (const char* table : {"measurements", "microbenchmarks"}) {
      Result<Statement> q =
          db_->Prepare(std::string("UPDATE ") + table + " SET shipped = 1 WHERE device = ?1");
      if (!q.ok()) return q.status();
      q->Bind(1, p->device.id());
      EPOCHCOST_RETURN_IF_ERROR(q->Run());
    }
  for (const StoredMeasurement& m : p->ms) EPOCHCOST_RETURN_IF_ERROR(Put(p->device, m, from));
  for (const Microbenchmark& b : p->bs)
    EPOCHCOST_RETURN_IF_ERROR(PutMicrobenchmark(p->device, b, from));
  EPOCHCOST_RETURN_IF_ERROR((*tx)->Commit());
  return static_cast<int>(p->ms.size());
}

}  // namespace epochcost::profiler
