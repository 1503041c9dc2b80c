// What a name a user typed may have meant, for the errors of lookups that miss ("skylake",
// "v100", "aws:C5.large", "Mnist-MLP", "us-east1"): the known names that match it loosely.
#ifndef EPOCHCOST_ENGINE_NEAR_NAMES_H_
#define EPOCHCOST_ENGINE_NEAR_NAMES_H_

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

namespace epochcost {

// The `names` that, folded (lower case, '-' and '_' dropped), contain `typed` folded or are
// contained in it, in the order given, at most `limit`; none for an empty `typed`.
std::vector<std::string> NearNames(std::string_view typed, const std::vector<std::string>& names,
                                   size_t limit = 5);

// The one of `names` that `typed` abbreviates: the one equal to it folded, else the only one that,
// folded, contains it folded (three characters at least: "genoa" for "EPYC Genoa (9004)", "v100"
// for V100 beside V100-32GB); "" where none or several do.
std::string Abbreviated(std::string_view typed, const std::vector<std::string>& names);

// " (did you mean: a, b?)", or "" for no names.
std::string DidYouMean(const std::vector<std::string>& near);

}  // namespace epochcost

#endif  // EPOCHCOST_ENGINE_NEAR_NAMES_H_
