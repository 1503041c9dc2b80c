#include "engine/near_names.h"

#include <cctype>

namespace epochcost {
namespace {

std::string Folded(std::string_view name) {
  std::string out;
  for (char c : name)
    if (c != '-' && c != '_') out += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

}  // namespace

std::vector<std::string> NearNames(std::string_view typed, const std::vector<std::string>& names,
                                   size_t limit) {
  const std::string want = Folded(typed);
  std::vector<std::string> near;
  if (want.empty()) return near;
  for (const std::string& name : names) {
    if (near.size() >= limit) break;
    const std::string folded = Folded(name);
    if (!folded.empty() &&
        (folded.find(want) != std::string::npos || want.find(folded) != std::string::npos))
      near.push_back(name);
  }
  return near;
}

std::string Abbreviated(std::string_view typed, const std::vector<std::string>& names) {
  const std::string want = Folded(typed);
  if (want.empty()) return "";
  std::vector<std::string> containing;
  for (const std::string& name : names) {
    const std::string folded = Folded(name);
    if (folded == want) return name;
    if (folded.find(want) != std::string::npos) containing.push_back(name);
  }
  return want.size() >= 3 && containing.size() == 1 ? containing.front() : "";
}

std::string DidYouMean(const std::vector<std::string>& near) {
  std::string out;
  for (const std::string& n : near) out += (out.empty() ? "" : ", ") + n;
  return near.empty() ? "" : " (did you mean: " + out + "?)";
}

}  // namespace epochcost
