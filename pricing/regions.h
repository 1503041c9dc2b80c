// One row per machine and price kind. A cloud offers an instance type in many regions, often at
// one price, and a ranking that lists every region buries the other machines under copies of the
// first (the top 15 of `recommend resnet50` were one Azure T4 size in 13 regions). FoldRegions
// keeps, from offers ranked best first, the first of each machine and price kind, and counts in
// its `other_regions` the other regions offering that machine and kind (each ranked no better).
// It works on any ranked row with `machine`, `offer` (catalog::Offer) and `other_regions`.
#ifndef EPOCHCOST_PRICING_REGIONS_H_
#define EPOCHCOST_PRICING_REGIONS_H_

#include <map>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "catalog/records.h"

namespace epochcost::pricing {

template <typename Ranked>
void FoldRegions(std::vector<Ranked>* ranked) {
  struct Kept {
    size_t index;
    std::set<std::string> regions;
  };
  std::map<std::pair<std::string, catalog::PriceKind>, Kept> kept;
  std::vector<Ranked> out;
  for (Ranked& o : *ranked) {
    auto [it, first] = kept.try_emplace({o.machine, o.offer.kind}, Kept{out.size(), {}});
    it->second.regions.insert(o.offer.region);
    if (first) out.push_back(std::move(o));
  }
  for (auto& [key, k] : kept) {
    Ranked& row = out[k.index];
    row.other_regions = static_cast<int>(k.regions.size()) - 1;
  }
  *ranked = std::move(out);
}

}  // namespace epochcost::pricing

#endif  // EPOCHCOST_PRICING_REGIONS_H_
