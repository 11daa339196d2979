// The `dlsim kernels` operator list; see the header.
#include "dlsim/io/kernel_ops_csv.h"

#include <fmt/format.h>

#include <cmath>
#include <optional>

#include "dlsim/core/csv.h"
#include "dlsim/io/yaml_reader.h"

namespace dlsim::io {
namespace {

constexpr double kMaxDim = 1 << 24;  // a GEMM side or a sequence of 16M: beyond any real kernel

// One row's cells, each read by name; an empty or missing column is absent.
class RowReader {
 public:
  RowReader(const CsvTable& t, size_t row) : t_(t), row_(row) {}

  std::optional<std::string> Text(std::string_view col) const {
    Result<size_t> c = t_.Column(col);
    if (!c.ok() || t_.rows[row_][*c].empty()) return std::nullopt;
    return t_.rows[row_][*c];
  }
  // A whole number in lo..hi, or `def` when absent.
  Result<int64_t> Whole(std::string_view col, std::optional<int64_t> def, double lo = 1,
                        double hi = kMaxDim) const {
    if (!Text(col)) {
      if (def) return *def;
      return Error::Parse(Here(col) + ": column '" + std::string(col) + "' is required for op '" + Op() +
                          "'");
    }
    DLSIM_ASSIGN_OR_RETURN(double v, t_.Number(row_, col));
    if (v != std::floor(v) || v < lo || v > hi)
      return Error::Parse(fmt::format("{}: column '{}': expected a whole number in {:.0f}..{:.0f}, found {}",
                                      Here(col), col, lo, hi, *Text(col)));
    return static_cast<int64_t>(v);
  }
  // A positive number up to hi, or nullopt when absent.
  Result<std::optional<double>> Positive(std::string_view col, double hi) const {
    if (!Text(col)) return std::optional<double>();
    DLSIM_ASSIGN_OR_RETURN(double v, t_.Number(row_, col));
    if (!(v > 0) || v > hi)
      return Error::Parse(fmt::format("{}: column '{}': expected a number in (0, {:g}], found {}", Here(col),
                                      col, hi, *Text(col)));
    return std::optional<double>(v);
  }
  std::string Here(std::string_view col) const {
    Result<size_t> c = t_.Column(col);
    return c.ok() ? t_.Where(row_, *c) : fmt::format("{}:{}", t_.file_name, t_.row_lines[row_]);
  }
  std::string Op() const { return Text("op").value_or(""); }

