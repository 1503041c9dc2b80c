// The catalog: importers on real-format fixtures and bad input, transactions, as-of queries, the
// seed (2016-2018 prices of the published benchmarks).
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <map>
#include <set>
#include <thread>

#include "catalog/importers.h"
#include "catalog/instance_facts.h"
#include "catalog/store.h"
#include "engine/csv.h"
#include "engine/file_util.h"

namespace epochcost::catalog {
namespace {

const std::string kDir = std::string(EPOCHCOST_FIXTURES) + "/catalog/";

std::string Fixture(const std::string& name) { return *ReadFile(kDir + name); }

class CatalogTest : public testing::Test {
 protected:
  void SetUp() override {
    path_ = (std::filesystem::temp_directory_path() /
             ("epochcost_test_" + std::to_string(::getpid()) + "_" +
              testing::UnitTest::GetInstance()->current_test_info()->name() + ".sqlite"))
                .string();
    Cleanup();
    Result<std::unique_ptr<CatalogStore>> s = CatalogStore::Open(path_);
    ASSERT_TRUE(s.ok()) << s.status().message();
    store_ = std::move(*s);
  }
  void TearDown() override {
    store_.reset();
    Cleanup();
  }
  void Cleanup() {
    for (const char* ext : {"", "-wal", "-shm"}) std::filesystem::remove(path_ + ext);
  }
  ImportBatch Read(ImporterFn fn, const std::string& file, ImportOptions options = {}) {
    if (options.observed_at.empty()) options.observed_at = "2026-01-01";
    Result<ImportBatch> b = fn(Fixture(file), file, options);
    EXPECT_TRUE(b.ok()) << b.status().message();
    return b.ok() ? *b : ImportBatch{};
  }
  double Price(const OfferFilter& f) {
    Result<std::vector<Offer>> o = store_->Offers(f);
    EXPECT_TRUE(o.ok());
    EXPECT_EQ(o->size(), 1u) << (o->size() > 1 ? o->at(0).instance.name + " / " +
                                                     o->at(1).instance.name + " " + o->at(1).zone
                                               : std::string());
    return o->empty() ? -1 : o->front().price.dollars_per_hour();
  }
  std::string path_;
  std::unique_ptr<CatalogStore> store_;
};

TEST(CsvTest, QuotesCrLfAndLineNumbers) {
  Result<CsvTable> t = CsvTable::Parse("a,b\r\n1,\"x, \"\"y\"\"\"\r\n\"multi\nline\",2\n", "f.csv");
  ASSERT_TRUE(t.ok());
  ASSERT_EQ(t->records().size(), 2u);
  EXPECT_EQ(t->records()[0].fields[1], "x, \"y\"");
  EXPECT_EQ(t->records()[1].fields[0], "multi\nline");
  EXPECT_EQ(t->records()[1].line, 3);
  EXPECT_EQ(CsvTable::Parse("a,b\n1,2,3\n", "f.csv").status().message(),
            "f.csv:2: 3 fields, the header has 2");
  EXPECT_EQ(CsvTable::Parse("a\n\"open\n", "f.csv").status().message(),
            "f.csv:2: unterminated quoted field");
}

TEST_F(CatalogTest, SeedHasThreeCloudsAndTheBenchmarksPrices) {
  Result<std::vector<Offer>> all = store_->Offers({});
  ASSERT_TRUE(all.ok());
  EXPECT_GT(all->size(), 3000u);
  // Woolf, Nov 2017: K80 + n1-standard-1 at $0.4975/h, on-demand.
  EXPECT_DOUBLE_EQ(Price({.cloud = "gcp", .gpu = "K80", .as_of = "2017-11-28"}), 0.4975);
  // ... and $0.745/h in July 2017.
  EXPECT_DOUBLE_EQ(
      Price({.cloud = "gcp", .gpu = "K80", .kind = PriceKind::kOnDemand, .as_of = "2017-07-15"}),
      0.745);
  EXPECT_DOUBLE_EQ(
      Price({.cloud = "gcp", .gpu = "P100", .kind = PriceKind::kOnDemand, .as_of = "2017-11-28"}),
      1.5075);
  EXPECT_DOUBLE_EQ(Price({.cloud = "aws", .instance = "p2.xlarge", .as_of = "2016-11-30"}), 0.90);
  EXPECT_DOUBLE_EQ(Price({.cloud = "aws",
                          .region = "us-east-1",
                          .instance = "c4.8xlarge",
                          .kind = PriceKind::kOnDemand,
                          .as_of = "2016-11-30"}),
                   1.675);
  EXPECT_DOUBLE_EQ(Price({.cloud = "gcp",
                          .instance = "n1-highcpu-32",
                          .kind = PriceKind::kPreemptible,
                          .as_of = "2017-11-28"}),
                   0.24);
  // Before any observation there is no price.
  EXPECT_TRUE(store_->Offers({.instance = "p2.xlarge", .as_of = "2016-01-01"})->empty());
}

// Regression: `serve mnist_mlp --cloud gcp` listed gcp:n1-standard-1 us-central1 on_demand five
// times (four zones and a 2017 region-wide price), crowding distinct machines out of the top rows.
TEST(OnePerRegionTest, NewestThenCheapestZone) {
  auto offer = [](std::string name, std::string zone, PriceKind kind, double usd,
                  std::string date) {
    Offer o;
    o.instance.provider = "gcp";
    o.instance.name = std::move(name);
    o.region = "us-central1";
    o.zone = std::move(zone);
    o.kind = kind;
    o.price = UsdPerHour::FromDollarsPerHour(usd);
    o.observed_at = std::move(date);
    return o;
  };
  const std::vector<Offer> kept = OnePerRegion({
      offer("n1-standard-1", "", PriceKind::kOnDemand, 0.0400, "2017-11-01"),
      offer("n1-standard-1", "us-central1-a", PriceKind::kOnDemand, 0.0475, "2026-11-22"),
      offer("n1-standard-1", "us-central1-b", PriceKind::kSpot, 0.0170, "2026-11-22"),
      offer("n1-standard-1", "us-central1-c", PriceKind::kSpot, 0.0160, "2026-11-22"),
      offer("n1-standard-1", "us-central1-f", PriceKind::kSpot, 0.0160, "2026-11-22"),
      offer("n1-standard-2", "us-central1-a", PriceKind::kOnDemand, 0.0950, "2026-11-22"),
  });
  ASSERT_EQ(kept.size(), 3u);
  // The newest price wins over an older, cheaper one.
  EXPECT_EQ(kept[0].zone, "us-central1-a");
  EXPECT_DOUBLE_EQ(kept[0].price.dollars_per_hour(), 0.0475);
  // The cheapest zone; the first of two equally cheap.
  EXPECT_EQ(kept[1].kind, PriceKind::kSpot);
  EXPECT_EQ(kept[1].zone, "us-central1-c");
  EXPECT_EQ(kept[2].instance.name, "n1-standard-2");
}

TEST_F(CatalogTest, GcpGpusComposeWithHostsWithinVcpuLimits) {
  Result<std::vector<Offer>> v100 =
      store_->Offers({.cloud = "gcp", .gpu = "V100", .kind = PriceKind::kOnDemand});
  ASSERT_TRUE(v100.ok());
  ASSERT_FALSE(v100->empty());
  for (const Offer& o : *v100) {
    EXPECT_NE(o.instance.name.find('+'), std::string::npos) << o.instance.name;
    double limit = 0;
    for (const GpuHostLimit& l : GcpGpuHostLimits())
      if (l.gpu == "V100" && l.count == o.instance.gpu_count) limit = l.max_vcpus;
    EXPECT_LE(o.instance.vcpus, limit) << o.instance.name;
  }
}

TEST_F(CatalogTest, GcpMachineTypesWithTheirGpusAreOfferedOnlyWithThem) {
  // The SkyPilot extract prices a2-highgpu-1g at $0.73948/h without its A100 ($2.93391/h, a row
  // of its own); it was offered as a 12-vCPU CPU machine at the host price alone.
  Result<std::vector<Offer>> a100 = store_->Offers(
      {.cloud = "gcp", .instance = "a2-highgpu-1g+A100", .kind = PriceKind::kOnDemand});
  ASSERT_TRUE(a100.ok());
  ASSERT_FALSE(a100->empty());
  for (const Offer& o : *a100) {
    EXPECT_NEAR(o.price.dollars_per_hour(), 0.73948 + 2.93391, 1e-9) << o.zone;
    EXPECT_EQ(o.instance.gpu, "A100");
    EXPECT_EQ(o.instance.gpu_count, 1);
  }
  EXPECT_TRUE(store_->Offers({.cloud = "gcp", .instance = "a2-highgpu-1g"})->empty());
  Result<std::vector<Offer>> cpu_only = store_->Offers({.cloud = "gcp", .gpu = "none"});
  ASSERT_TRUE(cpu_only.ok());
  for (const Offer& o : *cpu_only)
    for (const auto& [machine_type, b] : GcpGpuBundles()) EXPECT_NE(o.instance.name, b.instance);
  // L4 comes only in G2: never composed with an N1 host.
  Result<std::vector<Offer>> l4 = store_->Offers({.cloud = "gcp", .gpu = "L4"});
  ASSERT_TRUE(l4.ok());
  EXPECT_FALSE(l4->empty());
  for (const Offer& o : *l4)
    EXPECT_EQ(o.instance.name.rfind("g2-standard-", 0), 0u) << o.instance.name;
}

TEST_F(CatalogTest, OneInstanceIsWhatTheWholeListHasOfIt) {
  // Offers({.instance}) reads only that instance's rows, its host's and the attachable GPUs
  // (target resolution asks for one machine many times); it must keep every offer, composed
  // ones ("n1-highcpu-8+K80", "a2-highgpu-1g+A100") included, of the whole list.
  Result<std::vector<Offer>> all = store_->Offers({});
  ASSERT_TRUE(all.ok());
  std::map<std::string, size_t> per_name;
  for (const Offer& o : *all) ++per_name[o.instance.provider + ":" + o.instance.name];
  ASSERT_GT(per_name.size(), 500u);
  size_t checked = 0;
  for (const auto& [key, count] : per_name) {
    const size_t colon = key.find(':');
    const std::string cloud = key.substr(0, colon), name = key.substr(colon + 1);
    // Every composed name, and every 25th of the others (the whole list takes seconds).
    if (name.find('+') == std::string::npos && checked++ % 25 != 0) continue;
    Result<std::vector<Offer>> one = store_->Offers({.cloud = cloud, .instance = name});
    ASSERT_TRUE(one.ok());
    EXPECT_EQ(one->size(), count) << key;
  }
}

TEST_F(CatalogTest, SkyPilotAwsRegionalOnDemandZonalSpot) {
  ImportBatch b = Read(ImportSkyPilot, "skypilot-aws-sample.csv");
  ASSERT_EQ(b.instances.size(), 3u);  // p3.2xlarge, c5.large, g5.4xlarge
  int on_demand = 0, spot = 0;
  for (const PriceObservation& p : b.prices) (p.kind == PriceKind::kSpot ? spot : on_demand)++;
  EXPECT_EQ(spot, 5);       // one per AZ row, the g5.4xlarge row has none
  EXPECT_EQ(on_demand, 6);  // repeated per row, merged per region on import
  EXPECT_EQ(b.instances[0].gpu, "V100");
  EXPECT_DOUBLE_EQ(b.instances[0].gpu_memory_gib, 16);
  Result<ImportSummary> s = store_->Import(b, false);
  ASSERT_TRUE(s.ok()) << s.status().message();
  EXPECT_EQ(s->prices_added, 5 + 3);
  Result<ImportSummary> again = store_->Import(b, false);
  EXPECT_EQ(again->prices_unchanged, 8);
  EXPECT_EQ(again->prices_added, 0);
}

TEST_F(CatalogTest, SkyPilotGcpGpuRowsAreAttachable) {
  ImportBatch b = Read(ImportSkyPilot, "skypilot-gcp-sample.csv");
  ASSERT_EQ(b.instances.size(), 2u);
  EXPECT_EQ(b.instances[1].name, "V100x1");
  EXPECT_TRUE(b.instances[1].attachable);
  ASSERT_TRUE(store_->Import(b, false).ok());
  // n1-standard-8 (0.38) + V100 (2.48), in each of the two zones that have both.
  Result<std::vector<Offer>> o = store_->Offers(
      {.instance = "n1-standard-8+V100", .kind = PriceKind::kOnDemand, .as_of = "2026-01-01"});
  ASSERT_EQ(o->size(), 2u);
  EXPECT_EQ(o->at(0).zone, "us-central1-a");
  EXPECT_DOUBLE_EQ(o->at(0).price.dollars_per_hour(), 0.38 + 2.48);
  EXPECT_DOUBLE_EQ(o->at(1).price.dollars_per_hour(), 0.38 + 2.48);
}

TEST_F(CatalogTest, PriceCsvAddsChangesAndKeepsHistory) {
  ASSERT_TRUE(store_->Import(Read(ImportSkyPilot, "skypilot-aws-sample.csv"), false).ok());
  Result<ImportSummary> s = store_->Import(Read(ImportPriceCsv, "prices-good.csv"), false);
  ASSERT_TRUE(s.ok()) << s.status().message();
  EXPECT_EQ(s->prices_added, 3);
  EXPECT_DOUBLE_EQ(
      Price({.instance = "p3.2xlarge", .kind = PriceKind::kOnDemand, .as_of = "2018-06-01"}), 3.06);
  Result<std::vector<PriceObservation>> h =
      store_->History("aws", "p3.2xlarge", "us-east-1", PriceKind::kOnDemand);
  // 2018 and 2025 from the file, 2026-01-01 from the sample, 2026-11-22 from the seed.
  EXPECT_EQ(h->size(), 4u);
}

TEST_F(CatalogTest, BadRecordsNameLineAndFieldAndChangeNothing) {
  ASSERT_TRUE(store_->Import(Read(ImportSkyPilot, "skypilot-aws-sample.csv"), false).ok());
  const std::string text = Fixture("prices-bad.csv");
  ImportOptions options;
  Result<ImportBatch> b = ImportPriceCsv(text, "prices-bad.csv", options);
  ASSERT_FALSE(b.ok());
  EXPECT_EQ(b.status().message(), "prices-bad.csv:3: usd_per_hour -1 is negative");
  options.skip_bad = true;
  Result<ImportBatch> skipped = ImportPriceCsv(text, "prices-bad.csv", options);
  ASSERT_TRUE(skipped.ok());
  EXPECT_EQ(skipped->prices.size(), 1u);
  EXPECT_EQ(skipped->skipped,
            (std::vector<std::string>{
                "prices-bad.csv:3: usd_per_hour -1 is negative",
                "prices-bad.csv:4: usd_per_hour 'abc' is not a number",
                "prices-bad.csv:5: usd_per_hour 'nan' is not finite",
                "prices-bad.csv:6: usd_per_hour 99999 is absurd (over $2000/h)",
                "prices-bad.csv:7: kind: unknown price kind 'reserved' (expected on_demand, "
                "preemptible or spot)",
                "prices-bad.csv:8: observed_at: date '2018-02-30' does not exist",
                "prices-bad.csv:9: usd_per_hour 0 is not a price: no instance is free"}));
}

// A $0 price had been stored and ranked first for every model (regression). SkyPilot's GCP rows
// give machine types that come with their GPUs (a4-highgpu-8g) $0, the price on the GPU's row.
TEST_F(CatalogTest, ZeroPricesAreErrorsButGcpBundledMachineTypes) {
  EXPECT_EQ(CheckUsdPerHour(0, "Price 0.0").message(),
            "Price 0.0 is not a price: no instance is free");
  EXPECT_TRUE(CheckUsdPerHour(0.01, "x").ok());
  EXPECT_TRUE(CheckUsdPerHour(kMaxUsdPerHour, "x").ok());
  EXPECT_FALSE(CheckUsdPerHour(kMaxUsdPerHour + 1, "x").ok());
  const std::string header =
      "InstanceType,vCPUs,MemoryGiB,AcceleratorName,AcceleratorCount,GpuInfo,Region,"
      "AvailabilityZone,Price,SpotPrice\n";
  ImportOptions options;
  options.cloud = "gcp";
  options.observed_at = "2026-11-22";
  Result<ImportBatch> bundled =
      ImportSkyPilot(header + "a4-highgpu-8g,224.0,3968.0,,,,us-central1,us-central1-b,0.0,0.0\n",
                     "a4.csv", options);
  ASSERT_TRUE(bundled.ok()) << bundled.status().message();
  EXPECT_EQ(bundled->prices.size(), 2u);
  EXPECT_EQ(
      ImportSkyPilot(header + "n1-standard-8,8.0,30.0,,,,us-central1,us-central1-a,0.0,0.12\n",
                     "n1.csv", options)
          .status()
          .message(),
      "n1.csv:2: Price 0.0 is not a price: no instance is free");
}

TEST_F(CatalogTest, UnknownInstanceRollsBackTheWholeImport) {
  Result<std::vector<PriceObservation>> before = store_->AllPrices();
  ImportBatch b = Read(ImportPriceCsv, "prices-unknown-instance.csv");
  b.prices.insert(b.prices.begin(), b.prices.front());
  b.prices.front().instance = "p2.xlarge";  // known: would be added if the import were partial
  b.prices.front().observed_at = "2019-01-01";
  Result<ImportSummary> s = store_->Import(b, false);
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(s.status().message(),
            "prices-unknown-instance.csv: instance 'p99.mega' of aws is not in the catalog; import "
            "its hardware first (--format instances)");
  EXPECT_EQ(store_->AllPrices()->size(), before->size());
}

TEST_F(CatalogTest, DryRunCountsButStoresNothing) {
  const size_t before = store_->AllPrices()->size();
  Result<ImportSummary> s = store_->Import(Read(ImportSkyPilot, "skypilot-aws-sample.csv"), true);
  ASSERT_TRUE(s.ok());
  EXPECT_EQ(s->prices_added, 8);
  EXPECT_EQ(store_->AllPrices()->size(), before);
}

TEST_F(CatalogTest, SkyPilotBadRowsAndUnknownFormat) {
  ImportOptions options{.observed_at = "2026-01-01"};
  EXPECT_EQ(
      ImportSkyPilot(Fixture("skypilot-bad.csv"), "skypilot-bad.csv", options).status().message(),
      "skypilot-bad.csv:3: vCPUs 'four' is not a number");
  EXPECT_EQ(FindImporter("excel").status().message(),
            "unknown price-file format 'excel' (known: skypilot, csv, instances, aws-price-list, "
            "aws-spot-history, gcp-billing-catalog, azure-retail, interruptions, "
            "aws-spot-advisor)");
  options.observed_at = "yesterday";
  EXPECT_EQ(ImportSkyPilot(Fixture("skypilot-aws-sample.csv"), "s.csv", options).status().message(),
            "s.csv: --observed-at: date 'yesterday' is not YYYY-MM-DD");
}

TEST_F(CatalogTest, AsOfMustBeADate) {
  EXPECT_EQ(store_->Offers({.as_of = "2017-13-01"}).status().message(),
            "--as-of: date '2017-13-01' does not exist");
}

}  // namespace
}  // namespace epochcost::catalog

