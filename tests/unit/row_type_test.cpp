// A row's columns listed once: the stored type derived from the struct, the copies between a
// row and its record, and the units a table's column names carry.
#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdint>
#include <filesystem>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "harness/store/column_units.h"
#include "harness/store/h5.h"
#include "harness/store/h5_table.h"
#include "harness/store/layout.h"
#include "harness/store/record_table.h"
#include "harness/store/row_copies.h"
#include "harness/store/row_type.h"
#include "harness/store/summary_columns.h"

namespace collbench {
namespace {

enum class Shade { light, dark };

std::string_view name(Shade shade) { return shade == Shade::light ? "light" : "dark"; }

std::optional<Shade> parse_shade(std::string_view text) {
  if (text == "light") return Shade::light;
  if (text == "dark") return Shade::dark;
  return std::nullopt;
}

struct Swatch {
  int index = 0;
  std::string label;
  Shade shade = Shade::light;
  bool glossy = false;
  std::size_t width_bytes = 0;
  double weight = 0;  // the record's own: not in its row
};

struct SwatchRow {
  std::int32_t index;
  char label[8];
  h5::NameOf<Shade, parse_shade, 8> shade;
  std::int8_t glossy;
  std::uint64_t width_bytes;
  double delay_us;
  SummaryColumns times;
};

COLLBENCH_SHARED_MEMBERS(Swatch, SwatchRow, index, label, shade, glossy, width_bytes)

hid_t swatch_row_type() {
  static const h5::Handle type =
      COLLBENCH_ROW_TYPE(SwatchRow, index, label, shade, glossy, width_bytes, delay_us, times);
  return type.get();
}

TEST(RowType, NamesEachMemberInTheOrderListedWithTheTypeItsCxxTypeSays) {
  const hid_t type = swatch_row_type();
  std::vector<std::string> names;
  for (int i = 0; i < H5Tget_nmembers(type); ++i) names.push_back(h5::member_name(type, i));
  std::vector<std::string> expected = {"index",  "label",       "shade",
                                       "glossy", "width_bytes", "delay_us"};
  for (const SummaryField& field : kSummaryFields) expected.push_back(field.name);
  EXPECT_EQ(names, expected);

  const auto member = [type](const char* name) {
    return h5::own(H5Tget_member_type(type, H5Tget_member_index(type, name)), "member");
  };
  EXPECT_GT(H5Tequal(member("index").get(), H5T_NATIVE_INT32), 0);
  EXPECT_GT(H5Tequal(member("glossy").get(), H5T_NATIVE_INT8), 0);
  EXPECT_GT(H5Tequal(member("width_bytes").get(), H5T_NATIVE_UINT64), 0);
  EXPECT_GT(H5Tequal(member("delay_us").get(), H5T_NATIVE_DOUBLE), 0);
  EXPECT_EQ(H5Tget_class(member("label").get()), H5T_STRING);
  EXPECT_EQ(H5Tget_size(member("label").get()), 8u);
  EXPECT_EQ(H5Tget_class(member("shade").get()), H5T_STRING);
  EXPECT_EQ(H5Tget_member_offset(type, H5Tget_member_index(type, "delay_us")),
            offsetof(SwatchRow, delay_us));
  EXPECT_EQ(H5Tget_member_offset(type, H5Tget_member_index(type, kSummaryFields[1].name)),
            offsetof(SwatchRow, times) + sizeof(double));
}

// A member added to a row but not to its list would go unstored without a word.
TEST(RowType, AMemberLeftOutOfTheListIsRefusedNamingTheRowAndItsBytes) {
  struct Gapped {
    std::int32_t first;
    double forgotten;
    std::int8_t last;
  };
  try {
    COLLBENCH_ROW_TYPE(Gapped, first, last);
    ADD_FAILURE() << "a row with a member left out was typed";
  } catch (const std::logic_error& error) {
    EXPECT_STREQ(error.what(), "Gapped: its bytes 4 to 16 are in no column listed, or in two");
  }
  struct Trailing {
    double first;
    std::int32_t second;
    double forgotten;
  };
  EXPECT_THROW(COLLBENCH_ROW_TYPE(Trailing, first, second), std::logic_error);
  // The limit: a member no wider than the padding its neighbours allow looks like padding.
  struct Hidden {
    double first;
    std::int32_t second;
    std::int32_t forgotten;
  };
  EXPECT_NO_THROW(COLLBENCH_ROW_TYPE(Hidden, first, second));
  struct Padded {
    std::int8_t flag;
    double value;
    std::int32_t count;
  };
  EXPECT_NO_THROW(COLLBENCH_ROW_TYPE(Padded, flag, value, count));
}

TEST(RowCopies, ARecordRoundTripsThroughItsRowInEverySharedMember) {
  const Swatch swatch{.index = 7,
                      .label = "teal",
                      .shade = Shade::dark,
                      .glossy = true,
                      .width_bytes = 1ull << 40,
                      .weight = 3};
  const auto row = h5::row_of<SwatchRow>(swatch);
  EXPECT_EQ(row.index, 7);
  EXPECT_EQ(std::string(row.label), "teal");
  EXPECT_EQ(std::string(row.shade.text), "dark");
  EXPECT_EQ(row.glossy, 1);
  EXPECT_EQ(row.width_bytes, 1ull << 40);
  EXPECT_EQ(row.delay_us, 0);  // not shared: left zero

  const auto back = h5::record_of<Swatch>(row);
  EXPECT_EQ(back.index, 7);
  EXPECT_EQ(back.label, "teal");
  EXPECT_EQ(back.shade, Shade::dark);
  EXPECT_TRUE(back.glossy);
  EXPECT_EQ(back.width_bytes, 1ull << 40);
  EXPECT_EQ(back.weight, 0);  // not shared: the record's default
}

TEST(RowCopies, TextTooLongForItsFieldIsCutAndAnUnknownNameIsRefusedByColumn) {
  const auto row = h5::row_of<SwatchRow>(Swatch{.label = "ultramarine"});
  EXPECT_EQ(std::string(row.label), "ultrama");

  SwatchRow unknown = row;
  h5::store_fixed_string("mauve", unknown.shade.text);
  try {
    h5::record_of<Swatch>(unknown);
    ADD_FAILURE() << "an unknown shade was read";
  } catch (const std::runtime_error& error) {
    EXPECT_STREQ(error.what(), "unknown shade 'mauve'");
  }
}

class RecordTableTest : public ::testing::Test {
 protected:
  void SetUp() override {
    path_ = std::filesystem::temp_directory_path() /
            ("collbench-row-type-test-" + std::to_string(getpid()) + ".h5");
    file_ = h5::create_file(path_, true);
  }
  void TearDown() override {
    file_ = h5::Handle();
    std::filesystem::remove(path_);
  }

