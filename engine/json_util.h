// JSON input, read safely. Every reader of a JSON file parses it with ParseJson (a malformed file
// or an out-of-range number is an error naming the file, line and column) and runs its reading
// code under GuardJson, so that a value of an unexpected type anywhere in the file (nlohmann::json
// throws on those) is an error naming the file and the record, never an uncaught exception.
#ifndef EPOCHCOST_ENGINE_JSON_UTIL_H_
#define EPOCHCOST_ENGINE_JSON_UTIL_H_

#include <nlohmann/json.hpp>
#include <string>
#include <string_view>

#include "engine/status.h"

namespace epochcost {

using Json = nlohmann::json;

Result<Json> ParseJson(std::string_view text, std::string_view origin);

// nlohmann's message without its "[json.exception.type_error.302] " tag.
std::string JsonErrorText(const Json::exception& e);

// The integer at `key` of `object` (`fallback` when the key is absent), refused unless it is a JSON
// integer from `min` to `max`: a fraction or a huge number must not be converted to a C++ integer
// (nlohmann::json casts without checking). Errors read "`path`.`key`: expected an integer from
// `min` to `max`" ("`key`: ..." when `path` is empty).
Result<int64_t> IntegerField(const Json& object, const char* key, int64_t fallback, int64_t min,
                             int64_t max, std::string_view path = "");

// Runs `read` (returning a Status or a Result); a nlohmann::json exception it throws becomes an
// InvalidArgument "`where`: <what nlohmann says>" (without "`where`: " when it is empty).
template <typename Fn>
auto GuardJson(std::string_view where, Fn read) -> decltype(read()) {
  try {
    return read();
  } catch (const Json::exception& e) {
    return Status::InvalidArgument(where.empty() ? JsonErrorText(e)
                                                 : std::string(where) + ": " + JsonErrorText(e));
  }
}

}  // namespace epochcost

#endif  // EPOCHCOST_ENGINE_JSON_UTIL_H_
