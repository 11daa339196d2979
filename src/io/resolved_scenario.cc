// The resolved training and plan scenarios, and the YAML-to-JSON conversion behind them: the training
// scenario is written by the one writer `plan --write-best` uses (FormatTrainScenarioYaml), so the JSON keys
// are the file's keys by construction.
#include "dlsim/io/resolved_scenario.h"

#include <yaml-cpp/yaml.h>

#include <charconv>
#include <cmath>
#include <cstdint>
#include <string>

namespace dlsim::io {
namespace {

using nlohmann::ordered_json;

// A whole-text integer or finite number, or nullopt.
std::optional<ordered_json> NumberOf(const std::string& s) {
  const char* end = s.data() + s.size();
  int64_t i = 0;
  if (auto [p, ec] = std::from_chars(s.data(), end, i); ec == std::errc() && p == end) return ordered_json(i);
  uint64_t u = 0;
  if (auto [p, ec] = std::from_chars(s.data(), end, u); ec == std::errc() && p == end) return ordered_json(u);
  double d = 0;
  if (auto [p, ec] = std::from_chars(s.data(), end, d); ec == std::errc() && p == end && std::isfinite(d))
    return ordered_json(d);
  return std::nullopt;
}

ordered_json ScalarJson(const YAML::Node& n) {
  const std::string& s = n.Scalar();
  if (n.Tag() == "!") return s;  // quoted: text, whatever it looks like
  if (s == "true") return true;
  if (s == "false") return false;
  if (s == "null" || s == "~" || s.empty()) return nullptr;
  if (std::optional<ordered_json> v = NumberOf(s)) return *v;
  return s;
}

ordered_json NodeJson(const YAML::Node& n) {
  switch (n.Type()) {
    case YAML::NodeType::Map: {
      ordered_json j = ordered_json::object();
      for (const auto& kv : n) j[kv.first.Scalar()] = NodeJson(kv.second);
      return j;
    }
    case YAML::NodeType::Sequence: {
      ordered_json j = ordered_json::array();
      for (const auto& item : n) j.push_back(NodeJson(item));
      return j;
    }
    case YAML::NodeType::Scalar:
      return ScalarJson(n);
    default:
      return nullptr;
  }
}

template <typename T, typename Name>
ordered_json NamedList(const std::vector<T>& values, Name name) {
  ordered_json j = ordered_json::array();
  for (const T& v : values) j.push_back(std::string(name(v)));
  return j;
}

ordered_json ConstraintsJson(const plan::Constraints& c) {
  ordered_json j;
  if (!c.gpus.empty()) j["gpus"] = c.gpus;
  if (c.gpus_min > 0) {
    j["min_gpus"] = c.gpus_min;
    j["max_gpus"] = c.gpus_max;
  }
  if (c.tokens_per_step) j["tokens_per_step"] = *c.tokens_per_step;
  j["memory_headroom"] = c.memory_headroom;
  j["objective"] = std::string(plan::ObjectiveName(c.objective));
  j["gpu_hour_cost"] = c.gpu_hour_cost;
  return j;
}

}  // namespace

ordered_json YamlToJson(std::string_view yaml) {
  try {
    return NodeJson(YAML::Load(std::string(yaml)));
  } catch (const YAML::Exception&) {
    return std::string(yaml);
  }
}

ordered_json ResolvedTrainScenario(const train::TrainOptions& o) {
  return YamlToJson(FormatTrainScenarioYaml(o, ""));
}

ordered_json ResolvedPlanScenario(const train::TrainOptions& base, const plan::PlanOptions& plan) {
  ordered_json j = ResolvedTrainScenario(base);
  const plan::SearchSpace& sp = plan.space;
  ordered_json s = ordered_json::object();
  const auto ints = [&s](const char* key, const std::vector<int>& v) {
    if (!v.empty()) s[key] = v;
  };
  ints("tp", sp.tp);
  ints("pp", sp.pp);
  ints("cp", sp.cp);
  ints("dp", sp.dp);
  ints("ep", sp.ep);
  ints("micro_batch", sp.micro_batch);
  ints("virtual_stages", sp.virtual_stages);
  ints("zero", sp.zero);
  if (!sp.recompute.empty()) s["recompute"] = NamedList(sp.recompute, train::RecomputeName);
  if (!sp.pipeline_schedule.empty())
    s["pipeline_schedule"] = NamedList(sp.pipeline_schedule, train::PipelineScheduleName);
  if (!sp.sequence_parallel.empty()) s["sequence_parallel"] = sp.sequence_parallel;
  s["top_k"] = plan.top_k;
  s["dominance"] = plan.dominance;
  s["constraints"] = ConstraintsJson(plan.constraints);
  j["search"] = s;
  return j;
}

}  // namespace dlsim::io
