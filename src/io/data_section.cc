#include "dlsim/io/data_section.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <filesystem>
#include <string_view>
#include <vector>

#include "dlsim/data/data_policy.h"
#include "dlsim/data/length_source.h"
#include "dlsim/io/limits.h"
#include "dlsim/io/paths.h"
#include "dlsim/io/yaml_writer.h"

namespace dlsim::io {
namespace {

// lengths: {file: PATH, column: NAME}; reads and parses the file.
data::LengthSpec ReadLengthFile(const MapReader& l, const std::string& base_dir) {
  std::string file = l.Get<std::string>("file", "");
  std::string column = l.Get<std::string>("column", "");
  std::string path = ResolvePath(base_dir, file);
  Result<std::string> text = ReadTextFile(path);
  if (!text.ok()) {
    l.AddError("file", text.error().message);
    return {};
  }
  Result<data::LengthSpec> spec = data::ParseLengthFile(*text, path, column);
  if (!spec.ok()) {
    l.AddError("file", spec.error().message);
    return {};
  }
  spec->column = column;
  return *spec;
}

// lengths: {distribution: NAME, <its parameters>}; reads only the parameters NAME takes, so
// Finish() reports the others as unknown keys.
data::LengthSpec ReadDistribution(const MapReader& l) {
  data::LengthSpec s;
  const auto& names = data::LengthDistributionNames();
  std::optional<size_t> i = l.FindChoice("distribution", names);
  if (!i) return s;
  s.distribution = names[*i];
  if (s.distribution == "fixed") {
    s.value = l.Require<double>("value", limits::kLength).value_or(1);
  } else if (s.distribution == "uniform") {
    s.low = l.Require<double>("low", limits::kLength).value_or(1);
    s.high = l.Require<double>("high", limits::kLength).value_or(s.low);
  } else if (s.distribution == "lognormal" || s.distribution == "pareto_mix") {
    s.median = l.Require<double>("median", limits::kLength).value_or(1);
    s.sigma = l.Require<double>("sigma", limits::kSigma).value_or(0);
    if (s.distribution == "pareto_mix") {
      s.tail_fraction = l.Require<double>("tail_fraction", Range::Between(0, 1)).value_or(0);
      s.tail_min = l.Require<double>("tail_min", limits::kLength).value_or(1);
      s.tail_alpha = l.Require<double>("tail_alpha", limits::kTailAlpha).value_or(1);
    }
  } else {  // empirical, inline
    s.values = l.FindList<double>("values", limits::kLength).value_or(std::vector<double>{});
    s.weights = l.FindList<double>("weights", limits::kLengthWeight).value_or(std::vector<double>{});
    if (s.weights.empty()) s.weights.assign(s.values.size(), 1.0);
  }
  return s;
}

std::string JoinNumbers(const std::vector<double>& v) {
  return fmt::format("[{}]", fmt::join(v, ", "));  // shortest round-trip form of each double
}

// The `lengths:` value of `s`, as a flow mapping.
std::string FormatLengths(const data::LengthSpec& s) {
  if (!s.file.empty()) {
    const std::string path = std::filesystem::absolute(s.file).lexically_normal().string();
    return fmt::format("{{file: {}, column: {}}}", YamlQuoted(path), YamlQuoted(s.column));
  }
  if (s.distribution == "fixed") return fmt::format("{{distribution: fixed, value: {}}}", s.value);
  if (s.distribution == "uniform")
    return fmt::format("{{distribution: uniform, low: {}, high: {}}}", s.low, s.high);
  if (s.distribution == "lognormal")
    return fmt::format("{{distribution: lognormal, median: {}, sigma: {}}}", s.median, s.sigma);
  if (s.distribution == "pareto_mix") {
    return fmt::format(
        "{{distribution: pareto_mix, median: {}, sigma: {}, tail_fraction: {}, tail_min: {}, tail_alpha: "
        "{}}}",
        s.median, s.sigma, s.tail_fraction, s.tail_min, s.tail_alpha);
  }
  return fmt::format("{{distribution: empirical, values: {}, weights: {}}}", JoinNumbers(s.values),
                     JoinNumbers(s.weights));
}

}  // namespace

std::string FormatDataSectionYaml(const data::DataOptions& o) {
  return fmt::format(
      "data:\n  lengths: {}\n  max_len: {}\n  policy: {}\n  seed: {}\n  steps: {}\n  chunk_size: {}\n"
      "  token_budget: {}\n  pad_to: {}\n  documents: {}\n",
      FormatLengths(o.lengths), o.lengths.max_len, o.policy, o.seed, o.steps, o.chunk_size, o.token_budget,
      o.pad_to == data::PadTo::kMaxLen ? "max_len" : "longest", o.documents);
}

std::string FolderOf(const std::string& path) {
  size_t slash = path.find_last_of('/');
  return slash == std::string::npos ? "" : path.substr(0, slash);
}

data::DataOptions ReadDataSection(const MapReader& data, const std::string& base_dir) {
  data::DataOptions o;
  MapReader l = data.Section("lengths");
  bool has_file = l.Has("file"), has_dist = l.Has("distribution");
  if (data.Has("lengths") && l.present()) {
    if (has_file && has_dist) {
      l.AddError("file", "give either 'file' or 'distribution', not both");
      l.Allow({"file", "column", "distribution"});
    } else if (has_file) {
      o.lengths = ReadLengthFile(l, base_dir);
    } else if (has_dist) {
      o.lengths = ReadDistribution(l);
    } else {
      data.AddError("lengths", "expected 'file' or 'distribution'");
      l.Allow(l.Keys());
    }
    l.Finish();
  } else if (!data.Has("lengths") && data.present()) {
    data.AddError("lengths", "missing required key 'lengths'");
  }
  o.lengths.max_len = data.Get<int64_t>("max_len", 0, limits::kTokens);
  if (!o.lengths.distribution.empty() && !data.document().has_errors()) {
    auto src = data::MakeLengthSource(o.lengths);
    if (!src.ok()) {
      std::string m = src.error().message;  // "data.lengths: ..." already names the key
      if (m.rfind("data.lengths: ", 0) == 0) m.erase(0, 14);
      data.AddError("lengths", m);
    }
  }
  data::DataPolicyRegistry reg("data-policy");
  data::RegisterDataPolicies(reg);
  if (std::optional<size_t> i = data.FindChoice("policy", reg.Names())) o.policy = reg.Names()[*i];
  o.seed = static_cast<uint64_t>(data.Get<int64_t>("seed", 1, limits::kSeed));
  o.steps = data.Get<int>("steps", 1, limits::kDataSteps);
  o.chunk_size = data.Get<int64_t>("chunk_size", 0, limits::kTokens);
  o.token_budget = data.Get<int64_t>("token_budget", 0, limits::kTokens);
  o.documents = data.Get<int>("documents", 0, limits::kDocuments);
  o.pad_to = data.GetEnum("pad_to", data::PadTo::kLongest,
                          {{"longest", data::PadTo::kLongest}, {"max_len", data::PadTo::kMaxLen}});
  data.Finish();
  return o;
}

Result<data::DataOptions> ParseDataSection(std::string_view text, std::string file_name,
                                           const std::string& base_dir) {
  DLSIM_ASSIGN_OR_RETURN(Document doc, ParseYaml(text, std::move(file_name)));
  data::DataOptions o = ReadDataSection(doc.Root().Section("data"), base_dir);
  DLSIM_RETURN_IF_ERROR(doc.status());
  return o;
}

}  // namespace dlsim::io
