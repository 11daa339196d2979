// A self-contained HTML report page: a title, a summary, and sections that hold SVG charts
// (svg_chart.h), preformatted tables and notes. Inline CSS only: no scripts, no network, so
// the file opens anywhere and can be attached to a ticket.
//
//   report::HtmlPage page("dlsim train: llama3-70b on 64 h100");
//   page.AddSummary({{"step time", "4.21 s"}, {"MFU", "41.0%"}});
//   page.AddChart("Pipeline timeline", report::TimelineChart(spec, lanes, spans), "one step");
//   page.AddText("Memory per stage", table.Render());
//   DLSIM_RETURN_IF_ERROR(page.WriteFile("/tmp/step.html"));
//
// A value type; sections keep the order they were added in, so output is deterministic.
#ifndef DLSIM_REPORT_HTML_PAGE_H_
#define DLSIM_REPORT_HTML_PAGE_H_

#include <string>
#include <utility>
#include <vector>

#include "dlsim/core/result.h"

namespace dlsim::report {

class HtmlPage {
 public:
  explicit HtmlPage(std::string title) : title_(std::move(title)) {}

  // Key figures shown as a definition list under the title.
  void AddSummary(std::vector<std::pair<std::string, std::string>> items);
  // A section with one chart (an <svg> element) and an optional caption.
  void AddChart(std::string heading, std::string svg, std::string caption = {});
  // A section with preformatted text (a terminal table), escaped.
  void AddText(std::string heading, std::string text);

  std::string Render() const;
  // Writes Render() to `path`. Errors: the file cannot be written (kInvalidArgument, naming it).
  Status WriteFile(const std::string& path) const;

 private:
  struct Section {
    std::string heading, body;
  };
  std::string title_;
  std::vector<std::pair<std::string, std::string>> summary_;
  std::vector<Section> sections_;
};

}  // namespace dlsim::report

#endif  // DLSIM_REPORT_HTML_PAGE_H_
