#include "harness/store/h5_table.h"

#include <algorithm>
#include <cstddef>
#include <cstring>
#include <functional>

namespace collbench::h5 {

std::string member_name(hid_t compound, unsigned index) {
  char* name = H5Tget_member_name(compound, index);
  if (!name) throw_error("H5Tget_member_name");
  std::string result(name);
  H5free_memory(name);
  return result;
}

namespace {

unsigned member_count(hid_t compound) {
  return static_cast<unsigned>(check(H5Tget_nmembers(compound), "H5Tget_nmembers"));
}

Handle member_type(hid_t compound, unsigned index) {
  return own(H5Tget_member_type(compound, index), "H5Tget_member_type");
}

bool is_text(hid_t type) { return check(H5Tget_class(type), "H5Tget_class") == H5T_STRING; }

bool is_variable_text(hid_t type) {
  return is_text(type) && check(H5Tis_variable_str(type), "H5Tis_variable_str") > 0;
}

// The members of `row_type` that `table` stores, at their offsets in the row, each under the
// name the table stores it by.
Handle stored_members(hid_t stored, hid_t row_type, const ColumnHistory& history) {
  if (check(H5Tget_class(stored), "H5Tget_class") != H5T_COMPOUND)
    throw std::runtime_error("a table expected, but the dataset is not a compound");
  std::vector<std::string> columns;
  for (unsigned i = 0; i < member_count(stored); ++i) columns.push_back(member_name(stored, i));
  const auto stores = [&columns](std::string_view name) {
    return std::find(columns.begin(), columns.end(), name) != columns.end();
  };

  Handle subset = own(H5Tcreate(H5T_COMPOUND, H5Tget_size(row_type)), "H5Tcreate");
  for (unsigned i = 0; i < member_count(row_type); ++i) {
    std::string name = member_name(row_type, i);
    if (!stores(name)) {
      const auto renamed = std::find_if(history.renamed.begin(), history.renamed.end(),
                                        [&name](const RenamedColumn& r) { return r.name == name; });
      if (renamed != history.renamed.end() && stores(renamed->before)) {
        name = renamed->before;
      } else {
        if (std::find(history.added.begin(), history.added.end(), name) != history.added.end())
          continue;
        throw std::runtime_error("the table has no column " + name);
      }
    }
    check(H5Tinsert(subset.get(), name.c_str(), H5Tget_member_offset(row_type, i),
                    member_type(row_type, i).get()),
          "H5Tinsert");
  }
  return subset;
}

struct TextColumn {
  std::string name;
  std::size_t field_offset;  // the fixed-length field in the row
  std::size_t field_bytes;
  std::size_t pointer_offset;  // its char* in the staged row
};

// Rows as HDF5 reads them: the row's bytes, then one char* per column the file keeps as
// variable-length text (schema 8 to 20), in place of that column's fixed-length field.
struct Staging {
  Handle type;
  std::size_t row_bytes = 0;
  std::size_t staged_bytes = 0;
  std::vector<TextColumn> text;

