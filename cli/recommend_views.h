// Views of a recommendation, computed once by pricing::Recommend: a table, JSON, CSV and an SVG
// scatter of seconds per epoch against dollars per epoch with the Pareto front.
#ifndef EPOCHCOST_CLI_RECOMMEND_VIEWS_H_
#define EPOCHCOST_CLI_RECOMMEND_VIEWS_H_

#include <functional>
#include <string>
#include <utility>
#include <vector>

#include "cli/run_inputs.h"
#include "cli/targets.h"
#include "pricing/recommender.h"

namespace epochcost::cli {

// `front_of`: 0, or how many offers were ranked before only the Pareto front was kept (--pareto).
std::string RecommendTable(const pricing::Recommendation& r, int top, double epochs,
                           size_t front_of = 0);
// Where billing rules (a minimum time, whole hours) make some ranked offer's bill for the job
// smaller than the first row's by more than kSameBill, a line naming the first such offer
// (fewest dollars, then best rank), its rank and both bills; else empty. The rows are ranked by
// $/epoch, which is the bill only for a job long enough that rounding does not show.
inline constexpr double kSameBill = 0.005;
std::string SmallestBillNote(const pricing::Recommendation& r);
// "eastus2", or "eastus2 +12" for a row that stands for 12 more regions (pricing/regions.h).
std::string RegionCell(const std::string& region, int other_regions);
// A table's footer line where regions were folded (`rows` < `offers`): "Each machine and price
// kind at its cheapest region; +N: N more regions offer it, none cheaper (--all-regions lists all
// 2071 offers).\n"; else empty.
std::string FoldNote(size_t rows, size_t offers);
// "N offers left out by the budget; the closest: aws:c5.large spot in us-east-1, $0.0123.\n"
// (LIMIT is "the deadline" or "the budget"; `amount` shows the offer's hours or dollars); empty
// when the limit left none out.
std::string OverLimitNote(const pricing::OverLimit& over, const std::string& limit,
                          const std::function<std::string(const pricing::RankedOffer&)>& amount);
// "N machines left out:" and one line per reason, the commonest first (at most five), each with
// how many machines it left out and the first of them; empty when none was.
std::string DroppedSummary(const std::vector<pricing::DroppedOffer>& dropped);
// One line per path: "validation of path (scaled from X, gpu): 48 shipped runs, MAPE ...".
std::string RecordLines(const std::vector<PathKey>& paths,
                        const Result<std::vector<PathRecord>>& records);
// Each row with its path's record as "validation" (cli/run_inputs.h's RecordJson).
// "calibration": the --framework calibration applied to the row's device kind, or null.
std::string RecommendJson(const pricing::Recommendation& r, int top,
                          const Result<std::vector<PathRecord>>& records, const Market& market);
std::string RecommendCsv(const pricing::Recommendation& r, int top);
std::string RecommendSvg(const pricing::Recommendation& r, const std::string& title, int labels);

}  // namespace epochcost::cli

#endif  // EPOCHCOST_CLI_RECOMMEND_VIEWS_H_
