#pragma once
// A small RAII layer over the HDF5 C API, only what the result store needs: identifiers that
// close themselves, failures as exceptions that carry HDF5's error stack, and a few helpers.
#include <hdf5.h>

#include <cstdint>
#include <filesystem>
#include <span>
#include <stdexcept>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace collbench::h5 {

// Owns an HDF5 identifier and closes it with the H5*close that matches its kind.
class Handle {
 public:
  Handle() = default;
  explicit Handle(hid_t id) : id_(id) {}
  ~Handle() { reset(); }
  Handle(Handle&& other) noexcept : id_(std::exchange(other.id_, H5I_INVALID_HID)) {}
  Handle& operator=(Handle&& other) noexcept;
  Handle(const Handle&) = delete;
  Handle& operator=(const Handle&) = delete;

  hid_t get() const { return id_; }
  void reset() noexcept;

 private:
  hid_t id_ = H5I_INVALID_HID;
};

// HDF5 closes at exit the files left open, and crashes doing so after a failed write (a full
// disk: H5_term_library, HDF5 1.10.8). collbench closes every file it opens and ends a fault
// with _Exit, so main turns the teardown off, first, before HDF5 starts (H5dont_atexit).
void skip_teardown_at_exit();

// Throws FileWriteFailed (harness/errors.h) naming the file where the system refused a write,
// std::runtime_error("<what>: <HDF5 error stack>") otherwise.
[[noreturn]] void throw_error(std::string_view what);

// HDF5 calls return a negative value on failure.
template <typename Result>
Result check(Result result, std::string_view what) {
  if (result < 0) throw_error(what);
  return result;
}

inline Handle own(hid_t id, std::string_view what) { return Handle(check(id, what)); }

// Files. New files use the oldest formats HDF5 can write for what we store (readable by HDF5
// 1.8 and later): unlike the 1.10 format (libver latest), a file in them still opens after its
// writer was killed, holding everything flushed; and their object headers carry no checksum, so
// a header whose rewrite a kill cut short keeps its unchanged bytes readable.
Handle create_file(const std::filesystem::path& path, bool truncate);
// A file built in memory (HDF5's core driver, nothing on disk), in the same formats, whose bytes
// file_image returns: what is written whole or not at all goes through it, so that a full disk
// meets a plain write of those bytes, not HDF5 half way through its metadata (HDF5 1.10, its
// flush failed, crashes at exit closing the file).
Handle create_memory_file();
std::vector<char> file_image(hid_t file);
Handle open_file_read_only(const std::filesystem::path& path);
// Throws FileHeldOpen (harness/errors.h) when another process has the file open, which HDF5's
// lock reports; its message says that `what`, such as "the fits", cannot be stored there.
Handle open_file_for_writing(const std::filesystem::path& path, std::string_view what);
bool is_hdf5_file(const std::filesystem::path& path);
void flush(hid_t file);

Handle create_group(hid_t parent, const std::string& name);
// A group that keeps up to `capacity` links, names of about `name_length` bytes, in its own
// object header, reserved up front, so that adding a link rewrites that one block in place. A
// symbol table or dense link storage updates several blocks per link, and a kill between their
// writes lost the links of earlier points in our tests. Past `capacity` the links move to dense
// storage: growing the header instead makes each new link cost more than the one before.
Handle create_compact_group(hid_t parent, const std::string& name, unsigned capacity,
                            unsigned name_length);
Handle open_group(hid_t parent, const std::string& name);
Handle open_dataset(hid_t parent, const std::string& name);
bool link_exists(hid_t parent, const std::string& name);

// Types. Strings in files are UTF-8 and fixed-length, null-terminated (h5py returns them as
// bytes): since schema 21 a file holds no variable-length data, whose global heap HDF5 1.10
// reads without checking it, so that a damaged file crashed every reader. Files of schema 8 to
// 20 keep text variable-length, and read alike.
Handle utf8_string_type();  // variable-length: how older files are read
Handle fixed_string_type(std::size_t bytes);

// Copies text into a fixed-length field, keeping the final null; cuts at a UTF-8 character
// boundary. Returns false when the text had to be cut.
bool store_fixed_string(std::string_view text, std::span<char> field);
std::string load_fixed_string(std::span<const char> field);

// Attributes; writing replaces an existing attribute of that name.
void write_string_attribute(hid_t object, const std::string& name, std::string_view value);
void write_int_attribute(hid_t object, const std::string& name, std::int64_t value);
void write_double_attribute(hid_t object, const std::string& name, double value);
void write_string_list_attribute(hid_t object, const std::string& name,
                                 std::span<const std::string> values);
void write_int_list_attribute(hid_t object, const std::string& name, std::span<const int> values);
// Writes over an existing integer attribute where it is stored: the object header keeps its
// messages, so a flush rewrites the bytes of that one block and nothing else.
void update_int_attribute(hid_t object, const std::string& name, std::int64_t value);

bool has_attribute(hid_t object, const std::string& name);
std::vector<std::string> attribute_names(hid_t object);
H5T_class_t attribute_class(hid_t object, const std::string& name);
std::string read_string_attribute(hid_t object, const std::string& name);
std::int64_t read_int_attribute(hid_t object, const std::string& name);
double read_double_attribute(hid_t object, const std::string& name);
std::vector<std::string> read_string_list_attribute(hid_t object, const std::string& name);
std::vector<int> read_int_list_attribute(hid_t object, const std::string& name);

// Datasets. Growing (`extendible`, every axis) needs a `chunk`; without one the dataset is
// contiguous.
struct DatasetLayout {
  std::vector<hsize_t> dims;
  std::vector<hsize_t> chunk;
  bool extendible = false;
};
// `fill_value`, of `type`, is what never-written elements read as.
Handle create_dataset(hid_t parent, const std::string& name, hid_t type,
                      const DatasetLayout& layout, const void* fill_value = nullptr);
std::vector<hsize_t> extent(hid_t dataset);
void set_extent(hid_t dataset, std::span<const hsize_t> dims);
void write_all(hid_t dataset, hid_t memory_type, const void* data);
// The dataset's space with the block from `start`, `count` elements a dimension, selected, and in
// `memory_space` a dense space of that block's shape.
Handle select_block(hid_t dataset, std::span<const hsize_t> start, std::span<const hsize_t> count,
                    Handle& memory_space);
void write_block(hid_t dataset, hid_t memory_type, std::span<const hsize_t> start,
                 std::span<const hsize_t> count, const void* data);
void read_all(hid_t dataset, hid_t memory_type, void* data);
void read_block(hid_t dataset, hid_t memory_type, std::span<const hsize_t> start,
                std::span<const hsize_t> count, void* data);

}  // namespace collbench::h5
