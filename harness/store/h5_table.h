#pragma once
// Tables: one-dimensional compound datasets whose rows are plain structs. In memory a row keeps
// its text in fixed-length, null-terminated fields; since schema 8 the file keeps text as
// variable-length UTF-8, so readers see each string at its own length, neither padded nor cut
// by the file. HDF5 1.10 converts neither way between fixed- and variable-length strings, so
// rows travel through a staged copy that holds one char* per variable-length column.
#include <cstddef>
#include <cstdint>
#include <span>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "harness/store/h5.h"

namespace collbench::h5 {

// The stored type of a table of `row_type` rows: its members in order, packed, text as
// variable-length UTF-8.
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
// whether the file keeps it fixed-length (schema 7 and older) or variable-length. Only the
// columns `history` names may be missing from the file. Throws std::runtime_error naming a
// missing column or a text longer than its field.
void read_rows(hid_t table, hid_t row_type, const ColumnHistory& history, hsize_t first,
               std::size_t count, void* rows);

std::size_t row_count(hid_t table);

// The names of the table's columns, in the order it stores them.
std::vector<std::string> column_names(hid_t table);

// A table of `count` rows written whole under `name`, replacing any table there. A flush may
// write a row before the text it refers to, and a row whose text is missing crashes HDF5 1.10's
// reader; so the rows are written and flushed under a temporary name before they are linked as
// `name`. A kill at any moment leaves the old table, the new one or none, never a torn one.
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
