#include "profiles.h"

#include <algorithm>
#include <charconv>
#include <fstream>
#include <map>
#include <set>
#include <sstream>
#include <tuple>

namespace dlsim::fit {
namespace {

constexpr double kElementBytes = 2.0;  // fp16/bf16 activations

std::vector<std::string> SplitCsv(const std::string& line) {
  std::vector<std::string> out;
  std::stringstream ss(line);
  std::string cell;
  while (std::getline(ss, cell, ',')) out.push_back(cell);
  if (!line.empty() && line.back() == ',') out.emplace_back();
  return out;
}

std::string BaseName(const std::string& path) {
  const auto slash = path.find_last_of('/');
  return slash == std::string::npos ? path : path.substr(slash + 1);
}

// A CSV file read as a header map plus data rows (with their 1-based line numbers).
struct Table {
  std::map<std::string, size_t> columns;
  std::vector<std::pair<int, std::vector<std::string>>> rows;
  std::string name;
};

Result<Table> ReadTable(const std::string& path) {
  std::ifstream in(path);
  if (!in) return Error::NotFound("cannot open profile '" + path + "'");
  Table t;
  t.name = BaseName(path);
  std::string line;
  int line_no = 0;
  bool have_header = false;
  while (std::getline(in, line)) {
    ++line_no;
    if (!line.empty() && line.back() == '\r') line.pop_back();
    if (line.empty() || line[0] == '#') continue;
    auto cells = SplitCsv(line);
    if (!have_header) {
      for (size_t i = 0; i < cells.size(); ++i) t.columns[cells[i]] = i;
      have_header = true;
      continue;
    }
    t.rows.emplace_back(line_no, std::move(cells));
  }
  if (!have_header) return Error::Parse(path + ": no header line");
  return t;
}

// Reads column `col` of a row as a number.
Result<double> Number(const Table& t, const std::pair<int, std::vector<std::string>>& row,
                      const std::string& col) {
  auto it = t.columns.find(col);
  const std::string where = t.name + ":" + std::to_string(row.first);
  if (it == t.columns.end()) return Error::Parse(where + ": missing column '" + col + "'");
  if (it->second >= row.second.size()) return Error::Parse(where + ": short row, no '" + col + "'");
  const std::string& s = row.second[it->second];
  if (s == "True") return 1.0;
  if (s == "False") return 0.0;
  double v = 0;
  auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (ec != std::errc() || p != s.data() + s.size()) {
    return Error::Parse(where + ": column '" + col + "': expected a number, found '" + s + "'");
  }
  return v;
}

struct VidurShape {
  double heads, kv_heads, hidden, ffn, gated, tokens, tp;
};

// Operator -> GEMM shape or bytes/flops, following vidur's model (vLLM-style kernels).
Sample MakeVidurSample(const std::string& op, const VidurShape& v) {
  Sample s;
  s.op = op;
  const int64_t t = static_cast<int64_t>(v.tokens);
  const double head_dim = v.hidden / v.heads;
  const double q_heads = v.heads / v.tp, kv_heads = std::max(1.0, v.kv_heads / v.tp);
  const double ffn = v.ffn / v.tp;
  auto gemm = [&](double n, double k) {
    s.kind = SampleKind::kGemm;
    s.gemm = {.m = t, .n = static_cast<int64_t>(n), .k = static_cast<int64_t>(k)};
  };
  auto memory = [&](double elements_moved, double flops) {
    s.kind = SampleKind::kMemory;
    s.bytes = elements_moved * kElementBytes;
    s.flops = flops;
  };
  const double th = v.tokens * v.hidden;
  if (op == "attn_pre_proj") gemm((q_heads + 2 * kv_heads) * head_dim, v.hidden);
  if (op == "attn_post_proj") gemm(v.hidden, q_heads * head_dim);
  if (op == "mlp_up_proj") gemm(ffn * (v.gated > 0 ? 2 : 1), v.hidden);
  if (op == "mlp_down_proj") gemm(v.hidden, ffn);
  if (op == "input_layernorm" || op == "post_attention_layernorm") memory(2 * th + v.hidden, 4 * th);
  if (op == "attn_rope") {
    const double e = v.tokens * (q_heads + kv_heads) * head_dim;
    memory(2 * e + v.tokens * head_dim, 3 * e);
  }
  if (op == "mlp_act") {
    const double e = v.tokens * ffn;
    memory(v.gated > 0 ? 3 * e : 2 * e, 5 * e);
  }
  if (op == "add") memory(3 * th, th);
  if (op == "emb") memory(2 * th, 0);
  return s;
}

}  // namespace

Result<std::vector<Sample>> ReadVidurCsv(const std::string& path, const std::string& architecture) {
  DLSIM_ASSIGN_OR_RETURN(Table t, ReadTable(path));
  std::vector<Sample> out;
  const auto gpu_col = t.columns.find("gpu");
  for (const auto& row : t.rows) {
    std::string arch = architecture;
    if (gpu_col != t.columns.end() && gpu_col->second < row.second.size()) {
      arch = row.second[gpu_col->second] == "h100" ? "hopper" : "ampere";
    }
    VidurShape v{};
    const std::pair<double*, const char*> cols[] = {{&v.heads, "n_head"},
                                                    {&v.kv_heads, "n_kv_head"},
                                                    {&v.hidden, "n_embd"},
                                                    {&v.ffn, "n_expanded_embd"},
                                                    {&v.gated, "use_gated_mlp"},
                                                    {&v.tokens, "num_tokens"},
                                                    {&v.tp, "num_tensor_parallel_workers"}};
    for (const auto& [dst, name] : cols) {
      DLSIM_ASSIGN_OR_RETURN(*dst, Number(t, row, name));
    }
    auto add = [&](const char* op) -> Status {
      const std::string col = std::string("time_stats.") + op + ".median";
      if (!t.columns.count(col)) return Status::Ok();  // not every file profiles every op
      DLSIM_ASSIGN_OR_RETURN(double ms, Number(t, row, col));
      Sample s = MakeVidurSample(op, v);
      s.architecture = arch;
      s.source = t.name + ":" + std::to_string(row.first);
      s.num_tokens = static_cast<int64_t>(v.tokens);
      s.measured_s = ms * 1e-3;
      if (s.measured_s > 0) out.push_back(std::move(s));
      return Status::Ok();
    };
    for (const char* op : kGemmOps) DLSIM_RETURN_IF_ERROR(add(op));
    for (const char* op : kMemoryOps) DLSIM_RETURN_IF_ERROR(add(op));
  }
  return out;
}

Result<std::vector<Sample>> ReadDistcaAttentionCsv(const std::string& path) {
  DLSIM_ASSIGN_OR_RETURN(Table t, ReadTable(path));
  std::vector<Sample> out;
  for (const auto& row : t.rows) {
    DLSIM_ASSIGN_OR_RETURN(double len, Number(t, row, "L"));
    DLSIM_ASSIGN_OR_RETURN(double cp, Number(t, row, "cp"));
    DLSIM_ASSIGN_OR_RETURN(double tp, Number(t, row, "tp"));
    DLSIM_ASSIGN_OR_RETURN(double ms, Number(t, row, "duration_per_doc"));
    Sample s;
    s.kind = SampleKind::kAttention;
    s.op = "attn_fwd";
    s.architecture = "hopper";
    s.source = t.name + ":" + std::to_string(row.first);
    s.num_tokens = static_cast<int64_t>(len);
    // The profiler (attn-prof.py) gives each CP rank L/cp queries against
    // L (1/2 + 1/(2 cp)) keys, causal, with 64/tp query heads and max(4/tp, 1) KV heads.
    s.attention = {.batch = 1,
                   .heads = static_cast<int64_t>(64 / tp),
                   .kv_heads = std::max<int64_t>(1, static_cast<int64_t>(4 / tp)),
                   .seq_q = static_cast<int64_t>(len / cp),
                   .seq_kv = static_cast<int64_t>(len * (0.5 + 0.5 / cp)),
                   .head_dim = 128,
                   .causal = true};
    s.measured_s = ms * 1e-3;
    out.push_back(std::move(s));
  }
  return out;
}

void MarkHeldOut(std::vector<Sample>& samples) {
  std::map<std::pair<std::string, std::string>, std::set<int64_t>> distinct;
  for (const auto& s : samples) distinct[{s.architecture, s.op}].insert(s.num_tokens);
  std::map<std::pair<std::string, std::string>, std::set<int64_t>> held;
  for (const auto& [key, values] : distinct) {
    int i = 0;
    for (int64_t v : values) {
      if (++i % 4 == 0) held[key].insert(v);
    }
  }
  for (auto& s : samples) s.held_out = held[{s.architecture, s.op}].count(s.num_tokens) > 0;
}

hw::GpuSpec ProfiledGpu(const std::string& architecture) {
  hw::GpuSpec g;
  g.architecture = architecture;
  auto set = [&g](hw::DType dt, double tflops) { g.dense_peak[static_cast<int>(dt)] = TFLOPS(tflops); };
  if (architecture == "hopper") {  // H100 SXM5 80GB datasheet (dense)
    g.name = "h100-sxm5-80gb";
    set(hw::DType::kFp32, 66.9);
    set(hw::DType::kTf32, 494.7);
    set(hw::DType::kFp16, 989.4);
    set(hw::DType::kBf16, 989.4);
    set(hw::DType::kFp8, 1978.9);
    set(hw::DType::kInt8, 1978.9);
    g.hbm_bandwidth = GBps(3350);
    g.sm_count = 132;
    g.smem_per_sm = KiB(228);  // CUDA Programming Guide, compute capability 9.0
    g.smem_per_block = KiB(227);
    g.max_blocks_per_sm = 32;
    g.l2_size = MiB(50);
  } else {  // A100 SXM4 80GB datasheet (dense)
    g.name = "a100-sxm4-80gb";
    set(hw::DType::kFp32, 19.5);
    set(hw::DType::kTf32, 156);
    set(hw::DType::kFp16, 312);
    set(hw::DType::kBf16, 312);
    set(hw::DType::kInt8, 624);
    g.hbm_bandwidth = GBps(2039);
    g.sm_count = 108;
    g.smem_per_sm = KiB(164);  // CUDA Programming Guide, compute capability 8.0
    g.smem_per_block = KiB(163);
    g.max_blocks_per_sm = 32;
    g.l2_size = MiB(40);
    g.l2_bandwidth = GBps(7219);  // A100 whitepaper: 5120 B/clk x 1410 MHz
  }
  return g;
}

}  // namespace dlsim::fit
