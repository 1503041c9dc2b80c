// Azure Retail Prices API pages (prices.azure.com/api/retail/prices, documented in "Azure Retail
// Prices REST API overview"): Virtual Machines consumption meters, Linux. The sku name says the
// kind: "... Spot" is spot, "... Low Priority" is preemptible (Batch low-priority), else
// pay-as-you-go. One page object or an array of pages.
#include "catalog/json_records.h"

namespace epochcost::catalog {

Result<ImportBatch> ImportAzureRetail(std::string_view text, const std::string& origin,
                                      const ImportOptions& options) {
  using json_records::Json;
  Result<Json> doc = ParseJson(text, origin);
  if (!doc.ok()) return doc.status();
  ImportBatch batch;
  batch.ignore_unknown_instances = true;
  const std::vector<const Json*> pages = json_records::Pages(*doc);
  for (size_t pg = 0; pg < pages.size(); ++pg) {
    const Json& page = *pages[pg];
    const std::string ppath = pages.size() > 1 ? "[" + std::to_string(pg) + "]." : "";
    if (!page.is_object() || !page.contains("Items") || !page["Items"].is_array())
      return Status::InvalidArgument(origin + ": " + ppath + "Items: expected an array");
    const Json& items = page["Items"];
    for (size_t i = 0; i < items.size(); ++i) {
      const std::string path = ppath + "Items[" + std::to_string(i) + "]";
      EPOCHCOST_RETURN_IF_ERROR(
          json_records::Record(origin, path, options, &batch, [&]() -> Status {
            const Json& r = items[i];
            const std::string service = r.value("serviceName", "");
            const std::string type = r.value("type", "");
            const std::string product = r.value("productName", "");
            if (service != "Virtual Machines" || type != "Consumption" ||
                product.find("Windows") != std::string::npos) {
              ++batch.ignored_records;  // reservations, dev/test, Windows, other services
              return Status::Ok();
            }
            Result<std::string> currency = json_records::String(r, path, "currencyCode");
            Result<std::string> unit = json_records::String(r, path, "unitOfMeasure");
            Result<std::string> sku = json_records::String(r, path, "skuName");
            Result<std::string> arm_sku = json_records::String(r, path, "armSkuName");
            Result<std::string> region = json_records::String(r, path, "armRegionName");
            Result<double> price = json_records::Amount(r, path, "retailPrice");
            Result<std::string> date = json_records::Date(r, path, "effectiveStartDate");
            for (const Status* s :
                 {&currency.status(), &unit.status(), &sku.status(), &arm_sku.status(),
                  &region.status(), &price.status(), &date.status()})
              if (!s->ok()) return *s;
            if (*currency != "USD")
              return Status::InvalidArgument(path + ".currencyCode '" + *currency + "' is not USD");
            if (*unit != "1 Hour")
              return Status::InvalidArgument(path + ".unitOfMeasure '" + *unit + "' is not 1 Hour");
            EPOCHCOST_RETURN_IF_ERROR(
                CheckUsdPerHour(*price, path + ".retailPrice " + r["retailPrice"].dump()));
            PriceKind kind = PriceKind::kOnDemand;
            if (sku->ends_with(" Spot")) kind = PriceKind::kSpot;
            if (sku->ends_with(" Low Priority")) kind = PriceKind::kPreemptible;
            batch.prices.push_back({.provider = "azure",
                                    .instance = *arm_sku,
                                    .region = *region,
                                    .zone = "",
                                    .kind = kind,
                                    .price = UsdPerHour::FromDollarsPerHour(*price),
                                    .observed_at = *date,
                                    .source = origin});
            return Status::Ok();
          }));
    }
  }
  return batch;
}

}  // namespace epochcost::catalog