  std::byte* row(std::vector<std::byte>& buffer, std::size_t index) const {
    return buffer.data() + index * staged_bytes;
  }
};

// `members`: what to move, at offsets within rows of `row_bytes`; `variable(i)`: whether the
// file keeps member i as variable-length text.
Staging stage(hid_t members, std::size_t row_bytes,
              const std::function<bool(unsigned)>& variable) {
  Staging staging;
  staging.row_bytes = row_bytes;
  const std::size_t pointers = (row_bytes + alignof(char*) - 1) / alignof(char*) * alignof(char*);
  std::vector<bool> staged(member_count(members));
  for (unsigned i = 0; i < staged.size(); ++i) staged[i] = variable(i);
  for (unsigned i = 0; i < staged.size(); ++i)
    if (staged[i])
      staging.text.push_back({member_name(members, i), H5Tget_member_offset(members, i),
                              H5Tget_size(member_type(members, i).get()),
                              pointers + staging.text.size() * sizeof(char*)});
  staging.staged_bytes = pointers + staging.text.size() * sizeof(char*);
  staging.type = own(H5Tcreate(H5T_COMPOUND, staging.staged_bytes), "H5Tcreate");
  const Handle utf8 = utf8_string_type();
  for (unsigned i = 0, column = 0; i < staged.size(); ++i) {
    const std::string name = member_name(members, i);
    check(H5Tinsert(staging.type.get(), name.c_str(),
                    staged[i] ? staging.text[column++].pointer_offset
                              : H5Tget_member_offset(members, i),
                    staged[i] ? utf8.get() : member_type(members, i).get()),
          "H5Tinsert");
  }
  return staging;
}

// HDF5 converts rows in a buffer of 1 MiB and a background buffer as large, both allocated and
// zeroed on every write: for a one-row append that was about 70% of its time, mostly page
// faults (benches/micro/store_bench). 64 KiB holds a strip of rows of any table, and stays below
// the size at which the C library hands memory back to the system.
hid_t row_transfer() {
  static const Handle transfer = [] {
    Handle list = own(H5Pcreate(H5P_DATASET_XFER), "H5Pcreate");
    check(H5Pset_buffer(list.get(), std::size_t{64} << 10, nullptr, nullptr), "H5Pset_buffer");
    return list;
  }();
  return transfer.get();
}

Handle row_selection(hid_t table, hsize_t first, std::size_t count, Handle& memory_space) {
  const hsize_t start[] = {first};
  const hsize_t rows[] = {count};
  return select_block(table, start, rows, memory_space);
}

}  // namespace

Handle table_type(hid_t row_type) {
  Handle stored = own(H5Tcopy(row_type), "H5Tcopy");
  check(H5Tpack(stored.get()), "H5Tpack");
  return stored;
}

void write_rows(hid_t table, hid_t row_type, hsize_t first, std::size_t count, const void* rows) {
  if (count == 0) return;
  Handle memory_space;
  const Handle file_space = row_selection(table, first, count, memory_space);
  check(H5Dwrite(table, row_type, memory_space.get(), file_space.get(), row_transfer(), rows),
        "H5Dwrite");
}

void read_rows(hid_t table, hid_t row_type, const ColumnHistory& history, hsize_t first,
               std::size_t count, void* rows) {
  if (count == 0) return;
  const Handle stored = own(H5Dget_type(table), "H5Dget_type");
  const Handle members = stored_members(stored.get(), row_type, history);
  const Staging staging =
      stage(members.get(), H5Tget_size(row_type), [&stored, &members](unsigned i) {
        const std::string name = member_name(members.get(), i);
        const int index = check(H5Tget_member_index(stored.get(), name.c_str()),
                                "H5Tget_member_index");
        return is_variable_text(member_type(stored.get(), index).get());
      });
  std::vector<std::byte> buffer(count * staging.staged_bytes);
  Handle memory_space;
  const Handle file_space = row_selection(table, first, count, memory_space);
  check(H5Dread(table, staging.type.get(), memory_space.get(), file_space.get(), H5P_DEFAULT,
                buffer.data()),
        "H5Dread");

  std::string too_long;
  auto* target = static_cast<std::byte*>(rows);
  for (std::size_t index = 0; index < count; ++index) {
    std::byte* row = target + index * staging.row_bytes;
    const std::byte* staged = staging.row(buffer, index);
    std::memcpy(row, staged, staging.row_bytes);
    for (const TextColumn& column : staging.text) {
      const char* text = nullptr;
      std::memcpy(&text, staged + column.pointer_offset, sizeof text);
      const std::span field(reinterpret_cast<char*>(row + column.field_offset), column.field_bytes);
      if (!store_fixed_string(text ? text : "", field) && too_long.empty())
        too_long = "column " + column.name + " holds text longer than the " +
                   std::to_string(column.field_bytes - 1) + " bytes it may have";
    }
  }
  check(H5Dvlen_reclaim(staging.type.get(), memory_space.get(), H5P_DEFAULT, buffer.data()),
        "H5Dvlen_reclaim");
  if (!too_long.empty()) throw std::runtime_error(too_long);
}

std::size_t row_count(hid_t table) { return extent(table).at(0); }

std::vector<std::string> column_names(hid_t table) {
  const Handle stored = own(H5Dget_type(table), "H5Dget_type");
  std::vector<std::string> names;
  for (unsigned i = 0; i < member_count(stored.get()); ++i)
    names.push_back(member_name(stored.get(), i));
  return names;
}

void write_table(hid_t file, const std::string& name, hid_t row_type, std::size_t count,
                 const void* rows) {
  const std::string partial = name + "~";
  if (link_exists(file, partial))
    check(H5Ldelete(file, partial.c_str(), H5P_DEFAULT), "removing " + partial);
  {
    const Handle stored = table_type(row_type);
    const Handle table = create_dataset(file, partial, stored.get(), {.dims = {count}, .chunk = {}});
    write_rows(table.get(), row_type, 0, count, rows);
  }
  flush(file);
  if (link_exists(file, name)) check(H5Ldelete(file, name.c_str(), H5P_DEFAULT), "replacing " + name);
  check(H5Lmove(file, partial.c_str(), file, name.c_str(), H5P_DEFAULT, H5P_DEFAULT),
        "linking " + name);
}

namespace {

Handle integer_column_type(const char* column) {
  Handle type = own(H5Tcreate(H5T_COMPOUND, sizeof(std::int64_t)), "H5Tcreate");
  check(H5Tinsert(type.get(), column, 0, H5T_NATIVE_INT64), "H5Tinsert");
  return type;
}

}  // namespace

std::vector<std::int64_t> read_integer_column(hid_t table, const char* column, std::size_t rows) {
  std::vector<std::int64_t> values(rows);
  if (rows == 0) return values;
  Handle memory_space;
  const Handle file_space = row_selection(table, 0, rows, memory_space);
  check(H5Dread(table, integer_column_type(column).get(), memory_space.get(), file_space.get(),
                row_transfer(), values.data()),
        "H5Dread");
  return values;
}

void write_integer_cell(hid_t table, const char* column, hsize_t row, std::int64_t value) {
  Handle memory_space;
  const Handle file_space = row_selection(table, row, 1, memory_space);
  check(H5Dwrite(table, integer_column_type(column).get(), memory_space.get(), file_space.get(),
                 row_transfer(), &value),
        "H5Dwrite");
}

}  // namespace collbench::h5
