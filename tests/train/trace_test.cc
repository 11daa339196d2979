// The step trace is Chrome trace JSON with a process per pipeline rank and a thread per stream.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <set>
#include <sstream>

#include "dlsim/report/chrome_trace_sink.h"
#include "dlsim/train/step_sim.h"

namespace dlsim::train {
namespace {

TEST(StepTraceTest, ParsesWithProcessPerRankAndThreadPerStream) {
  PipelineScheduleRegistry reg("pipeline-schedule");
  RegisterPipelineSchedules(reg);
  StepProgram prog;
  prog.shape = {4, 1, 8};
  prog.orders = {*(*reg.Create("1f1b"))->Order(prog.shape)};
  prog.task_cost = [](int, int, const PipeTask& t) {
    TaskCost c;
    c.compute = Micros(t.forward ? 100 : 200);
    return c;
  };
  prog.p2p = Micros(5);
  prog.buckets = {{GradBucket{0, 1.0, Micros(50)}},
                  {GradBucket{0, 1.0, Micros(50)}},
                  {GradBucket{0, 1.0, Micros(50)}},
                  {GradBucket{0, 1.0, Micros(50)}}};
  prog.optimizer = {Micros(10), Micros(10), Micros(10), Micros(10)};
  std::ostringstream out;
  report::ChromeTraceSink sink(out);
  ASSERT_TRUE(sink.Begin({"test", "train", {}}).ok());
  SimulateStep(prog, &sink);
  ASSERT_TRUE(sink.Finish().ok());
  const nlohmann::json j = nlohmann::json::parse(out.str());
  ASSERT_TRUE(j.contains("traceEvents"));
  std::set<std::string> processes, threads;
  int compute_spans = 0, sends = 0;
  for (const auto& e : j["traceEvents"]) {
    if (e["ph"] == "M" && e["name"] == "process_name") processes.insert(e["args"]["name"].get<std::string>());
    if (e["ph"] == "M" && e["name"] == "thread_name") threads.insert(e["args"]["name"].get<std::string>());
    if (e["ph"] == "X" && (e["cat"] == "forward" || e["cat"] == "backward")) ++compute_spans;
    if (e["ph"] == "X" && e["cat"] == "pp") ++sends;
  }
  EXPECT_EQ(processes, (std::set<std::string>{"pipeline rank 0", "pipeline rank 1", "pipeline rank 2",
                                              "pipeline rank 3"}));
  EXPECT_EQ(threads, (std::set<std::string>{"compute", "p2p", "dp-comm"}));
  EXPECT_EQ(compute_spans, 2 * 8 * 4);
  EXPECT_EQ(sends, 2 * 8 * 3);  // activations forward and gradients back over 3 links
}

}  // namespace
}  // namespace dlsim::train
