#include "dlsim/app/command.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>

#include "dlsim/core/input_files.h"
#include "dlsim/core/strings.h"
#include "dlsim/report/json_report.h"

namespace dlsim::app {

int ReportError(const std::string& command, const Error& error, std::ostream& err) {
  err << "dlsim " << command << ": " << error.message << "\n";
  if (error.code == ErrorCode::kCancelled) return kExitInterrupted;
  return error.code == ErrorCode::kInfeasible ? kExitInfeasible : kExitError;
}

namespace {
// An integral value as an integer (1000000, not 1e+06), anything else with 6 digits.
std::string Shown(double v) {
  return std::isfinite(v) && v == std::floor(v) && std::fabs(v) < 1e15
             ? std::to_string(static_cast<int64_t>(v))
             : FormatNumber(v, 6);
}
}  // namespace

Status CheckArgument(const std::string& name, double value, double lo, double hi) {
  if (std::isfinite(value) && value >= lo && value <= hi) return Status::Ok();
  return Error::InvalidArgument(name + ": " + Shown(value) + " is not in " + Shown(lo) + ".." + Shown(hi));
}

std::string EmptyListItem(const std::string& list) {
  for (size_t start = 0;;) {
    const size_t end = std::min(list.find(',', start), list.size());
    if (list.find_first_not_of(' ', start) >= end) return "the list '" + list + "' has an empty item";
    if (end == list.size()) return "";
    start = end + 1;
  }
}

Status CheckListArgument(const std::string& name, const std::string& list) {
  if (list.empty()) return Status::Ok();  // not given
  const std::string why = EmptyListItem(list);
  return why.empty() ? Status::Ok() : Status(Error::InvalidArgument(name + ": " + why));
}

int ReportUsage(const std::string& command, const Status& status, std::ostream& err) {
  err << "dlsim " << command << ": " << status.error().message << "\n";
  return kExitUsage;
}

std::string JsonOutput(nlohmann::ordered_json j) {
  if (j.is_object() && !j.contains("dlsim_version")) j["dlsim_version"] = DLSIM_VERSION;
  return report::DumpDeterministic(j);
}

nlohmann::ordered_json WithInputs(nlohmann::ordered_json result, nlohmann::ordered_json inputs) {
  result["dlsim_version"] = DLSIM_VERSION;
  result["inputs"] = std::move(inputs);
  return result;
}

Status WriteFileWhole(const std::string& path, const std::string& text, const std::string& what) {
  DLSIM_RETURN_IF_ERROR(CheckNotAnInput("-o", path));
  const std::string tmp = path + ".tmp";
  {
    std::ofstream f(tmp, std::ios::binary);
    f << text;
    f.close();
    if (!f) {
      std::remove(tmp.c_str());
      return Error::InvalidArgument("cannot write " + what + " '" + path + "'");
    }
  }
  std::error_code ec;
  std::filesystem::rename(tmp, path, ec);
  if (ec) return Error::InvalidArgument("cannot write " + what + " '" + path + "': " + ec.message());
  return Status::Ok();
}

}  // namespace dlsim::app
