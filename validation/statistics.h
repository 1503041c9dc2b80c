// The summary figures of a validation: mean absolute percentage error and Kendall's rank
// correlation between predicted and measured orderings.
#ifndef EPOCHCOST_VALIDATION_STATISTICS_H_
#define EPOCHCOST_VALIDATION_STATISTICS_H_

#include <vector>

namespace epochcost::validation {

// 100 x (predicted - measured) / measured.
double PercentError(double predicted, double measured);

// Mean of |PercentError| over the pairs (0 when empty).
double Mape(const std::vector<double>& predicted, const std::vector<double>& measured);

// Kendall's tau-b of two equally long samples: (concordant - discordant) pairs over the
// geometric mean of the pairs untied in each sample; 0 when either sample is constant or has
// fewer than two values. Ties count in neither numerator term.
double KendallTau(const std::vector<double>& a, const std::vector<double>& b);

// The middle value, or the mean of the two middle values of an even count (0 when empty).
double Median(std::vector<double> values);

// The one value c that predicts the positive `measured` values with the least MAPE, the mean of
// |c / x - 1|: that sum is piecewise linear in c with slope sum(+-1 / x), so c is the median of
// the values weighted by 1 / x (the smallest value at which the weights up to it reach half). 0
// when empty.
double BestSingleValue(const std::vector<double>& measured);

}  // namespace epochcost::validation

#endif  // EPOCHCOST_VALIDATION_STATISTICS_H_
