// `dlsim kernels`; see the header.
#include "dlsim/app/kernels_command.h"

#include <fmt/format.h>

#include <cmath>
#include <map>
#include <memory>
#include <nlohmann/json.hpp>
#include <vector>

#include "dlsim/cost/compute_model.h"
#include "dlsim/cost/kernel_op.h"
#include "dlsim/io/catalog_loader.h"
#include "dlsim/io/kernel_ops_csv.h"
#include "dlsim/report/json_report.h"
#include "dlsim/report/table.h"

namespace dlsim::app {
namespace {

struct Priced {
  cost::KernelOp op;
  double predicted_ms = 0;
};

// Errors of the scored rows of one family: MAPE and signed mean, in percent.
struct Score {
  int rows = 0;
  double abs_sum = 0, signed_sum = 0;
  void Add(double err_pct) { ++rows, abs_sum += std::fabs(err_pct), signed_sum += err_pct; }
  double Mape() const { return rows ? abs_sum / rows : 0; }
  double Signed() const { return rows ? signed_sum / rows : 0; }
};

double ErrorPct(const Priced& p) { return (p.predicted_ms / *p.op.measured_ms - 1) * 100; }

std::string ShapeText(const cost::KernelOp& op) {
  if (op.kind == cost::KernelOpKind::kGemm)
    return fmt::format("{}x{}x{}{}", op.gemm.m, op.gemm.n, op.gemm.k,
                       op.gemm.batch > 1 ? fmt::format(" (x{})", op.gemm.batch) : "");
  if (op.kind == cost::KernelOpKind::kElementwise) return fmt::format("{:g} B", op.bytes.ToBytes());
  const cost::AttentionShape& a = op.attention;
  return fmt::format("b{} h{}/{} s{}{} d{}{}{}", a.batch, a.heads, a.kv_heads, a.seq_q,
                     a.seq_kv != a.seq_q ? fmt::format("/{}", a.seq_kv) : "", a.head_dim,
                     a.causal ? " causal" : "", a.window > 0 ? fmt::format(" window {}", a.window) : "");
}

std::map<std::string, Score> Scores(const std::vector<Priced>& rows, Score& all) {
  std::map<std::string, Score> by_family;
  for (const Priced& p : rows) {
    if (!p.op.measured_ms) continue;
    const double e = ErrorPct(p);
    by_family[cost::KernelOpFamily(p.op)].Add(e);
    all.Add(e);
  }
  return by_family;
}

nlohmann::ordered_json ScoreJson(const Score& s) {
  return {{"rows", s.rows}, {"mape_pct", s.Mape()}, {"signed_pct", s.Signed()}};
}

void RenderJson(const KernelsArgs& args, const std::vector<Priced>& rows, std::ostream& out) {
  nlohmann::ordered_json j, list = nlohmann::ordered_json::array();
  j["gpu"] = args.gpu;
  j["compute_model"] = args.cost;
  for (const Priced& p : rows) {
    nlohmann::ordered_json r = {{"op", cost::KernelOpKindName(p.op.kind)},
                                {"family", cost::KernelOpFamily(p.op)},
                                {"shape", ShapeText(p.op)},
                                {"predicted_ms", p.predicted_ms}};
    if (p.op.measured_ms) r["measured_ms"] = *p.op.measured_ms, r["error_pct"] = ErrorPct(p);
    list.push_back(r);
  }
  j["rows"] = list;
  Score all;
  const std::map<std::string, Score> fam = Scores(rows, all);
  j["summary"] = ScoreJson(all);
  j["summary"]["families"] = nlohmann::ordered_json::object();
  for (const auto& [name, s] : fam) j["summary"]["families"][name] = ScoreJson(s);
  out << JsonOutput(j) << "\n";
}

void RenderText(const KernelsArgs& args, const std::vector<Priced>& rows, std::ostream& out) {
  report::Table t(fmt::format("{} operators on {} ({} compute model)", rows.size(), args.gpu, args.cost));
  t.AddColumn("#").AddColumn("family", "", report::Align::kLeft).AddColumn("shape", "", report::Align::kLeft);
  t.AddColumn("predicted", "ms").AddColumn("measured", "ms").AddColumn("error", "%");
  for (size_t i = 0; i < rows.size(); ++i) {
    const Priced& p = rows[i];
    const bool m = p.op.measured_ms.has_value();
    t.AddRow({std::to_string(i + 1), cost::KernelOpFamily(p.op), ShapeText(p.op),
              fmt::format("{:.4f}", p.predicted_ms), m ? fmt::format("{:.4f}", *p.op.measured_ms) : "-",
              m ? fmt::format("{:+.1f}", ErrorPct(p)) : "-"});
  }
  out << t;
  Score all;
  const std::map<std::string, Score> fam = Scores(rows, all);
  if (all.rows == 0) return;
  report::Table s("\nError by family (predicted vs measured)");
  s.AddColumn("family", "", report::Align::kLeft)
      .AddColumn("rows")
      .AddColumn("MAPE", "%")
      .AddColumn("signed", "%");
  for (const auto& [name, sc] : fam)
    s.AddRow({name, std::to_string(sc.rows), fmt::format("{:.1f}", sc.Mape()),
              fmt::format("{:+.1f}", sc.Signed())});
  s.AddSeparator();
  s.AddRow({"all", std::to_string(all.rows), fmt::format("{:.1f}", all.Mape()),
            fmt::format("{:+.1f}", all.Signed())});
  out << s;
}

}  // namespace

int RunKernelsCommand(const KernelsArgs& args, const CommonArgs& common, std::ostream& out,
                      std::ostream& err) {
  auto catalogs = io::LoadCatalogs(common.catalog_files, common.calibration_files);
  if (!catalogs.ok()) return ReportError("kernels", catalogs.error(), err);
  auto gpu = catalogs->hardware.FindGpu(args.gpu);
  if (!gpu.ok()) return ReportError("kernels", gpu.error(), err);
  cost::ComputeModelRegistry reg("compute-model");
  cost::RegisterComputeModels(reg);
  auto model = reg.Create(args.cost, **gpu, catalogs->compute);
  if (!model.ok()) return ReportError("kernels", model.error(), err);
  auto ops = io::ReadKernelOpsCsv(args.file);
  if (!ops.ok()) return ReportError("kernels", ops.error(), err);
  std::vector<Priced> rows;
  for (const cost::KernelOp& op : *ops)
    rows.push_back({op, cost::PriceKernelOp(**model, op).ToSeconds() * 1e3});
  if (args.json)
    RenderJson(args, rows, out);
  else
    RenderText(args, rows, out);
  return kExitOk;
}

}  // namespace dlsim::app
