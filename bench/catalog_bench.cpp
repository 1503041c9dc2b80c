// Speed of catalog queries (issue goal: listing the whole catalog in under 50 ms). Run:
//   build/bench/catalog_bench
#include <benchmark/benchmark.h>

#include <filesystem>

#include "catalog/store.h"

namespace epochcost::catalog {
namespace {

std::unique_ptr<CatalogStore> OpenFresh() {
  const std::string path =
      (std::filesystem::temp_directory_path() / "epochcost_bench_catalog.sqlite").string();
  for (const char* ext : {"", "-wal", "-shm"}) std::filesystem::remove(path + ext);
  return *CatalogStore::Open(path);
}

void BM_ListWholeCatalog(benchmark::State& state) {
  std::unique_ptr<CatalogStore> store = OpenFresh();
  size_t offers = 0;
  for (auto _ : state) offers = store->Offers({})->size();
  state.counters["offers"] = static_cast<double>(offers);
}
BENCHMARK(BM_ListWholeCatalog)->Unit(benchmark::kMillisecond);

void BM_ListAsOf2017(benchmark::State& state) {
  std::unique_ptr<CatalogStore> store = OpenFresh();
  for (auto _ : state)
    benchmark::DoNotOptimize(store->Offers({.cloud = "gcp", .as_of = "2017-11-28"}));
}
BENCHMARK(BM_ListAsOf2017)->Unit(benchmark::kMillisecond);

void BM_OpenAndSeed(benchmark::State& state) {
  for (auto _ : state) benchmark::DoNotOptimize(OpenFresh());
}
BENCHMARK(BM_OpenAndSeed)->Unit(benchmark::kMillisecond);

}  // namespace
}  // namespace epochcost::catalog

BENCHMARK_MAIN();
