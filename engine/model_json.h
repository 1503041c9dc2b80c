// The project's own model description format (docs/model-format.md): a JSON object with the
// model's name, source, optional integer parameters, training defaults and a list of layers. The
// zoo is written in it. Errors name the origin (a file path or zoo name) and the field.
#ifndef EPOCHCOST_ENGINE_MODEL_JSON_H_
#define EPOCHCOST_ENGINE_MODEL_JSON_H_

#include <cstdint>
#include <map>
#include <string>
#include <string_view>

#include "engine/model.h"

namespace epochcost {

// Values for the model's declared parameters, overriding their defaults (e.g. vocab=1000000).
using ModelParameters = std::map<std::string, int64_t>;

Result<Model> ParseModelJson(std::string_view text, std::string_view origin,
                             const ModelParameters& overrides = {});

// Whether `text` looks like the project's format (has "format": "epochcost-model").
bool IsModelJson(std::string_view text);

}  // namespace epochcost

#endif  // EPOCHCOST_ENGINE_MODEL_JSON_H_
