#include "dlsim/io/cluster_scenario.h"

#include <fmt/format.h>

#include <filesystem>

#include "cluster_inputs.h"
#include "dlsim/cluster/capacity.h"
#include "dlsim/cluster/elastic.h"
#include "dlsim/cluster/placement.h"
#include "dlsim/cluster/policy_params.h"
#include "dlsim/cluster/pollux_goodput.h"
#include "dlsim/cluster/pollux_profile.h"
#include "dlsim/cluster/simulate.h"
#include "dlsim/cluster/synthetic.h"
#include "dlsim/cluster/throughput_table.h"
#include "dlsim/cluster/trace.h"
#include "dlsim/cluster/training_speed.h"
#include "dlsim/core/strings.h"
#include "dlsim/io/paths.h"
#include "dlsim/io/train_scenario.h"
#include "dlsim/io/yaml_reader.h"

namespace dlsim::io {
namespace {

using cluster::ClusterOptions;

// Ranges of the cluster keys (docs/cluster.md).
const Range kNodeCount = Range::Between(1, cluster::kMaxNodes);
const Range kNodeGpus = Range::Between(0, cluster::kMaxGpusPerNode);
const Range kCpuCores = Range::Between(0, 1 << 16);
const Range kMemoryGib = Range::Between(0, 1 << 24);
const Range kNicGbps = Range::Between(0, 1e6);  // per node, all NICs
const Range kSeconds = Range::Between(0, 1e9);  // ~31 years
const Range kLoadScale = Range::Between(1e-6, 1e6);
const Range kJobs = Range::Between(1, static_cast<double>(cluster::kMaxJobs));
// A written rate is a rate; leaving the key out derives it from `load` (0 is not a rate).
const Range kJobsPerHour =
    Range::Positive(1e9).WithNote("leave jobs_per_hour out to derive the rate from load");

void ReadNodeGroup(const MapReader& g, const hw::Catalog& hardware, int per_rack,
                   cluster::ClusterSpec& spec) {
  const int count = g.Get<int>("count", 1, kNodeCount);
  std::string gpu = g.Get<std::string>("gpu", "");
  int gpus = g.Get<int>("gpus", 8, kNodeGpus);
  double cpu = g.Get<double>("cpu_cores", 0, kCpuCores);
  double mem = g.Get<double>("memory_gib", 0, kMemoryGib);
  double nic_bps = g.Get<double>("nic_gbps", 0, kNicGbps) * 1e9 / 8;
  std::string name = gpu.empty() ? "node" : gpu;
  if (std::optional<std::string> node = g.Find<std::string>("node")) {
    Result<const hw::NodeSpec*> n = hardware.FindNode(*node);
    if (!n.ok()) return g.AddError("node", n.error().message);
    name = (*n)->name;
    if (!g.Has("gpu"))
      gpu = hardware.FindGpuOrNull((*n)->gpu) ? hardware.FindGpuOrNull((*n)->gpu)->name : (*n)->gpu;
    if (!g.Has("gpus")) gpus = (*n)->gpus_per_node;
    if (!g.Has("cpu_cores")) cpu = (*n)->cpu_cores;
    if (!g.Has("memory_gib")) mem = (*n)->host_memory.ToGiB();
    if (!g.Has("nic_gbps")) nic_bps = (*n)->nics_per_node * (*n)->nic_bandwidth.ToBytesPerSecond();
  } else if (gpu.empty() && gpus > 0) {
    return g.AddError("gpu", "a node group needs `node` (a catalog node) or `gpu` (a GPU type name)");
  }
  const int first = spec.AddNodes(name, gpus > 0 ? gpu : "cpu", count, gpus, static_cast<int64_t>(cpu * 1000),
                                  static_cast<int64_t>(mem * 1024), per_rack);
  spec.SetNicBandwidth(first, nic_bps);
}

cluster::ClusterSpec ReadCluster(const MapReader& c, const hw::Catalog& hardware,
                                 const std::string& base_dir) {
  cluster::ClusterSpec spec;
  const int per_rack = c.Get<int>("nodes_per_rack", 0, Range::Between(0, cluster::kMaxNodes));
  std::string path;
  if (std::optional<std::string> text = ReadDataFile(c, "node_list", base_dir, &path)) {
    Result<cluster::ClusterSpec> s = cluster::ParseNodeList(*text, path, per_rack);
    if (!s.ok())
      c.AddError("node_list", s.error().message);
    else
      spec = std::move(*s);
    spec.SetNicBandwidth(0, c.Get<double>("nic_gbps", 0, kNicGbps) * 1e9 / 8);
  }
  const std::vector<MapReader> groups = c.SectionList("nodes");
  if (!groups.empty() && c.Has("node_list")) c.AddError("nodes", "give `nodes` or `node_list`, not both");
  for (const MapReader& g : groups) {
    ReadNodeGroup(g, hardware, per_rack, spec);
    g.Finish();
  }
  if (groups.empty() && !c.Has("node_list") && !c.Has("lendable"))
    c.AddError("nodes", "the cluster needs `nodes` or `node_list` (or a `lendable` pool)");
  c.Allow({"lendable"});
  c.Finish();
  return spec;
}

// `cluster.lendable.demand`: `{file, format: servers | qps, per_server_qps, bucket_s, sample_s,
// period_s}` (capacity.h).
void ReadDemand(const MapReader& d, const std::string& base_dir, int pool, cluster::CapacityOptions& cap) {
  const std::string format = d.Get<std::string>("format", "servers");
  cluster::QpsOptions q;
  q.per_server_qps = d.Get<double>("per_server_qps", 1, Range::Positive(1e9));
  q.bucket = Seconds(d.Get<double>("bucket_s", 60, Range::Between(1, 1e7)));
  q.sample = Seconds(d.Get<double>("sample_s", 60, Range::Between(1e-3, 1e7)));
  cap.period = Seconds(d.Get<double>("period_s", 0, kSeconds));
  if (format != "qps" && format != "servers")
    d.AddError("format",
               "expected 'servers' (time_s,servers) or 'qps' (a QPS trace), found '" + format + "'");
  std::string path;
  if (std::optional<std::string> text = ReadDataFile(d, "file", base_dir, &path)) {
    Result<std::vector<cluster::DemandStep>> curve = format == "qps"
                                                         ? cluster::DemandFromQps(*text, path, q, pool)
                                                         : cluster::ParseDemandCurve(*text, path, pool);
    if (curve.ok())
      cap.demand = std::move(*curve);
    else
      d.AddError("file", curve.error().message);
  } else if (d.present() && !d.Has("file")) {
    d.AddError("file", "the demand curve needs `file` (a CSV)");
  }
  if (!cap.demand.empty() && cap.period > Duration::Zero() && cap.period <= cap.demand.back().at.SinceStart())
    d.AddError("period_s", fmt::format("expected more than the curve's last step ({} s), or 0 (no repeat)",
                                       cap.demand.back().at.ToSeconds()));
  d.Finish();
}

// `cluster.lendable`: a pool of nodes (appended to the cluster, lent in this order) whose own
// demand follows a curve.
void ReadLendable(const MapReader& l, const hw::Catalog& hardware, const std::string& base_dir,
                  ClusterOptions& o) {
  cluster::CapacityOptions cap;
  const int first = static_cast<int>(o.cluster.nodes().size());
  for (const MapReader& g : l.SectionList("nodes")) {
    ReadNodeGroup(g, hardware, 0, o.cluster);
    g.Finish();
  }
  for (int n = first; n < static_cast<int>(o.cluster.nodes().size()); ++n) cap.pool.push_back(n);
  if (cap.pool.empty()) l.AddError("nodes", "a lendable pool needs at least one node group");
  cap.loan = l.Get<bool>("loan", true);
  cap.checkpoint_interval = Seconds(l.Get<double>("checkpoint_interval_s", 0, kSeconds));
  const MapReader d = l.Section("demand");
  if (!d.present()) l.AddError("demand", "a lendable pool needs `demand: {file: ...}`");
  ReadDemand(d, base_dir, std::max<int>(1, static_cast<int>(cap.pool.size())), cap);
  l.Finish();
  o.capacity = std::move(cap);
}

// `jobs.elastic`: a share of the trace made elastic (cluster/elastic.h).
cluster::ElasticOptions ReadElastic(const MapReader& e) {
  cluster::ElasticOptions x;
  x.fraction = e.Get<double>("fraction", 0, Range::Between(0, 1));
  x.min_factor = e.Get<double>("min_factor", 1, Range::Positive(1));
  x.max_factor = e.Get<double>("max_factor", 4, Range::Between(1, 1024));
  x.max_gpus_cap = e.Get<int>("max_gpus", 64, Range::Between(1, cluster::kMaxJobGpus));
  x.scaling = e.Get<double>("scaling", 0.8, Range::Positive(1));
  x.seed = static_cast<uint64_t>(e.Get<int64_t>("seed", 1, Range::NonNegative()));
  e.Finish();
  return x;
}

const std::vector<std::pair<std::string, cluster::TraceFormat>>& FormatNames() {
  static const auto* names = [] {
    auto* v = new std::vector<std::pair<std::string, cluster::TraceFormat>>;
    for (const auto& [n, f] : cluster::kTraceFormatNames) v->emplace_back(std::string(n), f);
    return v;
  }();
  return *names;
}

// One Pollux application directory: placements.csv, scalability.csv (optional), validation-*.csv.
Result<cluster::PolluxApp> LoadPolluxApp(const std::filesystem::path& dir) {
  cluster::PolluxAppTables t;
  const std::string placements = (dir / "placements.csv").string();
  DLSIM_ASSIGN_OR_RETURN(std::string text, ReadTextFile(placements));
  DLSIM_ASSIGN_OR_RETURN(t.placements, cluster::ParsePolluxPlacements(text, placements));
  if (const auto s = dir / "scalability.csv"; std::filesystem::exists(s)) {
    DLSIM_ASSIGN_OR_RETURN(std::string stext, ReadTextFile(s.string()));
    DLSIM_ASSIGN_OR_RETURN(t.scalability, cluster::ParsePolluxScalability(stext, s.string()));
  }
  std::vector<std::filesystem::path> files;
  for (const auto& e : std::filesystem::directory_iterator(dir))
    if (e.path().filename().string().starts_with("validation-")) files.push_back(e.path());
  std::sort(files.begin(), files.end());
  for (const auto& f : files) {
    DLSIM_ASSIGN_OR_RETURN(int bsz, cluster::PolluxValidationBatchSize(f.string()));
    DLSIM_ASSIGN_OR_RETURN(std::string vtext, ReadTextFile(f.string()));
    DLSIM_ASSIGN_OR_RETURN(t.validation[bsz], cluster::ParsePolluxValidation(vtext, f.string()));
  }
  return cluster::BuildPolluxApp(dir.filename().string(), std::move(t), dir.string());
}

// Every application directory under `dir` (those with a placements.csv), by name.
Result<std::map<std::string, cluster::PolluxApp>> LoadPolluxApps(const std::string& dir) {
  std::error_code ec;
  std::vector<std::filesystem::path> subdirs;
  for (const auto& e : std::filesystem::directory_iterator(dir, ec))
    if (std::filesystem::exists(e.path() / "placements.csv")) subdirs.push_back(e.path());
  if (ec || subdirs.empty())
    return Error::InvalidArgument(
        fmt::format("{}: expected application directories with placements.csv", dir));
  std::sort(subdirs.begin(), subdirs.end());
  std::map<std::string, cluster::PolluxApp> apps;
  for (const auto& d : subdirs) {
    DLSIM_ASSIGN_OR_RETURN(cluster::PolluxApp app, LoadPolluxApp(d));
    apps.emplace(app.name, std::move(app));
  }
  cluster::ApplyPolluxArtifactSettings(apps);
  return apps;
}

// A Pollux workload: the profiles in `pollux_apps` (beside `trace`) become speed entries.
std::vector<cluster::JobSpec> ReadPolluxTrace(const MapReader& t, const std::string& text,
                                              const std::string& path, const std::string& apps_dir,
                                              cluster::SpeedBook& book) {
  if (apps_dir.empty()) {
    t.AddError("format", "a pollux workload needs `pollux_apps:` (the application profiles) in `jobs`");
    return {};
  }
  Result<std::map<std::string, cluster::PolluxApp>> apps = LoadPolluxApps(apps_dir);
  if (!apps.ok()) {
    t.AddError("format", apps.error().message);
    return {};
  }
  Result<std::vector<cluster::JobSpec>> jobs = cluster::ParsePolluxWorkload(text, path, *apps);
  if (!jobs.ok()) t.AddError("file", jobs.error().message);
  cluster::AddPolluxApps(*apps, book);
  return jobs.ok() ? std::move(*jobs) : std::vector<cluster::JobSpec>{};
}

std::vector<cluster::JobSpec> ReadTrace(const MapReader& t, const cluster::ClusterSpec& spec,
                                        const std::string& base_dir, const std::string& pollux_apps,
                                        cluster::SpeedBook& book) {
  cluster::TraceOptions o;
  o.format = t.GetEnum("format", cluster::TraceFormat::kCsv, FormatNames());
  o.sort = t.Get<bool>("sort", true);
  o.load_scale = t.Get<double>("load_scale", 1, kLoadScale);
  o.limit = t.Get<int64_t>("limit", 0, Range::Between(0, static_cast<double>(cluster::kMaxJobs)));
  o.group = t.Get<std::string>("group", "");
  o.skip_zero_duration = t.Get<bool>("skip_zero_duration", true);
  if (!t.Has("file")) t.AddError("file", "a trace needs `file`");
  std::string path;
  std::optional<std::string> text = ReadDataFile(t, "file", base_dir, &path);
  t.Finish();
  if (!text || t.document().has_errors()) return {};
  if (o.format == cluster::TraceFormat::kPollux) return ReadPolluxTrace(t, *text, path, pollux_apps, book);
  Result<std::vector<cluster::JobSpec>> jobs = cluster::ParseTrace(*text, path, o, spec);
  if (!jobs.ok()) t.AddError("file", jobs.error().message);
  return jobs.ok() ? std::move(*jobs) : std::vector<cluster::JobSpec>{};
}

// The arrivals of N jobs at the drawn rate span about N / rate: beyond 1e9 s (31 years, what a trace
// may span) the clock would overflow before the last job ends. Recorded at the key that set the rate.
void CheckSyntheticSpan(const MapReader& s, const cluster::SyntheticOptions& o) {
  const double per_hour = cluster::GavelMixJobsPerHour(o);
  if (!(per_hour > 0)) return;
  const double span_s = static_cast<double>(o.jobs) / per_hour * 3600;
  if (span_s <= 1e9) return;
  s.AddError(o.jobs_per_hour > 0 ? "jobs_per_hour" : "load",
             fmt::format("{} jobs at {} jobs per hour arrive over about {} s, more than the 1000000000 s (31 "
                         "years) a run may span; raise {} or lower jobs",
                         o.jobs, FormatNumber(per_hour, 6), FormatNumber(span_s, 3),
                         o.jobs_per_hour > 0 ? "jobs_per_hour" : "load"));
}

std::vector<cluster::JobSpec> ReadSynthetic(const MapReader& s, const cluster::ClusterSpec& spec,
                                            std::shared_ptr<const cluster::ThroughputTable> table) {
  cluster::SyntheticOptions o;
  s.FindChoice("generator", {"gavel"});
  o.jobs = s.Get<int64_t>("jobs", 1000, kJobs);
  o.jobs_per_hour = s.Get<double>("jobs_per_hour", 0, kJobsPerHour);
  o.load = s.Get<double>("load", 0.8, Range::Positive(100));
  o.seed = static_cast<uint64_t>(s.Get<int64_t>("seed", 1, Range::NonNegative()));
  o.cluster_gpus = spec.total_gpus();
  o.multi_gpu = s.Get<bool>("multi_gpu", true);
  o.multi_priority = s.Get<bool>("multi_priority", true);
  if (std::optional<std::string> ref = s.Find<std::string>("steps_on")) {  // Gavel's job types
    o.reference_gpu = *ref;
    o.job_types = std::move(table);
    if (!o.job_types) s.AddError("steps_on", "job types need `throughputs:` in `jobs`");
  }
  CheckSyntheticSpan(s, o);
  s.Finish();
  if (s.document().has_errors()) return {};
  Result<std::vector<cluster::JobSpec>> jobs = cluster::GenerateGavelMix(o);
  if (!jobs.ok()) s.AddError("jobs", jobs.error().message);
  return jobs.ok() ? std::move(*jobs) : std::vector<cluster::JobSpec>{};
}

cluster::JobSpec ReadListedJob(const MapReader& m, int64_t index, const cluster::ClusterSpec& spec,
                               const JobTables& tables) {
  cluster::JobSpec j;
  j.id = m.Get<int64_t>("id", index, Range::NonNegative());
  j.name = m.Get<std::string>("name", fmt::format("job-{}", j.id));
  j.arrival = TimePoint::Start() + Seconds(m.Get<double>("arrival_s", 0, kSeconds));
  // A listed job has no CPU request, so gpus: 0 would ask for nothing and "complete" at once.
  j.gpus = m.Get<int>(
      "gpus", 1,
      Range::Between(1, cluster::kMaxJobGpus).WithNote("a share of one GPU is gpus: 1 with gpu_milli"));
  j.gpu_milli = m.Get<int>("gpu_milli", 1000, Range::Between(1, 1000));
  j.speed = m.Get<std::string>("speed", "");
  j.work = j.speed.empty() ? m.Get<double>("duration_s", 0, Range::Positive(1e9))
                           : m.Get<double>("steps", 0, Range::Positive(1e15));
  if (!(j.work > 0))
    m.AddError(j.speed.empty() ? "duration_s" : "steps", "a job needs a positive amount of work");
  if (std::optional<std::string> type = m.Find<std::string>("gpu_type")) {
    if (std::optional<int> t = spec.FindGpuType(*type))
      j.gpu_types = {*t};
    else
      m.AddError("gpu_type", UnknownNameMessage("GPU type", *type, spec.gpu_types()));
  }
  ReadListedJobInputs(m, tables, j);
  m.Finish();
  return j;
}

std::shared_ptr<cluster::SpeedBook> ReadSpeeds(const MapReader& jobs, const catalog::Catalogs& catalogs,
                                               const std::string& base_dir,
                                               std::shared_ptr<const cluster::ThroughputTable>& table) {
  auto book = std::make_shared<cluster::SpeedBook>();
  std::string path;
  if (std::optional<std::string> text = ReadDataFile(jobs, "throughputs", base_dir, &path)) {
    Result<cluster::ThroughputTable> t = cluster::ParseGavelThroughputs(*text, path);
    if (!t.ok())
      jobs.AddError("throughputs", t.error().message);
    else
      cluster::AddThroughputTable(table = std::make_shared<cluster::ThroughputTable>(std::move(*t)), *book);
  }
  for (const MapReader& e : jobs.SectionList("training")) {
    const std::optional<std::string> name = e.Require<std::string>("name");
    const std::optional<std::string> file = e.Require<std::string>("scenario");
    e.Finish();
    if (!name || !file) continue;
    Result<train::TrainOptions> o =
        LoadTrainScenarioFile(ResolvePath(base_dir, *file), catalogs.hardware, catalogs.models);
    if (!o.ok())
      e.AddError("scenario", o.error().message);
    else
      book->Add(*name, std::make_shared<cluster::TrainingSpeed>(std::move(*o), catalogs));
  }
  return book;
}

// A job's `speed` names an entry of the speed book; the first unknown one is an error at the listed
// job's `speed` key (trace jobs: at `trace`).
void CheckSpeeds(const MapReader& j, const std::vector<MapReader>& list, const ClusterOptions& o) {
  std::vector<std::string> names;
  for (const auto& [n, m] : o.speeds->models()) names.push_back(n);
  for (size_t i = 0; i < o.jobs.size(); ++i) {
    const cluster::JobSpec& job = o.jobs[i];
    if (job.speed.empty() || o.speeds->Contains(job.speed)) continue;
    const std::string msg =
        UnknownNameMessage("speed entry", job.speed, names) +
        fmt::format(" (job {}; speeds come from `jobs.throughputs` or `jobs.training`)", job.id);
    if (i < list.size())
      list[i].AddError("speed", msg);
    else
      j.AddError("trace", msg);
    return;
  }
}

void ReadJobs(const MapReader& j, const catalog::Catalogs& catalogs, const std::string& base_dir,
              ClusterOptions& o) {
  std::shared_ptr<const cluster::ThroughputTable> table;
  std::shared_ptr<cluster::SpeedBook> book = ReadSpeeds(j, catalogs, base_dir, table);
  o.speeds = book;
  const JobTables tables = ReadJobTables(j, base_dir);
  int sources = 0;
  const std::optional<std::string> apps = j.Find<std::string>("pollux_apps");
  if (MapReader t = j.Section("trace"); t.present())
    ++sources, o.jobs = ReadTrace(t, o.cluster, base_dir, apps ? ResolvePath(base_dir, *apps) : "", *book);
  if (MapReader s = j.Section("synthetic"); s.present())
    ++sources, o.jobs = ReadSynthetic(s, o.cluster, table);
  const std::vector<MapReader> list = j.SectionList("list");
  for (size_t i = 0; i < list.size(); ++i)
    o.jobs.push_back(ReadListedJob(list[i], static_cast<int64_t>(i), o.cluster, tables));
  if (j.Has("list") && list.empty()) j.AddError("list", "the list is empty; give at least one job");
  sources += j.Has("list");
  ApplyJobTables(tables, !list.empty(), o.jobs);
  if (MapReader e = j.Section("elastic"); e.present()) cluster::MakeElastic(o.jobs, ReadElastic(e));
  if (sources != 1)
    j.AddError("", sources == 0 ? "`jobs` needs one of `trace`, `synthetic` or `list`"
                                : "give one of `trace`, `synthetic` or `list`, not several");
  CheckSpeeds(j, list, o);
  j.Finish();
}

cluster::SweepSpec ReadSweep(const MapReader& w, const MapReader& jobs, const ClusterOptions& o,
                             const std::string& base_dir) {
  cluster::SweepSpec s;
  s.policies = w.FindList<std::string>("policies").value_or(std::vector<std::string>{});
  if (s.policies.empty()) s.policies = {o.policy};
  if (auto l = w.FindList<double>("load_scales", kLoadScale); l && !l->empty()) s.load_scales = *l;
  if (auto seeds = w.FindList<int64_t>("seeds", Range::NonNegative()); seeds && !seeds->empty())
    s.seeds.assign(seeds->begin(), seeds->end());
  w.Finish();
  MapReader syn = jobs.Section("synthetic");
  if (!syn.present()) return s;
  cluster::SyntheticOptions g;
  g.jobs = syn.Get<int64_t>("jobs", 1000, kJobs);
  g.jobs_per_hour = syn.Get<double>("jobs_per_hour", 0, kJobsPerHour);
  g.load = syn.Get<double>("load", 0.8, Range::Positive(100));
  g.cluster_gpus = o.cluster.total_gpus();
  const JobTables tables = ReadJobTables(jobs, base_dir);  // input classes and tuners for every seed
  std::optional<cluster::ElasticOptions> elastic;
  if (MapReader e = jobs.Section("elastic"); e.present()) elastic = ReadElastic(e);
  s.regenerate = [g, tables, elastic](uint64_t seed) -> Result<std::vector<cluster::JobSpec>> {
    cluster::SyntheticOptions x = g;
    x.seed = seed;
    DLSIM_ASSIGN_OR_RETURN(std::vector<cluster::JobSpec> drawn, cluster::GenerateGavelMix(x));
    ApplyJobTables(tables, false, drawn);
    if (elastic) cluster::MakeElastic(drawn, *elastic);  // the same share of each draw, elastic
    return drawn;
  };
  return s;
}

// A preemptive policy that re-ranks every round can preempt a job each round; when a restart costs a
// whole round or more, no job ever progresses and the run would never end.
void CheckRoundAgainstRestart(const MapReader& p, const ClusterOptions& o) {
  auto policy = cluster::BuiltinPolicies().Create(o.policy, o.policy_params);
  if (!policy.ok()) return;
  if (std::optional<std::string> why = cluster::RestartStarvation(o, **policy))
    p.AddError("restart_overhead_s", *why);
}

// One policy-owned key (cluster/policy_params.h), read as its spec says: numbers against its range
// (each entry of a list), then the spec's own rule (choices, increasing lists) at the key.
void ReadPolicyKey(const MapReader& p, const cluster::ParamSpec& spec, cluster::ParamSet& set) {
  if (!p.Has(spec.key)) return;
  const Range range{spec.lo, spec.hi, spec.lo_open};
  std::optional<cluster::ParamValue> v;
  if (std::holds_alternative<bool>(spec.fallback)) {
    v = p.Find<bool>(spec.key);
  } else if (std::holds_alternative<double>(spec.fallback)) {
    v = p.Find<double>(spec.key, range);
  } else if (std::holds_alternative<std::string>(spec.fallback)) {
    v = p.Find<std::string>(spec.key);
  } else if (std::optional<std::vector<double>> l = p.FindList<double>(spec.key, range); l && !l->empty()) {
    v = *l;
  }
  if (!v) return;
  if (std::optional<std::string> why = cluster::CheckParam(spec, *v)) return p.AddError(spec.key, *why);
  set.Set(spec.key, *v);
}

void ReadPolicy(const MapReader& p, ClusterOptions& o) {
  o.policy = p.Get<std::string>("name", "fifo");
  if (!cluster::BuiltinPolicies().Contains(o.policy))
    p.AddError("name", UnknownNameMessage("cluster policy", o.policy, cluster::BuiltinPolicies().Names()));
  o.placement = p.Get<std::string>("placement", "consolidated");
  if (!cluster::BuiltinPlacements().Contains(o.placement))
    p.AddError("placement",
               UnknownNameMessage("placement", o.placement, cluster::BuiltinPlacements().Names()));
  o.policy_params.round = Seconds(p.Get<double>("round_s", 60, Range::Between(1e-3, 1e7)));
  o.policy_params.backfill = p.Get<bool>("backfill", true);
  o.policy_params.rounds_only = p.Get<bool>("rounds_only", false);
  for (const cluster::ParamSpec& spec : cluster::BuiltinPolicies().AllKeys())
    ReadPolicyKey(p, spec, o.policy_params.own);
  o.restart_overhead = Seconds(p.Get<double>("restart_overhead_s", 0, kSeconds));
  CheckRoundAgainstRestart(p, o);
  o.seed = static_cast<uint64_t>(p.Get<int64_t>("seed", 1, Range::NonNegative()));
  p.Finish();
}

void ReadReport(const MapReader& r, ClusterOptions& o) {
  o.sample_interval = Seconds(r.Get<double>("sample_interval_s", 3600, Range::Between(1, 1e9)));
  o.measure_from = r.Get<int64_t>("measure_from", 0, Range::NonNegative());
  o.measure_to = r.Get<int64_t>("measure_to", 0, Range::NonNegative());
  if (o.measure_to > 0 && o.measure_to <= o.measure_from)
    r.AddError("measure_to",
               fmt::format("expected more than measure_from ({}), or 0 (to the end)", o.measure_from));
  r.Finish();
}

}  // namespace

Result<ClusterOptions> ParseClusterScenario(std::string_view text, std::string file_name,
                                            const catalog::Catalogs& catalogs, const std::string& base_dir) {
  DLSIM_ASSIGN_OR_RETURN(Document doc, ParseYaml(text, std::move(file_name)));
  MapReader root = doc.Root();
  ClusterOptions o;
  MapReader c = root.Section("cluster");
  if (!c.present()) root.AddError("cluster", "missing required section 'cluster'");
  o.cluster = ReadCluster(c, catalogs.hardware, base_dir);
  if (MapReader l = c.Section("lendable"); l.present()) ReadLendable(l, catalogs.hardware, base_dir, o);
  MapReader j = root.Section("jobs");
  if (!j.present())
    root.AddError("jobs", "missing required section 'jobs'");
  else if (!doc.has_errors())
    ReadJobs(j, catalogs, base_dir, o);
  else
    j.Allow(j.Keys());
  ReadPolicy(root.Section("policy"), o);
  ReadReport(root.Section("report"), o);
  if (MapReader w = root.Section("sweep"); w.present() && j.present()) ReadSweep(w, j, o, base_dir);
  root.Finish();
  DLSIM_RETURN_IF_ERROR(doc.status());
  return o;
}

Result<ClusterOptions> LoadClusterScenarioFile(const std::string& path, const catalog::Catalogs& catalogs) {
  DLSIM_ASSIGN_OR_RETURN(std::string text, ReadTextFile(path));
  return ParseClusterScenario(text, path, catalogs, std::filesystem::path(path).parent_path().string());
}

Result<cluster::SweepSpec> ParseClusterSweep(std::string_view text, const std::string& file_name,
                                             const ClusterOptions& options, const std::string& base_dir) {
  DLSIM_ASSIGN_OR_RETURN(Document doc, ParseYaml(text, file_name));
  MapReader root = doc.Root();
  cluster::SweepSpec s = ReadSweep(root.Section("sweep"), root.Section("jobs"), options, base_dir);
  DLSIM_RETURN_IF_ERROR(doc.status());
  return s;
}

Result<cluster::SweepSpec> LoadClusterSweep(const std::string& path, const ClusterOptions& options) {
  DLSIM_ASSIGN_OR_RETURN(std::string text, ReadTextFile(path));
  return ParseClusterSweep(text, path, options, std::filesystem::path(path).parent_path().string());
}

std::string SummarizeClusterOptions(const ClusterOptions& o) {
  return fmt::format("{} on {} GPUs ({} nodes, {} GPU type{}); {} jobs; {} placement", o.policy,
                     o.cluster.total_gpus(), o.cluster.nodes().size(), o.cluster.gpu_types().size(),
                     o.cluster.gpu_types().size() == 1 ? "" : "s", o.jobs.size(), o.placement);
}

}  // namespace dlsim::io
