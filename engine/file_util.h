// Reading whole files with errors as values: the file name and the reason in one line.
#ifndef EPOCHCOST_ENGINE_FILE_UTIL_H_
#define EPOCHCOST_ENGINE_FILE_UTIL_H_

#include <string>

#include "engine/status.h"

namespace epochcost {

Result<std::string> ReadFile(const std::string& path);

}  // namespace epochcost

#endif  // EPOCHCOST_ENGINE_FILE_UTIL_H_
