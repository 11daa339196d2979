#include "dlsim/cluster/throughput_table.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <nlohmann/json.hpp>
#include <numeric>

namespace dlsim::cluster {
namespace {

// "('ResNet-50 (batch size 64)', 4)" -> {"ResNet-50 (batch size 64)", 4}.
std::optional<std::pair<std::string, int>> ParseKey(const std::string& key) {
  if (key.size() < 7 || key.rfind("('", 0) != 0 || key.back() != ')') return std::nullopt;
  const size_t quote = key.rfind("',");
  if (quote == std::string::npos || quote < 2) return std::nullopt;
  const std::string count = key.substr(quote + 2, key.size() - quote - 3);
  char* end = nullptr;
  const long n = std::strtol(count.c_str(), &end, 10);
  if (end == count.c_str() || n < 1 || n > kMaxJobGpus) return std::nullopt;
  while (*end == ' ') ++end;
  if (*end != '\0') return std::nullopt;
  return std::make_pair(key.substr(2, quote - 2), static_cast<int>(n));
}

}  // namespace

Result<ThroughputTable> ParseGavelThroughputs(std::string_view text, const std::string& file_name) {
  nlohmann::json j = nlohmann::json::parse(text, nullptr, /*allow_exceptions=*/false);
  if (j.is_discarded() || !j.is_object()) return Error::Parse(file_name + ": not a JSON object");
  ThroughputTable t;
  for (const auto& [gpu_key, entries] : j.items()) {
    const bool spread = gpu_key.size() > 15 && gpu_key.ends_with("_unconsolidated");
    const std::string gpu = spread ? gpu_key.substr(0, gpu_key.size() - 15) : gpu_key;
    if (!entries.is_object())
      return Error::Parse(fmt::format("{}: '{}': expected an object", file_name, gpu_key));
    for (const auto& [key, value] : entries.items()) {
      std::optional<std::pair<std::string, int>> k = ParseKey(key);
      if (!k)
        return Error::Parse(fmt::format("{}: '{}': key '{}' is not ('NAME', GPUS)", file_name, gpu_key, key));
      const nlohmann::json* v = value.is_object() && value.contains("null") ? &value["null"] : &value;
      if (!v->is_number() || !(v->get<double>() >= 0) || !std::isfinite(v->get<double>()))
        return Error::Parse(
            fmt::format("{}: '{}' / '{}': expected a 'null' throughput >= 0", file_name, gpu_key, key));
      // 0: the configuration cannot run (Gavel's table has a few, e.g. out of memory on a K80).
      if (v->get<double>() > 0) t.steps_per_s[{k->first, gpu, k->second, !spread}] = v->get<double>();
      t.job_types.push_back(k->first);
    }
  }
  std::sort(t.job_types.begin(), t.job_types.end());
  t.job_types.erase(std::unique(t.job_types.begin(), t.job_types.end()), t.job_types.end());
  return t;
}

Result<double> ThroughputSpeed::StepsPerSecond(const PlacementShape& shape, const ClusterSpec& spec) const {
  const std::string& gpu = spec.gpu_types().at(shape.gpu_type);
  const int gpus = std::accumulate(shape.gpus_per_node.begin(), shape.gpus_per_node.end(), 0);
  const bool consolidated = shape.gpus_per_node.size() <= 1;
  auto it = table_->steps_per_s.find({job_type_, gpu, gpus, consolidated});
  if (it == table_->steps_per_s.end() && !consolidated)
    it = table_->steps_per_s.find({job_type_, gpu, gpus, true});
  if (it == table_->steps_per_s.end())
    return Error::Infeasible(
        fmt::format("the throughput table has no entry for '{}' on {} x {}", job_type_, gpus, gpu));
  return it->second;
}

void AddThroughputTable(std::shared_ptr<const ThroughputTable> table, SpeedBook& book) {
  for (const std::string& type : table->job_types)
    book.Add(type, std::make_shared<ThroughputSpeed>(table, type));
}

}  // namespace dlsim::cluster
