#include "harness/store/curve_columns.h"

#include <span>

namespace collbench {

CompoundBuilder::CompoundBuilder(std::size_t bytes)
    : type_(h5::own(H5Tcreate(H5T_COMPOUND, bytes), "H5Tcreate")) {}

CompoundBuilder& CompoundBuilder::add(const char* name, std::size_t offset, hid_t type) {
  h5::check(H5Tinsert(type_.get(), name, offset, type), "H5Tinsert");
  return *this;
}

CompoundBuilder& CompoundBuilder::text(const char* name, std::size_t offset, std::size_t bytes) {
  strings_.push_back(h5::fixed_string_type(bytes));
  return add(name, offset, strings_.back().get());
}

CompoundBuilder& CompoundBuilder::curve(std::size_t base) {
  text("backend", base + offsetof(CurveColumns, backend), 24);
  for (auto [field, offset] : {std::pair{"collective", offsetof(CurveColumns, collective)},
                               {"datatype", offsetof(CurveColumns, datatype)},
                               {"redop", offsetof(CurveColumns, redop)},
                               {"placement", offsetof(CurveColumns, placement)}})
    text(field, base + offset, 16);
  text("algorithm", base + offsetof(CurveColumns, algorithm), sizeof(CurveColumns::algorithm));
  text("protocol", base + offsetof(CurveColumns, protocol), sizeof(CurveColumns::protocol));
  text("mode", base + offsetof(CurveColumns, mode), 16);
  add("nranks", base + offsetof(CurveColumns, nranks), H5T_NATIVE_INT32);
  add("in_place", base + offsetof(CurveColumns, in_place), H5T_NATIVE_INT8);
  return add("root", base + offsetof(CurveColumns, root), H5T_NATIVE_INT32);
}

CompoundBuilder& CompoundBuilder::doubles(
    std::initializer_list<std::pair<const char*, std::size_t>> fields, std::size_t base) {
  for (auto [field, offset] : fields) add(field, base + offset, H5T_NATIVE_DOUBLE);
  return *this;
}

CurveColumns curve_columns(const PointKey& key) {
  CurveColumns columns{};
  h5::store_fixed_string(key.backend, columns.backend);
  h5::store_fixed_string(name(key.collective), columns.collective);
  h5::store_fixed_string(name(key.datatype), columns.datatype);
  h5::store_fixed_string(redop_label(key), columns.redop);
  h5::store_fixed_string(name(key.placement), columns.placement);
  h5::store_fixed_string(key.algorithm, columns.algorithm);
  h5::store_fixed_string(key.protocol, columns.protocol);
  h5::store_fixed_string(name(key.mode), columns.mode);
  columns.nranks = key.nranks;
  columns.in_place = key.in_place;
  columns.root = key.root;
  return columns;
}

PointKey curve_key_of(const CurveColumns& columns) {
  PointKey key;
  key.backend = h5::load_fixed_string(columns.backend);
  const auto text = [](const char* field) { return h5::load_fixed_string(std::span(field, 16)); };
  key.collective = parse_collective(text(columns.collective)).value_or(CollectiveKind::allreduce);
  key.datatype = parse_datatype(text(columns.datatype)).value_or(DataType::float32);
  key.op = parse_reduce_op(text(columns.redop)).value_or(ReduceOp::sum);  // "none": allgather
  key.placement = parse_placement(text(columns.placement)).value_or(Placement::world);
  key.algorithm = h5::load_fixed_string(columns.algorithm);
  key.protocol = h5::load_fixed_string(columns.protocol);
  key.mode = parse_mode(text(columns.mode)).value_or(Mode::latency);
  key.nranks = columns.nranks;
  key.in_place = columns.in_place != 0;
  key.root = has_root(key.collective) ? columns.root : kNoRoot;
  return key;
}

}  // namespace collbench
