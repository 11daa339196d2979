#include "dlsim/serve/mig/dnn_service.h"

#include <cmath>
#include <string>

#include "dlsim/core/csv.h"
#include "dlsim/core/strings.h"

namespace dlsim::serve {
namespace {

Duration KernelSum(const DnnModel& model, const cost::ComputeModel& cm, int batch) {
  Duration t;
  for (const DnnOp& op : model.Ops(batch)) {
    switch (op.kind) {
      case DnnOp::Kind::kGemm:
        t += cm.Gemm(op.gemm, model.dtype());
        break;
      case DnnOp::Kind::kAttention:
        t += cm.AttentionForward(op.attention, model.dtype());
        break;
      case DnnOp::Kind::kMemory:
        t += cm.MemoryBound(op.moved, op.flops, op.memory_kind);
        break;
    }
  }
  return t;
}

Result<int> ReadBatch(const CsvTable& t, size_t row) {
  DLSIM_ASSIGN_OR_RETURN(double b, t.Number(row, "batch"));
  DLSIM_ASSIGN_OR_RETURN(size_t col, t.Column("batch"));
  if (b != std::floor(b) || b < 1 || b > 65536)
    return Error::InvalidArgument(
        t.Where(row, col) + ": column 'batch': expected an integer in 1..65536, found " + FormatNumber(b, 6));
  return static_cast<int>(b);
}

Result<Duration> ReadLatency(const CsvTable& t, size_t row) {
  DLSIM_ASSIGN_OR_RETURN(double ms, t.Number(row, "latency_ms"));
  DLSIM_ASSIGN_OR_RETURN(size_t col, t.Column("latency_ms"));
  if (!(ms > 0) || ms > 1e6)
    return Error::InvalidArgument(t.Where(row, col) +
                                  ": column 'latency_ms': expected a number in (0, 1e6], found " +
                                  FormatNumber(ms, 6));
  return Millis(ms);
}

}  // namespace

Result<DnnProfileTable> DnnProfileTable::Parse(std::string_view csv_text, std::string file_name) {
  DLSIM_ASSIGN_OR_RETURN(CsvTable t, ParseCsv(csv_text, std::move(file_name)));
  DnnProfileTable out;
  for (size_t r = 0; r < t.rows.size(); ++r) {
    DLSIM_ASSIGN_OR_RETURN(std::string model, t.Text(r, "model"));
    DLSIM_ASSIGN_OR_RETURN(std::string device, t.Text(r, "device"));
    DLSIM_ASSIGN_OR_RETURN(int batch, ReadBatch(t, r));
    DLSIM_ASSIGN_OR_RETURN(Duration latency, ReadLatency(t, r));
    if (!out.rows_.emplace(std::make_tuple(model, device, batch), latency).second)
      return Error::InvalidArgument(t.Where(r, 0) + ": (" + model + ", " + device + ", batch " +
                                    std::to_string(batch) + ") is given twice");
  }
  return out;
}

std::optional<Duration> DnnProfileTable::Find(std::string_view model, std::string_view device,
                                              int batch) const {
  auto it = rows_.find(std::make_tuple(std::string(model), std::string(device), batch));
  if (it == rows_.end()) return std::nullopt;
  return it->second;
}

Duration DnnBatchLatency(const DnnModel& model, const hw::GpuSpec& device, const cost::ComputeModel& cm,
                         int batch, const DnnProfileTable* table) {
  if (table != nullptr) {
    if (auto t = table->Find(model.name(), device.name, batch)) return *t;
  }
  return KernelSum(model, cm, batch);
}

ServiceCapacity ProfileDnnService(const DnnModel& model, const hw::GpuSpec& device,
                                  const cost::ComputeModel& cm, Duration slo_p99,
                                  const DnnServeOptions& options, const DnnProfileTable* table) {
  ServiceCapacity c;
  const double usable = device.hbm_capacity.value() * (1.0 - options.memory_margin);
  for (int b : options.batches) {
    ServicePoint p;
    p.batch = b;
    p.measured = table != nullptr && table->Find(model.name(), device.name, b).has_value();
    p.latency = DnnBatchLatency(model, device, cm, b, table);
    p.p99 = p.latency * 2.0;
    p.throughput_rps = p.latency > Duration::Zero() ? b / p.latency.ToSeconds() : 0.0;
    p.fits = model.WeightBytes().value() + model.ActivationBytes(b).value() <= usable;
    c.points.push_back(p);
    if (p.fits && p.p99 <= slo_p99 && p.throughput_rps > c.best.throughput_rps) {
      c.best = p;
      c.feasible = true;
    }
  }
  if (c.feasible) return c;
  if (c.points.empty() || !c.points.front().fits) {
    c.reason = std::string(model.name()) + " does not fit " + device.name + " (" +
               FormatNumber(model.WeightBytes().ToGiB(), 3) + " GiB of weights)";
  } else {
    c.reason = std::string(model.name()) + " on " + device.name + ": batch " +
               std::to_string(c.points.front().batch) + " has p99 " +
               FormatNumber(c.points.front().p99.ToMillis(), 4) + " ms, above the SLO of " +
               FormatNumber(slo_p99.ToMillis(), 4) + " ms";
  }
  return c;
}

}  // namespace dlsim::serve
