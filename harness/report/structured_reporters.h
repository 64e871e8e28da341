#pragma once
// One record per point, for scripts: CSV, JSON (one document), JSON Lines, and Markdown.
#include <nlohmann/json.hpp>
#include <ostream>

#include "harness/report/reporter.h"

namespace collbench {

class CsvReporter final : public Reporter {
 public:
  explicit CsvReporter(std::ostream& out) : out_(out) {}
  void row(std::span<const PointResult> points) override;

 private:
  std::ostream& out_;
  bool header_written_ = false;
};

class JsonLinesReporter final : public Reporter {
 public:
  explicit JsonLinesReporter(std::ostream& out) : out_(out) {}
  void row(std::span<const PointResult> points) override;

 private:
  std::ostream& out_;
};

class JsonReporter final : public Reporter {
 public:
  explicit JsonReporter(std::ostream& out) : out_(out) {}
  void begin(const RunDescription& run) override;
  void row(std::span<const PointResult> points) override;
  void stragglers(const StragglerRecord& record) override;
  void end() override;

 private:
  std::ostream& out_;
  nlohmann::ordered_json document_;
};

class MarkdownReporter final : public Reporter {
 public:
  explicit MarkdownReporter(std::ostream& out) : out_(out) {}
  void row(std::span<const PointResult> points) override;

 private:
  std::ostream& out_;
  bool header_written_ = false;
};

}  // namespace collbench
