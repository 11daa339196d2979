#include "dlsim/report/chrome_trace_sink.h"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>

namespace dlsim::report {
namespace {

using nlohmann::json;

TimePoint At(int64_t ns) { return TimePoint::FromNanos(ns); }

// A small step: one node, two streams, two kernels, a counter and an instant.
void PublishStep(Sink& sink) {
  sink.OnProcessName({.process = 0, .name = "node0", .sort_index = 0});
  sink.OnThreadName({.process = 0, .thread = 3, .name = "gpu3 compute", .sort_index = 6});
  sink.OnThreadName({.process = 0, .thread = 4, .name = "gpu3 tp-comm", .sort_index = 7});
  sink.OnSpan({.process = 0,
               .thread = 3,
               .name = "fwd L0",
               .category = "compute",
               .start = At(1234567),
               .duration = Nanos(2500),
               .args = {{"flops", 1.5e12}, {"microbatch", int64_t{4}}}});
  sink.OnSpan({.process = 0,
               .thread = 4,
               .name = "all-reduce",
               .category = "tp",
               .start = At(1237067),
               .duration = Nanos(1000),
               .args = {{"bytes", int64_t{1} << 30}, {"overlapped", true}}});
  sink.OnCounter({.process = 0, .name = "hbm used", .time = At(1000), .value = 0.25});
  sink.OnInstant({.process = 0,
                  .thread = 3,
                  .name = "step end",
                  .category = "step",
                  .time = At(2000000),
                  .scope = InstantScope::kProcess});
}

std::string Trace(const RunInfo& run = {.name = "demo", .command = "train"}) {
  std::ostringstream out;
  ChromeTraceSink sink(out);
  EXPECT_TRUE(sink.Begin(run).ok());
  PublishStep(sink);
  EXPECT_TRUE(sink.Finish().ok());
  EXPECT_EQ(sink.events_written(), 10u);  // 2 + 2 + 2 metadata, 2 spans, 1 counter, 1 instant
  return out.str();
}

TEST(ChromeTraceSinkTest, IsValidJsonWithExpectedEvents) {
  json doc = json::parse(Trace());
  EXPECT_EQ(doc["displayTimeUnit"], "ns");
  EXPECT_EQ(doc["otherData"]["name"], "demo");
  EXPECT_EQ(doc["otherData"]["command"], "train");
  const json& ev = doc["traceEvents"];
  ASSERT_EQ(ev.size(), 10u);

  EXPECT_EQ(ev[0], json::parse(R"({"ph":"M","pid":1,"name":"process_name","args":{"name":"node0"}})"));
  EXPECT_EQ(ev[1], json::parse(R"({"ph":"M","pid":1,"name":"process_sort_index","args":{"sort_index":0}})"));
  EXPECT_EQ(ev[2],
            json::parse(R"({"ph":"M","pid":1,"tid":4,"name":"thread_name","args":{"name":"gpu3 compute"}})"));
  EXPECT_EQ(ev[3],
            json::parse(R"({"ph":"M","pid":1,"tid":4,"name":"thread_sort_index","args":{"sort_index":6}})"));
  EXPECT_EQ(ev[4]["args"]["name"], "gpu3 tp-comm");
  EXPECT_EQ(ev[5]["args"]["sort_index"], 7);

  const json& fwd = ev[6];
  EXPECT_EQ(fwd["ph"], "X");
  EXPECT_EQ(fwd["pid"], 1);  // ids are shifted by one: Perfetto reserves 0
  EXPECT_EQ(fwd["tid"], 4);
  EXPECT_EQ(fwd["name"], "fwd L0");
  EXPECT_EQ(fwd["cat"], "compute");
  EXPECT_DOUBLE_EQ(fwd["ts"].get<double>(), 1234.567);
  EXPECT_DOUBLE_EQ(fwd["dur"].get<double>(), 2.5);
  EXPECT_DOUBLE_EQ(fwd["args"]["flops"].get<double>(), 1.5e12);
  EXPECT_EQ(fwd["args"]["microbatch"], 4);
  EXPECT_EQ(ev[7]["args"]["bytes"], int64_t{1} << 30);
  EXPECT_EQ(ev[7]["args"]["overlapped"], true);

  EXPECT_EQ(ev[8], json::parse(R"({"ph":"C","pid":1,"ts":1,"name":"hbm used","args":{"value":0.25}})"));
  EXPECT_EQ(ev[9]["ph"], "i");
  EXPECT_EQ(ev[9]["s"], "p");
  EXPECT_EQ(ev[9]["ts"], 2000);
}

TEST(ChromeTraceSinkTest, MicrosecondsAreExactText) {
  const std::string text = Trace();
  EXPECT_NE(text.find(R"("ts":1234.567,"dur":2.5,)"), std::string::npos) << text;
  EXPECT_NE(text.find(R"("ts":1237.067,"dur":1,)"), std::string::npos) << text;
}

TEST(ChromeTraceSinkTest, TimeConversionTable) {
  struct Case {
    int64_t ns;
    const char* text;
  };
  const Case cases[] = {{0, "0"},
                        {1, "0.001"},
                        {10, "0.01"},
                        {999, "0.999"},
                        {1000, "1"},
                        {1001, "1.001"},
                        {1234567, "1234.567"},
                        {-1, "-0.001"},
                        {-1500, "-1.5"},
                        {std::numeric_limits<int64_t>::min(), "-9223372036854775.808"}};
  for (const Case& c : cases) {
    std::ostringstream out;
    ChromeTraceSink sink(out);
    ASSERT_TRUE(sink.Begin({}).ok());
    sink.OnCounter({.process = 0, .name = "x", .time = At(c.ns), .value = 1});
    ASSERT_TRUE(sink.Finish().ok());
    EXPECT_NE(out.str().find(std::string("\"ts\":") + c.text + ","), std::string::npos)
        << c.ns << " -> " << out.str();
  }
}

TEST(ChromeTraceSinkTest, SameEventsGiveIdenticalBytes) {
  RunInfo run{.name = "det", .command = "train", .metadata = {{"seed", int64_t{42}}, {"version", "0.1.0"}}};
  const std::string a = Trace(run);
  const std::string b = Trace(run);
  EXPECT_EQ(a, b);
  EXPECT_EQ(json::parse(a)["otherData"]["seed"], 42);
}

TEST(ChromeTraceSinkTest, EmptyTraceIsValid) {
  std::ostringstream out;
  ChromeTraceSink sink(out);
  ASSERT_TRUE(sink.Begin({}).ok());
  ASSERT_TRUE(sink.Finish().ok());
  json doc = json::parse(out.str());
  EXPECT_TRUE(doc["traceEvents"].is_array());
  EXPECT_TRUE(doc["traceEvents"].empty());
}

TEST(ChromeTraceSinkTest, EscapesStringsAndReplacesInvalidUtf8) {
  std::ostringstream out;
  ChromeTraceSink sink(out);
  ASSERT_TRUE(sink.Begin({}).ok());
  sink.OnSpan({.name = "a\"b\\c\nd\x01",
               .category = "µ",
               .args = {{"bad", std::string("x\xff"
                                            "y")}}});
  ASSERT_TRUE(sink.Finish().ok());
  json doc = json::parse(out.str());  // throws on invalid UTF-8 or bad escapes
  EXPECT_EQ(doc["traceEvents"][0]["name"], "a\"b\\c\nd\x01");
  EXPECT_EQ(doc["traceEvents"][0]["cat"], "µ");
  EXPECT_EQ(doc["traceEvents"][0]["args"]["bad"], "x\xEF\xBF\xBDy");  // U+FFFD
}

TEST(ChromeTraceSinkTest, InvalidUtf8SequencesBecomeReplacementCharacters) {
  const std::string kFffd = "\xEF\xBF\xBD";
  struct Case {
    std::string in;
    std::string out;
  };
  const Case cases[] = {
      {"\xE2\x82\xAC", "\xE2\x82\xAC"},                     // € is valid
      {"a\xE2\x82", "a" + kFffd + kFffd},                   // truncated at the end
      {"\xED\xA0\x80", kFffd + kFffd + kFffd},              // a UTF-16 surrogate
      {"\xC0\xAF", kFffd + kFffd},                          // overlong '/'
      {"\xF4\x90\x80\x80", kFffd + kFffd + kFffd + kFffd},  // above U+10FFFF
      {"\x1f\x7f", "\x1f\x7f"},                             // control characters round-trip
  };
  for (const Case& c : cases) {
    std::ostringstream out;
    ChromeTraceSink sink(out);
    ASSERT_TRUE(sink.Begin({}).ok());
    sink.OnInstant({.name = c.in});
    ASSERT_TRUE(sink.Finish().ok());
    json doc = json::parse(out.str());
    EXPECT_EQ(doc["traceEvents"][0]["name"].get<std::string>(), c.out) << out.str();
  }
}

TEST(ChromeTraceSinkTest, NonFiniteCounterIsNull) {
  std::ostringstream out;
  ChromeTraceSink sink(out);
  ASSERT_TRUE(sink.Begin({}).ok());
  sink.OnCounter({.name = "nan", .value = std::nan("")});
  sink.OnCounter({.name = "inf", .value = std::numeric_limits<double>::infinity()});
  ASSERT_TRUE(sink.Finish().ok());
  json doc = json::parse(out.str());
  EXPECT_TRUE(doc["traceEvents"][0]["args"]["value"].is_null());
  EXPECT_TRUE(doc["traceEvents"][1]["args"]["value"].is_null());
}

TEST(ChromeTraceSinkTest, StreamsBeforeFinish) {
  std::ostringstream out;
  ChromeTraceSink sink(out);
  ASSERT_TRUE(sink.Begin({}).ok());
  const int n = 20000;
  for (int i = 0; i < n; ++i) {
    sink.OnSpan({.process = 0, .thread = i % 8, .name = "k", .start = At(i * 100), .duration = Nanos(50)});
  }
  // Most of the trace has reached the stream already; only a bounded buffer is pending.
  const size_t before_finish = out.str().size();
  EXPECT_GT(before_finish, 500000u);
  ASSERT_TRUE(sink.Finish().ok());
  EXPECT_LT(out.str().size() - before_finish, 70000u);
  EXPECT_EQ(json::parse(out.str())["traceEvents"].size(), static_cast<size_t>(n));
}

TEST(ChromeTraceSinkTest, FailedStreamIsReported) {
  std::ostringstream out;
  out.setstate(std::ios::badbit);
  ChromeTraceSink sink(out);
  EXPECT_FALSE(sink.Begin({}).ok());

  std::ostringstream later;
  ChromeTraceSink sink2(later);
  ASSERT_TRUE(sink2.Begin({}).ok());
  sink2.OnSpan({.name = "x"});
  later.setstate(std::ios::badbit);
  Status st = sink2.Finish();
  ASSERT_FALSE(st.ok());
  EXPECT_NE(st.error().message.find("trace"), std::string::npos);
}

}  // namespace
}  // namespace dlsim::report
