// Reading whole files with errors as values: the file name and the reason in one line.
#ifndef EPOCHCOST_ENGINE_FILE_UTIL_H_
#define EPOCHCOST_ENGINE_FILE_UTIL_H_

#include <string>
#include <string_view>

#include "engine/status.h"

namespace epochcost {

Result<std::string> ReadFile(const std::string& path);

// Where epochcost keeps a data file: $ENV_VAR if set, else $XDG_DATA_HOME/epochcost/FILE, else
// ~/.local/share/epochcost/FILE (else ./epochcost/FILE without a home).
std::string DataFilePath(const char* env_var, const std::string& file);

// Where a program or library epochcost runs beside itself is: $ENV_VAR if set, else FILE in the
// running executable's directory if there, else `built` (where the build put it; may be "").
std::string CompanionPath(const char* env_var, const std::string& file, const std::string& built);

// "line L, column C" of byte offset `offset` in `text` (for parser errors).
std::string LineColumn(std::string_view text, size_t offset);

}  // namespace epochcost

#endif  // EPOCHCOST_ENGINE_FILE_UTIL_H_