namespace epochcost::catalog {
namespace {

TEST_F(CatalogTest, AwsSpotHistoryKeepsLinuxAndTheDaysLastPrice) {
  ImportBatch b = Read(ImportAwsSpotHistory, "aws-spot-history.json");
  EXPECT_EQ(b.ignored_records, 1);  // SUSE
  ASSERT_EQ(b.prices.size(), 4u);
  Result<ImportSummary> s = store_->Import(b, false);
  ASSERT_TRUE(s.ok()) << s.status().message();
  EXPECT_EQ(s->prices_added, 3);  // the two us-east-1a records of one day are one observation
}

TEST_F(CatalogTest, AwsSpotHistoryZonesAndUnknownTypes) {
  ASSERT_TRUE(store_->Import(Read(ImportAwsSpotHistory, "aws-spot-history.json"), false).ok());
  Result<std::vector<PriceObservation>> h =
      store_->History("aws", "p3.2xlarge", "us-east-1", PriceKind::kSpot);
  double zone_a = -1;
  for (const auto& p : *h)
    if (p.zone == "us-east-1a" && p.observed_at == "2026-03-02")
      zone_a = p.price.dollars_per_hour();
  EXPECT_DOUBLE_EQ(zone_a, 0.931);  // 20:40 beats 08:15
  // The aws-cli example prices m1.xlarge, which the catalog has no hardware for.
  Result<ImportSummary> s =
      store_->Import(Read(ImportAwsSpotHistory, "aws-spot-history-awscli-example.json"), false);
  ASSERT_TRUE(s.ok());
  EXPECT_EQ(s->prices_unknown_instance, 2);
  EXPECT_EQ(s->prices_added, 0);
  ImportOptions options{.observed_at = "2026-01-01"};
  EXPECT_EQ(ImportAwsSpotHistory(Fixture("aws-spot-history-bad.json"), "bad.json", options)
                .status()
                .message(),
            "bad.json: SpotPriceHistory[1].SpotPrice 'cheap' is not a number");
}

TEST_F(CatalogTest, AwsPriceListOnDemandLinuxShared) {
  ImportBatch b = Read(ImportAwsPriceList, "aws-price-list.json");
  EXPECT_EQ(b.ignored_records, 2);  // Windows, storage
  ASSERT_EQ(b.prices.size(), 2u);
  EXPECT_EQ(b.prices[0].observed_at, "2026-02-01");
  ASSERT_TRUE(store_->Import(b, false).ok());
  EXPECT_DOUBLE_EQ(Price({.region = "us-west-2",
                          .instance = "c5.large",
                          .kind = PriceKind::kOnDemand,
                          .as_of = "2026-02-01"}),
                   0.085);
  // The price list knows no GPU model; the seed's "V100" is kept.
  EXPECT_EQ((*store_->FindInstance("aws", "p3.2xlarge"))->gpu, "V100");
  ImportOptions options{.observed_at = "2026-01-01"};
  Result<ImportBatch> bad =
      ImportAwsPriceList(Fixture("aws-price-list-bad.json"), "bad.json", options);
  EXPECT_EQ(bad.status().message(),
            "bad.json: terms.OnDemand.CCCCCCCCCCCCCCCC.CCCCCCCCCCCCCCCC.JRTCKXETXF.priceDimensions."
            "CCCCCCCCCCCCCCCC.JRTCKXETXF.6YS6EN2CT7.pricePerUnit has no USD price (CNY)");
}

TEST_F(CatalogTest, AzureRetailKindsFromSkuNames) {
  ImportBatch b = Read(ImportAzureRetail, "azure-retail.json");
  EXPECT_EQ(b.ignored_records, 2);  // Windows, reservation
  ASSERT_EQ(b.prices.size(), 4u);
  Result<ImportSummary> s = store_->Import(b, false);
  ASSERT_TRUE(s.ok()) << s.status().message();
  EXPECT_EQ(s->prices_unknown_instance, 1);  // Standard_X9_unknown
  EXPECT_DOUBLE_EQ(
      Price({.region = "eastus", .instance = "Standard_NC6s_v3", .kind = PriceKind::kPreemptible}),
      0.612);
  ImportOptions options{.observed_at = "2026-01-01"};
  EXPECT_EQ(
      ImportAzureRetail(Fixture("azure-retail-bad.json"), "bad.json", options).status().message(),
      "bad.json: Items[0].unitOfMeasure '1 GB/Month' is not 1 Hour");
}

TEST_F(CatalogTest, GcpSkusComposeMachineTypesAndGpus) {
  ImportOptions options{.observed_at = "2026-01-01", .known_instances = *store_->Instances()};
  Result<ImportBatch> b =
      ImportGcpBillingCatalog(Fixture("gcp-billing-catalog.json"), "gcp.json", options);
  ASSERT_TRUE(b.ok()) << b.status().message();
  EXPECT_EQ(b->ignored_records, 1);  // the commitment SKU
  ASSERT_TRUE(store_->Import(*b, false).ok());
  // n1-standard-4: 4 vCPUs x $0.031611 + 15 GiB x $0.004237 = $0.189999 on demand.
  EXPECT_NEAR(Price({.region = "us-central1",
                     .instance = "n1-standard-4",
                     .kind = PriceKind::kOnDemand,
                     .as_of = "2026-02-15"}),
              4 * 0.031611 + 15 * 0.004237, 1e-12);
  // Spot: 4 x 0.006655 + 15 x 0.000892.
  EXPECT_NEAR(Price({.region = "us-central1",
                     .instance = "n1-standard-4",
                     .kind = PriceKind::kSpot,
                     .as_of = "2026-02-15"}),
              4 * 0.006655 + 15 * 0.000892, 1e-12);
  // A V100 attached to it, in the region-wide price the SKU gives.
  EXPECT_NEAR(Price({.region = "us-central1",
                     .instance = "n1-standard-4+V100x2",
                     .kind = PriceKind::kOnDemand,
                     .as_of = "2026-02-15"}),
              4 * 0.031611 + 15 * 0.004237 + 2 * 2.48, 1e-12);
  EXPECT_EQ(ImportGcpBillingCatalog(Fixture("gcp-billing-catalog-bad.json"), "bad.json", options)
                .status()
                .message(),
            "bad.json: skus[1]: currency 'EUR' is not USD");
}

TEST_F(CatalogTest, ConcurrentImportsBothLand) {
  // Two processes' worth of writers on one file: WAL and the busy timeout serialise them.
  ImportBatch a = Read(ImportAwsSpotHistory, "aws-spot-history.json");
  ImportBatch b = Read(ImportPriceCsv, "prices-good.csv");
  Result<std::unique_ptr<CatalogStore>> other = CatalogStore::Open(path_);
  ASSERT_TRUE(other.ok());
  Status sa, sb;
  std::thread ta([&] {
    for (int i = 0; i < 20 && sa.ok(); ++i) sa = store_->Import(a, false).status();
  });
  std::thread tb([&] {
    for (int i = 0; i < 20 && sb.ok(); ++i) sb = (*other)->Import(b, false).status();
  });
  ta.join();
  tb.join();
  EXPECT_TRUE(sa.ok()) << sa.message();
  EXPECT_TRUE(sb.ok()) << sb.message();
  EXPECT_EQ(store_->History("aws", "p3.2xlarge", "us-east-1", PriceKind::kOnDemand)->size(), 3u);
}

}  // namespace
}  // namespace epochcost::catalog

