// `dlsim train --compare-trace`: the renderings of validate::CompareWithTrace.
#include <fmt/core.h>

#include <filesystem>

#include "dlsim/app/train_render.h"
#include "dlsim/report/table.h"
#include "dlsim/validate/trace_compare.h"

namespace dlsim::app {
namespace {

std::string Diff(const validate::CompareRow& row) {
  const auto d = row.DiffPct();
  return d ? fmt::format("{:+.1f}%", *d) : "-";
}

}  // namespace

void WriteTraceComparison(const validate::TraceComparison& c, std::ostream& out) {
  report::Table t(fmt::format("\nThe profiled step beside dlsim's (ms per step): {} ({})",
                              std::filesystem::path(c.file).filename().string(),
                              c.device.empty() ? "device not recorded" : c.device));
  t.AddColumn("category", "", report::Align::kLeft)
      .AddColumn("trace")
      .AddColumn("dlsim")
      .AddColumn("dlsim - trace");
  for (const auto& row : c.rows)
    t.AddRow({row.name, fmt::format("{:.2f}", row.trace_ms), fmt::format("{:.2f}", row.dlsim_ms), Diff(row)});
  if (!c.rows.empty()) out << t;
  if (!c.largest.empty()) out << c.largest << "\n";
  for (const auto& n : c.notes) out << "note: " << n << "\n";
}

nlohmann::ordered_json TraceComparisonJson(const validate::TraceComparison& c) {
  nlohmann::ordered_json j = {
      {"file", c.file}, {"device", c.device}, {"rows", nlohmann::ordered_json::array()}};
  for (const auto& row : c.rows) {
    const auto d = row.DiffPct();
    j["rows"].push_back({{"category", row.name},
                         {"trace_ms", row.trace_ms},
                         {"dlsim_ms", row.dlsim_ms},
                         {"diff_pct", d ? nlohmann::ordered_json(*d) : nullptr}});
  }
  j["largest"] = c.largest;
  j["notes"] = c.notes;
  return j;
}

}  // namespace dlsim::app
