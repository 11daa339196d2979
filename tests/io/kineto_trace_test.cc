// io::ReadKinetoTrace on a real profiled step (a trimmed copy of the project's H200 trace of a Llama 3.2 1B
// autocast step) and on small synthetic traces: operators joined to their kernels by External id whatever the
// event order, the GPU's busy time, and every malformed input an error that names the file and what is wrong.
#include "dlsim/io/kineto_trace.h"

#include <gtest/gtest.h>
#include <zlib.h>

#include <string>

#include "dlsim/io/gzip.h"

namespace dlsim::io {
namespace {

const std::string kTrace =
    std::string(DLSIM_TEST_DATA_DIR) + "/traces/llama-3.2-1b_amp_2x2048.trimmed.json.gz";

TEST(KinetoTrace, ReadsARealProfiledStep) {
  auto s = ReadKinetoTrace(kTrace);
  ASSERT_TRUE(s.ok()) << s.error().message;
  EXPECT_EQ(s->device, "NVIDIA H200");
  ASSERT_TRUE(s->causal.has_value());
  EXPECT_TRUE(*s->causal);
  EXPECT_EQ(s->kernels, 1753);  // kernels 1629 + memsets 124
  EXPECT_DOUBLE_EQ(s->unlinked_gpu_us, 0);
  // The first up-projection of the forward: [2 x 2048 tokens, hidden 2048] x [2048, 8192], bf16 under
  // autocast.
  int up = 0;
  for (const auto& op : s->ops)
    if (op.name == "aten::mm" && op.dims.size() == 2 && op.dims[0] == std::vector<int64_t>{4096, 2048} &&
        op.dims[1] == std::vector<int64_t>{2048, 8192}) {
      ++up;
      EXPECT_EQ(op.types[0], "c10::BFloat16");
    }
  EXPECT_EQ(up, 16);  // one per layer of the 16
  EXPECT_NEAR(s->gpu_busy_us / 1e3, 91.53, 0.01);
  EXPECT_LE(s->gpu_busy_us, s->gpu_span_us);
  ASSERT_TRUE(s->optimizer_start_us.has_value());
}

std::string Event(const std::string& cat, const std::string& name, double ts, double dur, int id) {
  return "{\"ph\":\"X\",\"cat\":\"" + cat + "\",\"name\":\"" + name + "\",\"ts\":" + std::to_string(ts) +
         ",\"dur\":" + std::to_string(dur) + ",\"args\":{\"External id\":" + std::to_string(id) +
         ",\"Input Dims\":[[8,4],[4,2]],\"Input type\":[\"float\",\"float\"]}}";
}

TEST(KinetoTrace, JoinsKernelsToTheirOperatorInAnyOrder) {
  // Two kernels of one operator (listed before it), one kernel of nothing, overlapping GPU intervals.
  const std::string text = "{\"traceEvents\":[" + Event("kernel", "k1", 10, 5, 7) + "," +
                           Event("kernel", "k2", 12, 6, 7) + "," + Event("kernel", "nccl", 30, 2, 99) + "," +
                           Event("cpu_op", "aten::mm", 1, 3, 7) + "]}";
  auto s = ParseKinetoTrace(text, "t.json");
  ASSERT_TRUE(s.ok()) << s.error().message;
  ASSERT_EQ(s->ops.size(), 1u);
  EXPECT_DOUBLE_EQ(s->ops[0].gpu_us, 11);
  EXPECT_EQ(s->ops[0].kernels, 2);
  EXPECT_EQ(s->ops[0].first_kernel, "k1");
  EXPECT_EQ(s->ops[0].dims[0], (std::vector<int64_t>{8, 4}));
  EXPECT_DOUBLE_EQ(s->unlinked_gpu_us, 2);
  EXPECT_DOUBLE_EQ(s->gpu_busy_us, 8 + 2);  // [10, 18) and [30, 32)
  EXPECT_DOUBLE_EQ(s->gpu_span_us, 22);
}

void ExpectError(const std::string& text, const std::string& part) {
  auto s = ParseKinetoTrace(text, "bad.json");
  ASSERT_FALSE(s.ok()) << text;
  EXPECT_NE(s.error().message.find("bad.json"), std::string::npos) << s.error().message;
  EXPECT_NE(s.error().message.find(part), std::string::npos) << s.error().message;
}

TEST(KinetoTrace, MalformedTracesAreErrorsNamingWhatIsWrong) {
  ExpectError("{\"traceEvents\": [1, 2,", "bad.json:1:");
  ExpectError("{\"events\": []}", "no 'traceEvents' list");
  ExpectError("{\"traceEvents\": [{\"ts\": 1e400}]}", "number overflow");  // found by fuzz_kineto_trace
  ExpectError("{\"traceEvents\":[{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"k\",\"ts\":1,\"dur\":\"5\"}]}",
              "traceEvents[0] ('k'): 'dur' is not a number");
  ExpectError("{\"traceEvents\":[" + Event("cpu_op", "aten::mm", 1, 3, 7) + "]}", "no GPU kernels");
  ExpectError("{\"traceEvents\":[{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"k\",\"ts\":1,\"dur\":2}]}",
              "record_shapes=True");
}

// Fields of the wrong type are skipped or named, never thrown: nlohmann's value() throws on a present field
// of another type, which once aborted the reader on `"ph": 1` or `"name": 5`.
TEST(KinetoTrace, FieldsOfTheWrongTypeNeitherThrowNorAbort) {
  ExpectError(
      "{\"traceEvents\":[{\"ph\":1,\"cat\":[],\"name\":5}," + Event("cpu_op", "aten::mm", 1, 3, 7) + "]}",
      "no GPU kernels");
  ExpectError("{\"traceEvents\":[{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":5,\"ts\":1,\"dur\":\"2\"}]}",
              "'dur' is not a number");
  ExpectError(
      "{\"deviceProperties\":[{\"name\":3}],\"traceEvents\":[{\"ph\":\"X\",\"cat\":\"cpu_op\",\"ts\":1,"
      "\"name\":{}}]}",
      "no GPU kernels");
}

TEST(KinetoTrace, TruncatedGzipIsAnError) {
  std::string gz(256, '\0');
  uLongf n = gz.size();
  const std::string plain = "{\"traceEvents\": []}";
  z_stream z{};
  ASSERT_EQ(deflateInit2(&z, 9, Z_DEFLATED, 16 + MAX_WBITS, 8, Z_DEFAULT_STRATEGY), Z_OK);
  z.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(plain.data()));
  z.avail_in = plain.size();
  z.next_out = reinterpret_cast<Bytef*>(gz.data());
  z.avail_out = n;
  ASSERT_EQ(deflate(&z, Z_FINISH), Z_STREAM_END);
  gz.resize(z.total_out);
  deflateEnd(&z);
  auto whole = Gunzip(gz, "t.json.gz", 1 << 20);
  ASSERT_TRUE(whole.ok());
  EXPECT_EQ(*whole, plain);
  auto cut = Gunzip(gz.substr(0, gz.size() / 2), "t.json.gz", 1 << 20);
  ASSERT_FALSE(cut.ok());
  EXPECT_NE(cut.error().message.find("t.json.gz: not a complete gzip file"), std::string::npos);
  auto big = Gunzip(gz, "t.json.gz", 4);
  ASSERT_FALSE(big.ok());
  EXPECT_NE(big.error().message.find("decompresses to more than"), std::string::npos);
}

}  // namespace
}  // namespace dlsim::io
