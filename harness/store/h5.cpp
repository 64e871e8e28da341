#include "harness/store/h5.h"

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <stdexcept>

#include "harness/errors.h"

namespace collbench::h5 {
namespace {

// HDF5 prints every failure to stderr unless told otherwise; our exceptions carry the error
// stack instead. The setting is per thread in a thread-safe HDF5 build such as Debian's.
void silence_automatic_error_printing() {
  thread_local const herr_t silenced = H5Eset_auto2(H5E_DEFAULT, nullptr, nullptr);
  (void)silenced;
}

herr_t append_error(unsigned depth, const H5E_error2_t* error, void* text) {
  auto& message = *static_cast<std::string*>(text);
  message += depth == 0 ? ": " : "; ";
  message += error->func_name;
  message += "(): ";
  message += error->desc ? error->desc : "failed";
  return 0;
}

// A write the operating system refused, as HDF5's file driver reports it (H5FDsec2.c:
// H5FD__sec2_write's "file write failed: ..., filename = '%s', ..., error message = '%s', ...";
// H5FD__sec2_truncate's through HSYS_GOTO_ERROR, "..., error message = '%s'", without the name).
struct RefusedWrite {
  bool found = false;
  std::string file, reason;
};

std::string quoted_field(std::string_view text, std::string_view lead) {
  const std::size_t start = text.find(lead);
  if (start == std::string_view::npos) return "";
  text.remove_prefix(start + lead.size());
  return std::string(text.substr(0, text.find('\'')));
}

herr_t find_refused_write(unsigned, const H5E_error2_t* error, void* data) {
  auto& refused = *static_cast<RefusedWrite*>(data);
  const bool refusal = error->maj_num == H5E_IO &&
                       (error->min_num == H5E_WRITEERROR || error->min_num == H5E_SEEKERROR);
  if (!refusal || !error->desc) return 0;
  // The callers above the driver report it too, without the name and the reason.
  refused.found = true;
  if (refused.file.empty()) refused.file = quoted_field(error->desc, "filename = '");
  if (refused.reason.empty()) refused.reason = quoted_field(error->desc, "error message = '");
  return 0;
}

Handle open_attribute(hid_t object, const std::string& name) {
  return own(H5Aopen(object, name.c_str(), H5P_DEFAULT), "opening attribute " + name);
}

hssize_t element_count(hid_t attribute) {
  Handle space = own(H5Aget_space(attribute), "H5Aget_space");
  return check(H5Sget_simple_extent_npoints(space.get()), "H5Sget_simple_extent_npoints");
}

H5T_class_t type_class(hid_t attribute) {
  Handle type = own(H5Aget_type(attribute), "H5Aget_type");
  return check(H5Tget_class(type.get()), "H5Tget_class");
}

// Opens an attribute that must hold `expected` data; with `single`, exactly one element.
Handle open_attribute_of_class(hid_t object, const std::string& name, H5T_class_t expected,
                               bool single) {
  Handle attribute = open_attribute(object, name);
  if (type_class(attribute.get()) != expected || (single && element_count(attribute.get()) != 1))
    throw std::runtime_error("attribute " + name + " has an unexpected type or shape");
  return attribute;
}

void replace_attribute(hid_t object, const std::string& name, hid_t file_type, hid_t memory_type,
                       hid_t space, const void* data) {
  if (has_attribute(object, name))
    check(H5Adelete(object, name.c_str()), "replacing attribute " + name);
  Handle attribute =
      own(H5Acreate2(object, name.c_str(), file_type, space, H5P_DEFAULT, H5P_DEFAULT),
          "creating attribute " + name);
  if (data) check(H5Awrite(attribute.get(), memory_type, data), "writing attribute " + name);
}

Handle list_space(std::size_t length) {
  const hsize_t dims[] = {length};
  return own(H5Screate_simple(1, dims, nullptr), "H5Screate_simple");
}

Handle dataset_space(hid_t dataset) { return own(H5Dget_space(dataset), "H5Dget_space"); }

// HDF5's lock on a file is an flock that fails with EWOULDBLOCK while another process has the
// file open: a reader holds it shared, a writer alone. Other lock failures (a file system
// without locks) keep HDF5's own words.
struct LockSearch {
  std::string busy = "errno = " + std::to_string(EWOULDBLOCK) + ",";
  bool found = false;
};

herr_t find_busy_lock(unsigned, const H5E_error2_t* error, void* data) {
  auto& search = *static_cast<LockSearch*>(data);
  if (error->min_num == H5E_CANTLOCKFILE && error->desc &&
      std::strstr(error->desc, search.busy.c_str()))
    search.found = true;
  return 0;
}

bool held_by_another_process() {
  LockSearch search;
  H5Ewalk2(H5E_DEFAULT, H5E_WALK_DOWNWARD, find_busy_lock, &search);
  return search.found;
}

// H5Fopen with `flags`; where another process holds HDF5's lock, FileHeldOpen with the file's
// name and `held`, what that means here.
Handle open_file(const std::filesystem::path& path, unsigned flags, std::string_view held,
                 const std::string& what) {
  silence_automatic_error_printing();
  const hid_t file = H5Fopen(path.c_str(), flags, H5P_DEFAULT);
  if (file < 0 && held_by_another_process()) {
    H5Eclear2(H5E_DEFAULT);
    throw FileHeldOpen(path.string() + std::string(held));
  }
  return own(file, what);
}

}  // namespace

Handle& Handle::operator=(Handle&& other) noexcept {
  if (this != &other) {
    reset();
    id_ = std::exchange(other.id_, H5I_INVALID_HID);
  }
  return *this;
}

void Handle::reset() noexcept {
  if (id_ < 0) return;
  switch (H5Iget_type(id_)) {
    case H5I_FILE: H5Fclose(id_); break;
    case H5I_GROUP: H5Gclose(id_); break;
    case H5I_DATASET: H5Dclose(id_); break;
    case H5I_DATASPACE: H5Sclose(id_); break;
    case H5I_DATATYPE: H5Tclose(id_); break;
    case H5I_ATTR: H5Aclose(id_); break;
    case H5I_GENPROP_LST: H5Pclose(id_); break;
    default: H5Idec_ref(id_); break;
  }
  id_ = H5I_INVALID_HID;
}

void throw_error(std::string_view what) {
  RefusedWrite refused;
  H5Ewalk2(H5E_DEFAULT, H5E_WALK_DOWNWARD, find_refused_write, &refused);
  if (refused.found) {
    H5Eclear2(H5E_DEFAULT);
    if (refused.file.empty()) refused.file = "the file";
    if (refused.reason.empty()) refused.reason = what;
    throw FileWriteFailed("writing " + refused.file + " failed: " + refused.reason);
  }
  std::string message(what);
  H5Ewalk2(H5E_DEFAULT, H5E_WALK_DOWNWARD, append_error, &message);
  H5Eclear2(H5E_DEFAULT);
  throw std::runtime_error(message);
}

// Linux stops a write to the page cache between pages when the writer is killed, never inside
// one: an object of a page or more that starts on a page keeps its pages whole. The files of
// schema 8 to 20 needed it for their global heap collections (4 KiB, where a table's text lived,
// rewritten whole at each flush that added text): straddling two pages, a kill could keep the
// first half new and the second old, and HDF5 1.10 loops forever reading such a collection.
constexpr hsize_t kPageBytes = 4096;

Handle create_file(const std::filesystem::path& path, bool truncate) {
  silence_automatic_error_printing();
  Handle access = own(H5Pcreate(H5P_FILE_ACCESS), "H5Pcreate");
  check(H5Pset_libver_bounds(access.get(), H5F_LIBVER_EARLIEST, H5F_LIBVER_LATEST),
        "H5Pset_libver_bounds");
  check(H5Pset_alignment(access.get(), kPageBytes, kPageBytes), "H5Pset_alignment");
  return own(
      H5Fcreate(path.c_str(), truncate ? H5F_ACC_TRUNC : H5F_ACC_EXCL, H5P_DEFAULT, access.get()),
      "creating " + path.string());
}

Handle create_memory_file() {
  silence_automatic_error_printing();
  Handle access = own(H5Pcreate(H5P_FILE_ACCESS), "H5Pcreate");
  check(H5Pset_libver_bounds(access.get(), H5F_LIBVER_EARLIEST, H5F_LIBVER_LATEST),
        "H5Pset_libver_bounds");
  constexpr std::size_t kGrowBy = 1 << 20;
  check(H5Pset_fapl_core(access.get(), kGrowBy, false), "H5Pset_fapl_core");
  return own(H5Fcreate("in-memory", H5F_ACC_TRUNC, H5P_DEFAULT, access.get()),
             "creating a file in memory");
}

std::vector<char> file_image(hid_t file) {
  flush(file);
  const ssize_t bytes = check(H5Fget_file_image(file, nullptr, 0), "H5Fget_file_image");
  std::vector<char> image(static_cast<std::size_t>(bytes));
  check(H5Fget_file_image(file, image.data(), image.size()), "H5Fget_file_image");
  return image;
}

Handle open_file_read_only(const std::filesystem::path& path) {
  return open_file(path, H5F_ACC_RDONLY,
                   " is being written by another process (a run still going, or h5py in r+ mode) "
                   "that holds HDF5's lock on it: wait until it is done or closed and run again, "
                   "or set HDF5_USE_FILE_LOCKING=FALSE to read it as it is now",
                   "opening " + path.string());
}

Handle open_file_for_writing(const std::filesystem::path& path, std::string_view what) {
  return open_file(path, H5F_ACC_RDWR,
                   " is open in another process (h5py, a plot?) that holds HDF5's lock on it: " +
                       std::string(what) +
                       " cannot be stored, and the file is as it was. Close it there and run "
                       "again, or set HDF5_USE_FILE_LOCKING=FALSE to write anyway (that process "
                       "may then read the file wrong until it opens it again)",
                   "opening " + path.string() + " for writing");
}

bool is_hdf5_file(const std::filesystem::path& path) {
  silence_automatic_error_printing();
  const htri_t result = H5Fis_hdf5(path.c_str());
  H5Eclear2(H5E_DEFAULT);
  return result > 0;
}

void skip_teardown_at_exit() {
  if (H5dont_atexit() < 0) throw std::logic_error("HDF5 started before skip_teardown_at_exit");
}

void flush(hid_t file) { check(H5Fflush(file, H5F_SCOPE_GLOBAL), "flushing the file"); }

Handle create_group(hid_t parent, const std::string& name) {
  return own(H5Gcreate2(parent, name.c_str(), H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT),
             "creating group " + name);
}

Handle create_compact_group(hid_t parent, const std::string& name, unsigned capacity,
                            unsigned name_length) {
  Handle creation = own(H5Pcreate(H5P_GROUP_CREATE), "H5Pcreate");
  check(H5Pset_link_phase_change(creation.get(), capacity, capacity - 1),
        "H5Pset_link_phase_change");
  check(H5Pset_est_link_info(creation.get(), capacity, name_length), "H5Pset_est_link_info");
  // Under the earliest format bound, tracking creation order is what makes HDF5 store links in
  // the header instead of a symbol table.
  check(H5Pset_link_creation_order(creation.get(), H5P_CRT_ORDER_TRACKED),
        "H5Pset_link_creation_order");
  return own(H5Gcreate2(parent, name.c_str(), H5P_DEFAULT, creation.get(), H5P_DEFAULT),
             "creating group " + name);
}

Handle open_group(hid_t parent, const std::string& name) {
  return own(H5Gopen2(parent, name.c_str(), H5P_DEFAULT), "opening group " + name);
}

Handle open_dataset(hid_t parent, const std::string& name) {
  return own(H5Dopen2(parent, name.c_str(), H5P_DEFAULT), "opening dataset " + name);
}

bool link_exists(hid_t parent, const std::string& name) {
  return check(H5Lexists(parent, name.c_str(), H5P_DEFAULT), "looking up " + name) > 0;
}

Handle utf8_string_type() {
  Handle type = own(H5Tcopy(H5T_C_S1), "H5Tcopy");
  check(H5Tset_size(type.get(), H5T_VARIABLE), "H5Tset_size");
  check(H5Tset_cset(type.get(), H5T_CSET_UTF8), "H5Tset_cset");
  return type;
}

Handle fixed_string_type(std::size_t bytes) {
  Handle type = own(H5Tcopy(H5T_C_S1), "H5Tcopy");
  check(H5Tset_size(type.get(), bytes), "H5Tset_size");
  check(H5Tset_strpad(type.get(), H5T_STR_NULLTERM), "H5Tset_strpad");
  check(H5Tset_cset(type.get(), H5T_CSET_UTF8), "H5Tset_cset");
  return type;
}

bool store_fixed_string(std::string_view text, std::span<char> field) {
  std::fill(field.begin(), field.end(), '\0');
  std::size_t length = std::min(text.size(), field.size() - 1);
  // Back up over UTF-8 continuation bytes so no character is cut in half.
  if (length < text.size())
    while (length > 0 && (static_cast<unsigned char>(text[length]) & 0xC0) == 0x80) --length;
  std::copy_n(text.data(), length, field.data());
  return length == text.size();
}

std::string load_fixed_string(std::span<const char> field) {
  return std::string(field.data(), strnlen(field.data(), field.size()));
}

void write_string_attribute(hid_t object, const std::string& name, std::string_view value) {
  const std::string terminated(value);
  Handle type = fixed_string_type(terminated.size() + 1);
  Handle space = own(H5Screate(H5S_SCALAR), "H5Screate");
  replace_attribute(object, name, type.get(), type.get(), space.get(), terminated.c_str());
}

void write_int_attribute(hid_t object, const std::string& name, std::int64_t value) {
  Handle space = own(H5Screate(H5S_SCALAR), "H5Screate");
  replace_attribute(object, name, H5T_STD_I64LE, H5T_NATIVE_INT64, space.get(), &value);
}

void write_double_attribute(hid_t object, const std::string& name, double value) {
  Handle space = own(H5Screate(H5S_SCALAR), "H5Screate");
  replace_attribute(object, name, H5T_IEEE_F64LE, H5T_NATIVE_DOUBLE, space.get(), &value);
}

void write_string_list_attribute(hid_t object, const std::string& name,
                                 std::span<const std::string> values) {
  std::size_t longest = 0;
  for (const auto& value : values) longest = std::max(longest, value.size());
  std::vector<char> data((longest + 1) * values.size(), '\0');
  for (std::size_t i = 0; i < values.size(); ++i)
    std::ranges::copy(values[i], data.begin() + static_cast<std::ptrdiff_t>(i * (longest + 1)));
  Handle type = fixed_string_type(longest + 1);
  Handle space = list_space(values.size());
  replace_attribute(object, name, type.get(), type.get(), space.get(), data.data());
}

void write_int_list_attribute(hid_t object, const std::string& name, std::span<const int> values) {
  Handle space = list_space(values.size());
  replace_attribute(object, name, H5T_STD_I32LE, H5T_NATIVE_INT, space.get(), values.data());
}

void update_int_attribute(hid_t object, const std::string& name, std::int64_t value) {
  const Handle attribute =
      own(H5Aopen(object, name.c_str(), H5P_DEFAULT), "opening attribute " + name);
  check(H5Awrite(attribute.get(), H5T_NATIVE_INT64, &value), "writing attribute " + name);
}

bool has_attribute(hid_t object, const std::string& name) {
  return check(H5Aexists(object, name.c_str()), "looking up attribute " + name) > 0;
}

std::vector<std::string> attribute_names(hid_t object) {
  std::vector<std::string> names;
  auto collect = [](hid_t, const char* name, const H5A_info_t*, void* data) -> herr_t {
    static_cast<std::vector<std::string>*>(data)->emplace_back(name);
    return 0;
  };
  check(H5Aiterate2(object, H5_INDEX_NAME, H5_ITER_INC, nullptr, collect, &names),
        "listing attributes");
  return names;
}

H5T_class_t attribute_class(hid_t object, const std::string& name) {
  return type_class(open_attribute(object, name).get());
}

namespace {

// Every string of a string attribute, read in its stored type itself, so that no character-set
// conversion is asked for: fixed-length, or variable-length as files of schema 8 to 20 keep them.
std::vector<std::string> read_strings(const Handle& attribute, const std::string& name) {
  const Handle type = own(H5Aget_type(attribute.get()), "H5Aget_type");
  const std::size_t count = element_count(attribute.get());
  std::vector<std::string> values;
  if (count == 0) return values;
  if (check(H5Tis_variable_str(type.get()), "H5Tis_variable_str") > 0) {
    const Handle space = own(H5Aget_space(attribute.get()), "H5Aget_space");
    std::vector<char*> data(count);
    check(H5Aread(attribute.get(), type.get(), data.data()), "reading attribute " + name);
    for (const char* value : data) values.emplace_back(value ? value : "");
    H5Dvlen_reclaim(type.get(), space.get(), H5P_DEFAULT, data.data());
    return values;
  }
  const std::size_t bytes = H5Tget_size(type.get());
  std::vector<char> data(bytes * count);
  check(H5Aread(attribute.get(), type.get(), data.data()), "reading attribute " + name);
  for (std::size_t i = 0; i < count; ++i)
    values.push_back(load_fixed_string(std::span(data).subspan(i * bytes, bytes)));
  return values;
}

}  // namespace

std::string read_string_attribute(hid_t object, const std::string& name) {
  return read_strings(open_attribute_of_class(object, name, H5T_STRING, true), name).front();
}

std::int64_t read_int_attribute(hid_t object, const std::string& name) {
  Handle attribute = open_attribute_of_class(object, name, H5T_INTEGER, true);
  std::int64_t value = 0;
  check(H5Aread(attribute.get(), H5T_NATIVE_INT64, &value), "reading attribute " + name);
  return value;
}

double read_double_attribute(hid_t object, const std::string& name) {
  Handle attribute = open_attribute_of_class(object, name, H5T_FLOAT, true);
  double value = 0;
  check(H5Aread(attribute.get(), H5T_NATIVE_DOUBLE, &value), "reading attribute " + name);
  return value;
}

std::vector<std::string> read_string_list_attribute(hid_t object, const std::string& name) {
  return read_strings(open_attribute_of_class(object, name, H5T_STRING, false), name);
}

std::vector<int> read_int_list_attribute(hid_t object, const std::string& name) {
  Handle attribute = open_attribute_of_class(object, name, H5T_INTEGER, false);
  std::vector<int> values(element_count(attribute.get()));
  if (values.empty()) return values;
  check(H5Aread(attribute.get(), H5T_NATIVE_INT, values.data()), "reading attribute " + name);
  return values;
}

Handle create_dataset(hid_t parent, const std::string& name, hid_t type,
                      const DatasetLayout& layout, const void* fill_value) {
  const int rank = static_cast<int>(layout.dims.size());
  const std::vector<hsize_t> unlimited(layout.dims.size(), H5S_UNLIMITED);
  Handle space = own(
      H5Screate_simple(rank, layout.dims.data(), layout.extendible ? unlimited.data() : nullptr),
      "H5Screate_simple");
  Handle creation = own(H5Pcreate(H5P_DATASET_CREATE), "H5Pcreate");
  if (!layout.chunk.empty())
    check(H5Pset_chunk(creation.get(), rank, layout.chunk.data()), "H5Pset_chunk");
  if (fill_value) check(H5Pset_fill_value(creation.get(), type, fill_value), "H5Pset_fill_value");
  return own(
      H5Dcreate2(parent, name.c_str(), type, space.get(), H5P_DEFAULT, creation.get(), H5P_DEFAULT),
      "creating dataset " + name);
}

std::vector<hsize_t> extent(hid_t dataset) {
  Handle space = dataset_space(dataset);
  std::vector<hsize_t> dims(
      check(H5Sget_simple_extent_ndims(space.get()), "H5Sget_simple_extent_ndims"));
  check(H5Sget_simple_extent_dims(space.get(), dims.data(), nullptr), "H5Sget_simple_extent_dims");
  return dims;
}

void set_extent(hid_t dataset, std::span<const hsize_t> dims) {
  check(H5Dset_extent(dataset, dims.data()), "H5Dset_extent");
}

void write_all(hid_t dataset, hid_t memory_type, const void* data) {
  check(H5Dwrite(dataset, memory_type, H5S_ALL, H5S_ALL, H5P_DEFAULT, data), "H5Dwrite");
}

Handle select_block(hid_t dataset, std::span<const hsize_t> start, std::span<const hsize_t> count,
                    Handle& memory_space) {
  Handle file_space = dataset_space(dataset);
  check(H5Sselect_hyperslab(file_space.get(), H5S_SELECT_SET, start.data(), nullptr, count.data(),
                            nullptr),
        "H5Sselect_hyperslab");
  memory_space = own(H5Screate_simple(static_cast<int>(count.size()), count.data(), nullptr),
                     "H5Screate_simple");
  return file_space;
}

void write_block(hid_t dataset, hid_t memory_type, std::span<const hsize_t> start,
                 std::span<const hsize_t> count, const void* data) {
  Handle memory_space;
  const Handle file_space = select_block(dataset, start, count, memory_space);
  check(H5Dwrite(dataset, memory_type, memory_space.get(), file_space.get(), H5P_DEFAULT, data),
        "H5Dwrite");
}

void read_block(hid_t dataset, hid_t memory_type, std::span<const hsize_t> start,
                std::span<const hsize_t> count, void* data) {
  Handle memory_space;
  const Handle file_space = select_block(dataset, start, count, memory_space);
  check(H5Dread(dataset, memory_type, memory_space.get(), file_space.get(), H5P_DEFAULT, data),
        "H5Dread");
}

void read_all(hid_t dataset, hid_t memory_type, void* data) {
  check(H5Dread(dataset, memory_type, H5S_ALL, H5S_ALL, H5P_DEFAULT, data), "H5Dread");
}

}  // namespace collbench::h5
