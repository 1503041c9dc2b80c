// Helpers for the JSON price formats: parsing with a located error, typed field access that
// names the record's path ("SpotPriceHistory[3].SpotPrice"), and the per-record error policy.
#ifndef EPOCHCOST_CATALOG_JSON_RECORDS_H_
#define EPOCHCOST_CATALOG_JSON_RECORDS_H_

#include <string>

#include "catalog/importers.h"
#include "engine/json_util.h"

namespace epochcost::catalog::json_records {

using epochcost::Json;

// The string at `key` of `obj`, or an error naming `path.key`.
Result<std::string> String(const Json& obj, const std::string& path, const char* key);
// A number given as a JSON number or a numeric string, non-negative and finite.
Result<double> Amount(const Json& obj, const std::string& path, const char* key);
// The YYYY-MM-DD prefix of an ISO 8601 timestamp at `key`.
Result<std::string> Date(const Json& obj, const std::string& path, const char* key);

// Runs `read` on the record at `path`; a failure (a value of an unexpected JSON type included)
// is returned, or with --skip-bad recorded in the batch.
template <typename Fn>
Status Record(const std::string& origin, const std::string& path, const ImportOptions& options,
              ImportBatch* batch, Fn read) {
  Status s = GuardJson(path, read);
  if (s.ok()) return s;
  Status located = s.WithContext(origin);
  if (!options.skip_bad) return located;
  batch->skipped.push_back(located.message());
  return Status::Ok();
}

// The pages of a paged API: one page object, or an array of page objects.
std::vector<const Json*> Pages(const Json& doc);

}  // namespace epochcost::catalog::json_records

#endif  // EPOCHCOST_CATALOG_JSON_RECORDS_H_
