#pragma once
// One record per point, for scripts: CSV, JSON (one document), JSON Lines, and Markdown.
#include <nlohmann/json.hpp>
#include <ostream>

#include "harness/report/reporter.h"

namespace collbench {

// A reporter writing to one stream.
class StreamReporter : public Reporter {
 public:
  explicit StreamReporter(std::ostream& out) : out_(out) {}

 protected:
  std::ostream& out_;
};

// A record per point (CSV, JSON Lines) or a table row per point (Markdown): no place for what a
// run holds beside its points, so each of those sections is declined.
class PointRecordsReporter : public StreamReporter {
 public:
  using StreamReporter::StreamReporter;
  void models(const ModelReport&) final {}
  void hierarchy(std::span<const HierarchyAgainstFlat>) final {}
  void stragglers(const StragglerRecord&, std::string_view) final {}
  void link_bounds(const LinkBoundRecord&, std::span<const PointResult>) final {}
};

class CsvReporter final : public PointRecordsReporter {
 public:
  using PointRecordsReporter::PointRecordsReporter;
  void row(std::span<const PointResult> points) override;

 private:
  bool header_written_ = false;
};

class JsonLinesReporter final : public PointRecordsReporter {
 public:
  using PointRecordsReporter::PointRecordsReporter;
  void row(std::span<const PointResult> points) override;
};

class JsonReporter final : public StreamReporter {
 public:
  using StreamReporter::StreamReporter;
  void begin(const RunDescription& run) override;
  void row(std::span<const PointResult> points) override;
  void models(const ModelReport& report) override;
  void hierarchy(std::span<const HierarchyAgainstFlat> comparisons) override;
  void stragglers(const StragglerRecord& record, std::string_view binding_warning) override;
  void link_bounds(const LinkBoundRecord& record, std::span<const PointResult> points) override;
  void end() override;

 private:
  nlohmann::ordered_json document_;
};

// Its header, which no point decides, is written at once.
class MarkdownReporter final : public PointRecordsReporter {
 public:
  explicit MarkdownReporter(std::ostream& out);
  void row(std::span<const PointResult> points) override;
};

}  // namespace collbench
