#include "catalog/store.h"

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <functional>
#include <map>
#include <tuple>

#include "catalog/gcp_gpus.h"
#include "catalog/importers.h"
#include "catalog/instance_facts.h"
#include "catalog/seed_files.h"
#include "catalog/sqlite.h"
#include "engine/csv.h"
#include "engine/file_util.h"

namespace epochcost {
// Generated from data/catalog (scripts/embed_files.cmake).
const std::vector<std::pair<std::string_view, std::string_view>>& CatalogSeedFiles();
}  // namespace epochcost

namespace epochcost::catalog {

std::string_view SeedFile(std::string_view stem) {
  for (const auto& [name, text] : CatalogSeedFiles())
    if (name == stem) return text;
  return {};
}

}  // namespace epochcost::catalog

namespace epochcost::catalog {
namespace {

constexpr const char* kSchema = R"sql(
CREATE TABLE IF NOT EXISTS meta(key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS instances(
  provider TEXT NOT NULL, name TEXT NOT NULL,
  vcpus REAL NOT NULL, memory_gib REAL NOT NULL, cpu_family TEXT NOT NULL,
  gpu TEXT NOT NULL, gpu_count REAL NOT NULL, gpu_memory_gib REAL NOT NULL,
  arch TEXT NOT NULL, attachable INTEGER NOT NULL,
  PRIMARY KEY(provider, name));
CREATE TABLE IF NOT EXISTS prices(
  provider TEXT NOT NULL, instance TEXT NOT NULL, region TEXT NOT NULL, zone TEXT NOT NULL,
  kind TEXT NOT NULL CHECK(kind IN ('on_demand', 'preemptible', 'spot')),
  usd_per_hour REAL NOT NULL CHECK(usd_per_hour >= 0),
  observed_at TEXT NOT NULL, source TEXT NOT NULL,
  PRIMARY KEY(provider, instance, region, zone, kind, observed_at),
  FOREIGN KEY(provider, instance) REFERENCES instances(provider, name));
CREATE TABLE IF NOT EXISTS interruptions(
  provider TEXT NOT NULL, instance TEXT NOT NULL, region TEXT NOT NULL,
  kind TEXT NOT NULL CHECK(kind IN ('on_demand', 'preemptible', 'spot')),
  frequency_band TEXT NOT NULL, max_lifetime_hours REAL NOT NULL CHECK(max_lifetime_hours >= 0),
  observed_at TEXT NOT NULL, source TEXT NOT NULL,
  PRIMARY KEY(provider, instance, region, kind));
)sql";

constexpr const char* kInstanceColumns =
    "i.provider, i.name, i.vcpus, i.memory_gib, i.cpu_family, i.gpu, i.gpu_count, "
    "i.gpu_memory_gib, i.arch, i.attachable";

InstanceType ReadInstance(const Statement& s, int first) {
  InstanceType i;
  i.provider = s.Text(first);
  i.name = s.Text(first + 1);
  i.vcpus = s.Double(first + 2);
  i.memory_gib = s.Double(first + 3);
  i.cpu_family = s.Text(first + 4);
  i.gpu = s.Text(first + 5);
  i.gpu_count = s.Double(first + 6);
  i.gpu_memory_gib = s.Double(first + 7);
  i.arch = s.Text(first + 8);
  i.attachable = s.Int(first + 9) != 0;
  return i;
}

// "n1-standard-1+K80" or "n1-standard-8+V100x4": a GCE host with GPUs attached.
Offer Compose(const Offer& host, const Offer& gpu) {
  Offer o = host;
  char count[32];
  std::snprintf(count, sizeof count, "%g", gpu.instance.gpu_count);
  o.instance.name = host.instance.name + "+" + gpu.instance.gpu +
                    (gpu.instance.gpu_count == 1 ? "" : std::string("x") + count);
  o.instance.gpu = gpu.instance.gpu;
  o.instance.gpu_count = gpu.instance.gpu_count;
  o.instance.gpu_memory_gib = gpu.instance.gpu_memory_gib;
  o.price = host.price + gpu.price;
  o.observed_at = std::max(host.observed_at, gpu.observed_at);
  o.source = host.source == gpu.source ? host.source : host.source + " + " + gpu.source;
  return o;
}

}  // namespace

CatalogStore::CatalogStore(std::unique_ptr<Database> db) : db_(std::move(db)) {}
CatalogStore::~CatalogStore() = default;

std::string CatalogStore::DefaultPath() {
  return DataFilePath("EPOCHCOST_CATALOG", "catalog.sqlite");
}

Result<std::unique_ptr<CatalogStore>> CatalogStore::Open(const std::string& path) {
  std::error_code ec;
  const std::filesystem::path parent = std::filesystem::path(path).parent_path();
  if (!parent.empty()) std::filesystem::create_directories(parent, ec);
  if (ec) return Status::IoError(parent.string() + ": cannot create directory: " + ec.message());
  Result<std::unique_ptr<Database>> db = Database::Open(path, "catalog");
  if (!db.ok()) return db.status();
  std::unique_ptr<CatalogStore> store(new CatalogStore(std::move(*db)));
  EPOCHCOST_RETURN_IF_ERROR(store->CreateSchema());
  EPOCHCOST_RETURN_IF_ERROR(store->SeedIfChanged());
  return store;
}

Status CatalogStore::CreateSchema() { return db_->Exec(kSchema); }

// The seed is (re)loaded whenever the data compiled into epochcost differs from what this catalog
// last loaded, so a newer epochcost brings its newer prices; re-importing unchanged data changes
// nothing.
Status CatalogStore::SeedIfChanged() {
  size_t digest = 0;
  for (const auto& [name, text] : CatalogSeedFiles())
    digest = digest * 1000003u ^ std::hash<std::string_view>{}(text);
  {
    // The query's read snapshot must end before the import below begins writing: a connection
    // still reading an older snapshot cannot take the write lock once another process has
    // committed, and SQLite then answers "database is locked" at once, without waiting (two
    // first opens at a time, DurabilityTest.TwoImportersAndReadersAtOnce, ~1 run in 6).
    Result<Statement> q = db_->Prepare("SELECT value FROM meta WHERE key = 'seed_digest'");
    if (!q.ok()) return q.status();
    Result<bool> row = q->Step();
    if (!row.ok()) return row.status();
    if (*row && q->Text(0) == std::to_string(digest)) return Status::Ok();
  }

  ImportBatch all;
  Result<CsvTable> manifest = CsvTable::Parse(SeedFile("seed"), "data/catalog/seed.csv");
  if (!manifest.ok()) return manifest.status();
  for (const CsvRecord& r : manifest->records()) {
    const std::string origin = "data/catalog/" + r.fields[0] + ".csv";
    Result<ImporterFn> importer = FindImporter(r.fields[1]);
    if (!importer.ok()) return importer.status().WithContext(origin);
    ImportOptions options{.observed_at = r.fields[3], .cloud = r.fields[2], .skip_bad = false};
    Result<ImportBatch> batch = (*importer)(SeedFile(r.fields[0]), origin, options);
    if (!batch.ok()) return batch.status();
    for (auto& i : batch->instances) all.instances.push_back(std::move(i));
    for (auto& p : batch->prices) all.prices.push_back(std::move(p));
    for (auto& i : batch->interruptions) all.interruptions.push_back(std::move(i));
  }
  Result<ImportSummary> s = Import(all, false);
  if (!s.ok()) return s.status().WithContext("seeding the catalog");
  return db_->Exec("INSERT OR REPLACE INTO meta VALUES('seed_digest', '" + std::to_string(digest) +
                   "')");
}

Result<ImportSummary> CatalogStore::Import(const ImportBatch& batch, bool dry_run) {
  Result<std::unique_ptr<Transaction>> tx = Transaction::Begin(*db_);
  if (!tx.ok()) return tx.status();
  ImportSummary summary;
  summary.records_ignored = batch.ignored_records;

  Result<Statement> find_instance =
      db_->Prepare("SELECT 1 FROM instances WHERE provider = ?1 AND name = ?2");
  Result<Statement> put_instance = db_->Prepare(
      "INSERT INTO instances VALUES(?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10) "
      "ON CONFLICT(provider, name) DO UPDATE SET vcpus = ?3, memory_gib = ?4, "
      "cpu_family = CASE WHEN ?5 = '' THEN cpu_family ELSE ?5 END, "
      "gpu = CASE WHEN ?6 = '' THEN gpu ELSE ?6 END, gpu_count = ?7, "
      "gpu_memory_gib = CASE WHEN ?8 = 0 THEN gpu_memory_gib ELSE ?8 END, "
      "arch = CASE WHEN ?9 = '' THEN arch ELSE ?9 END, attachable = ?10");
  if (!find_instance.ok()) return find_instance.status();
  if (!put_instance.ok()) return put_instance.status();
  for (const InstanceType& i : batch.instances) {
    find_instance->Bind(1, i.provider).Bind(2, i.name);
    Result<bool> exists = find_instance->Step();
    find_instance->Reset();
    if (!exists.ok()) return exists.status();
    if (!*exists) ++summary.instances_added;
    put_instance->Bind(1, i.provider).Bind(2, i.name).Bind(3, i.vcpus).Bind(4, i.memory_gib);
    put_instance->Bind(5, i.cpu_family.empty() ? CpuFamilyOf(i) : i.cpu_family);
    put_instance->Bind(6, i.gpu).Bind(7, i.gpu_count);
    put_instance->Bind(8, i.gpu_memory_gib).Bind(9, i.arch).Bind(10, int64_t{i.attachable});
    EPOCHCOST_RETURN_IF_ERROR(put_instance->Run());
  }

  // One observation per key: the last of a file wins (AWS repeats regional prices per zone).
  using Key =
      std::tuple<std::string, std::string, std::string, std::string, PriceKind, std::string>;
  std::map<Key, const PriceObservation*> latest;
  for (const PriceObservation& p : batch.prices)
    latest[{p.provider, p.instance, p.region, p.zone, p.kind, p.observed_at}] = &p;

  Result<Statement> get_price = db_->Prepare(
      "SELECT usd_per_hour FROM prices WHERE provider = ?1 AND instance = ?2 AND region = ?3 "
      "AND zone = ?4 AND kind = ?5 AND observed_at = ?6");
  Result<Statement> put_price = db_->Prepare(
      "INSERT INTO prices VALUES(?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8) ON CONFLICT DO UPDATE SET "
      "usd_per_hour = ?6, source = ?8");
  if (!get_price.ok()) return get_price.status();
  if (!put_price.ok()) return put_price.status();
  for (const auto& [key, p] : latest) {
    find_instance->Bind(1, p->provider).Bind(2, p->instance);
    Result<bool> known = find_instance->Step();
    find_instance->Reset();
    if (!known.ok()) return known.status();
    if (!*known && batch.ignore_unknown_instances) {
      ++summary.prices_unknown_instance;
      continue;
    }
    if (!*known)
      return Status::NotFound(p->source + ": instance '" + p->instance + "' of " + p->provider +
                              " is not in the catalog; import its hardware first (--format "
                              "instances)");
    const std::string kind(PriceKindName(p->kind));
    get_price->Bind(1, p->provider).Bind(2, p->instance).Bind(3, p->region).Bind(4, p->zone);
    get_price->Bind(5, kind).Bind(6, p->observed_at);
    Result<bool> found = get_price->Step();
    if (!found.ok()) return found.status();
    const double old = *found ? get_price->Double(0) : -1;
    get_price->Reset();
    if (!*found) {
      ++summary.prices_added;
    } else if (old != p->price.dollars_per_hour()) {
      ++summary.prices_changed;
    } else {
      ++summary.prices_unchanged;
      continue;
    }
    put_price->Bind(1, p->provider).Bind(2, p->instance).Bind(3, p->region).Bind(4, p->zone);
    put_price->Bind(5, kind).Bind(6, p->price.dollars_per_hour()).Bind(7, p->observed_at);
    put_price->Bind(8, p->source);
    EPOCHCOST_RETURN_IF_ERROR(put_price->Run());
  }
  Result<Statement> put_interruption =
      db_->Prepare("INSERT OR REPLACE INTO interruptions VALUES(?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8)");
  if (!put_interruption.ok()) return put_interruption.status();
  for (const Interruption& i : batch.interruptions) {
    put_interruption->Bind(1, i.provider).Bind(2, i.instance).Bind(3, i.region);
    put_interruption->Bind(4, std::string(PriceKindName(i.kind))).Bind(5, i.frequency_band);
    put_interruption->Bind(6, i.max_lifetime_hours).Bind(7, i.observed_at).Bind(8, i.source);
    EPOCHCOST_RETURN_IF_ERROR(put_interruption->Run());
    ++summary.interruptions_stored;
  }
  if (dry_run) return summary;  // the transaction rolls back
  EPOCHCOST_RETURN_IF_ERROR((*tx)->Commit());
  return summary;
}

Result<std::vector<Offer>> CatalogStore::Offers(const OfferFilter& f) const {
  if (!f.as_of.empty()) EPOCHCOST_RETURN_IF_ERROR(CheckDate(f.as_of).WithContext("--as-of"));
  const std::string sql =
      std::string("SELECT p.region, p.zone, p.kind, p.usd_per_hour, p.observed_at, p.source, ") +
      kInstanceColumns +
      " FROM prices p JOIN instances i ON i.provider = p.provider AND i.name = p.instance "
      "WHERE (?1 = '' OR p.provider = ?1) AND (?2 = '' OR p.region = ?2) "
      "AND (?3 = '' OR p.kind = ?3) "
      // One instance asked for: its own rows, its host's (gcp "HOST+GPU") and the attachable GPUs
      // are all that the composition below can make it from.
      "AND (?5 = '' OR p.instance = ?5 OR p.instance = ?6 OR i.attachable = 1) "
      "AND p.observed_at = (SELECT MAX(q.observed_at) FROM prices q "
      "WHERE q.provider = p.provider AND q.instance = p.instance AND q.region = p.region AND "
      "q.zone = p.zone AND q.kind = p.kind AND (?4 = '' OR q.observed_at <= ?4)) "
      "ORDER BY p.provider, p.instance, p.region, p.zone, p.kind";
  Result<Statement> q = db_->Prepare(sql);
  if (!q.ok()) return q.status();
  q->Bind(1, f.cloud).Bind(2, f.region);
  q->Bind(3, f.kind ? std::string(PriceKindName(*f.kind)) : std::string());
  q->Bind(4, f.as_of);
  q->Bind(5, f.instance).Bind(6, f.instance.substr(0, f.instance.find('+')));
  std::vector<Offer> rows;
  for (;;) {
    Result<bool> row = q->Step();
    if (!row.ok()) return row.status();
    if (!*row) break;
    Offer o;
    o.region = q->Text(0);
    o.zone = q->Text(1);
    o.kind = *ParsePriceKind(q->Text(2));
    o.price = UsdPerHour::FromDollarsPerHour(q->Double(3));
    o.observed_at = q->Text(4);
    o.source = q->Text(5);
    o.instance = ReadInstance(*q, 6);
    rows.push_back(std::move(o));
  }

  // GCE GPUs are sold attached to a host in the same zone (gcp_gpus.h): an N1 host within a
  // vCPU limit per count, or the machine type they come in, which is not offered without them.
  using Place = std::tuple<std::string, std::string, PriceKind>;
  std::map<Place, std::vector<const Offer*>> n1_hosts;
  const std::map<std::string, GpuBundle>& bundled = GcpGpuBundles();
  std::map<std::tuple<Place, std::string, double>, std::vector<const Offer*>> bundle_hosts;
  for (const Offer& o : rows) {
    if (o.instance.provider != "gcp") continue;
    const Place place{o.region, o.zone, o.kind};
    if (o.instance.name.rfind("n1-", 0) == 0) n1_hosts[place].push_back(&o);
    auto b = bundled.find(o.instance.name);
    if (b != bundled.end() && o.instance.gpu.empty())
      bundle_hosts[{place, b->second.gpu, b->second.count}].push_back(&o);
  }
  std::vector<Offer> offers;
  for (const Offer& o : rows) {
    const bool bundle_host =
        o.instance.provider == "gcp" && o.instance.gpu.empty() && bundled.contains(o.instance.name);
    if (bundle_host) continue;  // offered below, with its GPUs
    if (!o.instance.attachable) {
      offers.push_back(o);
      continue;
    }
    const Place place{o.region, o.zone, o.kind};
    auto in_bundle = bundle_hosts.find({place, o.instance.gpu, o.instance.gpu_count});
    if (in_bundle != bundle_hosts.end()) {
      for (const Offer* h : in_bundle->second) offers.push_back(Compose(*h, o));
      continue;
    }
    double max_vcpus = 0;
    for (const GpuHostLimit& l : GcpGpuHostLimits())
      if (l.gpu == o.instance.gpu && l.count == o.instance.gpu_count) max_vcpus = l.max_vcpus;
    for (const Offer* h : n1_hosts[place])
      if (h->instance.vcpus <= max_vcpus) offers.push_back(Compose(*h, o));
  }
  std::erase_if(offers, [&](const Offer& o) {
    if (!f.instance.empty() && o.instance.name != f.instance) return true;
    if (o.instance.vcpus < f.min_vcpus) return true;
    if (f.gpu == "none") return !o.instance.gpu.empty();
    return !f.gpu.empty() && o.instance.gpu != f.gpu;
  });
  return offers;
}

std::vector<Offer> OnePerRegion(std::vector<Offer> offers) {
  using Key = std::tuple<std::string, std::string, std::string, PriceKind>;
  std::map<Key, size_t> kept;  // -> index into `out`
  std::vector<Offer> out;
  for (Offer& o : offers) {
    const Key key{o.instance.provider, o.instance.name, o.region, o.kind};
    auto [it, fresh] = kept.try_emplace(key, out.size());
    if (fresh) {
      out.push_back(std::move(o));
      continue;
    }
    Offer& best = out[it->second];
    const bool newer = o.observed_at > best.observed_at;
    const bool cheaper = o.observed_at == best.observed_at && o.price < best.price;
    if (newer || cheaper) best = std::move(o);
  }
  return out;
}

std::vector<Offer> TakeStale(std::vector<Offer>* offers,
                             const std::map<std::string, std::string>& newest, int max_age_days) {
  std::vector<Offer> kept, stale;
  for (Offer& o : *offers) {
    // Stored dates were checked on import; one that is not a date is not judged stale.
    bool old = false;
    if (auto n = newest.find(o.instance.provider); n != newest.end()) {
      Result<std::chrono::sys_days> latest = DayOf(n->second), day = DayOf(o.observed_at);
      old = latest.ok() && day.ok() && *latest - *day > std::chrono::days(max_age_days);
    }
    (old ? stale : kept).push_back(std::move(o));
  }
  *offers = std::move(kept);
  return stale;
}

Result<std::optional<InstanceType>> CatalogStore::FindInstance(const std::string& provider,
                                                               const std::string& name) const {
  Result<Statement> q = db_->Prepare(std::string("SELECT ") + kInstanceColumns +
                                     " FROM instances i WHERE i.provider = ?1 AND i.name = ?2");
  if (!q.ok()) return q.status();
  q->Bind(1, provider).Bind(2, name);
  Result<bool> row = q->Step();
  if (!row.ok()) return row.status();
  if (!*row) return std::optional<InstanceType>();
  return std::optional<InstanceType>(ReadInstance(*q, 0));
}

Result<std::vector<PriceObservation>> CatalogStore::History(const std::string& provider,
                                                            const std::string& instance,
                                                            const std::string& region,
                                                            std::optional<PriceKind> kind) const {
  Result<Statement> q = db_->Prepare(
      "SELECT provider, instance, region, zone, kind, usd_per_hour, observed_at, source FROM "
      "prices WHERE (?1 = '' OR provider = ?1) AND (?2 = '' OR instance = ?2) AND "
      "(?3 = '' OR region = ?3) AND (?4 = '' OR kind = ?4) "
      "ORDER BY provider, instance, region, zone, kind, observed_at");
  if (!q.ok()) return q.status();
  q->Bind(1, provider).Bind(2, instance).Bind(3, region);
  q->Bind(4, kind ? std::string(PriceKindName(*kind)) : std::string());
  std::vector<PriceObservation> out;
  for (;;) {
    Result<bool> row = q->Step();
    if (!row.ok()) return row.status();
    if (!*row) break;
    PriceObservation p;
    p.provider = q->Text(0);
    p.instance = q->Text(1);
    p.region = q->Text(2);
    p.zone = q->Text(3);
    p.kind = *ParsePriceKind(q->Text(4));
    p.price = UsdPerHour::FromDollarsPerHour(q->Double(5));
    p.observed_at = q->Text(6);
    p.source = q->Text(7);
    out.push_back(std::move(p));
  }
  return out;
}

Result<std::vector<PriceObservation>> CatalogStore::AllPrices() const {
  return History("", "", "", std::nullopt);
}

Result<std::vector<InstanceType>> CatalogStore::Instances() const {
  Result<Statement> q = db_->Prepare(std::string("SELECT ") + kInstanceColumns +
                                     " FROM instances i ORDER BY i.provider, i.name");
  if (!q.ok()) return q.status();
  std::vector<InstanceType> out;
  for (;;) {
    Result<bool> row = q->Step();
    if (!row.ok()) return row.status();
    if (!*row) break;
    out.push_back(ReadInstance(*q, 0));
  }
  return out;
}

Result<std::optional<Interruption>> CatalogStore::InterruptionForOffer(const Offer& offer) const {
  const std::string host = offer.instance.name.substr(0, offer.instance.name.find('+'));
  return InterruptionFor(offer.instance.provider, host, offer.region, offer.kind);
}

Result<std::optional<Interruption>> CatalogStore::InterruptionFor(const std::string& provider,
                                                                  const std::string& instance,
                                                                  const std::string& region,
                                                                  PriceKind kind) const {
  if (!interruption_query_) {
    Result<Statement> prepared = db_->Prepare(
        "SELECT instance, region, frequency_band, max_lifetime_hours, observed_at, source FROM "
        "interruptions WHERE provider = ?1 AND kind = ?4 AND instance IN (?2, '*') AND "
        "region IN (?3, '*') ORDER BY instance = '*', region = '*' LIMIT 1");
    if (!prepared.ok()) return prepared.status();
    interruption_query_ = std::make_unique<Statement>(std::move(*prepared));
  }
  Statement* q = interruption_query_.get();
  q->Bind(1, provider).Bind(2, instance).Bind(3, region).Bind(4, std::string(PriceKindName(kind)));
  Result<bool> row = q->Step();
  std::optional<Interruption> found;
  if (row.ok() && *row)
    found = Interruption{.provider = provider,
                         .instance = q->Text(0),
                         .region = q->Text(1),
                         .kind = kind,
                         .frequency_band = q->Text(2),
                         .max_lifetime_hours = q->Double(3),
                         .observed_at = q->Text(4),
                         .source = q->Text(5)};
  q->Reset();  // ends the read, so no statement stays open between calls
  if (!row.ok()) return row.status();
  return found;
}

Result<CatalogStats> CatalogStore::Stats() const {
  Result<Statement> q = db_->Prepare(
      "SELECT provider, kind, COUNT(DISTINCT instance), COUNT(*), MAX(observed_at) FROM prices "
      "GROUP BY provider, kind ORDER BY provider, kind");
  if (!q.ok()) return q.status();
  CatalogStats stats;
  for (;;) {
    Result<bool> row = q->Step();
    if (!row.ok()) return row.status();
    if (!*row) break;
    stats.rows.push_back(
        {q->Text(0), *ParsePriceKind(q->Text(1)), q->Int(2), q->Int(3), q->Text(4)});
  }
  return stats;
}

}  // namespace epochcost::catalog
