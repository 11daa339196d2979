// Terminal and JSON renderings of a training result (dlsim train).
#include "dlsim/app/train_render.h"

#include <fmt/core.h>

#include "dlsim/core/strings.h"
#include "dlsim/io/resolved_scenario.h"
#include "dlsim/report/format.h"
#include "dlsim/report/json_report.h"
#include "dlsim/report/table.h"

namespace dlsim::app {

using train::Breakdown;
using train::DataSummary;
using train::ParallelPlan;
using train::PipelineScheduleName;
using train::RecomputeName;
using train::StageMemory;
using train::StepResult;
using train::TrainOptions;

namespace {

nlohmann::ordered_json ParallelJson(const TrainOptions& o, const StepResult& r) {
  nlohmann::ordered_json par;
  par["tp"] = r.plan.tp;
  par["pp"] = r.plan.pp;
  par["cp"] = r.plan.cp;
  par["dp"] = r.plan.dp;
  par["virtual_stages"] = r.plan.chunks;
  par["micro_batch"] = r.plan.micro_batch;
  par["micro_batches"] = r.plan.micro_batches;
  par["pipeline_schedule"] = std::string(PipelineScheduleName(o.parallel.pipeline_schedule));
  par["zero"] = o.parallel.zero;
  par["recompute"] = std::string(RecomputeName(o.parallel.recompute));
  par["sequence_parallel"] = r.plan.sequence_parallel;
  par["layers_per_stage"] = r.plan.layers;
  if (o.parallel.cp_layout != "ring") par["cp_layout"] = o.parallel.cp_layout;
  if (o.parallel.cp_comm != train::CpComm::kP2p)
    par["cp_comm"] = std::string(train::CpCommName(o.parallel.cp_comm));
  if (o.parallel.cp_impl != train::CpImpl::kFused)
    par["cp_impl"] = std::string(train::CpImplName(o.parallel.cp_impl));
  if (o.model.moe.enabled()) {
    par["ep"] = r.plan.ep;
    par["etp"] = r.plan.etp;
    par["moe_dispatcher"] = std::string(train::MoeDispatcherName(o.parallel.moe_dispatcher));
    par["edp"] = r.plan.edp;
  }
  return par;
}

nlohmann::ordered_json MemoryJson(const StepResult& r, Bytes capacity) {
  nlohmann::ordered_json mem;
  const StageMemory* peak = r.memory.empty() ? nullptr : &r.memory[r.peak_rank];
  mem["peak_bytes_per_gpu"] = report::JsonBytes(r.peak_memory);
  if (r.memory_interval)
    mem["peak_interval_bytes"] =
        report::IntervalJson(static_cast<double>(report::JsonBytes(GiB(r.memory_interval->low_gib))),
                             static_cast<double>(report::JsonBytes(GiB(r.memory_interval->high_gib))),
                             r.memory_interval->level, r.memory_interval->regime, false);
  mem["peak_rank"] = r.peak_rank;
  mem["peak_reserved_bytes_per_gpu"] = report::JsonBytes(r.peak_reserved);
  mem["peak_reserved_range_bytes"] = {report::JsonBytes(r.peak_reserved_low),
                                      report::JsonBytes(r.peak_reserved_high)};
  mem["capacity_bytes"] = report::JsonBytes(capacity);
  if (peak) {
    mem["weights_bytes"] = report::JsonBytes(peak->weights);
    mem["gradients_bytes"] = report::JsonBytes(peak->gradients);
    mem["optimizer_bytes"] = report::JsonBytes(peak->optimizer);
    mem["activations_bytes"] = report::JsonBytes(peak->activations);
    mem["workspace_bytes"] = report::JsonBytes(peak->workspace);
  }
  nlohmann::ordered_json stages = nlohmann::ordered_json::array();
  for (const StageMemory& s : r.memory) {
    nlohmann::ordered_json e;
    e["layers"] = s.layers;
    e["in_flight"] = s.micro_batches_in_flight;
    e["weights_bytes"] = report::JsonBytes(s.weights);
    e["gradients_bytes"] = report::JsonBytes(s.gradients);
    e["optimizer_bytes"] = report::JsonBytes(s.optimizer);
    e["activations_bytes"] = report::JsonBytes(s.activations);
    e["total_bytes"] = report::JsonBytes(s.Total());
    stages.push_back(e);
  }
  mem["stages"] = stages;
  return mem;
}

nlohmann::ordered_json BreakdownJson(const TrainOptions& o, const StepResult& r) {
  const Breakdown& b = r.breakdown;
  nlohmann::ordered_json br;
  br["critical_rank"] = r.critical_rank;
  br["compute_s"] = b.compute_s;
  br["recompute_s"] = b.recompute_s;
  br["compute_by_kind_s"] = {{"gemm", b.gemm_s},
                             {"attention", b.attention_s},
                             {"memory_bound", b.memory_s},
                             {"host_wait", b.host_wait_s}};
  br["contention_s"] = b.contention_s;
  br["tp_comm_s"] = b.tp_comm_s;
  br["cp_comm_s"] = b.cp_comm_s;
  if (o.model.moe.enabled()) br["ep_comm_s"] = b.ep_comm_s;
  br["pp_bubble_s"] = b.pp_bubble_s;
  br["dp_comm_s"] = b.dp_comm_s;
  br["optimizer_s"] = b.optimizer_s;
  if (b.cast_s > 0) br["optimizer_cast_s"] = b.cast_s;  // of optimizer_s: autocast's casts
  br["param_gather_s"] = b.param_gather_s;
  return br;
}

nlohmann::ordered_json DataJson(const DataSummary& d) {
  nlohmann::ordered_json dj;
  dj["policy"] = d.policy;
  dj["steps"] = d.steps;
  dj["step_time_s"] = {{"mean", d.mean_s}, {"p50", d.p50_s}, {"p99", d.p99_s}, {"max", d.max_s}};
  dj["straggler_s"] = {{"mean", d.straggler_mean_s}, {"max", d.straggler_max_s}};
  dj["real_tokens_per_step"] = d.real_tokens_per_step;
  dj["padding_fraction"] = d.padding_fraction;
  dj["documents_per_step"] = d.documents_per_step;
  dj["truncated_documents"] = d.truncated;
  dj["max_micro_batches"] = d.max_micro_batches;
  return dj;
}

nlohmann::ordered_json RoutingJson(const train::RoutingSummary& s) {
  nlohmann::ordered_json rj;
  rj["skew"] = s.skew;
  rj["ep"] = s.ep;
  rj["experts_per_shard"] = s.experts_per_shard;
  rj["draws"] = s.draws;
  rj["hottest_shard"] = {
      {"ep_rank", s.hottest_shard},
      {"experts", {s.hottest_first_expert, s.hottest_first_expert + s.experts_per_shard - 1}},
      {"load", s.hottest_load}};
  rj["slowest_shard_load"] = {{"mean", s.mean_slowest_load}, {"max", s.max_slowest_load}};
  rj["dropped_fraction"] = s.dropped_fraction;
  return rj;
}

nlohmann::ordered_json CpAttentionJson(const train::CpAttentionSummary& s) {
  nlohmann::ordered_json cj;
  cj["layout"] = s.layout;
  cj["ulysses"] = s.ulysses;
  cj["ring"] = s.ring;
  cj["mean_sparsity"] = s.mean_sparsity;
  cj["balance"] = {{"mean", s.balance_mean}, {"max", s.balance_max}};
  cj["kv_bytes_per_layer"] = s.kv_bytes_per_layer;
  cj["attention_s"] = s.attention_s;
  cj["predictor_s"] = s.predictor_s;
  cj["exposed_comm_s"] = s.exposed_comm_s;
  cj["attention_share"] = s.attention_share;
  return cj;
}

// The resolved training inputs (after the stack profile and the catalog), so a result can be traced to them.

}  // namespace

std::string IntervalRegimeLabel(const train::StepInterval& iv) {
  return iv.outside ? iv.regime + ", OUTSIDE every validated regime" : iv.regime;
}

nlohmann::ordered_json TrainJson(const TrainOptions& o, const StepResult& r, Bytes capacity) {
  nlohmann::ordered_json j;
  j["feasible"] = r.feasible;
  if (!r.feasible) j["reason"] = r.reason;
  j["dlsim_version"] = DLSIM_VERSION;
  j["inputs"] = io::ResolvedTrainScenario(o);
  j["model"] = o.model.name;
  j["gpu"] = o.hardware.gpu;
  j["gpus"] = o.hardware.gpus;
  j["compute_model"] = o.compute_model;
  j["parallel"] = ParallelJson(o, r);
  j["step_time_s"] = r.step_time_s;
  if (r.interval)
    j["step_time_interval_s"] = report::IntervalJson(r.interval->low_s, r.interval->high_s, r.interval->level,
                                                     r.interval->regime, r.interval->outside);
  j["tokens_per_s"] = r.tokens_per_s;
  j["tokens_per_s_per_gpu"] = r.tokens_per_s_per_gpu;
  j["model_tflops_per_gpu"] = r.model_tflops_per_gpu;
  j["hardware_tflops_per_gpu"] = r.hardware_tflops_per_gpu;
  j["mfu"] = r.mfu;
  j["memory"] = MemoryJson(r, capacity);
  j["breakdown"] = BreakdownJson(o, r);
  j["bottleneck"] = r.bottleneck;
  if (r.data) j["data"] = DataJson(*r.data);
  if (r.routing) j["routing"] = RoutingJson(*r.routing);
  if (r.cp_attention) j["cp_attention"] = CpAttentionJson(*r.cp_attention);
  return j;
}

namespace {

using report::FormatBytes;
using report::FormatPercent;

void WriteHeader(const TrainOptions& o, const ParallelPlan& p, std::ostream& out) {
  out << fmt::format("dlsim train: {} on {} x {}{}\n", o.model.name.empty() ? "custom model" : o.model.name,
                     o.hardware.gpus, o.hardware.gpu, report::FormatLockedClock(o.hardware.sm_clock_mhz));
  out << fmt::format("cost model: {}\n", o.compute_model);
  if (p.layers.empty()) return;
  out << fmt::format(
      "layout: tp {} | pp {} | cp {} | dp {} | {} micro-batch{} of {} | schedule {}{} | zero {} | "
      "recompute {} | sequence parallel {}\n",
      p.tp, p.pp, p.cp, p.dp, p.micro_batches, p.micro_batches == 1 ? "" : "es", p.micro_batch,
      std::string(PipelineScheduleName(o.parallel.pipeline_schedule)),
      p.chunks > 1 ? fmt::format(" x{}", p.chunks) : "", o.parallel.zero,
      std::string(RecomputeName(o.parallel.recompute)), p.sequence_parallel ? "on" : "off");
}

report::Table StepTable(const StepResult& r) {
  report::Table step("Step");
  step.AddColumn("metric", "", report::Align::kLeft).AddColumn("value", "", report::Align::kRight);
  step.AddRow({"step time", report::FormatDuration(Seconds(r.step_time_s))});
  if (r.interval)
    step.AddRow(
        {fmt::format("{:.0f}% interval ({})", 100 * r.interval->level, IntervalRegimeLabel(*r.interval)),
         report::FormatDuration(Seconds(r.interval->low_s)) + " - " +
             report::FormatDuration(Seconds(r.interval->high_s))});
  step.AddRow({"throughput", report::FormatRate(r.tokens_per_s, "tokens/s")});
  step.AddRow({"throughput per GPU", report::FormatRate(r.tokens_per_s_per_gpu, "tokens/s")});
  step.AddRow({"model FLOP/s per GPU", report::FormatRate(TFLOPS(r.model_tflops_per_gpu))});
  step.AddRow({"hardware FLOP/s per GPU", report::FormatRate(TFLOPS(r.hardware_tflops_per_gpu))});
  step.AddRow({"MFU", FormatPercent(r.mfu)});
  step.AddRow({"bottleneck", r.bottleneck});
  return step;
}

report::Table DataTable(const DataSummary& d) {
  report::Table dt(fmt::format("Data-aware steps (policy {}, {} steps)", d.policy, d.steps));
  dt.AddColumn("metric", "", report::Align::kLeft).AddColumn("value", "", report::Align::kRight);
  auto dur = [](double s) { return report::FormatDuration(Seconds(s)); };
  dt.AddRow({"step time mean", dur(d.mean_s)});
  dt.AddRow({"step time p50 / p99 / max", dur(d.p50_s) + " / " + dur(d.p99_s) + " / " + dur(d.max_s)});
  dt.AddRow({"DP straggler gap mean / max", dur(d.straggler_mean_s) + " / " + dur(d.straggler_max_s)});
  dt.AddRow({"real tokens per step", report::FormatCount(static_cast<int64_t>(d.real_tokens_per_step))});
  dt.AddRow({"padding", FormatPercent(d.padding_fraction)});
  dt.AddRow({"documents per step", report::FormatCount(d.documents_per_step)});
  dt.AddRow({"truncated documents", report::FormatCount(d.truncated)});
  dt.AddRow({"most micro-batches on a replica", std::to_string(d.max_micro_batches)});
  return dt;
}

report::Table RoutingTable(const train::RoutingSummary& s) {
  report::Table rt(fmt::format("MoE routing (skew {}, ep {}, {} draws)", s.skew, s.ep, s.draws));
  rt.AddColumn("metric", "", report::Align::kLeft).AddColumn("value", "", report::Align::kRight);
  rt.AddRow({"hottest expert shard",
             fmt::format("ep rank {} (experts {}..{})", s.hottest_shard, s.hottest_first_expert,
                         s.hottest_first_expert + s.experts_per_shard - 1)});
  rt.AddRow({"hottest shard load (vs balanced)", FormatNumber(s.hottest_load, 4) + "x"});
  rt.AddRow({"slowest shard load mean / max",
             FormatNumber(s.mean_slowest_load, 4) + "x / " + FormatNumber(s.max_slowest_load, 4) + "x"});
  rt.AddRow({"dropped routed tokens", FormatPercent(s.dropped_fraction)});
  return rt;
}

report::Table CpAttentionTable(const train::CpAttentionSummary& s) {
  report::Table ct(fmt::format("Core attention (cp layout {}: {} head groups x {} ring shards)", s.layout,
                               s.ulysses, s.ring));
  ct.AddColumn("metric", "", report::Align::kLeft).AddColumn("value", "", report::Align::kRight);
  auto dur = [](double x) { return report::FormatDuration(Seconds(x)); };
  ct.AddRow({"mean attention sparsity", FormatPercent(s.mean_sparsity)});
  ct.AddRow({"rank work balance mean / max (largest / mean)",
             FormatNumber(s.balance_mean, 4) + " / " + FormatNumber(s.balance_max, 4)});
  ct.AddRow({"K/V bytes received per layer (slowest rank)", FormatBytes(Bytes(s.kv_bytes_per_layer))});
  ct.AddRow({"attention per step (one pipeline rank)", dur(s.attention_s)});
  ct.AddRow({"  of which predictor / exposed CP comm", dur(s.predictor_s) + " / " + dur(s.exposed_comm_s)});
  ct.AddRow({"attention share of the step", FormatPercent(s.attention_share)});
  return ct;
}

report::Table BreakdownTable(const StepResult& r) {
  const Breakdown& b = r.breakdown;
  report::Table br(fmt::format("Critical path (pipeline rank {})", r.critical_rank));
  br.AddColumn("component", "", report::Align::kLeft).AddColumn("time").AddColumn("share");
  auto row = [&](const char* name, double s) {
    br.AddRow({name, report::FormatDuration(Seconds(s)), FormatPercent(s / r.step_time_s)});
  };
  row("compute", b.compute_s);
  row("  of which recomputation", b.recompute_s);
  row("  GEMMs", b.gemm_s);
  row("  attention", b.attention_s);
  row("  memory-bound kernels", b.memory_s);
  if (b.host_wait_s > 0) row("  waiting on the host", b.host_wait_s);
  if (b.contention_s > 0) row("compute slowed by DP collectives beside it", b.contention_s);
  row("tensor-parallel comm (exposed)", b.tp_comm_s);
  row("context-parallel comm (exposed)", b.cp_comm_s);
  if (r.plan.ep > 1 || r.plan.etp > 1 || b.ep_comm_s > 0)
    row("expert-parallel all-to-all (exposed)", b.ep_comm_s);
  row("pipeline bubble", b.pp_bubble_s);
  row("data-parallel comm (exposed)", b.dp_comm_s);
  row("optimizer", b.optimizer_s);
  if (b.cast_s > 0) row("  of which casts and accumulation", b.cast_s);
  row("parameter all-gather (exposed)", b.param_gather_s);
  return br;
}

report::Table MemoryTable(const StepResult& r, Bytes capacity) {
  report::Table mem(fmt::format("Memory per GPU by pipeline stage (capacity {})", FormatBytes(capacity)));
  for (const char* c :
       {"stage", "layers", "in flight", "weights", "grads", "optimizer", "activations", "workspace", "total"})
    mem.AddColumn(c);
  for (size_t i = 0; i < r.memory.size(); ++i) {
    const StageMemory& s = r.memory[i];
    mem.AddRow({std::to_string(i), std::to_string(s.layers), std::to_string(s.micro_batches_in_flight),
                FormatBytes(s.weights), FormatBytes(s.gradients), FormatBytes(s.optimizer),
                FormatBytes(s.activations), FormatBytes(s.workspace), FormatBytes(s.Total())});
  }
  return mem;
}

}  // namespace

void WriteTrainReport(const TrainOptions& o, const StepResult& r, Bytes capacity, std::ostream& out) {
  WriteHeader(o, r.plan, out);
  if (!r.feasible) {
    out << "INFEASIBLE: " << r.reason << "\n";
    if (r.step_time_s <= 0) return;
  }
  out << "\n" << StepTable(r);
  if (r.data) out << "\n" << DataTable(*r.data);
  if (r.routing) out << "\n" << RoutingTable(*r.routing);
  if (r.cp_attention) out << "\n" << CpAttentionTable(*r.cp_attention);
  out << "\n" << BreakdownTable(r);
  out << "\n" << MemoryTable(r, capacity);
  if (r.peak_memory.ToBytes() > 0)
    out << fmt::format(
        "peak {} allocated on rank {}; PyTorch's caching allocator reserves about {} ({} - {}, measured "
        "ratios; docs/training-model.md \"Memory\")\n",
        FormatBytes(r.peak_memory), r.peak_rank, FormatBytes(r.peak_reserved),
        FormatBytes(r.peak_reserved_low), FormatBytes(r.peak_reserved_high));
  if (const auto& iv = r.memory_interval)
    out << fmt::format(
        "peak allocated, {:.0f}% interval ({}): {} - {} (docs/validation.md \"Prediction intervals\")\n",
        100 * iv->level, iv->regime, FormatBytes(GiB(iv->low_gib)), FormatBytes(GiB(iv->high_gib)));
}

}  // namespace dlsim::app
