// Trace readers: each format's columns, sorting and shifting, and one located error per bad row.
#include "dlsim/cluster/trace.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdlib>
#include <fstream>
#include <sstream>

#include "dlsim/catalog/catalogs.h"
#include "dlsim/cluster/simulate.h"
#include "dlsim/cluster/synthetic.h"

namespace dlsim::cluster {
namespace {

std::string Read(const std::string& name) {
  std::ifstream f(std::string(DLSIM_TEST_DATA_DIR) + "/cluster/" + name);
  std::stringstream s;
  s << f.rdbuf();
  return s.str();
}

ClusterSpec TwoTypes() {
  ClusterSpec c;
  c.AddNodes("a", "v100", 2, 4, 0, 0, 0);
  c.AddNodes("b", "k80", 2, 4, 0, 0, 0);
  return c;
}

Result<std::vector<JobSpec>> Parse(std::string_view text, TraceFormat f, TraceOptions o = {}) {
  o.format = f;
  return ParseTrace(text, "t.csv", o, TwoTypes());
}

std::string ErrorOf(std::string_view text, TraceFormat f, TraceOptions o = {}) {
  auto r = Parse(text, f, o);
  return r.ok() ? "(no error)" : r.error().message;
}

TEST(ParseTimestamp, MatchesKnownEpochSeconds) {
  EXPECT_EQ(ParseTimestamp("1970-01-01 00:00:00"), 0);
  EXPECT_EQ(ParseTimestamp("2017-10-09 07:01:55"), 1507532515);  // date -u -d ... +%s
  EXPECT_EQ(ParseTimestamp("2000-02-29 12:00:00"), 951825600);
  EXPECT_FALSE(ParseTimestamp("2017-13-01 00:00:00"));
  EXPECT_FALSE(ParseTimestamp("2017-10-09"));
  EXPECT_FALSE(ParseTimestamp("2017-10-09 07:01:55x"));
  EXPECT_FALSE(ParseTimestamp("2017-02-30 00:00:00"));  // no such calendar day
  EXPECT_FALSE(ParseTimestamp("2017-04-31 00:00:00"));
  EXPECT_FALSE(ParseTimestamp("1900-02-29 00:00:00"));
  EXPECT_FALSE(ParseTimestamp("2100-02-29 00:00:00"));
  EXPECT_EQ(ParseTimestamp("2016-02-29 00:00:00"), 1456704000);
}

TEST(PhillyTrace, SortsShiftsAndSkipsZeroDurations) {
  auto jobs = Parse(Read("philly_small.csv"), TraceFormat::kPhilly);
  ASSERT_TRUE(jobs.ok()) << jobs.error().message;
  ASSERT_EQ(jobs->size(), 3u);  // the 0 s row is dropped
  EXPECT_EQ((*jobs)[0].arrival.ToSeconds(), 0);
  EXPECT_DOUBLE_EQ((*jobs)[0].work, 2951);
  EXPECT_EQ((*jobs)[0].group, "6214e9");
  EXPECT_DOUBLE_EQ((*jobs)[1].arrival.ToSeconds(), 48 * 60 + 52);  // 07:01:55 - 06:13:03
  EXPECT_EQ((*jobs)[2].gpus, 8);
  EXPECT_EQ((*jobs)[2].id, 2);
  // Kept with skip_zero_duration: false, the 0 s row failed in the engine with no location (issue 35).
  const std::string kept =
      ErrorOf(Read("philly_small.csv"), TraceFormat::kPhilly, {.skip_zero_duration = false});
  EXPECT_NE(kept.find("t.csv:"), std::string::npos) << kept;
  EXPECT_NE(kept.find("the job has no work (duration 0)"), std::string::npos) << kept;
}

TEST(PhillyTrace, GroupFilterAndLoadScale) {
  TraceOptions o;
  o.group = "6214e9";
  o.load_scale = 2;
  auto jobs = Parse(Read("philly_small.csv"), TraceFormat::kPhilly, o);
  ASSERT_TRUE(jobs.ok());
  ASSERT_EQ(jobs->size(), 2u);
  EXPECT_DOUBLE_EQ((*jobs)[1].arrival.ToSeconds(), (3600 + 46 * 60 + 57) / 2.0);
}

TEST(PhillyTrace, UnsortedRowsAreAnErrorWithSortFalse) {
  TraceOptions o;
  o.sort = false;
  const std::string e = ErrorOf(Read("philly_small.csv"), TraceFormat::kPhilly, o);
  EXPECT_NE(e.find("t.csv:3: arrival"), std::string::npos) << e;
  EXPECT_NE(e.find("line 2"), std::string::npos) << e;
  EXPECT_NE(e.find("sort: true"), std::string::npos) << e;
}

TEST(PhillyTrace, BadCellsAreLocated) {
  const std::string h = "timestamp,duration,num_gpus,gpu_time,cluster\n";
  EXPECT_NE(
      ErrorOf(h + "2017-10-09 07:01:55,-5,1,0,a\n", TraceFormat::kPhilly).find("t.csv:2: column 'duration'"),
      std::string::npos);
  EXPECT_NE(ErrorOf(h + "2017-10-09 07:01:55,5,1.5,0,a\n", TraceFormat::kPhilly).find("expected an integer"),
            std::string::npos);
  EXPECT_NE(ErrorOf(h + "yesterday,5,1,0,a\n", TraceFormat::kPhilly).find("column 'timestamp'"),
            std::string::npos);
  EXPECT_EQ(
      ErrorOf(h + "2017-02-30 00:00:00,5,1,0,a\n", TraceFormat::kPhilly),
      "t.csv:2: column 'timestamp': expected a 'YYYY-MM-DD HH:MM:SS' date (a real calendar date, year 1970 "
      "or later) or seconds in 0..100000000000, found '2017-02-30 00:00:00'");
  EXPECT_NE(ErrorOf("timestamp,num_gpus\n", TraceFormat::kPhilly).find("missing column 'duration'"),
            std::string::npos);
  EXPECT_NE(ErrorOf(h, TraceFormat::kPhilly).find("no jobs"), std::string::npos);
  EXPECT_NE(ErrorOf(h + "2017-10-09 07:01:55,1e300,1,0,a\n", TraceFormat::kPhilly)
                .find("in 0..1000000000, found '1e300'"),
            std::string::npos);
}

TEST(TiresiasTrace, KeepsIdsAndModels) {
  auto jobs = Parse(Read("tiresias_small.csv"), TraceFormat::kTiresias);
  ASSERT_TRUE(jobs.ok()) << jobs.error().message;
  ASSERT_EQ(jobs->size(), 3u);
  EXPECT_EQ((*jobs)[1].id, 1);
  EXPECT_EQ((*jobs)[1].gpus, 8);
  EXPECT_EQ((*jobs)[1].name, "vgg11");
  EXPECT_DOUBLE_EQ((*jobs)[2].arrival.ToSeconds(), 53);
}

TEST(GavelTrace, ReadsBothForms) {
  auto seven = Parse(Read("gavel7.trace"), TraceFormat::kGavel);
  ASSERT_TRUE(seven.ok()) << seven.error().message;
  EXPECT_EQ((*seven)[1].gpus, 2);
  EXPECT_DOUBLE_EQ((*seven)[1].work, 10000);
  EXPECT_EQ((*seven)[1].speed, "Recommendation (batch size 8192)");
  EXPECT_DOUBLE_EQ((*seven)[1].arrival.ToSeconds(), 6);
  auto ten = Parse(Read("gavel10.trace"), TraceFormat::kGavel);
  ASSERT_TRUE(ten.ok()) << ten.error().message;
  EXPECT_EQ((*ten)[0].gpus, 4);
  EXPECT_DOUBLE_EQ((*ten)[0].priority, 1);
  EXPECT_DOUBLE_EQ((*ten)[0].work, 9000);
}

TEST(GavelTrace, WrongFieldCountIsLocated) {
  const std::string e = ErrorOf("a\tb\tc\n", TraceFormat::kGavel);
  EXPECT_NE(e.find("t.csv:1: expected 7 or 10 tab-separated fields, found 3"), std::string::npos) << e;
  const std::string f = ErrorOf("T\tc\t-s\t1\tmany\t0\t1\n", TraceFormat::kGavel);
  EXPECT_NE(f.find("field 'total_steps'"), std::string::npos) << f;
}

TEST(OpenbTrace, SharesTypesAndHostRequests) {
  ClusterSpec nodes = ParseNodeList(Read("nodes_small.csv"), "nodes.csv", 0).value();
  ASSERT_EQ(nodes.nodes().size(), 3u);
  EXPECT_EQ(nodes.total_gpus(), 10);
  EXPECT_EQ(nodes.nodes()[1].cpu_milli, 96000);
  TraceOptions o;
  o.format = TraceFormat::kOpenb;
  auto jobs = ParseTrace(Read("openb_small.csv"), "pods.csv", o, nodes);
  ASSERT_TRUE(jobs.ok()) << jobs.error().message;
  ASSERT_EQ(jobs->size(), 3u);
  const JobSpec& shared = (*jobs)[2];  // p1, created at 10
  EXPECT_EQ(shared.gpu_milli, 460);
  EXPECT_DOUBLE_EQ(shared.work, 38);  // deletion 50 - scheduled 12
  ASSERT_EQ(shared.gpu_types.size(), 1u);
  EXPECT_EQ(nodes.gpu_types()[shared.gpu_types[0]], "V100M32");
  EXPECT_EQ((*jobs)[1].gpus, 0);  // p2: CPU only
}

TEST(OpenbTrace, UnknownGpuTypeSuggests) {
  const std::string pods =
      "name,cpu_milli,memory_mib,num_gpu,gpu_milli,gpu_spec,qos,pod_phase,creation_time,deletion_time,"
      "scheduled_time\n"
      "p,1,1,1,1000,v10,LS,Running,0,5,0\n";
  const std::string e = ErrorOf(pods, TraceFormat::kOpenb);
  EXPECT_NE(e.find("t.csv:2: column 'gpu_spec': unknown GPU type 'v10' (did you mean 'v100'?)"),
            std::string::npos)
      << e;
}

TEST(OwnCsv, TypesAndRequiredColumns) {
  auto jobs = Parse(Read("own.csv"), TraceFormat::kCsv);
  ASSERT_TRUE(jobs.ok()) << jobs.error().message;
  EXPECT_EQ((*jobs)[1].gpu_types, std::vector<int>{1});
  EXPECT_EQ((*jobs)[1].name, "b");
  EXPECT_NE(ErrorOf("arrival_s,gpus\n0,1\n", TraceFormat::kCsv).find("needs a 'duration_s' column"),
            std::string::npos);
  EXPECT_NE(ErrorOf("arrival_s,gpus,duration_s\n0,1,0\n", TraceFormat::kCsv).find("column 'duration_s'"),
            std::string::npos);
}

TEST(NodeList, BadRowsAreLocated) {
  auto e = ParseNodeList("sn,cpu_milli,memory_mib,gpu,model\nn,1,1,100,V100\n", "n.csv", 0);
  ASSERT_FALSE(e.ok());
  EXPECT_NE(e.error().message.find("n.csv:2: column 'gpu': expected an integer in 0..64"), std::string::npos)
      << e.error().message;
  EXPECT_FALSE(ParseNodeList("sn,cpu_milli,memory_mib,gpu,model\n", "n.csv", 0).ok());
  EXPECT_FALSE(ParseNodeList("sn,gpu\nn,1\n", "n.csv", 0).ok());
}

// A draw (and a run) beyond the machine's memory is refused before it is made, from the measured 640 bytes
// per job.
TEST(GavelMix, ADrawBeyondTheMachinesMemoryIsRefusedFirst) {
  setenv("DLSIM_MEMORY_GIB", "1", 1);
  SyntheticOptions o;
  o.jobs = 2000000;  // about 1.2 GiB
  o.load = 0.5;
  o.cluster_gpus = 100000;
  auto jobs = GenerateGavelMix(o);
  ASSERT_FALSE(jobs.ok());
  EXPECT_NE(
      jobs.error().message.find("synthetic jobs: 2000000: the run needs about 1.19 GiB (640 bytes per job "
                                "measured), more than 80% of this machine's 1 GiB"),
      std::string::npos)
      << jobs.error().message;
  o.jobs = 1000;
  ClusterOptions c;
  c.cluster.AddNodes("n", "v100", 1, 8, 0, 0, 0);
  c.jobs = GenerateGavelMix(o).value();
  c.jobs.resize(1);
  const JobSpec one = c.jobs[0];
  setenv("DLSIM_MEMORY_GIB", "0.1", 1);
  c.jobs.assign(200000, one);  // a trace this long (0.12 GiB): refused by the simulator's own check
  for (size_t i = 0; i < c.jobs.size(); ++i) c.jobs[i].id = static_cast<int64_t>(i);
  catalog::Catalogs none;
  auto r = Simulate(c, none, nullptr);
  unsetenv("DLSIM_MEMORY_GIB");
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.error().message.find("200000 jobs: the run needs about 0.119 GiB"), std::string::npos)
      << r.error().message;
}

TEST(GavelMix, MeanLoadMatchesTheClosedForm) {
  SyntheticOptions o;
  o.jobs = 20000;
  o.load = 0.5;
  o.cluster_gpus = 100;
  auto jobs = GenerateGavelMix(o).value();
  double gpu_s = 0;
  for (const JobSpec& j : jobs) gpu_s += j.gpus * j.work;
  const double span = jobs.back().arrival.ToSeconds();
  EXPECT_NEAR(gpu_s / span / 100, 0.5, 0.05);  // offered load
  EXPECT_NEAR(gpu_s / jobs.size(), GavelMixMeanGpuSeconds(), 0.05 * GavelMixMeanGpuSeconds());
  EXPECT_EQ(GenerateGavelMix(o).value()[777].work, jobs[777].work);  // seeded
}

// Gavel's job types: a type that runs on the job's GPU count on the reference GPU, steps =
// duration x its speed there; "b" has no multi-GPU entry, so multi-GPU jobs are all "a".
TEST(GavelMix, JobTypesFromTheThroughputTable) {
  auto table = std::make_shared<ThroughputTable>();
  for (int g : {1, 2, 4, 8}) table->steps_per_s[{"a", "v100", g, true}] = 10.0 * g;
  table->steps_per_s[{"b", "v100", 1, true}] = 4;
  table->steps_per_s[{"b", "k80", 1, true}] = 1;
  table->job_types = {"a", "b"};
  SyntheticOptions o;
  o.jobs = 400;
  o.jobs_per_hour = 10;
  o.job_types = table;
  auto jobs = GenerateGavelMix(o).value();
  int b = 0;
  for (const JobSpec& j : jobs) {
    ASSERT_TRUE(j.speed == "a" || j.speed == "b");
    if (j.gpus > 1) {
      EXPECT_EQ(j.speed, "a");
    }
    b += j.speed == "b";
    const double duration = j.work / table->steps_per_s.at({j.speed, "v100", j.gpus, true});
    EXPECT_GE(duration, 60 * std::pow(10, 1.5) - 1e-6);
    EXPECT_LE(duration, 60 * std::pow(10, 4) + 1e-6);
  }
  EXPECT_GT(b, 100);  // about half the 1-GPU jobs
  o.multi_gpu = o.multi_priority = false;
  const std::vector<JobSpec> single = GenerateGavelMix(o).value();  // not a range over a temporary's value()
  for (const JobSpec& j : single) EXPECT_TRUE(j.gpus == 1 && j.priority == 1);
  o.reference_gpu = "a100";  // no type runs there
  EXPECT_NE(GenerateGavelMix(o).error().message.find("no type of the throughput table runs on 1 x a100"),
            std::string::npos);
}

}  // namespace
}  // namespace dlsim::cluster

