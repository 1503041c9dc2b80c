#include "cli/format.h"

#include <chrono>
#include <cmath>
#include <cstdio>

namespace epochcost::cli {

std::string Thousands(int64_t n) {
  std::string digits = std::to_string(n < 0 ? -n : n);
  std::string out;
  for (size_t i = 0; i < digits.size(); ++i) {
    if (i > 0 && (digits.size() - i) % 3 == 0) out += ',';
    out += digits[i];
  }
  return n < 0 ? "-" + out : out;
}

std::string Si(double x) {
  if (x == 0) return "0";
  static const char* kPrefixes[] = {"", "k", "M", "G", "T", "P"};
  int p = 0;
  double v = x;
  while (std::fabs(v) >= 999.5 && p < 5) {
    v /= 1000;
    ++p;
  }
  char buf[32];
  const char* fmt = std::fabs(v) >= 99.95 ? "%.0f%s" : std::fabs(v) >= 9.995 ? "%.1f%s" : "%.2f%s";
  std::snprintf(buf, sizeof buf, fmt, v, kPrefixes[p]);
  return buf;
}

std::string BinaryBytes(double bytes) {
  static const char* kUnits[] = {"B", "KiB", "MiB", "GiB", "TiB"};
  int u = 0;
  while (bytes >= 1024 && u < 4) {
    bytes /= 1024;
    ++u;
  }
  char buf[32];
  std::snprintf(buf, sizeof buf, u == 0 ? "%.0f %s" : "%.2f %s", bytes, kUnits[u]);
  return buf;
}

std::string Epochs(double epochs) {
  return Number("%g", epochs) + (epochs == 1 ? " epoch" : " epochs");
}

std::string Counted(size_t n, const std::string& noun) {
  return std::to_string(n) + " " + noun + (n == 1 ? "" : "s");
}

std::string CommaList(const std::vector<std::string>& items) {
  std::string out;
  for (const std::string& item : items) out += (out.empty() ? "" : ", ") + item;
  return out;
}

std::string IsoDay(std::chrono::sys_days day) {
  const std::chrono::year_month_day ymd{day};
  char buf[16];
  std::snprintf(buf, sizeof buf, "%04d-%02u-%02u", static_cast<int>(ymd.year()),
                static_cast<unsigned>(ymd.month()), static_cast<unsigned>(ymd.day()));
  return buf;
}

std::string TodayIso() {
  return IsoDay(std::chrono::floor<std::chrono::days>(std::chrono::system_clock::now()));
}

std::string RenderTable(const std::vector<std::vector<std::string>>& rows,
                        const std::vector<bool>& right) {
  std::vector<size_t> width;
  for (const auto& row : rows) {
    if (width.size() < row.size()) width.resize(row.size(), 0);
    for (size_t c = 0; c < row.size(); ++c) width[c] = std::max(width[c], row[c].size());
  }
  std::string out;
  for (size_t r = 0; r < rows.size(); ++r) {
    std::string line;
    for (size_t c = 0; c < rows[r].size(); ++c) {
      const std::string& cell = rows[r][c];
      const std::string pad(width[c] - cell.size(), ' ');
      const bool align_right = c < right.size() && right[c];
      line += (c ? "  " : "") + (align_right ? pad + cell : cell + pad);
    }
    while (!line.empty() && line.back() == ' ') line.pop_back();
    out += line + "\n";
    if (r == 0) {
      size_t total = 0;
      for (size_t w : width) total += w;
      out += std::string(total + 2 * (width.size() - 1), '-') + "\n";
    }
  }
  return out;
}

std::string Number(const char* fmt, double v) {
  char buf[64];
  std::snprintf(buf, sizeof buf, fmt, v);
  return buf;
}

}  // namespace epochcost::cli
