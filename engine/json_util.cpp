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

std::string JsonErrorText(const Json::exception& e) {
  std::string_view what = e.what();
  if (what.starts_with("[json.exception.")) {
    const size_t end = what.find("] ");
    if (end != std::string_view::npos) what.remove_prefix(end + 2);
  }
  return std::string(what);
}

}  // namespace epochcost
