#include "catalog/json_records.h"

#include "engine/file_util.h"

namespace epochcost::catalog::json_records {

Result<std::string> String(const Json& obj, const std::string& path, const char* key) {
  if (!obj.is_object() || !obj.contains(key))
    return Status::InvalidArgument(path + "." + key + " is missing");
  if (!obj[key].is_string()) return Status::InvalidArgument(path + "." + key + " is not a string");
  return obj[key].get<std::string>();
}

Result<double> Amount(const Json& obj, const std::string& path, const char* key) {
  if (!obj.is_object() || !obj.contains(key))
    return Status::InvalidArgument(path + "." + key + " is missing");
  const Json& v = obj[key];
  if (v.is_number()) {
    const double d = v.get<double>();
    if (d < 0) return Status::InvalidArgument(path + "." + key + " " + v.dump() + " is negative");
    return d;
  }
  if (!v.is_string()) return Status::InvalidArgument(path + "." + key + " is not a number");
  return ParseAmount(v.get<std::string>(), path + "." + key);
}

Result<std::string> Date(const Json& obj, const std::string& path, const char* key) {
  Result<std::string> s = String(obj, path, key);
  if (!s.ok()) return s.status();
  const std::string date = s->substr(0, 10);
  EPOCHCOST_RETURN_IF_ERROR(CheckDate(date).WithContext(path + "." + key));
  return date;
}

std::vector<const Json*> Pages(const Json& doc) {
  std::vector<const Json*> pages;
  if (doc.is_array()) {
    for (const Json& p : doc) pages.push_back(&p);
  } else {
    pages.push_back(&doc);
  }
  return pages;
}

}  // namespace epochcost::catalog::json_records
