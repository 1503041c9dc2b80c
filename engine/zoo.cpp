#include "engine/zoo.h"

#include <utility>

#include "engine/near_names.h"

namespace epochcost {

// Defined in the generated zoo_data.cpp.
const std::vector<std::pair<std::string_view, std::string_view>>& ZooFiles();

std::vector<std::string> ZooNames() {
  std::vector<std::string> names;
  for (const auto& [name, text] : ZooFiles()) names.emplace_back(name);
  return names;
}

bool InZoo(std::string_view name) {
  for (const auto& [n, text] : ZooFiles())
    if (n == name) return true;
  return false;
}

Result<Model> LoadZooModel(std::string_view name, const ModelParameters& parameters) {
  for (const auto& [n, text] : ZooFiles())
    if (n == name) return ParseModelJson(text, "zoo model '" + std::string(name) + "'", parameters);
  return Status::NotFound("'" + std::string(name) + "' is neither a zoo model" +
                          DidYouMean(NearNames(name, ZooNames())) +
                          " (see `epochcost models list`) nor a file");
}

}  // namespace epochcost