namespace dlsim::cluster {
namespace {

// Fuzzing found: a year-4034 timestamp put one job 2,000 years after the others; the utilisation
// series then stepped through 2,000 years hour by hour. A trace may span 31 years.
TEST(PhillyTrace, FuzzRegressionASpanBeyondThirtyYearsIsAnError) {
  const std::string t =
      "timestamp,duration,num_gpus,gpu_time,cluster\n4034-10-09 07:01:55,66.0,1,66.0,a\n"
      "2017-10-09 06:13:03,2951.0,1,2951.0,b\n";
  const std::string e = ErrorOf(t, TraceFormat::kPhilly);
  EXPECT_NE(e.find("t.csv:2: this job arrives"), std::string::npos) << e;
  EXPECT_NE(e.find("at most 1000000000 s (31 years)"), std::string::npos) << e;
}

TEST(ClusterEngineLimits, WorkBeyondTheClockIsAnErrorNotAHang) {
  ClusterOptions o;
  o.cluster.AddNodes("n", "gpu", 1, 1, 0, 0, 0);
  for (int i = 0; i < 6; ++i) {
    JobSpec j;
    j.id = i;
    j.work = 1e9;  // 31 years each, one after the other: 190 years in all
    o.jobs.push_back(j);
  }
  catalog::Catalogs none;
  auto r = Simulate(o, none, nullptr);
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.error().message.find("146 years"), std::string::npos) << r.error().message;
}

// Philly's raw job log: arrival at submission, the first attempt's GPUs (over all its machines), work the
// attempts' run time summed; jobs that never ran (no attempt, no times) are left out.
TEST(PhillyLogTrace, JobsFromAttempts) {
  const auto jobs = Parse(Read("philly_job_log.json"), TraceFormat::kPhillyLog);
  ASSERT_TRUE(jobs.ok()) << jobs.error().message;
  ASSERT_EQ(jobs->size(), 3u);
  const JobSpec& first = (*jobs)[0];  // submitted 2017-10-06 23:50:00, the earliest
  EXPECT_EQ(first.name, "application_1506638472019_14200");
  EXPECT_EQ(first.gpus, 4);  // 2 machines x 2 GPUs
  EXPECT_DOUBLE_EQ(first.work, 1800);
  EXPECT_DOUBLE_EQ(first.arrival.ToSeconds(), 0);
  EXPECT_EQ((*jobs)[1].gpus, 8);
  EXPECT_DOUBLE_EQ((*jobs)[1].work, 74 + 7200);  // two attempts; the 7 s between them is not work
  EXPECT_DOUBLE_EQ((*jobs)[1].arrival.ToSeconds(), 3600 + 21 * 60 + 39);  // 23:50:00 to 01:11:39
  EXPECT_EQ((*jobs)[1].group, "ee9e8c");
  EXPECT_DOUBLE_EQ((*jobs)[2].work, 600);  // the attempt still running at the snapshot (end None) counts 0
  TraceOptions vc;
  vc.group = "ee9e8c";
  EXPECT_EQ(Parse(Read("philly_job_log.json"), TraceFormat::kPhillyLog, vc)->size(), 2u);
}

TEST(PhillyLogTrace, BadLogsAreNamed) {
  EXPECT_NE(ErrorOf("{\"jobs\": []}", TraceFormat::kPhillyLog).find("expected a JSON array"),
            std::string::npos);
  EXPECT_NE(ErrorOf("[{", TraceFormat::kPhillyLog).find("not valid JSON"), std::string::npos);
  const std::string e = ErrorOf(
      "[{\"jobid\": \"a\", \"submitted_time\": \"2017-10-07 01:00:00\", \"attempts\": [{\"start_time\": "
      "\"yesterday\", \"end_time\": \"None\", \"detail\": []}]}]",
      TraceFormat::kPhillyLog);
  EXPECT_NE(
      e.find(
          "t.csv: job 1.attempts[0].start_time: expected 'YYYY-MM-DD HH:MM:SS' or None, found 'yesterday'"),
      std::string::npos)
      << e;
  EXPECT_NE(
      ErrorOf("[{\"jobid\": \"a\", \"attempts\": []}]", TraceFormat::kPhillyLog).find("no submitted_time"),
      std::string::npos);
}

// Alibaba PAI's task table: a job's tasks with GPUs are one job over their span, GPUs = sum of inst_num x
// plan_gpu / 100 (a share below one GPU is gpu_milli); tasks not launched or not ended, or without GPUs, left
// out.
TEST(PaiTrace, TasksBecomeJobs) {
  ClusterSpec c = TwoTypes();
  c.AddNodes("t", "T4", 1, 2, 0, 0, 0);
  TraceOptions o;
  o.format = TraceFormat::kPai;
  const auto jobs = ParseTrace(Read("pai_task_table.csv"), "pai_task_table.csv", o, c);
  ASSERT_TRUE(jobs.ok()) << jobs.error().message;
  ASSERT_EQ(jobs->size(), 3u);
  EXPECT_EQ((*jobs)[0].name, "4f057009a5d481acec67b088");
  EXPECT_EQ((*jobs)[0].gpus, 1);
  EXPECT_EQ((*jobs)[0].gpu_milli, 500);  // plan_gpu 50: half a GPU
  EXPECT_DOUBLE_EQ((*jobs)[0].work, 38);
  EXPECT_TRUE((*jobs)[0].gpu_types.empty());  // MISC: not a type of this cluster
  EXPECT_EQ((*jobs)[1].gpus, 8);              // 4 instances x 200
  EXPECT_EQ((*jobs)[1].gpu_types, std::vector<int>{*c.FindGpuType("T4")});
  EXPECT_DOUBLE_EQ((*jobs)[1].arrival.ToSeconds(), 1800000 - 1739162);
  EXPECT_EQ((*jobs)[2].gpus, 2);  // the worker's 2 x 100; the ps has no GPU
  EXPECT_DOUBLE_EQ((*jobs)[2].work, 500);
  // The .header line may head the file.
  EXPECT_EQ(
      Parse("job_name,task_name,inst_num,status,start_time,end_time,plan_cpu,plan_mem,plan_gpu,gpu_type\n" +
                Read("pai_task_table.csv"),
            TraceFormat::kPai)
          ->size(),
      3u);
}

TEST(PaiTrace, BadRowsAreLocated) {
  EXPECT_NE(ErrorOf("a,b,1\n", TraceFormat::kPai).find("t.csv:1: expected the 10 columns of pai_task_table"),
            std::string::npos);
  const std::string e = ErrorOf("j,w,1,Terminated,10,20,1,1,-5,V100\n", TraceFormat::kPai);
  EXPECT_NE(e.find("t.csv:1: column 'plan_gpu': expected a number in 0..1000000, found '-5'"),
            std::string::npos)
      << e;
  TraceOptions vc;
  vc.group = "x";
  EXPECT_NE(ErrorOf("j,w,1,Terminated,10,20,1,1,100,V100\n", TraceFormat::kPai, vc).find("leave `group` out"),
            std::string::npos);
}

}  // namespace
}  // namespace dlsim::cluster
