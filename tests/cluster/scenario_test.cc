// The cluster scenario reader: good scenarios, and bad ones with the file, line, key and range.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <iterator>
#include <nlohmann/json.hpp>
#include <string>

#include "dlsim/cluster/policies/goldminer.h"
#include "dlsim/cluster/simulate.h"
#include "dlsim/cluster/sweep.h"
#include "dlsim/cluster/synthetic.h"
#include "dlsim/io/catalog_loader.h"
#include "dlsim/io/cluster_scenario.h"

namespace dlsim::io {
namespace {

const catalog::Catalogs& Cat() {
  static const catalog::Catalogs* c = new catalog::Catalogs(LoadCatalogs({}).value());
  return *c;
}

const std::string kData = std::string(DLSIM_TEST_DATA_DIR) + "/cluster";

Result<cluster::ClusterOptions> Parse(const std::string& yaml) {
  return ParseClusterScenario(yaml, "c.yaml", Cat(), kData);
}

std::string ErrorOf(const std::string& yaml) {
  auto r = Parse(yaml);
  return r.ok() ? "(no error)" : r.error().message;
}

const std::string kNodes = "cluster:\n  nodes:\n    - {node: dgx-a100, count: 2}\n";

TEST(ClusterScenario, CatalogNodesAndAnInlineList) {
  auto o = Parse(kNodes +
                 "jobs:\n  list:\n    - {arrival_s: 0, gpus: 8, duration_s: 60}\n    - {arrival_s: 5, gpus: "
                 "16, duration_s: 10}\n"
                 "policy: {name: las, round_s: 30}\n");
  ASSERT_TRUE(o.ok()) << o.error().message;
  EXPECT_EQ(o->cluster.total_gpus(), 16);
  EXPECT_EQ(o->cluster.gpu_types()[0], "a100-sxm4-80gb");
  EXPECT_EQ(o->cluster.nodes()[0].cpu_milli, 128 * 1000);  // the catalog's dgx-a100
  EXPECT_EQ(o->jobs.size(), 2u);
  EXPECT_EQ(o->policy, "las");
  EXPECT_EQ(o->policy_params.round, Seconds(30));
  auto r = cluster::Simulate(*o, Cat(), nullptr);
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r->summary.completed, 2);
}

TEST(ClusterScenario, TraceFilesAndNodeLists) {
  auto o = Parse(
      "cluster: {node_list: nodes_small.csv}\njobs:\n  trace: {format: openb, file: openb_small.csv}\n");
  ASSERT_TRUE(o.ok()) << o.error().message;
  EXPECT_EQ(o->cluster.nodes().size(), 3u);
  EXPECT_EQ(o->jobs.size(), 3u);
  auto g = Parse(
      "cluster: {nodes: [{gpu: v100, gpus: 4, count: 2}]}\njobs: {trace: {format: tiresias, file: "
      "tiresias_small.csv}}\n");
  ASSERT_TRUE(g.ok()) << g.error().message;
  EXPECT_EQ(g->jobs[1].gpus, 8);
}

// A restart that costs a whole round under a preemptive round policy would never end (LAS preempts
// every job before it progresses): refused with the reason; FIFO never preempts, so it may.
TEST(ClusterScenario, RestartNotShorterThanTheRoundIsRefused) {
  const std::string jobs = "jobs: {list: [{gpus: 8, duration_s: 600}, {gpus: 8, duration_s: 600}]}\n";
  const std::string e = ErrorOf(kNodes + jobs + "policy: {name: las, round_s: 30, restart_overhead_s: 60}\n");
  EXPECT_NE(e.find("policy.restart_overhead_s"), std::string::npos) << e;
  EXPECT_NE(e.find("never progress"), std::string::npos) << e;
  // The seconds print as given, not as a double product of nanoseconds (30.000000000000004).
  const std::string equal =
      ErrorOf(kNodes + jobs + "policy: {name: las, round_s: 30, restart_overhead_s: 30}\n");
  EXPECT_NE(equal.find("30 s is not shorter than round_s (30 s)"), std::string::npos) << equal;
  EXPECT_TRUE(Parse(kNodes + jobs + "policy: {name: fifo, round_s: 30, restart_overhead_s: 60}\n").ok());
  EXPECT_TRUE(Parse(kNodes + jobs + "policy: {name: las, round_s: 120, restart_overhead_s: 60}\n").ok());
}

TEST(ClusterScenario, MissingSections) {
  EXPECT_NE(ErrorOf("jobs: {list: [{gpus: 1, duration_s: 1}]}\n").find("missing required section 'cluster'"),
            std::string::npos);
  EXPECT_NE(ErrorOf(kNodes).find("missing required section 'jobs'"), std::string::npos);
  EXPECT_NE(ErrorOf(kNodes + "jobs: {}\n").find("needs one of `trace`, `synthetic` or `list`"),
            std::string::npos);
  EXPECT_NE(
      ErrorOf("cluster: {}\njobs: {list: [{gpus: 1, duration_s: 1}]}\n").find("needs `nodes` or `node_list`"),
      std::string::npos);
}

TEST(ClusterScenario, NodeGroupErrorsAreLocated) {
  const std::string jobs = "jobs: {list: [{gpus: 1, duration_s: 1}]}\n";
  EXPECT_NE(ErrorOf("cluster:\n  nodes:\n    - {node: dgx-a10, count: 2}\n" + jobs).find("c.yaml:3"),
            std::string::npos);
  EXPECT_NE(
      ErrorOf("cluster:\n  nodes:\n    - {node: dgx-a10, count: 2}\n" + jobs).find("did you mean 'dgx-a100'"),
      std::string::npos);
  const std::string e = ErrorOf("cluster:\n  nodes:\n    - {gpu: v100, gpus: 65, count: 2}\n" + jobs);
  EXPECT_NE(e.find("c.yaml:3:"), std::string::npos) << e;
  EXPECT_NE(e.find("allowed: 0..64"), std::string::npos) << e;
  EXPECT_NE(ErrorOf("cluster:\n  nodes:\n    - {gpu: v100, count: 0}\n" + jobs).find("allowed: 1..1048576"),
            std::string::npos);
  EXPECT_NE(ErrorOf("cluster:\n  nodes:\n    - {count: 2}\n" + jobs).find("needs `node`"), std::string::npos);
}

TEST(ClusterScenario, JobListErrors) {
  EXPECT_NE(ErrorOf(kNodes + "jobs: {list: [{gpus: 1, duration_s: -1}]}\n").find("duration_s"),
            std::string::npos);
  EXPECT_NE(ErrorOf(kNodes + "jobs: {list: [{gpus: 1}]}\n").find("positive amount of work"),
            std::string::npos);
  const std::string t = ErrorOf(kNodes + "jobs: {list: [{gpus: 1, duration_s: 1, gpu_type: a10}]}\n");
  EXPECT_NE(t.find("unknown GPU type 'a10'"), std::string::npos) << t;
  const std::string s = ErrorOf(kNodes + "jobs: {list: [{gpus: 1, steps: 10, speed: llama}]}\n");
  EXPECT_NE(s.find("unknown speed entry 'llama'"), std::string::npos) << s;
}

// Hostile-input audit: each of these ran (exit 0) or gave an unlocated message.
TEST(ClusterScenario, NothingAskedForIsAnErrorAtItsKey) {
  EXPECT_EQ(
      ErrorOf(kNodes + "jobs: {list: [{arrival_s: 0, gpus: 0, duration_s: 10}]}\n"),
      "c.yaml:4:36: jobs.list[0].gpus: expected an integer, found '0'; allowed: 1..1048576 (a share of one "
      "GPU is gpus: 1 with gpu_milli)");
  EXPECT_EQ(ErrorOf(kNodes + "jobs: {synthetic: {jobs_per_hour: 0}}\n"),
            "c.yaml:4:35: jobs.synthetic.jobs_per_hour: expected a number, found '0'; allowed: > 0 and <= "
            "1000000000 (leave jobs_per_hour out to derive the rate from load)");
  EXPECT_EQ(ErrorOf(kNodes + "jobs: {list: []}\n"),
            "c.yaml:4:14: jobs.list: the list is empty; give at least one job");
  EXPECT_EQ(ErrorOf(kNodes + "jobs: {list: [{gpus: 1, duration_s: 1}]}\npolicy: {name: tiresias, "
                             "queue_thresholds: [5, 3, 1]}\n"),
            "c.yaml:5:44: policy.queue_thresholds: expected strictly increasing thresholds, found 3 after 5 "
            "(entry 2 "
            "of 3)");
}

// load: 1e-300 spread 1000 arrivals over 1e307 s and failed in the engine, naming no input.
TEST(ClusterScenario, SyntheticSpanBeyondTheClockIsAnErrorAtTheRateKey) {
  const std::string e = ErrorOf(kNodes + "jobs: {synthetic: {load: 1e-300}}\n");
  EXPECT_EQ(
      e.rfind("c.yaml:4:26: jobs.synthetic.load: 1000 jobs at 5.02235e-301 jobs per hour arrive over about ",
              0),
      0u)
      << e;
  EXPECT_NE(e.find("more than the 1000000000 s (31 years) a run may span; raise load or lower jobs"),
            std::string::npos)
      << e;
  EXPECT_NE(
      ErrorOf(kNodes + "jobs: {synthetic: {jobs: 10, jobs_per_hour: 1e-6}}\n")
          .find("jobs.synthetic.jobs_per_hour: 10 jobs at 1e-06 jobs per hour arrive over about 3.6e+10 s"),
      std::string::npos);
}

TEST(ClusterScenario, UnknownSpeedIsLocatedAtTheJobsSpeedKey) {
  EXPECT_EQ(
      ErrorOf(kNodes + "jobs:\n  list:\n    - {gpus: 1, duration_s: 1}\n    - {arrival_s: 0, gpus: 1, "
                       "steps: 100, speed: nope}\n"),
      "c.yaml:7:50: jobs.list[1].speed: unknown speed entry 'nope'; none is defined (job 1; speeds come "
      "from `jobs.throughputs` or `jobs.training`)");
}

TEST(ClusterScenario, TraceErrorsNameTheTraceFile) {
  const std::string e =
      ErrorOf(kNodes + "jobs:\n  trace: {format: philly, file: philly_small.csv, sort: false}\n");
  EXPECT_NE(e.find("c.yaml:5:"), std::string::npos) << e;
  EXPECT_NE(e.find("philly_small.csv:3: arrival"), std::string::npos) << e;
  EXPECT_NE(ErrorOf(kNodes + "jobs:\n  trace: {format: phily, file: x.csv}\n").find("did you mean 'philly'"),
            std::string::npos);
  EXPECT_NE(ErrorOf(kNodes + "jobs:\n  trace: {format: csv, file: missing.csv}\n").find("missing.csv"),
            std::string::npos);
  EXPECT_NE(ErrorOf(kNodes + "jobs:\n  trace: {format: csv}\n").find("a trace needs `file`"),
            std::string::npos);
  EXPECT_NE(
      ErrorOf(kNodes + "jobs:\n  trace: {format: csv, file: own.csv, load_scale: 0}\n").find("load_scale"),
      std::string::npos);
}

TEST(ClusterScenario, PolicyErrorsSuggest) {
  const std::string jobs = "jobs: {list: [{gpus: 1, duration_s: 1}]}\n";
  EXPECT_NE(ErrorOf(kNodes + jobs + "policy: {name: tiresas}\n").find("did you mean 'tiresias'"),
            std::string::npos);
  EXPECT_NE(ErrorOf(kNodes + jobs + "policy: {placement: packed}\n").find("unknown placement 'packed'"),
            std::string::npos);
  EXPECT_NE(ErrorOf(kNodes + jobs + "policy: {round_s: 0}\n").find("round_s"), std::string::npos);
  EXPECT_NE(ErrorOf(kNodes + jobs + "policy: {queue_thresholds: [-5]}\n").find("queue_thresholds"),
            std::string::npos);
  EXPECT_NE(ErrorOf(kNodes + jobs + "policy: {backfil: true}\n").find("did you mean 'backfill'"),
            std::string::npos);
  EXPECT_NE(
      ErrorOf(kNodes + jobs + "report: {measure_from: 5, measure_to: 2}\n").find("more than measure_from"),
      std::string::npos);
}

TEST(ClusterScenario, SyntheticLoadNeedsGpus) {
  auto o = Parse(kNodes + "jobs: {synthetic: {generator: gavel, jobs: 50, load: 0.5, seed: 3}}\n");
  ASSERT_TRUE(o.ok()) << o.error().message;
  EXPECT_EQ(o->jobs.size(), 50u);
  EXPECT_NE(ErrorOf(kNodes + "jobs: {synthetic: {jobs: 0}}\n").find("allowed: 1.."), std::string::npos);
  EXPECT_NE(ErrorOf(kNodes + "jobs: {synthetic: {generator: philly}}\n").find("generator"),
            std::string::npos);
}

// The Gavel reproduction: single-GPU jobs of the throughput table's types, steps on V100.
TEST(ClusterScenario, GavelSyntheticJobTypes) {
  auto o = LoadClusterScenarioFile(
      std::string(DLSIM_DATA_DIR) + "/scenarios/cluster_gavel_synthetic_hetero.yaml", Cat());
  ASSERT_TRUE(o.ok()) << o.error().message;
  EXPECT_EQ(o->cluster.total_gpus(), 108);
  EXPECT_EQ(o->policy, "gavel");
  EXPECT_EQ(o->policy_params.round, Seconds(360));
  for (const cluster::JobSpec& j : o->jobs) {
    ASSERT_TRUE(o->speeds->Contains(j.speed)) << j.speed;
    EXPECT_EQ(j.gpus, 1);
    EXPECT_EQ(j.priority, 1);
  }
  EXPECT_NE(ErrorOf(kNodes + "jobs: {synthetic: {jobs: 5, jobs_per_hour: 1, steps_on: v100}}\n")
                .find("need `throughputs:`"),
            std::string::npos);
}

// A training-scenario job: spread one GPU per node it is slower, and the speeds say why.
TEST(ClusterScenario, TrainingJobIsSlowerWhenSpread) {
  auto o =
      LoadClusterScenarioFile(std::string(DLSIM_DATA_DIR) + "/scenarios/cluster_training_jobs.yaml", Cat());
  ASSERT_TRUE(o.ok()) << o.error().message;
  auto packed = cluster::Simulate(*o, Cat(), nullptr);
  o->placement = "spread";
  auto spread = cluster::Simulate(*o, Cat(), nullptr);
  ASSERT_TRUE(packed.ok() && spread.ok());
  ASSERT_EQ(packed->summary.completed, 2);
  EXPECT_EQ(packed->jobs[0].nodes_spanned, 2);
  EXPECT_EQ(spread->jobs[0].nodes_spanned, 16);
  EXPECT_GT(spread->jobs[0].run_s, 1.5 * packed->jobs[0].run_s);
  ASSERT_EQ(spread->speeds.size(), 1u);
  const auto& shapes = spread->speeds[0].second;  // [1 x 16] and the reference [8, 8]
  ASSERT_EQ(shapes.size(), 2u);
  EXPECT_LT(shapes[0].steps_per_s, shapes[1].steps_per_s);
  EXPECT_NE(shapes[0].note.find("data-parallel"), std::string::npos) << shapes[0].note;
}

// The command line: a run that completes exits 0; one where no job can run exits 3 with the reason.
TEST(ClusterCli, ExitCodes) {
  const std::string dir = ::testing::TempDir();
  const std::string ok = dir + "/ok.yaml", none = dir + "/none.yaml";
  FILE* f = std::fopen(ok.c_str(), "w");
  std::fputs("cluster: {nodes: [{gpu: v100, gpus: 4, count: 1}]}\njobs: {list: [{gpus: 2, duration_s: 5}]}\n",
             f);
  std::fclose(f);
  f = std::fopen(none.c_str(), "w");
  std::fputs("cluster: {nodes: [{gpu: v100, gpus: 4, count: 1}]}\njobs: {list: [{gpus: 8, duration_s: 5}]}\n",
             f);
  std::fclose(f);
  const std::string bin = DLSIM_BINARY;
  EXPECT_EQ(WEXITSTATUS(std::system((bin + " cluster " + ok + " > /dev/null").c_str())), 0);
  EXPECT_EQ(WEXITSTATUS(std::system((bin + " cluster " + none + " > /dev/null 2>&1").c_str())), 3);
  EXPECT_EQ(
      WEXITSTATUS(std::system((bin + " cluster " + ok + " --compare fifo,bogus > /dev/null 2>&1").c_str())),
      1);
  EXPECT_EQ(WEXITSTATUS(std::system(
                (bin + " cluster " + ok + " --csv /nonexistent/dir/x.csv > /dev/null 2>&1").c_str())),
            1);
}

}  // namespace
}  // namespace dlsim::io