 private:
  const CsvTable& t_;
  size_t row_;
};

Result<bool> ReadCausal(const RowReader& r) {
  const std::optional<std::string> c = r.Text("causal");
  if (!c || *c == "true" || *c == "1" || *c == "True") return true;
  if (*c == "false" || *c == "0" || *c == "False") return false;
  return Error::Parse(r.Here("causal") + ": column 'causal': expected true or false, found " + *c);
}

Status ReadAttention(const RowReader& r, cost::AttentionShape& a) {
  DLSIM_ASSIGN_OR_RETURN(a.batch, r.Whole("batch", 1));
  DLSIM_ASSIGN_OR_RETURN(a.heads, r.Whole("heads", std::nullopt, 1, 4096));
  DLSIM_ASSIGN_OR_RETURN(a.kv_heads, r.Whole("kv_heads", a.heads, 1, 4096));
  if (a.heads % a.kv_heads != 0)
    return Error::Parse(fmt::format("{}: column 'kv_heads': {} does not divide heads ({})",
                                    r.Here("kv_heads"), a.kv_heads, a.heads));
  DLSIM_ASSIGN_OR_RETURN(a.seq_q, r.Whole("seq_q", std::nullopt));
  DLSIM_ASSIGN_OR_RETURN(a.seq_kv, r.Whole("seq_kv", a.seq_q));
  DLSIM_ASSIGN_OR_RETURN(a.head_dim, r.Whole("head_dim", std::nullopt, 1, 1024));
  DLSIM_ASSIGN_OR_RETURN(a.causal, ReadCausal(r));
  DLSIM_ASSIGN_OR_RETURN(a.window, r.Whole("window", 0, 0));
  if (a.window > 0 && !a.causal)
    return Error::Parse(r.Here("window") +
                        ": column 'window': a sliding window is a causal kernel's, and "
                        "'causal' is false");
  return Status::Ok();
}

Status ReadShape(const RowReader& r, cost::KernelOp& op) {
  switch (op.kind) {
    case cost::KernelOpKind::kGemm: {
      DLSIM_ASSIGN_OR_RETURN(op.gemm.m, r.Whole("m", std::nullopt));
      DLSIM_ASSIGN_OR_RETURN(op.gemm.n, r.Whole("n", std::nullopt));
      DLSIM_ASSIGN_OR_RETURN(op.gemm.k, r.Whole("k", std::nullopt));
      DLSIM_ASSIGN_OR_RETURN(op.gemm.batch, r.Whole("batch", 1));
      return Status::Ok();
    }
    case cost::KernelOpKind::kElementwise: {
      DLSIM_ASSIGN_OR_RETURN(std::optional<double> b, r.Positive("bytes", 1e15));
      if (!b) return Error::Parse(r.Here("bytes") + ": column 'bytes' is required for op 'elementwise'");
      op.bytes = Bytes(*b);
      return Status::Ok();
    }
    default:
      return ReadAttention(r, op.attention);
  }
}

Result<cost::KernelOp> ReadRow(const CsvTable& t, size_t row) {
  const RowReader r(t, row);
  cost::KernelOp op;
  const std::optional<cost::KernelOpKind> kind = cost::ParseKernelOpKind(r.Op());
  if (!kind)
    return Error::Parse(
        r.Here("op") +
        ": column 'op': expected gemm, attention_fwd, attention_bwd, attention_fwd_bwd or elementwise, "
        "found '" +
        r.Op() + "'");
  op.kind = *kind;
  const std::string dtype = r.Text("dtype").value_or("bf16");
  const std::optional<hw::DType> dt = hw::ParseDType(dtype);
  if (!dt)
    return Error::Parse(r.Here("dtype") +
                        ": column 'dtype': expected fp32, tf32, fp16, bf16, fp8 or int8, found '" + dtype +
                        "'");
  op.dtype = *dt;
  DLSIM_RETURN_IF_ERROR(ReadShape(r, op));
  op.backend = r.Text("backend").value_or("");
  if (!op.backend.empty()) {
    const std::optional<cost::AttentionBackend> b = cost::ParseAttentionBackend(op.backend);
    if (!b)
      return Error::Parse(
          r.Here("backend") +
          ": column 'backend': expected model, default, flash, cudnn, efficient, triton or math, found '" +
          op.backend + "'");
    op.attention.backend = *b;
  }
  DLSIM_ASSIGN_OR_RETURN(op.measured_ms, r.Positive("measured_ms", 1e7));
  return op;
}

}  // namespace

Result<std::vector<cost::KernelOp>> ParseKernelOpsCsv(std::string_view text, const std::string& file_name) {
  DLSIM_ASSIGN_OR_RETURN(CsvTable t, ParseCsv(text, file_name));
  DLSIM_RETURN_IF_ERROR(t.Column("op"));
  if (t.rows.empty()) return Error::Parse(file_name + ": no operator rows (a header and at least one row)");
  std::vector<cost::KernelOp> ops;
  for (size_t i = 0; i < t.rows.size(); ++i) {
    DLSIM_ASSIGN_OR_RETURN(cost::KernelOp op, ReadRow(t, i));
    ops.push_back(std::move(op));
  }
  return ops;
}

Result<std::vector<cost::KernelOp>> ReadKernelOpsCsv(const std::string& path) {
  DLSIM_ASSIGN_OR_RETURN(std::string text, ReadTextFile(path));
  return ParseKernelOpsCsv(text, path);
}

}  // namespace dlsim::io
