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

class CsvReporter final : public StreamReporter {
 public:
  using StreamReporter::StreamReporter;
  void row(std::span<const PointResult> points) override;

 private:
  bool header_written_ = false;
};

class JsonLinesReporter final : public StreamReporter {
 public:
  using StreamReporter::StreamReporter;
  void row(std::span<const PointResult> points) override;
};

class JsonReporter final : public StreamReporter {
 public:
  using StreamReporter::StreamReporter;
  void begin(const RunDescription& run) override;
  void row(std::span<const PointResult> points) override;
  void stragglers(const StragglerRecord& record) override;
  void end() override;

 private:
  nlohmann::ordered_json document_;
};

// Its header, which no point decides, is written at once.
class MarkdownReporter final : public StreamReporter {
 public:
  explicit MarkdownReporter(std::ostream& out);
  void row(std::span<const PointResult> points) override;
};

}  // namespace collbench
