#include "engine/zoo.h"

#include <cctype>
#include <string>
#include <utility>

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

namespace {

// A zoo name as one might type it: lower case, '-' for '_'.
std::string Folded(std::string_view name) {
  std::string out;
  for (char c : name)
    out += c == '-' ? '_' : static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

// " (did you mean: resnet50, resnet152?)": the zoo names that contain `typed` or that it
// contains, ignoring case and '-' for '_'; empty when none does.
std::string NearZooNames(std::string_view typed) {
  const std::string want = Folded(typed);
  std::string near;
  for (const auto& [n, text] : ZooFiles()) {
    const std::string name = Folded(n);
    if (!want.empty() &&
        (name.find(want) != std::string::npos || want.find(name) != std::string::npos))
      near += (near.empty() ? "" : ", ") + std::string(n);
  }
  return near.empty() ? "" : " (did you mean: " + near + "?)";
}

}  // namespace

Result<Model> LoadZooModel(std::string_view name, const ModelParameters& parameters) {
  for (const auto& [n, text] : ZooFiles())
    if (n == name) return ParseModelJson(text, "zoo model '" + std::string(name) + "'", parameters);
  return Status::NotFound("'" + std::string(name) + "' is neither a zoo model" +
                          NearZooNames(name) + " (see `epochcost models list`) nor a file");
}

}  // namespace epochcost
