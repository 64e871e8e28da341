#pragma once
// Tables: one-dimensional compound datasets whose rows are plain structs, text in fixed-length,
// null-terminated fields, in memory and in the file. Files of schema 8 to 20 keep text
// variable-length; HDF5 1.10 converts neither way between fixed- and variable-length strings, so
// their rows are read through a staged copy that holds one char* per variable-length column.
#include <cstddef>
#include <cstdint>
#include <span>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "harness/store/h5.h"

namespace collbench::h5 {

// The stored type of a table of `row_type` rows: its members in order, packed.
Handle table_type(hid_t row_type);

// Writes `count` rows laid out as `row_type` into the table from row `first`; the table must
// already hold that many rows.
void write_rows(hid_t table, hid_t row_type, hsize_t first, std::size_t count, const void* rows);

// A column that an older schema stored under another name.
struct RenamedColumn {
  std::string_view name;
  std::string_view before;
};

// How a table's columns changed since its first schema, so that older files read: the columns
// a newer schema added (missing from older files, they read as zeros, text as empty) and those
// it renamed (read from their older name where the file has no column of the new one).
struct ColumnHistory {
  std::span<const std::string_view> added = {};
  std::span<const RenamedColumn> renamed = {};
};

// Reads `count` rows from row `first` into `rows`, laid out as `row_type`. Text reads alike
// whether the file keeps it fixed-length or variable-length (schema 8 to 20). Only the
// columns `history` names may be missing from the file. Throws std::runtime_error naming a
// missing column or a text longer than its field.
void read_rows(hid_t table, hid_t row_type, const ColumnHistory& history, hsize_t first,
               std::size_t count, void* rows);

std::size_t row_count(hid_t table);

// The name of a compound type's member `index`.
std::string member_name(hid_t compound, unsigned index);

// The names of the table's columns, in the order it stores them.
std::vector<std::string> column_names(hid_t table);

// A table of `count` rows written whole under `name`, replacing any table there: written and
// flushed under a temporary name before it is linked as `name`, so that a kill at any moment
// leaves the old table, the new one or none, never a torn one.
void write_table(hid_t file, const std::string& name, hid_t row_type, std::size_t count,
                 const void* rows);

// One integer column of a table, its first `rows`, or one cell, read or written without
// touching the rows' text.
std::vector<std::int64_t> read_integer_column(hid_t table, const char* column, std::size_t rows);
void write_integer_cell(hid_t table, const char* column, hsize_t row, std::int64_t value);

// Every row of the table `name`. Errors name the table.
template <typename Row>
std::vector<Row> read_rows(hid_t parent, const std::string& name, hid_t row_type,
                           const ColumnHistory& history = {}) {
  try {
    const Handle table = open_dataset(parent, name);
    std::vector<Row> rows(row_count(table.get()));
    read_rows(table.get(), row_type, history, 0, rows.size(), rows.data());
    return rows;
  } catch (const std::runtime_error& error) {
    throw std::runtime_error("/" + name + ": " + error.what());
  }
}

}  // namespace collbench::h5