namespace dlsim::io {
namespace {

TEST(ClusterSweep, SameRowsWhateverTheThreadCount) {
  auto o = Parse(
      "cluster: {nodes: [{gpu: v100, gpus: 4, count: 4}]}\n"
      "jobs: {synthetic: {generator: gavel, jobs: 300, load: 1.0, seed: 1}}\n");
  ASSERT_TRUE(o.ok()) << o.error().message;
  cluster::SweepSpec s{.policies = {"fifo", "las"}, .load_scales = {0.5, 1}, .seeds = {1, 2}};
  s.regenerate = [](uint64_t seed) {
    return cluster::GenerateGavelMix({.jobs = 300, .load = 1.0, .cluster_gpus = 16, .seed = seed});
  };
  auto one = cluster::Sweep(*o, Cat(), s, 1);
  auto three = cluster::Sweep(*o, Cat(), s, 3);
  ASSERT_TRUE(one.ok() && three.ok());
  ASSERT_EQ(one->size(), 8u);
  for (size_t i = 0; i < one->size(); ++i) {
    EXPECT_EQ((*one)[i].policy, (*three)[i].policy);
    EXPECT_EQ((*one)[i].summary.jct_s.mean, (*three)[i].summary.jct_s.mean);
  }
  EXPECT_EQ((*one)[0].policy, "fifo");
  EXPECT_EQ((*one)[1].seed, 2u);
  EXPECT_NE((*one)[0].summary.jct_s.mean, (*one)[1].summary.jct_s.mean);  // seeds draw other jobs
  // Twice the load never shortens the mean queueing of the same jobs under FIFO here.
  EXPECT_GE((*one)[2].summary.queued_s.mean, (*one)[0].summary.queued_s.mean);
  s.policies = {"fifo", "lass"};
  auto bad = cluster::Sweep(*o, Cat(), s, 1);
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.error().message.find("did you mean 'las'"), std::string::npos) << bad.error().message;
  // A tiny load scale stretched the arrivals past the nanosecond clock (issue 35): the trace readers' rule.
  s.policies = {"fifo"};
  s.load_scales = {1e-12};
  auto stretched = cluster::Sweep(*o, Cat(), s, 1);
  ASSERT_FALSE(stretched.ok());
  EXPECT_NE(stretched.error().message.find("sweep: load scale 1e-12 puts job"), std::string::npos)
      << stretched.error().message;
}

// GoldMiner's inputs: NICs from the catalog, input classes drawn from the shipped cost table, a
// listed job's own class, the policy's keys, and the LR tuner table; bad ones name their key.
const std::string kDataDir = DLSIM_DATA_DIR;
const std::string kTestDataDir = DLSIM_TEST_DATA_DIR;

TEST(ClusterScenario, InputClassesNicsAndGoldMinerKeys) {
  auto o = Parse(
      "cluster:\n  nodes:\n    - {node: dgx-1v, count: 2}\n    - {gpu: v100, gpus: 4, cpu_cores: 8, "
      "nic_gbps: 80}\njobs:\n  input_classes: " +
      kDataDir +
      "/cluster/input_costs.csv\n  input_cost_scale: 2\n  list:\n    - {gpus: 2, duration_s: 60, "
      "input_class: image-light}\n    - {gpus: 1, duration_s: 60, input_core_s: 3, input_bytes: 5}\n"
      "policy: {name: goldminer, goldminer_worker_cores: 4, goldminer_equal_split: true}\n");
  ASSERT_TRUE(o.ok()) << o.error().message;
  EXPECT_DOUBLE_EQ(o->cluster.nodes()[0].nic_bytes_per_s, 4 * 100e9 / 8);  // dgx-1v: 4 x 100 Gb/s
  EXPECT_DOUBLE_EQ(o->cluster.nodes()[2].nic_bytes_per_s, 80e9 / 8);
  EXPECT_DOUBLE_EQ(o->jobs[0].input_core_s, 2 * 1301 * 0.0036 * 2);  // 2 GPUs x 1,301/s x 3.6 ms x scale 2
  EXPECT_DOUBLE_EQ(o->jobs[1].input_core_s, 3);
  EXPECT_DOUBLE_EQ(cluster::GoldMinerParams::From(o->policy_params.own).worker_cores, 4);
  EXPECT_TRUE(cluster::GoldMinerParams::From(o->policy_params.own).equal_split);
  auto r = cluster::Simulate(*o, Cat(), nullptr);
  ASSERT_TRUE(r.ok()) << r.error().message;
  EXPECT_EQ(r->summary.completed, 2);
}

TEST(ClusterScenario, TraceJobsDrawInputClassesAndLrTuners) {
  const std::string yaml = kNodes + "jobs:\n  input_classes: " + kDataDir +
                           "/cluster/input_costs.csv\n  synthetic: {generator: gavel, jobs: 200, seed: 2}\n"
                           "  lr_tuner: {name: autolrs, task: mlp-teacher-vs-cosine, table: " +
                           kTestDataDir + "/cluster/lr_tuner_steps.csv}\n";
  auto o = Parse(yaml);
  ASSERT_TRUE(o.ok()) << o.error().message;
  int with_input = 0;
  for (const cluster::JobSpec& j : o->jobs) with_input += j.input_core_s > 0;
  EXPECT_EQ(with_input, 200);  // every class has a CPU cost
  cluster::SyntheticOptions g;
  g.jobs = 200, g.seed = 2, g.cluster_gpus = 16;
  auto plain = cluster::GenerateGavelMix(g);
  ASSERT_TRUE(plain.ok());
  EXPECT_NEAR(o->jobs[0].work, (*plain)[0].work * 2.7907 * (1 + 1.05), 1e-6 * (*plain)[0].work);
  EXPECT_NE(ErrorOf(kNodes + "jobs:\n  list:\n    - {gpus: 1, duration_s: 5, input_class: video}\n")
                .find("needs `input_classes:`"),
            std::string::npos);
  EXPECT_NE(
      ErrorOf(kNodes + "jobs:\n  input_classes: " + kDataDir +
              "/cluster/input_costs.csv\n  list:\n    - {gpus: 1, duration_s: 5, input_class: vidoe-3dcnn}\n")
          .find("did you mean 'video-3dcnn'"),
      std::string::npos);
  EXPECT_NE(ErrorOf(kNodes +
                    "jobs:\n  synthetic: {generator: gavel, jobs: 5}\n  lr_tuner: {name: autolrs, task: "
                    "resnet, table: " +
                    kTestDataDir + "/cluster/lr_tuner_steps.csv}\n")
                .find("lr tuner/task"),
            std::string::npos);
}

TEST(ClusterScenario, SweepSeedsKeepTheInputClasses) {
  // A regression test: jobs regenerated per sweep seed carry the scenario's input classes too.
  const std::string path = ::testing::TempDir() + "/sweep_inputs.yaml";
  std::FILE* f = std::fopen(path.c_str(), "w");
  ASSERT_NE(f, nullptr);
  std::fputs((kNodes + "jobs:\n  input_classes: " + kDataDir +
              "/cluster/input_costs.csv\n  synthetic: {generator: gavel, jobs: 50}\nsweep: {seeds: [1, 2]}\n")
                 .c_str(),
             f);
  std::fclose(f);
  auto o = LoadClusterScenarioFile(path, Cat());
  ASSERT_TRUE(o.ok()) << o.error().message;
  auto s = LoadClusterSweep(path, *o);
  ASSERT_TRUE(s.ok()) << s.error().message;
  ASSERT_TRUE(s->regenerate);
  auto jobs = s->regenerate(2);
  ASSERT_TRUE(jobs.ok());
  for (const cluster::JobSpec& j : *jobs) EXPECT_GT(j.input_core_s, 0) << j.id;
}

}  // namespace
}  // namespace dlsim::io

