// AWS price files: the Price List Bulk API offer file for AmazonEC2 (on-demand Linux, shared
// tenancy, no pre-installed software, capacity status Used) and the JSON of
// `aws ec2 describe-spot-price-history` (Linux/UNIX records). Formats: AWS Price List API docs
// ("Reading the offer files") and the aws-cli example in shared/data/price-samples.
#include <algorithm>
#include <cctype>

#include "catalog/json_records.h"

namespace epochcost::catalog {
namespace {

using json_records::Json;

// "61 GiB" or "0.5 GiB" -> 61, 0.5.
Result<double> GiB(const std::string& text, const std::string& what) {
  const size_t space = text.find(' ');
  const std::string unit = space == std::string::npos ? "" : text.substr(space + 1);
  if (unit != "GiB") return Status::InvalidArgument(what + " '" + text + "' is not in GiB");
  return ParseAmount(text.substr(0, space), what);
}

std::string Attr(const Json& attrs, const char* key) {
  return attrs.contains(key) && attrs[key].is_string() ? attrs[key].get<std::string>() : "";
}

}  // namespace

Result<ImportBatch> ImportAwsSpotHistory(std::string_view text, const std::string& origin,
                                         const ImportOptions& options) {
  Result<Json> doc = ParseJson(text, origin);
  if (!doc.ok()) return doc.status();
  if (!doc->is_object() || !(*doc).contains("SpotPriceHistory") ||
      !(*doc)["SpotPriceHistory"].is_array())
    return Status::InvalidArgument(origin + ": SpotPriceHistory: expected an array");
  const Json& history = (*doc)["SpotPriceHistory"];
  ImportBatch batch;
  batch.ignore_unknown_instances = true;
  std::vector<std::pair<std::string, PriceObservation>> timed;  // by timestamp
  for (size_t i = 0; i < history.size(); ++i) {
    const std::string path = "SpotPriceHistory[" + std::to_string(i) + "]";
    EPOCHCOST_RETURN_IF_ERROR(json_records::Record(origin, path, options, &batch, [&]() -> Status {
      const Json& r = history[i];
      Result<std::string> product = json_records::String(r, path, "ProductDescription");
      if (!product.ok()) return product.status();
      if (product->rfind("Linux/UNIX", 0) != 0) {
        ++batch.ignored_records;  // SUSE, Red Hat, Windows
        return Status::Ok();
      }
      Result<std::string> type = json_records::String(r, path, "InstanceType");
      Result<std::string> zone = json_records::String(r, path, "AvailabilityZone");
      Result<std::string> stamp = json_records::String(r, path, "Timestamp");
      Result<double> price = json_records::Amount(r, path, "SpotPrice");
      Result<std::string> date = json_records::Date(r, path, "Timestamp");
      for (const Status* s :
           {&type.status(), &zone.status(), &stamp.status(), &price.status(), &date.status()})
        if (!s->ok()) return *s;
      EPOCHCOST_RETURN_IF_ERROR(
          CheckUsdPerHour(*price, path + ".SpotPrice " + r["SpotPrice"].dump()));
      // The region is the zone name without its letter: us-west-1a -> us-west-1.
      std::string region = *zone;
      while (!region.empty() && std::isalpha(static_cast<unsigned char>(region.back())))
        region.pop_back();
      if (region.empty() || region == *zone)
        return Status::InvalidArgument(path + ".AvailabilityZone '" + *zone +
                                       "' is not a zone name");
      PriceObservation p{.provider = "aws",
                         .instance = *type,
                         .region = region,
                         .zone = *zone,
                         .kind = PriceKind::kSpot,
                         .price = UsdPerHour::FromDollarsPerHour(*price),
                         .observed_at = *date,
                         .source = origin};
      timed.emplace_back(*stamp, std::move(p));
      return Status::Ok();
    }));
  }
  // Within one day the latest record wins (the store keeps one observation per day).
  std::stable_sort(timed.begin(), timed.end(),
                   [](const auto& a, const auto& b) { return a.first < b.first; });
  for (auto& [stamp, p] : timed) batch.prices.push_back(std::move(p));
  return batch;
}

Result<ImportBatch> ImportAwsPriceList(std::string_view text, const std::string& origin,
                                       const ImportOptions& options) {
  Result<Json> doc = ParseJson(text, origin);
  if (!doc.ok()) return doc.status();
  const Json& d = *doc;
  if (!d.is_object() || !d.contains("products") || !d["products"].is_object())
    return Status::InvalidArgument(origin +
                                   ": products: expected an object (an AmazonEC2 offer "
                                   "file)");
  if (d.contains("offerCode") && d["offerCode"] != "AmazonEC2")
    return Status::InvalidArgument(origin + ": offerCode: expected AmazonEC2, got " +
                                   d["offerCode"].dump());
  const Json empty = Json::object();
  const Json& on_demand =
      d.contains("terms") && d["terms"].contains("OnDemand") ? d["terms"]["OnDemand"] : empty;
  std::string published = options.observed_at;
  if (d.contains("publicationDate") && d["publicationDate"].is_string())
    published = d["publicationDate"].get<std::string>().substr(0, 10);

  ImportBatch batch;
  batch.ignore_unknown_instances = true;
  for (const auto& item : d["products"].items()) {
    // Plain references: clang 14 cannot capture structured bindings in a lambda (P1091).
    const std::string& sku = item.key();
    const Json& product = item.value();
    const std::string path = "products." + sku;
    EPOCHCOST_RETURN_IF_ERROR(json_records::Record(origin, path, options, &batch, [&]() -> Status {
      const Json& attrs = product.contains("attributes") ? product["attributes"] : empty;
      const std::string family = product.value("productFamily", "");
      if (family.rfind("Compute Instance", 0) != 0 || Attr(attrs, "operatingSystem") != "Linux" ||
          Attr(attrs, "tenancy") != "Shared" || Attr(attrs, "preInstalledSw") != "NA" ||
          (!Attr(attrs, "capacitystatus").empty() && Attr(attrs, "capacitystatus") != "Used")) {
        ++batch.ignored_records;
        return Status::Ok();
      }
      InstanceType inst;
      inst.provider = "aws";
      inst.name = Attr(attrs, "instanceType");
      const std::string region = Attr(attrs, "regionCode");
      if (inst.name.empty())
        return Status::InvalidArgument(path + ".attributes.instanceType is missing");
      if (region.empty())
        return Status::InvalidArgument(path + ".attributes.regionCode is missing");
      Result<double> vcpus = ParseAmount(Attr(attrs, "vcpu"), path + ".attributes.vcpu");
      if (!vcpus.ok()) return vcpus.status();
      Result<double> mem = GiB(Attr(attrs, "memory"), path + ".attributes.memory");
      if (!mem.ok()) return mem.status();
      inst.vcpus = *vcpus;
      inst.memory_gib = *mem;
      if (!Attr(attrs, "gpu").empty()) {
        Result<double> gpus = ParseAmount(Attr(attrs, "gpu"), path + ".attributes.gpu");
        if (!gpus.ok()) return gpus.status();
        inst.gpu_count = *gpus;
      }
      if (!on_demand.contains(sku)) return Status::Ok();  // a product without on-demand terms
      for (const auto& [term_code, term] : on_demand[sku].items()) {
        const std::string tpath = "terms.OnDemand." + sku + "." + term_code;
        std::string date = published;
        if (term.contains("effectiveDate")) {
          Result<std::string> eff = json_records::Date(term, tpath, "effectiveDate");
          if (!eff.ok()) return eff.status();
          date = *eff;
        }
        if (!term.contains("priceDimensions") || !term["priceDimensions"].is_object())
          return Status::InvalidArgument(tpath + ".priceDimensions is missing");
        for (const auto& [dim_code, dim] : term["priceDimensions"].items()) {
          const std::string dpath = tpath + ".priceDimensions." + dim_code;
          const std::string unit = dim.value("unit", "");
          if (unit != "Hrs")
            return Status::InvalidArgument(dpath + ".unit '" + unit + "' is not Hrs");
          if (!dim.contains("pricePerUnit") || !dim["pricePerUnit"].is_object())
            return Status::InvalidArgument(dpath + ".pricePerUnit is missing");
          if (!dim["pricePerUnit"].contains("USD")) {
            std::string currencies;
            for (const auto& [c, v] : dim["pricePerUnit"].items())
              currencies += (currencies.empty() ? "" : ", ") + c;
            return Status::InvalidArgument(dpath + ".pricePerUnit has no USD price (" + currencies +
                                           ")");
          }
          Result<double> usd =
              json_records::Amount(dim["pricePerUnit"], dpath + ".pricePerUnit", "USD");
          if (!usd.ok()) return usd.status();
          EPOCHCOST_RETURN_IF_ERROR(CheckUsdPerHour(
              *usd, dpath + ".pricePerUnit.USD " + dim["pricePerUnit"]["USD"].dump()));
          batch.prices.push_back({.provider = "aws",
                                  .instance = inst.name,
                                  .region = region,
                                  .zone = "",
                                  .kind = PriceKind::kOnDemand,
                                  .price = UsdPerHour::FromDollarsPerHour(*usd),
                                  .observed_at = date,
                                  .source = origin});
        }
      }
      batch.instances.push_back(std::move(inst));
      return Status::Ok();
    }));
  }
  return batch;
}

}  // namespace epochcost::catalog
