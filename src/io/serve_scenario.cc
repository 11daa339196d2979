#include "dlsim/io/serve_scenario.h"

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <sstream>
#include <utility>

#include "dlsim/core/csv.h"
#include "dlsim/core/strings.h"
#include "dlsim/io/catalog_loader.h"
#include "dlsim/io/yaml_reader.h"

namespace dlsim::io {
namespace {

using serve::ArrivalKind;
using serve::LengthDistribution;
using serve::OffloadMode;
using serve::Preemption;

std::string Resolve(const std::string& base_dir, const std::string& path) {
  if (base_dir.empty() || std::filesystem::path(path).is_absolute()) return path;
  return (std::filesystem::path(base_dir) / path).string();
}

// Every row's value in `column`, as a number; the first bad cell is the error.
Result<std::vector<double>> NumberColumn(const CsvTable& table, std::string_view column) {
  std::vector<double> out;
  out.reserve(table.rows.size());
  for (size_t r = 0; r < table.rows.size(); ++r) {
    DLSIM_ASSIGN_OR_RETURN(double v, table.Number(r, column));
    out.push_back(v);
  }
  return out;
}

// Row `row`'s token count in `column` (value `v`) as an integer. Error for a value that no int64_t
// holds (NaN, infinite, |v| >= 2^63): converting it would be undefined behaviour.
Result<int64_t> TokenCount(const CsvTable& table, size_t row, std::string_view column, double v) {
  if (std::isfinite(v) && std::abs(v) < 9.2e18) return static_cast<int64_t>(v);
  return Error::Parse(table.file_name + ":" + std::to_string(table.row_lines[row]) + ": column '" +
                      std::string(column) + "': expected a token count, found '" +
                      table.Text(row, column).value() + "'");
}

// A numeric column of a CSV data file; errors are recorded at `key` of `m`.
std::vector<double> ReadColumn(const MapReader& m, std::string_view key, const std::string& path,
                               const std::string& column) {
  auto text = ReadTextFile(path);
  if (!text.ok()) {
    m.AddError(key, text.error().message);
    return {};
  }
  auto values = ParseTokenColumn(*text, path, column);
  if (!values.ok()) {
    m.AddError(key, values.error().message);
    return {};
  }
  return std::move(values).value();
}

LengthDistribution ReadLengths(const MapReader& w, std::string_view key, LengthDistribution d,
                               const std::string& base_dir, const std::string& default_column) {
  MapReader m = w.Section(key);
  if (!m.present()) return d;
  d.min = m.Get<int64_t>("min", d.min, Range::Positive());
  d.max = m.Get<int64_t>("max", d.max, Range::Positive());
  if (std::optional<std::string> file = m.Find<std::string>("file")) {
    const std::string column = m.Get<std::string>("column", default_column);
    d.kind = LengthDistribution::Kind::kEmpirical;
    d.values = ReadColumn(m, "file", Resolve(base_dir, *file), column);
    if (d.values.empty() && !m.document().has_errors()) m.AddError("file", "the file has no rows");
    m.Finish();
    return d;
  }
  d.kind = m.GetEnum("distribution", d.kind,
                     {{"lognormal", LengthDistribution::Kind::kLognormal},
                      {"fixed", LengthDistribution::Kind::kFixed},
                      {"uniform", LengthDistribution::Kind::kUniform}});
  d.median = m.Get<double>("median", d.median, Range::Positive());
  d.sigma = m.Get<double>("sigma", d.sigma, Range::NonNegative());
  d.value = m.Get<double>("value", d.value, Range::Positive());
  d.low = m.Get<double>("low", d.low, Range::Positive());
  d.high = m.Get<double>("high", d.high, Range::Positive());
  if (d.kind == LengthDistribution::Kind::kFixed && !m.Has("value"))
    m.AddError("distribution", "fixed needs 'value'");
  if (d.kind == LengthDistribution::Kind::kUniform && d.high < d.low) m.AddError("high", "must be >= low");
  if (d.max < d.min) m.AddError("max", "must be >= min");
  m.Finish();
  return d;
}

void ReadTrace(const MapReader& w, const std::string& base_dir, serve::WorkloadOptions& o) {
  std::optional<std::string> file = w.Find<std::string>("trace_file");
  if (o.arrival != ArrivalKind::kTrace) {
    if (file) w.AddError("trace_file", "only used with arrival: trace");
    return;
  }
  if (!file) {
    w.AddError(
        "arrival",
        "arrival: trace needs trace_file (CSV with arrived_at, num_prefill_tokens, num_decode_tokens)");
    return;
  }
  const std::string path = Resolve(base_dir, *file);
  auto text = ReadTextFile(path);
  if (!text.ok()) {
    w.AddError("trace_file", text.error().message);
    return;
  }
  auto trace = ParseRequestTrace(*text, path);
  if (!trace.ok()) {
    w.AddError("trace_file", trace.error().message);
    return;
  }
  o.trace = std::move(trace).value();
  if (o.trace.empty() && !w.document().has_errors()) w.AddError("trace_file", "the trace has no rows");
}

serve::WorkloadOptions ReadWorkload(const MapReader& w, const std::string& base_dir) {
  serve::WorkloadOptions o;
  o.arrival = w.GetEnum(
      "arrival", o.arrival,
      {{"poisson", ArrivalKind::kPoisson}, {"gamma", ArrivalKind::kGamma}, {"trace", ArrivalKind::kTrace}});
  o.rate = w.Get<double>("rate", o.rate, Range::Positive());
  o.cv = w.Get<double>("cv", o.cv, Range::Positive());
  o.requests = w.Get<int64_t>("requests", 0, Range::Positive());
  o.duration_s = w.Get<double>("duration_s", 0, Range::Positive());
  o.seed = static_cast<uint64_t>(w.Get<int64_t>("seed", 0, Range::NonNegative()));
  if (w.Has("cv") && o.arrival != ArrivalKind::kGamma) w.AddError("cv", "only used with arrival: gamma");
  if (w.Has("requests") && w.Has("duration_s"))
    w.AddError("duration_s", "give requests or duration_s, not both");
  if (!w.Has("requests") && !w.Has("duration_s") && o.arrival != ArrivalKind::kTrace) o.requests = 20000;
  o.prompt = ReadLengths(w, "prompt_tokens", o.prompt, base_dir, "num_prefill_tokens");
  o.output = ReadLengths(w, "output_tokens", o.output, base_dir, "num_decode_tokens");
  ReadTrace(w, base_dir, o);
  w.Finish();
  return o;
}

void ReadName(const MapReader& m, std::string_view key, const std::vector<std::string>& allowed,
              std::string& out) {
  std::optional<std::string> v = m.Find<std::string>(key);
  if (!v) return;
  if (std::find(allowed.begin(), allowed.end(), *v) == allowed.end()) {
    std::string msg = "unknown name '" + *v + "'";
    if (auto c = ClosestMatch(*v, allowed)) msg += " (did you mean '" + *c + "'?)";
    m.AddError(key, msg + "; allowed: " + Join(allowed, ", "));
    return;
  }
  out = *v;
}

serve::SchedulerOptions ReadScheduler(const MapReader& s, const ServeNames& names) {
  serve::SchedulerOptions o;
  ReadName(s, "name", names.schedulers, o.name);
  ReadName(s, "router", names.routers, o.router);
  o.block_size = s.Get<int>("block_size", o.block_size, Range::Between(1, 4096));
  o.watermark = s.Get<double>("watermark", o.watermark, Range::Between(0, 0.5));
  o.max_batch_size = s.Get<int>("max_batch_size", o.max_batch_size, Range::Positive());
  o.max_batched_tokens = s.Get<int64_t>("max_batched_tokens", o.max_batched_tokens, Range::Positive());
  o.chunk_size = s.Get<int64_t>("chunk_size", o.chunk_size, Range::Positive());
  o.preemption = s.GetEnum("preemption", o.preemption,
                           {{"recompute", Preemption::kRecompute}, {"swap", Preemption::kSwap}});
  o.prefill_replicas = s.Get<int>("prefill_replicas", o.prefill_replicas, Range::Positive());
  o.decode_replicas = s.Get<int>("decode_replicas", o.decode_replicas, Range::Positive());
  o.kv_transfer_gbps = s.Get<double>("kv_transfer_gbps", o.kv_transfer_gbps, Range::Positive());
  o.max_seq_len = s.Get<int64_t>("max_seq_len", o.max_seq_len, Range::Positive());
  for (const char* k : {"prefill_replicas", "decode_replicas", "kv_transfer_gbps"}) {
    if (s.Has(k) && o.name != "distserve") s.AddError(k, "only used with name: distserve");
  }
  if (s.Has("chunk_size") && o.name != "sarathi") s.AddError("chunk_size", "only used with name: sarathi");
  s.Finish();
  return o;
}

serve::OffloadOptions ReadOffload(const MapReader& m) {
  serve::OffloadOptions o;
  o.mode = m.GetEnum(
      "mode", o.mode,
      {{"none", OffloadMode::kNone}, {"static", OffloadMode::kStatic}, {"select-n", OffloadMode::kSelectN}});
  o.weight_fraction = m.Get<double>("weight_fraction", o.weight_fraction, Range::Between(0, 1));
  o.min_interval = m.Get<int>("min_interval", o.min_interval, Range::AtLeast(2));
  o.pcie_gbps = m.Get<double>("pcie_gbps", o.pcie_gbps, Range::Positive());
  o.gpus_per_pcie_bus = m.Get<int>("gpus_per_pcie_bus", o.gpus_per_pcie_bus, Range::Positive());
  o.host_memory_gib = m.Get<double>("host_memory_gib", o.host_memory_gib, Range::Positive());
  if (m.Has("weight_fraction") && o.mode != OffloadMode::kStatic)
    m.AddError("weight_fraction", "only used with mode: static");
  if (m.Has("min_interval") && o.mode != OffloadMode::kSelectN)
    m.AddError("min_interval", "only used with mode: select-n");
  m.Finish();
  return o;
}

// Reads the model section of `root` into `spec`: a catalog entry, shape keys override.
void ReadServeModel(const MapReader& root, const Document& doc, const model::ModelCatalog& models,
                    model::ModelSpec& spec) {
  MapReader m = root.Section("model");
  if (root.present() && !root.Has("model")) doc.AddError(root.location(), "model", "missing section 'model'");
  if (std::optional<std::string> name = m.Find<std::string>("name")) {
    auto found = models.Find(*name);
    if (found.ok())
      spec = **found;
    else
      m.AddError("name", found.error().message);
  }
  if (!m.Has("name")) spec.name = "custom";
  ReadModelShape(m, spec, !m.Has("name"));
  m.Finish();
}

// Reads the hardware section `h` into the GPU (a catalog entry) and the hardware options of `o`.
void ReadServeHardware(const MapReader& h, const hw::Catalog& hardware, serve::ServeOptions& o) {
  const std::string gpu = h.Get<std::string>("gpu", "a100-sxm4-80gb");
  if (auto g = hardware.FindGpu(gpu); g.ok())
    o.gpu = **g;
  else
    h.AddError("gpu", g.error().message);
  o.hardware.tp = h.Get<int>("tp", 1, Range::Positive());
  o.hardware.pp = h.Get<int>("pp", 1, Range::Positive());
  o.hardware.replicas = h.Get<int>("replicas", 1, Range::Positive());
  o.hardware.memory_margin = h.Get<double>("memory_margin", 0.1, Range::Between(0, 0.9));
  h.Finish();
}

// Reads the slo section into `o` (absent keys keep their defaults).
void ReadSlo(const MapReader& slo, serve::SloOptions& o) {
  o.ttft_s = slo.Get<double>("ttft_s", o.ttft_s, Range::Positive());
  o.tpot_s = slo.Get<double>("tpot_s", o.tpot_s, Range::Positive());
  slo.Finish();
}

// Records at hardware section `h` the layout errors that types cannot catch: tp must divide the model's heads
// and KV heads, pp its layers.
void CheckServeLayout(const serve::ServeOptions& o, const MapReader& h, const Document& doc) {
  if (o.model.heads % o.hardware.tp != 0 || o.model.kv_heads % o.hardware.tp != 0) {
    doc.AddError(h.LocationOf("tp"), h.PathOf("tp"),
                 "tp " + std::to_string(o.hardware.tp) + " does not divide the model's " +
                     std::to_string(o.model.heads) + " heads and " + std::to_string(o.model.kv_heads) +
                     " KV heads");
  }
  if (o.model.layers % o.hardware.pp != 0) {
    doc.AddError(h.LocationOf("pp"), h.PathOf("pp"),
                 "pp " + std::to_string(o.hardware.pp) + " does not divide the model's " +
                     std::to_string(o.model.layers) + " layers");
  }
}

}  // namespace

Result<std::vector<double>> ParseTokenColumn(std::string_view text, const std::string& file_name,
                                             const std::string& column) {
  DLSIM_ASSIGN_OR_RETURN(CsvTable table, ParseCsv(text, file_name));
  return NumberColumn(table, column);
}

Result<std::vector<serve::TraceEntry>> ParseRequestTrace(std::string_view text,
                                                         const std::string& file_name) {
  DLSIM_ASSIGN_OR_RETURN(CsvTable table, ParseCsv(text, file_name));
  DLSIM_ASSIGN_OR_RETURN(std::vector<double> at, NumberColumn(table, "arrived_at"));
  if (at.empty()) return std::vector<serve::TraceEntry>{};
  DLSIM_ASSIGN_OR_RETURN(std::vector<double> p, NumberColumn(table, "num_prefill_tokens"));
  DLSIM_ASSIGN_OR_RETURN(std::vector<double> d, NumberColumn(table, "num_decode_tokens"));
  std::vector<serve::TraceEntry> out;
  out.reserve(at.size());
  for (size_t i = 0; i < at.size(); ++i) {
    DLSIM_ASSIGN_OR_RETURN(int64_t prompt, TokenCount(table, i, "num_prefill_tokens", p[i]));
    DLSIM_ASSIGN_OR_RETURN(int64_t output, TokenCount(table, i, "num_decode_tokens", d[i]));
    out.push_back({at[i], prompt, output});
  }
  return out;
}

Result<serve::ServeOptions> ParseServeScenario(std::string_view text, std::string file_name,
                                               const hw::Catalog& hardware, const model::ModelCatalog& models,
                                               const ServeNames& names, const std::string& base_dir) {
  DLSIM_ASSIGN_OR_RETURN(Document doc, ParseYaml(text, file_name));
  MapReader root = doc.Root();
  serve::ServeOptions o;
  o.name = std::filesystem::path(file_name).stem().string();
  ReadServeModel(root, doc, models, o.model);
  MapReader h = root.Section("hardware");
  ReadServeHardware(h, hardware, o);
  o.workload = ReadWorkload(root.Section("workload"), base_dir);
  o.scheduler = ReadScheduler(root.Section("scheduler"), names);
  o.offload = ReadOffload(root.Section("offload"));
  ReadSlo(root.Section("slo"), o.slo);
  root.Finish();
  DLSIM_RETURN_IF_ERROR(doc.status());
  // Semantic checks (types are right by now): the model's shape (as train checks it), then tp and pp.
  CheckModelShape(root.Section("model"), o.model);
  DLSIM_RETURN_IF_ERROR(doc.status());
  CheckServeLayout(o, h, doc);
  DLSIM_RETURN_IF_ERROR(doc.status());
  return o;
}

Result<serve::ServeOptions> LoadServeScenarioFile(const std::string& path, const hw::Catalog& hardware,
                                                  const model::ModelCatalog& models,
                                                  const ServeNames& names) {
  DLSIM_ASSIGN_OR_RETURN(std::string text, ReadTextFile(path));
  return ParseServeScenario(text, path, hardware, models, names,
                            std::filesystem::path(path).parent_path().string());
}

std::string SummarizeServeOptions(const serve::ServeOptions& o) {
  std::ostringstream s;
  static const char* kArrival[] = {"poisson", "gamma", "trace"};
  s << o.model.name << " on " << o.hardware.replicas << " x " << o.hardware.tp * o.hardware.pp << " "
    << o.gpu.name << " (tp " << o.hardware.tp << ", pp " << o.hardware.pp << "); " << o.scheduler.name << "; "
    << kArrival[static_cast<int>(o.workload.arrival)] << " " << o.workload.rate << " req/s";
  if (o.workload.requests > 0) s << "; " << o.workload.requests << " requests";
  return s.str();
}

}  // namespace dlsim::io
