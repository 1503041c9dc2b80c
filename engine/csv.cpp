#include "engine/csv.h"

namespace epochcost {

Result<CsvTable> CsvTable::Parse(std::string_view text, const std::string& origin) {
  std::vector<CsvRecord> rows;
  CsvRecord row;
  std::string field;
  int line = 1;
  row.line = 1;
  bool quoted = false, field_started = false;
  auto end_field = [&] {
    row.fields.push_back(std::move(field));
    field.clear();
    field_started = false;
  };
  auto end_row = [&] {
    end_field();
    if (!(row.fields.size() == 1 && row.fields[0].empty())) rows.push_back(std::move(row));
    row = CsvRecord{};
    row.line = line;
  };
  for (size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (quoted) {
      if (c == '"') {
        if (i + 1 < text.size() && text[i + 1] == '"') {
          field += '"';
          ++i;
        } else {
          quoted = false;
        }
      } else {
        if (c == '\n') ++line;
        field += c;
      }
      continue;
    }
    if (c == '"' && !field_started && field.empty()) {
      quoted = true;
      field_started = true;
    } else if (c == ',') {
      end_field();
    } else if (c == '\r' && i + 1 < text.size() && text[i + 1] == '\n') {
      continue;
    } else if (c == '\n') {
      ++line;
      end_row();
    } else {
      field += c;
      field_started = true;
    }
  }
  if (quoted)
    return Status::ParseError(origin + ":" + std::to_string(row.line) +
                              ": unterminated quoted field");
  if (!field.empty() || !row.fields.empty()) end_row();
  if (rows.empty()) return Status::ParseError(origin + ": empty file, expected a header line");

  CsvTable t;
  t.origin_ = origin;
  t.header_ = std::move(rows.front().fields);
  for (size_t i = 0; i < t.header_.size(); ++i) t.index_[t.header_[i]] = static_cast<int>(i);
  for (size_t r = 1; r < rows.size(); ++r) {
    if (rows[r].fields.size() != t.header_.size())
      return Status::ParseError(origin + ":" + std::to_string(rows[r].line) + ": " +
                                std::to_string(rows[r].fields.size()) + " fields, the header has " +
                                std::to_string(t.header_.size()));
    t.records_.push_back(std::move(rows[r]));
  }
  return t;
}

Result<int> CsvTable::Column(const std::string& name) const {
  auto it = index_.find(name);
  if (it == index_.end()) return Status::InvalidArgument(origin_ + ":1: no column '" + name + "'");
  return it->second;
}

}  // namespace epochcost
