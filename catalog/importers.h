// Readers of price files into an ImportBatch, one per format, dispatched by name. Every record is
// validated; a bad record is an error naming file, line and field, unless `skip_bad` is set, in
// which case it is left out and reported in ImportBatch::skipped.
#ifndef EPOCHCOST_CATALOG_IMPORTERS_H_
#define EPOCHCOST_CATALOG_IMPORTERS_H_

#include <string>
#include <string_view>
#include <vector>

#include "catalog/records.h"

namespace epochcost::catalog {

struct ImportOptions {
  std::string observed_at;  // YYYY-MM-DD stamped on prices whose file has no date
  std::string cloud;        // provider, where the format does not say (skypilot)
  bool skip_bad = false;
  // The instance types the catalog already knows, for formats that price parts (GCP SKUs price
  // a vCPU-hour and a GiB-hour; an instance's price is composed from its size).
  std::vector<InstanceType> known_instances;
};

using ImporterFn = Result<ImportBatch> (*)(std::string_view text, const std::string& origin,
                                           const ImportOptions& options);

struct ImporterInfo {
  std::string_view format;
  std::string_view description;
  ImporterFn import;
};

const std::vector<ImporterInfo>& Importers();
Result<ImporterFn> FindImporter(std::string_view format);

// Formats, in importers_*.cpp.
Result<ImportBatch> ImportSkyPilot(std::string_view text, const std::string& origin,
                                   const ImportOptions& options);
Result<ImportBatch> ImportPriceCsv(std::string_view text, const std::string& origin,
                                   const ImportOptions& options);
Result<ImportBatch> ImportInstanceCsv(std::string_view text, const std::string& origin,
                                      const ImportOptions& options);
Result<ImportBatch> ImportAwsSpotHistory(std::string_view text, const std::string& origin,
                                         const ImportOptions& options);
Result<ImportBatch> ImportAwsPriceList(std::string_view text, const std::string& origin,
                                       const ImportOptions& options);
Result<ImportBatch> ImportAzureRetail(std::string_view text, const std::string& origin,
                                      const ImportOptions& options);
Result<ImportBatch> ImportInterruptionCsv(std::string_view text, const std::string& origin,
                                          const ImportOptions& options);
Result<ImportBatch> ImportAwsSpotAdvisor(std::string_view text, const std::string& origin,
                                         const ImportOptions& options);
Result<ImportBatch> ImportGcpBillingCatalog(std::string_view text, const std::string& origin,
                                            const ImportOptions& options);

// Parses a non-negative finite number in `text`; `what` names the field in the error.
Result<double> ParseAmount(std::string_view text, const std::string& what);

}  // namespace epochcost::catalog

#endif  // EPOCHCOST_CATALOG_IMPORTERS_H_