namespace epochcost::catalog {
namespace {

TEST_F(CatalogTest, SpotAdvisorBandsAndGcePreemptibleLifetime) {
  ImportBatch b = Read(ImportAwsSpotAdvisor, "aws-spot-advisor.json");
  ASSERT_EQ(b.interruptions.size(), 3u);  // Linux only
  Result<ImportSummary> s = store_->Import(b, false);
  ASSERT_TRUE(s.ok());
  EXPECT_EQ(s->interruptions_stored, 3);
  Result<std::optional<Interruption>> i =
      store_->InterruptionFor("aws", "p3.2xlarge", "us-east-1", PriceKind::kSpot);
  ASSERT_TRUE(i.ok() && i->has_value());
  EXPECT_EQ((*i)->frequency_band, "15-20%");
  EXPECT_EQ((*store_->InterruptionFor("aws", "p3.2xlarge", "us-west-2", PriceKind::kSpot))
                ->frequency_band,
            ">20%");
  EXPECT_FALSE(
      store_->InterruptionFor("aws", "p3.2xlarge", "eu-west-1", PriceKind::kSpot)->has_value());
  // Seeded: every GCE preemptible VM stops after 24 hours.
  Result<std::optional<Interruption>> gce =
      store_->InterruptionFor("gcp", "n1-highcpu-32", "us-central1", PriceKind::kPreemptible);
  ASSERT_TRUE(gce->has_value());
  EXPECT_DOUBLE_EQ((*gce)->max_lifetime_hours, 24);
  EXPECT_FALSE(store_->InterruptionFor("gcp", "n1-highcpu-32", "us-central1", PriceKind::kSpot)
                   ->has_value());
  ImportOptions options{.observed_at = "2026-01-01"};
  EXPECT_EQ(ImportAwsSpotAdvisor(Fixture("aws-spot-advisor-bad.json"), "bad.json", options)
                .status()
                .message(),
            "bad.json: spot_advisor.us-west-2.Linux.p3.2xlarge.r 7 names no range");
}

}  // namespace
}  // namespace epochcost::catalog

