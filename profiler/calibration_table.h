// Calibrations as a CSV table (docs/calibration.md): what `epochcost calibrate --csv FILE` writes,
// and the form of the calibrations shipped in data/calibrations, which a profile store answers
// with when it has none of its own for a framework and device kind.
#ifndef EPOCHCOST_PROFILER_CALIBRATION_TABLE_H_
#define EPOCHCOST_PROFILER_CALIBRATION_TABLE_H_

#include <string>
#include <string_view>
#include <vector>

#include "engine/status.h"
#include "profiler/profile_store.h"

namespace epochcost::profiler {

// One row per calibration under a header of the columns, numbers to six significant digits.
std::string CalibrationsCsv(const std::vector<StoredCalibration>& cs);
// The rows of such a table; errors name `origin`, the line and the field.
Result<std::vector<StoredCalibration>> ParseCalibrationsCsv(std::string_view text,
                                                            const std::string& origin);
// The table compiled in from data/calibrations/shipped.csv (parsed once), each marked `shipped`.
Result<std::vector<StoredCalibration>> ShippedCalibrations();

}  // namespace epochcost::profiler

#endif  // EPOCHCOST_PROFILER_CALIBRATION_TABLE_H_
