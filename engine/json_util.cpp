#include "engine/json_util.h"

#include "engine/file_util.h"

namespace epochcost {

Result<Json> ParseJson(std::string_view text, std::string_view origin) {
  try {
    return Json::parse(text);
  } catch (const Json::parse_error& e) {
    return Status::ParseError(std::string(origin) + ": malformed JSON at " +
                              LineColumn(text, e.byte == 0 ? 0 : e.byte - 1));
  } catch (const Json::exception& e) {  // a number beyond double's range
    return Status::ParseError(std::string(origin) + ": " + JsonErrorText(e));
  }
}

Result<int64_t> IntegerField(const Json& object, const char* key, int64_t fallback, int64_t min,
                             int64_t max, std::string_view path) {
  if (!object.is_object() || !object.contains(key)) return fallback;
  const Json& v = object[key];
  bool ok = false;
  int64_t n = 0;
  if (v.is_number_unsigned()) {
    const uint64_t u = v.get<uint64_t>();
    ok = u <= static_cast<uint64_t>(max);
    n = ok ? static_cast<int64_t>(u) : 0;
  } else if (v.is_number_integer()) {
    n = v.get<int64_t>();
    ok = true;
  }
  if (!ok || n < min || n > max)
    return Status::InvalidArgument((path.empty() ? "" : std::string(path) + ".") + key +
                                   ": expected an integer from " + std::to_string(min) + " to " +
                                   std::to_string(max));
  return n;
}

std::string JsonErrorText(const Json::exception& e) {
  std::string_view what = e.what();
  if (what.starts_with("[json.exception.")) {
    const size_t end = what.find("] ");
    if (end != std::string_view::npos) what.remove_prefix(end + 2);
  }
  return std::string(what);
}

}  // namespace epochcost
