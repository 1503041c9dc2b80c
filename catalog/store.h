// The price catalog: an SQLite database of instance types and price observations, created on
// first use and seeded from the data compiled into epochcost (again whenever that data changes).
// Imports are single transactions (all or nothing); queries read "as of" a date: the latest
// observation on or before it.
#ifndef EPOCHCOST_CATALOG_STORE_H_
#define EPOCHCOST_CATALOG_STORE_H_

#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "catalog/gcp_gpus.h"
#include "catalog/records.h"

namespace epochcost::catalog {

class Database;
class Statement;

struct OfferFilter {
  std::string cloud;     // provider, or empty for all
  std::string gpu;       // GPU short name (K80), "none" for CPU-only, or empty for all
  std::string region;    // or empty
  std::string instance;  // exact name, or empty
  std::optional<PriceKind> kind;
  double min_vcpus = 0;
  std::string as_of;  // YYYY-MM-DD, or empty for the newest prices
};

struct CatalogStats {
  struct Row {
    std::string provider;
    PriceKind kind;
    int64_t instances = 0;
    int64_t observations = 0;
    std::string newest;
  };
  std::vector<Row> rows;
};

// One offer per instance, region and kind, as `recommend` and `serve` rank them (a zone is not a
// choice worth a row of its own): the region's newest observation, and among its zones at that
// date the cheapest, the first zone in the input's order on a tie. Keeps the input's order.
std::vector<Offer> OnePerRegion(std::vector<Offer> offers);

// Removes from `offers` and returns those whose price was observed more than `max_age_days` before
// their provider's newest observation in `newest` (provider -> YYYY-MM-DD): machines the provider
// has since dropped or stopped selling that way (the seed's 2016-2018 benchmark prices), which
// "the newest prices" must not rank beside today's.
std::vector<Offer> TakeStale(std::vector<Offer>* offers,
                             const std::map<std::string, std::string>& newest, int max_age_days);

class CatalogStore {
 public:
  // Opens the catalog at `path`, creating and seeding it when new.
  static Result<std::unique_ptr<CatalogStore>> Open(const std::string& path);
  // The default location: $EPOCHCOST_CATALOG, else $XDG_DATA_HOME/epochcost/catalog.sqlite, else
  // ~/.local/share/epochcost/catalog.sqlite.
  static std::string DefaultPath();
  ~CatalogStore();

  // Adds the batch's instances and prices in one transaction. With `dry_run`, counts what would
  // change and rolls back.
  Result<ImportSummary> Import(const ImportBatch& batch, bool dry_run);

  Result<std::vector<Offer>> Offers(const OfferFilter& filter) const;
  Result<std::optional<InstanceType>> FindInstance(const std::string& provider,
                                                   const std::string& name) const;
  // Every observation of an instance's prices, oldest first.
  Result<std::vector<PriceObservation>> History(const std::string& provider,
                                                const std::string& instance,
                                                const std::string& region,
                                                std::optional<PriceKind> kind) const;
  Result<std::vector<PriceObservation>> AllPrices() const;
  Result<std::vector<InstanceType>> Instances() const;
  // The most specific interruption record for an offer (exact instance and region first).
  Result<std::optional<Interruption>> InterruptionFor(const std::string& provider,
                                                      const std::string& instance,
                                                      const std::string& region,
                                                      PriceKind kind) const;
  // The interruption data of an offer; a composed GCE offer (host+GPU) is interrupted as its
  // host is.
  Result<std::optional<Interruption>> InterruptionForOffer(const Offer& offer) const;
  Result<CatalogStats> Stats() const;

 private:
  explicit CatalogStore(std::unique_ptr<Database> db);
  Status CreateSchema();
  Status SeedIfChanged();
  std::unique_ptr<Database> db_;
  // InterruptionFor runs once per ranked offer (thousands per recommend): its statement is
  // prepared once and reset between calls (preparing it each time was 12% of recommend's time).
  mutable std::unique_ptr<Statement> interruption_query_;
};

}  // namespace epochcost::catalog

#endif  // EPOCHCOST_CATALOG_STORE_H_
