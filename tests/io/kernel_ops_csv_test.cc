// The `dlsim kernels` operator CSV (io/kernel_ops_csv.h): rows of every kind with their defaults, and
// bad cells named by file, line and column.
#include "dlsim/io/kernel_ops_csv.h"

#include <gtest/gtest.h>

#include <string>

namespace dlsim::io {
namespace {

const char kHeader[] =
    "op,dtype,m,n,k,batch,heads,kv_heads,seq_q,seq_kv,head_dim,causal,backend,bytes,measured_ms\n";

std::string ErrorOf(const std::string& rows) {
  auto r = ParseKernelOpsCsv(std::string(kHeader) + rows, "ops.csv");
  return r.ok() ? "" : r.error().message;
}

TEST(KernelOpsCsv, ReadsEveryKindWithItsDefaults) {
  auto ops = ParseKernelOpsCsv(std::string("# a comment\n") + kHeader +
                                   "gemm,fp8,16,32,64,,,,,,,,,,0.01\n"
                                   "attention_fwd,,,,,2,32,8,4096,,128,false,cudnn,,\n"
                                   "attention_bwd,,,,,1,16,,512,1024,64,,,,\n"
                                   "elementwise,,,,,,,,,,,,,1e9,0.3\n",
                               "ops.csv");
  ASSERT_TRUE(ops.ok()) << ops.error().message;
  ASSERT_EQ(ops->size(), 4u);
  const auto& g = (*ops)[0];
  EXPECT_EQ(g.dtype, hw::DType::kFp8);
  EXPECT_EQ(g.gemm.m * 10000 + g.gemm.n * 100 + g.gemm.k, 16 * 10000 + 32 * 100 + 64);
  EXPECT_EQ(g.gemm.batch, 1);
  EXPECT_DOUBLE_EQ(*g.measured_ms, 0.01);
  const auto& a = (*ops)[1].attention;
  EXPECT_EQ((*ops)[1].dtype, hw::DType::kBf16);
  EXPECT_EQ(a.kv_heads, 8);
  EXPECT_EQ(a.seq_kv, 4096);  // defaults to seq_q
  EXPECT_FALSE(a.causal);
  EXPECT_EQ((*ops)[1].backend, "cudnn");
  EXPECT_EQ(a.backend, cost::AttentionBackend::kCudnn);
  EXPECT_EQ((*ops)[2].attention.backend, cost::AttentionBackend::kModel);  // empty cell
  EXPECT_FALSE((*ops)[1].measured_ms.has_value());
  EXPECT_EQ((*ops)[2].attention.kv_heads, 16);  // defaults to heads
  EXPECT_TRUE((*ops)[2].attention.causal);
  EXPECT_EQ((*ops)[2].attention.seq_kv, 1024);
  EXPECT_DOUBLE_EQ((*ops)[3].bytes.ToBytes(), 1e9);
}

TEST(KernelOpsCsv, BadCellsAreNamedByFileLineAndColumn) {
  EXPECT_EQ(ErrorOf("conv,,1,1,1,,,,,,,,,,\n"),
            "ops.csv:2:1: column 'op': expected gemm, attention_fwd, attention_bwd, attention_fwd_bwd or "
            "elementwise, found 'conv'");
  EXPECT_EQ(ErrorOf("gemm,,16,2.5,16,,,,,,,,,,\n"),
            "ops.csv:2:10: column 'n': expected a whole number in 1..16777216, found 2.5");
  EXPECT_EQ(ErrorOf("gemm,,16,,16,,,,,,,,,,\n"), "ops.csv:2:10: column 'n' is required for op 'gemm'");
  EXPECT_EQ(ErrorOf("gemm,bf17,16,16,16,,,,,,,,,,\n"),
            "ops.csv:2:6: column 'dtype': expected fp32, tf32, fp16, bf16, fp8 or int8, found 'bf17'");
  EXPECT_EQ(ErrorOf("attention_fwd,,,,,1,32,5,128,,128,,,,\n"),
            "ops.csv:2:24: column 'kv_heads': 5 does not divide heads (32)");
  EXPECT_EQ(ErrorOf("attention_fwd,,,,,1,32,8,128,,128,maybe,,,\n"),
            "ops.csv:2:35: column 'causal': expected true or false, found maybe");
  EXPECT_EQ(
      ErrorOf("attention_fwd,,,,,1,32,8,128,,128,,flash3,,\n"),
      "ops.csv:2:36: column 'backend': expected model, default, flash, cudnn, efficient, triton or math, "
      "found 'flash3'");
  EXPECT_EQ(ErrorOf("elementwise,,,,,,,,,,,,,-5,\n"),
            "ops.csv:2:25: column 'bytes': expected a number in (0, 1e+15], found -5");
  EXPECT_EQ(ErrorOf("gemm,,16,16,16,,,,,,,,,,0\n"),
            "ops.csv:2:25: column 'measured_ms': expected a number in (0, 1e+07], found 0");
  EXPECT_NE(ErrorOf("gemm,,1e400,16,16,,,,,,,,,,\n").find("column 'm'"), std::string::npos);
  EXPECT_NE(ErrorOf("gemm,,99999999999,16,16,,,,,,,,,,\n").find("1..16777216"), std::string::npos);
  auto empty = ParseKernelOpsCsv(kHeader, "ops.csv");
  ASSERT_FALSE(empty.ok());
  EXPECT_EQ(empty.error().message, "ops.csv: no operator rows (a header and at least one row)");
  auto no_op = ParseKernelOpsCsv("m,n,k\n1,2,3\n", "ops.csv");
  ASSERT_FALSE(no_op.ok());
  EXPECT_NE(no_op.error().message.find("op"), std::string::npos);
}

// An optional `window` column prices a sliding-window kernel (issue 37); it needs a causal row.
TEST(KernelOpsCsv, SlidingWindowColumn) {
  const std::string header = "op,heads,seq_q,head_dim,causal,window\n";
  auto ops =
      ParseKernelOpsCsv(header + "attention_fwd,32,8192,128,,4096\nattention_fwd,32,8192,128,,\n", "ops.csv");
  ASSERT_TRUE(ops.ok()) << ops.error().message;
  EXPECT_EQ((*ops)[0].attention.window, 4096);
  EXPECT_EQ((*ops)[1].attention.window, 0);
  auto bidirectional = ParseKernelOpsCsv(header + "attention_fwd,32,8192,128,false,4096\n", "ops.csv");
  ASSERT_FALSE(bidirectional.ok());
  EXPECT_EQ(bidirectional.error().message,
            "ops.csv:2:33: column 'window': a sliding window is a causal kernel's, and 'causal' is false");
  auto negative = ParseKernelOpsCsv(header + "attention_fwd,32,8192,128,,-1\n", "ops.csv");
  ASSERT_FALSE(negative.ok());
  EXPECT_NE(negative.error().message.find("column 'window': expected a whole number in 0.."),
            std::string::npos)
      << negative.error().message;
}

}  // namespace
}  // namespace dlsim::io
