// The built-in model zoo: the models of the published cloud benchmarks and modern reference
// models, compiled into the binary from data/models/*.json (each file names its source).
#ifndef EPOCHCOST_ENGINE_ZOO_H_
#define EPOCHCOST_ENGINE_ZOO_H_

#include <string>
#include <string_view>
#include <vector>

#include "engine/model_json.h"

namespace epochcost {

std::vector<std::string> ZooNames();
bool InZoo(std::string_view name);
Result<Model> LoadZooModel(std::string_view name, const ModelParameters& parameters = {});

}  // namespace epochcost

#endif  // EPOCHCOST_ENGINE_ZOO_H_
