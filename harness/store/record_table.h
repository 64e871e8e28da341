#pragma once
// A table written whole, a row per record: its rows made by the table's conversion, its units
// attribute from its columns' names (column_units.h), replacing any table of that name.
#include <stdexcept>
#include <string>
#include <vector>

#include "harness/store/column_units.h"
#include "harness/store/h5.h"
#include "harness/store/h5_table.h"

namespace collbench {

// The table `name` of `rows`; returned open, for its other attributes.
template <typename Row>
h5::Handle replace_table(hid_t file, const std::string& name, hid_t row_type,
                         const std::vector<Row>& rows) {
  h5::write_table(file, name, row_type, rows.size(), rows.data());
  h5::Handle table = h5::open_dataset(file, name);
  write_column_units(table.get());
  return table;
}

// The table `name` of a row per record, each made by `to_row`.
template <typename Row, typename Record>
h5::Handle write_records(hid_t file, const std::string& name, hid_t row_type,
                         const std::vector<Record>& records, Row (*to_row)(const Record&)) {
  std::vector<Row> rows;
  rows.reserve(records.size());
  for (const Record& record : records) rows.push_back(to_row(record));
  return replace_table(file, name, row_type, rows);
}

// Every record of the table `name`, each read from its row by `from_row`; errors name the table.
template <typename Row, typename Record>
std::vector<Record> read_records(hid_t file, const std::string& name, hid_t row_type,
                                 Record (*from_row)(const Row&),
                                 const h5::ColumnHistory& history = {}) {
  std::vector<Record> records;
  for (const Row& row : h5::read_rows<Row>(file, name, row_type, history)) try {
      records.push_back(from_row(row));
    } catch (const std::runtime_error& error) {
      throw std::runtime_error("/" + name + ": " + error.what());
    }
  return records;
}

}  // namespace collbench
