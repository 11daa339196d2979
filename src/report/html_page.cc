#include "dlsim/report/html_page.h"

#include <fstream>

#include "dlsim/core/input_files.h"
#include "dlsim/report/svg_chart.h"

namespace dlsim::report {
namespace {

constexpr const char* kStyle =
    "body{font-family:sans-serif;margin:24px auto;max-width:1000px;color:#222;background:#fff}"
    "h1{font-size:20px}h2{font-size:16px;margin-top:28px;border-bottom:1px solid #ddd}"
    "dl{display:grid;grid-template-columns:max-content auto;gap:4px 16px}dt{font-weight:bold}dd{margin:0}"
    "pre{background:#f6f6f6;padding:8px;overflow-x:auto;font-size:12px}"
    "p.caption{color:#555;font-size:13px}footer{margin-top:32px;color:#888;font-size:12px}";

}  // namespace

void HtmlPage::AddSummary(std::vector<std::pair<std::string, std::string>> items) {
  for (auto& item : items) summary_.push_back(std::move(item));
}

void HtmlPage::AddChart(std::string heading, std::string svg, std::string caption) {
  std::string body = "<figure>\n" + svg + "</figure>\n";
  if (!caption.empty()) body += "<p class=\"caption\">" + XmlEscape(caption) + "</p>\n";
  sections_.push_back({std::move(heading), std::move(body)});
}

void HtmlPage::AddText(std::string heading, std::string text) {
  sections_.push_back({std::move(heading), "<pre>" + XmlEscape(text) + "</pre>\n"});
}

std::string HtmlPage::Render() const {
  std::string out = "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\"/>\n<title>" +
                    XmlEscape(title_) + "</title>\n<style>" + kStyle + "</style>\n</head>\n<body>\n<h1>" +
                    XmlEscape(title_) + "</h1>\n";
  if (!summary_.empty()) {
    out += "<dl>\n";
    for (const auto& [k, v] : summary_) out += "<dt>" + XmlEscape(k) + "</dt><dd>" + XmlEscape(v) + "</dd>\n";
    out += "</dl>\n";
  }
  for (const Section& s : sections_)
    out += "<section>\n<h2>" + XmlEscape(s.heading) + "</h2>\n" + s.body + "</section>\n";
  return out +
         "<footer>Written by dlsim; every figure is in the command's --json "
         "output.</footer>\n</body>\n</html>\n";
}

Status HtmlPage::WriteFile(const std::string& path) const {
  DLSIM_RETURN_IF_ERROR(CheckNotAnInput("--html", path));
  std::ofstream f(path, std::ios::binary);
  if (!f) return Error::InvalidArgument("cannot write the HTML report '" + path + "'");
  f << Render();
  f.close();
  if (!f) return Error::InvalidArgument("writing the HTML report '" + path + "' failed");
  return Status::Ok();
}

}  // namespace dlsim::report
