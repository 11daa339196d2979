#include "dlsim/report/sink.h"

#include <gtest/gtest.h>

#include <memory>
#include <string>
#include <vector>

#include "dlsim/report/recording_sink.h"

namespace dlsim::report {
namespace {

// A sink whose Begin or Finish fails, to check how SinkSet propagates errors.
class FailingSink final : public Sink {
 public:
  FailingSink(bool fail_begin, bool fail_finish) : fail_begin_(fail_begin), fail_finish_(fail_finish) {}
  Status Begin(const RunInfo&) override {
    if (fail_begin_) return Error::Internal("begin failed");
    return Status::Ok();
  }
  void OnProcessName(const ProcessName&) override {}
  void OnThreadName(const ThreadName&) override {}
  void OnSpan(const SpanEvent&) override {}
  void OnCounter(const CounterEvent&) override {}
  void OnInstant(const InstantEvent&) override {}
  Status Finish() override {
    ++finish_calls;
    if (fail_finish_) return Error::Internal("finish failed");
    return Status::Ok();
  }
  int finish_calls = 0;

 private:
  bool fail_begin_;
  bool fail_finish_;
};

void PublishOneOfEach(Sink& sink) {
  sink.OnProcessName({.process = 1, .name = "node0", .sort_index = 0});
  sink.OnThreadName({.process = 1, .thread = 2, .name = "gpu0 compute", .sort_index = 0});
  sink.OnSpan({.process = 1,
               .thread = 2,
               .name = "fwd",
               .category = "compute",
               .start = TimePoint::FromNanos(10),
               .duration = Nanos(5),
               .args = {{"mb", int64_t{3}}}});
  sink.OnCounter({.process = 1, .name = "mem", .time = TimePoint::FromNanos(12), .value = 2.5});
  sink.OnInstant({.process = 1, .thread = 2, .name = "step", .time = TimePoint::FromNanos(15)});
}

TEST(SinkSetTest, FansOutEveryCallInOrder) {
  RecordingSink a;
  SinkSet set;
  set.Add(a);
  RecordingSink& b = static_cast<RecordingSink&>(set.Add(std::make_unique<RecordingSink>()));
  EXPECT_EQ(set.size(), 2u);

  ASSERT_TRUE(set.Begin({.name = "run", .command = "train"}).ok());
  PublishOneOfEach(set);
  ASSERT_TRUE(set.Finish().ok());

  const std::vector<std::string> expected = {"Begin",     "OnProcessName", "OnThreadName", "OnSpan",
                                             "OnCounter", "OnInstant",     "Finish"};
  for (const RecordingSink* s : {&a, &b}) {
    EXPECT_EQ(s->calls(), expected);
    EXPECT_EQ(s->run().name, "run");
    ASSERT_EQ(s->spans().size(), 1u);
    EXPECT_EQ(s->spans()[0].name, "fwd");
    EXPECT_EQ(s->spans()[0].start.ToNanos(), 10);
    EXPECT_EQ(std::get<int64_t>(s->spans()[0].args[0].second), 3);
    ASSERT_EQ(s->counters().size(), 1u);
    EXPECT_DOUBLE_EQ(s->counters()[0].value, 2.5);
    EXPECT_EQ(s->thread_names()[0].name, "gpu0 compute");
    EXPECT_TRUE(s->finished());
  }
}

TEST(SinkSetTest, BeginStopsAtFirstFailure) {
  FailingSink bad(/*fail_begin=*/true, /*fail_finish=*/false);
  RecordingSink after;
  SinkSet set;
  set.Add(bad);
  set.Add(after);
  Status st = set.Begin({});
  ASSERT_FALSE(st.ok());
  EXPECT_EQ(st.error().message, "begin failed");
  EXPECT_FALSE(after.begun());
}

TEST(SinkSetTest, FinishFinishesAllAndReturnsFirstError) {
  FailingSink first(false, true);
  FailingSink second(false, true);
  SinkSet set;
  set.Add(first);
  set.Add(second);
  ASSERT_TRUE(set.Begin({}).ok());
  Status st = set.Finish();
  ASSERT_FALSE(st.ok());
  EXPECT_EQ(st.error().message, "finish failed");
  EXPECT_EQ(first.finish_calls, 1);
  EXPECT_EQ(second.finish_calls, 1);
}

TEST(SinkSetTest, EmptySetAndNullSinkSucceed) {
  SinkSet empty;
  NullSink null_sink;
  for (Sink* s : std::vector<Sink*>{&empty, &null_sink}) {
    ASSERT_TRUE(s->Begin({}).ok());
    PublishOneOfEach(*s);
    EXPECT_TRUE(s->Finish().ok());
  }
}

}  // namespace
}  // namespace dlsim::report
