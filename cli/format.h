// Number formatting for the CLI's views: thousands separators, SI prefixes, fixed columns.
#ifndef EPOCHCOST_CLI_FORMAT_H_
#define EPOCHCOST_CLI_FORMAT_H_

#include <chrono>
#include <cstdint>
#include <string>
#include <vector>

namespace epochcost::cli {

// 1199882 -> "1,199,882".
std::string Thousands(int64_t n);
// 1.234e9 -> "1.23G", 0 -> "0"; three significant digits with k, M, G, T, P.
std::string Si(double x);
// Bytes with binary units: 1536 -> "1.50 KiB".
std::string BinaryBytes(double bytes);

// One number in a printf format: Number("%.2f", 3.14159) -> "3.14".
std::string Number(const char* fmt, double v);

// 1 -> "1 epoch", 2.5 -> "2.5 epochs".
std::string Epochs(double epochs);

// (1, "offer") -> "1 offer", (3, "offer") -> "3 offers".
std::string Counted(size_t n, const std::string& noun);

// {"a", "b", "c"} -> "a, b, c".
std::string CommaList(const std::vector<std::string>& items);

// A day as YYYY-MM-DD.
std::string IsoDay(std::chrono::sys_days day);
// Today's date, YYYY-MM-DD (UTC).
std::string TodayIso();

// A text table: the first row is the header; columns are left-aligned unless `right` says.
std::string RenderTable(const std::vector<std::vector<std::string>>& rows,
                        const std::vector<bool>& right);

}  // namespace epochcost::cli

#endif  // EPOCHCOST_CLI_FORMAT_H_
