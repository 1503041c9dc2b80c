// A reader for RFC 4180 CSV (quoted fields, doubled quotes, CRLF or LF line ends) that keeps
// each record's line number for error messages, and looks columns up by header name.
#ifndef EPOCHCOST_ENGINE_CSV_H_
#define EPOCHCOST_ENGINE_CSV_H_

#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "engine/status.h"

namespace epochcost {

struct CsvRecord {
  int line = 0;  // 1-based line where the record starts
  std::vector<std::string> fields;
};

class CsvTable {
 public:
  // Parses `text`; the first record is the header. Errors name `origin` and the line.
  static Result<CsvTable> Parse(std::string_view text, const std::string& origin);

  const std::vector<std::string>& header() const { return header_; }
  const std::vector<CsvRecord>& records() const { return records_; }
  // The column's index, or an error naming the missing column.
  Result<int> Column(const std::string& name) const;
  bool HasColumn(const std::string& name) const { return index_.contains(name); }

 private:
  std::vector<std::string> header_;
  std::map<std::string, int> index_;
  std::vector<CsvRecord> records_;
  std::string origin_;
};

}  // namespace epochcost

#endif  // EPOCHCOST_ENGINE_CSV_H_
