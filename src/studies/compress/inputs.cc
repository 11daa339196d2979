// CSV readers for the compression-search inputs (include/dlsim/studies/compress/inputs.h).
#include "dlsim/studies/compress/inputs.h"

#include <set>

#include "dlsim/core/csv.h"

namespace dlsim::compress {
namespace {

// The number in `column` of `row`, which must lie in [lo, hi]; errors name the cell.
Result<double> InRange(const CsvTable& t, size_t row, const char* column, double lo, double hi,
                       const char* expect) {
  DLSIM_ASSIGN_OR_RETURN(const double v, t.Number(row, column));
  if (v < lo || v > hi) {
    DLSIM_ASSIGN_OR_RETURN(const size_t c, t.Column(column));
    return Error::InvalidArgument(t.Where(row, c) + ": column '" + column + "': expected " + expect +
                                  ", found " + t.rows[row][c]);
  }
  return v;
}

constexpr double kHuge = 1e18;

Result<PassCost> Pass(const CsvTable& t, size_t row, const char* floor_col, const char* rate_col) {
  DLSIM_ASSIGN_OR_RETURN(const double floor_us, InRange(t, row, floor_col, 0, 1e9, "a floor >= 0 us"));
  DLSIM_ASSIGN_OR_RETURN(const double rate, InRange(t, row, rate_col, 1e-6, 1e6, "a rate in (0, 1e6] GB/s"));
  return PassCost{Micros(floor_us), GBps(rate)};
}

Error Unknown(const std::string& file, const char* what, const std::string& name,
              const std::set<std::string>& known) {
  std::string list;
  for (const std::string& k : known) list += (list.empty() ? "" : ", ") + k;
  return Error::NotFound(file + ": no " + what + " '" + name + "' (known: " + list + ")");
}

}  // namespace

Result<std::vector<GradientTensor>> ParseTensorCsv(std::string_view text, const std::string& file,
                                                   const std::string& model) {
  DLSIM_ASSIGN_OR_RETURN(const CsvTable t, ParseCsv(text, file));
  std::vector<GradientTensor> out;
  std::set<std::string> known;
  for (size_t r = 0; r < t.rows.size(); ++r) {
    DLSIM_ASSIGN_OR_RETURN(const std::string m, t.Text(r, "model"));
    known.insert(m);
    if (m != model) continue;
    const double expected_index = static_cast<double>(out.size());
    DLSIM_ASSIGN_OR_RETURN(const double index, InRange(t, r, "index", expected_index, expected_index,
                                                       "the next index of the model"));
    (void)index;
    GradientTensor g;
    DLSIM_ASSIGN_OR_RETURN(g.name, t.Text(r, "name"));
    DLSIM_ASSIGN_OR_RETURN(g.elements, InRange(t, r, "elements", 1, kHuge, "elements >= 1"));
    DLSIM_ASSIGN_OR_RETURN(const double gap, InRange(t, r, "gap_us", 0, 1e9, "a gap >= 0 us"));
    g.backward_gap = Micros(gap);
    out.push_back(std::move(g));
  }
  if (out.empty()) return Unknown(file, "model", model, known);
  return out;
}

Result<CompressorSpec> ParseCompressorCsv(std::string_view text, const std::string& file,
                                          const std::string& name) {
  DLSIM_ASSIGN_OR_RETURN(const CsvTable t, ParseCsv(text, file));
  CompressorSpec c;
  c.name = name;
  std::set<std::string> known, devices;
  for (size_t r = 0; r < t.rows.size(); ++r) {
    DLSIM_ASSIGN_OR_RETURN(const std::string n, t.Text(r, "name"));
    known.insert(n);
    if (n != name) continue;
    DLSIM_ASSIGN_OR_RETURN(c.ratio, InRange(t, r, "ratio", 1e-9, 1, "a ratio in (0, 1]"));
    DLSIM_ASSIGN_OR_RETURN(const std::string dev, t.Text(r, "device"));
    if (dev != "gpu" && dev != "cpu") {
      DLSIM_ASSIGN_OR_RETURN(const size_t col, t.Column("device"));
      return Error::InvalidArgument(t.Where(r, col) + ": column 'device': expected gpu or cpu, found " + dev);
    }
    DeviceCost& d = dev == "gpu" ? c.gpu : c.cpu;
    DLSIM_ASSIGN_OR_RETURN(d.compress, Pass(t, r, "comp_floor_us", "comp_rate_gbps"));
    DLSIM_ASSIGN_OR_RETURN(d.decompress, Pass(t, r, "decomp_floor_us", "decomp_rate_gbps"));
    devices.insert(dev);
  }
  if (known.count(name) == 0) return Unknown(file, "compressor", name, known);
  if (devices.size() != 2)
    return Error::InvalidArgument(file + ": compressor '" + name + "' needs one gpu and one cpu row");
  return c;
}

Result<Testbed> ParseTestbedCsv(std::string_view text, const std::string& file, const std::string& name) {
  DLSIM_ASSIGN_OR_RETURN(const CsvTable t, ParseCsv(text, file));
  std::set<std::string> known;
  for (size_t r = 0; r < t.rows.size(); ++r) {
    DLSIM_ASSIGN_OR_RETURN(const std::string n, t.Text(r, "name"));
    known.insert(n);
    if (n != name) continue;
    Testbed b;
    b.name = name;
    DLSIM_ASSIGN_OR_RETURN(const double nodes, InRange(t, r, "nodes", 1, 4096, "an integer in [1, 4096]"));
    DLSIM_ASSIGN_OR_RETURN(const double gpus, InRange(t, r, "gpus_per_node", 1, 64, "an integer in [1, 64]"));
    DLSIM_ASSIGN_OR_RETURN(const double intra, InRange(t, r, "intra_gbytes_per_s", 1e-6, 1e6, "> 0 GB/s"));
    DLSIM_ASSIGN_OR_RETURN(const double nic, InRange(t, r, "nic_gbytes_per_s", 1e-6, 1e6, "> 0 GB/s"));
    DLSIM_ASSIGN_OR_RETURN(const double alpha, InRange(t, r, "alpha_us", 0, 1e9, ">= 0 us"));
    DLSIM_ASSIGN_OR_RETURN(b.forward_fraction, InRange(t, r, "forward_fraction", 0, 100, "in [0, 100]"));
    b.nodes = static_cast<int>(nodes);
    b.gpus_per_node = static_cast<int>(gpus);
    b.intra_bw = GBps(intra);
    b.nic_bw = GBps(nic);
    b.alpha = Micros(alpha);
    return b;
  }
  return Unknown(file, "testbed", name, known);
}

}  // namespace dlsim::compress