  std::filesystem::path path_;
  h5::Handle file_;
};

TEST_F(RecordTableTest, RecordsReadBackAsWrittenAndABadNameIsReportedWithItsTable) {
  const std::vector<Swatch> swatches = {{.index = 1, .label = "red", .shade = Shade::light},
                                        {.index = 2, .label = "navy", .shade = Shade::dark}};
  write_records(file_.get(), "swatches", swatch_row_type(), swatches,
                h5::row_of<SwatchRow, Swatch>);
  const auto read =
      read_records(file_.get(), "swatches", swatch_row_type(), h5::record_of<Swatch, SwatchRow>);
  ASSERT_EQ(read.size(), 2u);
  EXPECT_EQ(read[1].label, "navy");
  EXPECT_EQ(read[1].shade, Shade::dark);

  std::vector<SwatchRow> rows = {h5::row_of<SwatchRow>(swatches[0])};
  h5::store_fixed_string("gray", rows[0].shade.text);
  h5::write_table(file_.get(), "bad", swatch_row_type(), rows.size(), rows.data());
  try {
    read_records(file_.get(), "bad", swatch_row_type(), h5::record_of<Swatch, SwatchRow>);
    ADD_FAILURE() << "an unknown shade was read";
  } catch (const std::runtime_error& error) {
    EXPECT_STREQ(error.what(), "/bad: unknown shade 'gray'");
  }
}

TEST_F(RecordTableTest, UnitsListTheSuffixesTheColumnsCarryInTheTablesOrderWhereThereAreAny) {
  const h5::Handle table = write_records(file_.get(), "swatches", swatch_row_type(),
                                         std::vector<Swatch>{}, h5::row_of<SwatchRow, Swatch>);
  EXPECT_EQ(h5::read_string_attribute(table.get(), layout::kUnits),
            "per field name: _us microseconds, _bytes bytes");

  struct Plain {
    double weight;
  };
  static const h5::Handle plain_type = COLLBENCH_ROW_TYPE(Plain, weight);
  const Plain plain{1};
  h5::write_table(file_.get(), "plain", plain_type.get(), 1, &plain);
  const h5::Handle plain_table = h5::open_dataset(file_.get(), "plain");
  EXPECT_EQ(column_units(plain_table.get()), "");
  write_column_units(plain_table.get());
  EXPECT_FALSE(H5Aexists(plain_table.get(), layout::kUnits));
}

}  // namespace
}  // namespace collbench
