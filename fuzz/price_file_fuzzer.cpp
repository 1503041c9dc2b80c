// One price-file format, chosen at build time (EPOCHCOST_FUZZ_FORMAT names it as `catalog import
// --format` does): read it as `catalog import` would, strictly and with --skip-bad.
#include "catalog/importers.h"
#include "fuzz/fuzz_check.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace epochcost;
  using namespace epochcost::catalog;
  static const ImporterFn importer = *FindImporter(EPOCHCOST_FUZZ_FORMAT);
  // GCP SKUs price parts; the composition needs instances the catalog knows.
  static const std::vector<InstanceType> known = {
      {.provider = "gcp", .name = "n1-standard-4", .vcpus = 4, .memory_gib = 15},
      {.provider = "gcp", .name = "n2-highmem-8", .vcpus = 8, .memory_gib = 64},
  };
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  for (bool skip_bad : {false, true}) {
    ImportOptions options{.observed_at = "2026-11-22", .cloud = "aws", .skip_bad = skip_bad,
                          .known_instances = known};
    fuzz::CheckResult(importer(text, "fuzz.price", options), "fuzz.price");
  }
  return 0;
}
