#include "harness/store/curve_columns.h"

#include <span>

namespace collbench {

void add_member(h5::RowType& row, const char*, std::size_t offset,
                std::type_identity<CurveColumns>) {
  COLLBENCH_ADD_MEMBERS(row, offset, CurveColumns, backend, collective, datatype, redop, placement,
                        algorithm, protocol, mode, nranks, in_place, root, sync);
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
  h5::store_fixed_string(name(key.sync), columns.sync);
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
  key.root = root_of(key.collective, columns.root);
  key.sync = parse_sample_start(text(columns.sync)).value_or(SampleStart::barrier);
  return key;
}

}  // namespace collbench