namespace epochcost::catalog {
namespace {

// data/PATH parsed as CSV.
Result<CsvTable> DataCsv(const std::string& path) {
  Result<std::string> text = ReadFile(std::string(EPOCHCOST_DATA) + "/" + path);
  if (!text.ok()) return text.status();
  return CsvTable::Parse(*text, path);
}

// The first column of data/PATH (empty where it cannot be read: the test's checks then fail).
std::set<std::string> FirstColumn(const std::string& path) {
  std::set<std::string> out;
  Result<CsvTable> t = DataCsv(path);
  EXPECT_TRUE(t.ok()) << path;
  if (t.ok())
    for (const CsvRecord& r : t->records()) out.insert(r.fields[0]);
  return out;
}

TEST_F(CatalogTest, CpuFamiliesNameRowsOfTheHardwareTable) {
  // data/hardware/cpus.csv is the spec table later stages read by family name.
  const std::set<std::string> families = FirstColumn("hardware/cpus.csv");
  int with_family = 0;
  const std::vector<InstanceType> instances = *store_->Instances();
  for (const InstanceType& i : instances) {
    if (i.cpu_family.empty()) continue;
    ++with_family;
    EXPECT_TRUE(families.contains(i.cpu_family))
        << i.provider << ":" << i.name << " " << i.cpu_family;
  }
  EXPECT_GT(with_family, 300);
  EXPECT_EQ((*store_->FindInstance("aws", "c4.8xlarge"))->cpu_family, "Haswell (Xeon E5-2666 v3)");
  EXPECT_EQ((*store_->FindInstance("azure", "Standard_D16as_v5"))->cpu_family, "EPYC Milan (7003)");
  EXPECT_EQ((*store_->FindInstance("azure", "Standard_D16s_v5"))->cpu_family,
            "Ice Lake-SP (Xeon Scalable 3rd gen)");
}

TEST_F(CatalogTest, GpuModelsNameRowsOfTheHardwareTable) {
  // data/catalog/gpu-models.csv tells apart the parts a provider's GPU name covers; each model
  // it names is a row of data/hardware/gpus.csv (by full name, as FindGpu reads it).
  const std::set<std::string> names = FirstColumn("hardware/gpus.csv");
  int modelled = 0;
  const std::vector<InstanceType> instances = *store_->Instances();
  for (const InstanceType& i : instances) {
    const std::string model = GpuModelOf(i);
    if (model.empty()) continue;
    ++modelled;
    EXPECT_TRUE(names.contains(model)) << i.provider << ":" << i.name << " " << model;
  }
  EXPECT_EQ(modelled, 1);  // Lambda's one H100 PCIe machine
  EXPECT_EQ(GpuModelOf(**store_->FindInstance("lambda", "gpu_1x_h100_pcie")), "H100 PCIe 80GB");
  EXPECT_EQ(GpuModelOf(**store_->FindInstance("lambda", "gpu_1x_h100_sxm5")), "");
  EXPECT_TRUE(Glob("gpu_*_h100_pcie", "gpu_8x_h100_pcie"));
  EXPECT_FALSE(Glob("gpu_*_h100_pcie", "gpu_1x_h100_pcie2"));
}

TEST_F(CatalogTest, InstanceRowsCorrectThePriceFilesHardware) {
  // SkyPilot's Azure catalog (v6) gives ND96isr_H100_v5 12 GPUs (Azure's size has 8) and the NC
  // A10 v4 and NCC H100 v5 sizes no GPU; data/catalog/instances.csv, seeded after it, corrects
  // them.
  const InstanceType nd = **store_->FindInstance("azure", "Standard_ND96isr_H100_v5");
  EXPECT_EQ(nd.gpu, "H100");
  EXPECT_EQ(nd.gpu_count, 8);
  const InstanceType nc = **store_->FindInstance("azure", "Standard_NC32ads_A10_v4");
  EXPECT_EQ(nc.gpu, "A10");
  EXPECT_EQ(nc.gpu_count, 2);
  EXPECT_EQ(nc.gpu_memory_gib, 24);
  // The confidential NCC H100 v5 size is listed without its GPU; it has its NC sibling's one.
  const InstanceType ncc = **store_->FindInstance("azure", "Standard_NCC40ads_H100_v5");
  const InstanceType sibling = **store_->FindInstance("azure", "Standard_NC40ads_H100_v5");
  EXPECT_EQ(ncc.gpu, sibling.gpu);
  EXPECT_EQ(ncc.gpu_count, 1);
  EXPECT_EQ(ncc.vcpus, 40);
}

// Whether a pattern row of data/catalog (provider, instance-name pattern) names a machine of
// `instances` (one that matches none would be a typo that does nothing).
bool MatchesAnInstance(const std::vector<InstanceType>& instances, const std::string& provider,
                       const std::string& pattern) {
  return std::any_of(instances.begin(), instances.end(), [&](const InstanceType& i) {
    return i.provider == provider && Glob(pattern, i.name);
  });
}

TEST_F(CatalogTest, RetirementsNameCatalogMachinesAndRealDays) {
  // Every row of data/catalog/retirements.csv is a real day and names a machine the seeded
  // catalog has (a pattern that matches none would be a typo that retires nothing).
  Result<CsvTable> t = DataCsv("catalog/retirements.csv");
  ASSERT_TRUE(t.ok());
  const std::vector<InstanceType> instances = *store_->Instances();
  for (const CsvRecord& r : t->records()) {
    EXPECT_TRUE(CheckDate(r.fields[2]).ok()) << r.line;
    EXPECT_FALSE(r.fields[3].empty()) << r.line << ": no source";
    EXPECT_TRUE(MatchesAnInstance(instances, r.fields[0], r.fields[1]))
        << r.line << ": " << r.fields[1] << " matches no instance";
  }
  EXPECT_EQ(RetiredOn(**store_->FindInstance("azure", "Standard_NC6")), "2023-09-06");
  EXPECT_EQ(RetiredOn(**store_->FindInstance("azure", "Standard_NC24rs_v3")), "2025-09-30");
  EXPECT_EQ(RetiredOn(**store_->FindInstance("azure", "Standard_NC4as_T4_v3")), "");
}

TEST_F(CatalogTest, ThreadsPerCoreRowsNameCatalogMachines) {
  // Every row of data/catalog/threads-per-core.csv says 1 or 2, names its source and matches a
  // machine the seeded catalog has; AWS's C7a vCPUs are whole cores, C5's hyperthreads (no row).
  Result<CsvTable> t = DataCsv("catalog/threads-per-core.csv");
  ASSERT_TRUE(t.ok());
  const std::vector<InstanceType> instances = *store_->Instances();
  for (const CsvRecord& r : t->records()) {
    EXPECT_TRUE(r.fields[2] == "1" || r.fields[2] == "2") << r.line;
    EXPECT_FALSE(r.fields[3].empty()) << r.line << ": no source";
    EXPECT_TRUE(MatchesAnInstance(instances, r.fields[0], r.fields[1]))
        << r.line << ": " << r.fields[1] << " matches no instance";
  }
  EXPECT_EQ(ThreadsPerCoreOf(**store_->FindInstance("aws", "c7a.2xlarge")), 1);
  EXPECT_EQ(ThreadsPerCoreOf(**store_->FindInstance("aws", "c5.2xlarge")), 0);
}

TEST(TakeRetiredTest, LeavesOutMachinesRetiredOnOrBeforeTheirProvidersDay) {
  const auto offer = [](const std::string& provider, const std::string& name) {
    Offer o;
    o.instance.provider = provider;
    o.instance.name = name;
    return o;
  };
  std::vector<Offer> offers = {offer("azure", "Standard_NC6"), offer("azure", "Standard_NC6s_v3"),
                               offer("azure", "Standard_NC4as_T4_v3"),
                               offer("gcp", "Standard_NC6")};
  // Azure's day is NCv3's retirement day: the K80 (2023) and NCv3 (that very day) go; gcp has no
  // retirements and the T4 size none.
  std::vector<Offer> gone = TakeRetired(&offers, {{"azure", "2025-09-30"}, {"gcp", "2026-01-01"}});
  ASSERT_EQ(gone.size(), 2u);
  EXPECT_EQ(gone[0].instance.name, "Standard_NC6");
  EXPECT_EQ(gone[1].instance.name, "Standard_NC6s_v3");
  ASSERT_EQ(offers.size(), 2u);
  EXPECT_EQ(offers[0].instance.name, "Standard_NC4as_T4_v3");
  EXPECT_EQ(offers[1].instance.provider, "gcp");
  // The day before NCv3's retirement keeps it; a provider without a day keeps everything.
  offers = {offer("azure", "Standard_NC6s_v3"), offer("azure", "Standard_NC6")};
  EXPECT_EQ(TakeRetired(&offers, {{"azure", "2025-09-29"}}).size(), 1u);
  EXPECT_EQ(offers.front().instance.name, "Standard_NC6s_v3");
  EXPECT_TRUE(TakeRetired(&offers, {}).empty());
}

TEST_F(CatalogTest, InstanceAndInterruptionCsvBadRecords) {
  ImportOptions options{.observed_at = "2026-01-01"};
  EXPECT_EQ(ImportInstanceCsv("provider,name,vcpus,memory_gib,cpu_family,gpu,gpu_count,"
                              "gpu_memory_gib,arch,attachable\naws,x1,0,4,,,,,x86_64,0\n",
                              "i.csv", options)
                .status()
                .message(),
            "i.csv:2: vcpus must be positive");
  EXPECT_EQ(ImportInterruptionCsv("provider,instance,region,kind,frequency_band,"
                                  "max_lifetime_hours,observed_at,source\n"
                                  "aws,*,*,spot,often,0,2026-01-01,x\n",
                                  "r.csv", options)
                .status()
                .message(),
            "r.csv:2: frequency_band 'often' is not one of <5%, 5-10%, 10-15%, 15-20%, >20%");
}

}  // namespace
}  // namespace epochcost::catalog

namespace epochcost::catalog {
namespace {

TEST_F(CatalogTest, ReopeningDoesNotReloadAnUnchangedSeed) {
  ASSERT_TRUE(store_->Import(Read(ImportPriceCsv, "prices-good.csv"), false).ok());
  const size_t before = store_->AllPrices()->size();
  Result<std::unique_ptr<CatalogStore>> again = CatalogStore::Open(path_);
  ASSERT_TRUE(again.ok());
  EXPECT_EQ((*again)->AllPrices()->size(), before);
}

}  // namespace
}  // namespace epochcost::catalog