namespace dlsim::io {
namespace {

TEST(ClusterScenario, ShippedLoaningScenariosParseAndRun) {
  for (const char* name : {"cluster_aryl.yaml", "cluster_easyscale.yaml"}) {
    auto o = LoadClusterScenarioFile(std::string(DLSIM_DATA_DIR) + "/scenarios/" + name, Cat());
    ASSERT_TRUE(o.ok()) << name << ": " << o.error().message;
    ASSERT_TRUE(o->capacity.has_value());
    EXPECT_EQ(o->capacity->pool.size(), std::string(name) == "cluster_aryl.yaml" ? 8u : 12u);
    EXPECT_EQ(o->capacity->period, Seconds(86400));
    // The GenAI curve at these capacities: the peak 10 minutes need the whole pool.
    int peak = 0;
    for (const cluster::DemandStep& s : o->capacity->demand) peak = std::max(peak, s.servers);
    EXPECT_EQ(peak, static_cast<int>(o->capacity->pool.size()));
  }
  auto aryl = LoadClusterScenarioFile(std::string(DLSIM_DATA_DIR) + "/scenarios/cluster_aryl.yaml", Cat());
  int elastic = 0;
  for (const cluster::JobSpec& j : aryl->jobs) elastic += cluster::IsElastic(j);
  EXPECT_NEAR(static_cast<double>(elastic) / aryl->jobs.size(), 0.3, 0.03);
}

TEST(ClusterScenario, LendablePoolErrorsAreLocated) {
  const std::string jobs = "jobs: {list: [{gpus: 1, duration_s: 1}]}\n";
  const std::string pool = "cluster:\n  lendable:\n    nodes: [{gpu: v100, gpus: 8, count: 2}]\n";
  EXPECT_NE(ErrorOf(pool + jobs).find("needs `demand"), std::string::npos) << ErrorOf(pool + jobs);
  const std::string bad_format = pool + "    demand: {file: demand.csv, format: rps}\n" + jobs;
  EXPECT_NE(ErrorOf(bad_format).find("expected 'servers'"), std::string::npos) << ErrorOf(bad_format);
  const std::string missing = pool + "    demand: {file: nope.csv}\n" + jobs;
  EXPECT_NE(ErrorOf(missing).find("nope.csv"), std::string::npos) << ErrorOf(missing);
  const std::string bad_reclaim = "cluster: {nodes: [{gpu: v100, gpus: 8, count: 2}]}\n" + jobs +
                                  "policy: {name: aryl, reclaim: cheapest}\n";
  EXPECT_NE(ErrorOf(bad_reclaim).find("'least-cost' or 'random'"), std::string::npos);
  const std::string bad_elastic =
      "cluster: {nodes: [{gpu: v100, gpus: 8, count: 2}]}\n"
      "jobs: {list: [{gpus: 1, duration_s: 1}], elastic: {fraction: 2}}\n";
  EXPECT_NE(ErrorOf(bad_elastic).find("fraction"), std::string::npos) << ErrorOf(bad_elastic);
}

std::string ReadAll(const std::string& path) {
  std::ifstream f(path);
  return std::string(std::istreambuf_iterator<char>(f), {});
}

// The sweep's JSON is one object like every command's: the sweep that ran, a row per point in sweep order,
// the dlsim version and the resolved inputs (issue 36).
TEST(ClusterCli, SweepJsonCarriesTheSweepTheRowsAndTheInputs) {
  const std::string dir = ::testing::TempDir(), file = dir + "/sweep_json.yaml";
  std::ofstream(file) << "cluster: {nodes: [{gpu: v100, gpus: 4, count: 2}]}\n"
                         "jobs: {synthetic: {generator: gavel, jobs: 40, load: 0.8, seed: 1}}\n"
                         "policy: {name: fifo}\n"
                         "sweep: {policies: [fifo, las], load_scales: [1], seeds: [1, 2]}\n";
  const std::string out = dir + "/sweep.json";
  ASSERT_EQ(
      std::system(
          (std::string(DLSIM_BINARY) + " cluster " + file + " --sweep --json --quiet > " + out).c_str()),
      0);
  const auto j = nlohmann::json::parse(ReadAll(out));
  ASSERT_TRUE(j.is_object());
  EXPECT_EQ(j["sweep"]["policies"], nlohmann::json({"fifo", "las"}));
  EXPECT_EQ(j["sweep"]["seeds"], nlohmann::json({1, 2}));
  EXPECT_TRUE(j["sweep"]["jobs_drawn_per_seed"].get<bool>());
  ASSERT_EQ(j["rows"].size(), 4u);
  EXPECT_EQ(j["rows"][0]["policy"], "fifo");
  EXPECT_EQ(j["rows"][3]["policy"], "las");
  EXPECT_EQ(j["rows"][3]["seed"], 2);
  EXPECT_FALSE(j["dlsim_version"].get<std::string>().empty());
  EXPECT_EQ(j["inputs"]["policy"]["name"], "fifo");
}

// Determinism across ranks: `mpirun -n 2 dlsim cluster FILE --sweep` prints the same bytes as one
// process (ctest runs it as cluster_mpi_two_ranks when built with MPI; 27 points, so the ranks
// hold different counts).
TEST(ClusterCli, MpiSweepTwoRanksEqualsOneProcess) {
  const char* mpirun = std::getenv("DLSIM_MPIRUN");
  if (mpirun == nullptr || *mpirun == '\0') GTEST_SKIP() << "DLSIM_MPIRUN not set (built without MPI)";
  const std::string dir = ::testing::TempDir(), file = dir + "/mpi_sweep.yaml";
  std::ofstream(file)
      << "cluster: {nodes: [{gpu: v100, gpus: 4, count: 4}]}\n"
         "jobs: {synthetic: {generator: gavel, jobs: 300, load: 0.9, seed: 1}}\n"
         "policy: {name: fifo, restart_overhead_s: 10}\n"
         "sweep: {policies: [fifo, las, tiresias], load_scales: [0.75, 1, 1.25], seeds: [1, 2, 3]}\n";
  const std::string run =
      std::string(DLSIM_BINARY) + " cluster " + file + " --sweep --json --threads 1 --quiet";
  ASSERT_EQ(std::system((run + " > " + dir + "/one.json").c_str()), 0);
  ASSERT_EQ(std::system((std::string(mpirun) + " -n 2 --oversubscribe " + run + " > " + dir +
                         "/two.json 2> " + dir + "/two.err")
                            .c_str()),
            0)
      << ReadAll(dir + "/two.err");
  EXPECT_NE(ReadAll(dir + "/two.err").find("2 MPI ranks"), std::string::npos) << ReadAll(dir + "/two.err");
  const std::string one = ReadAll(dir + "/one.json");
  EXPECT_NE(one.find("tiresias"), std::string::npos);
  EXPECT_EQ(one, ReadAll(dir + "/two.json"));
}

}  // namespace
}  // namespace dlsim::io
