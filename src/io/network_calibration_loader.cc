#include "dlsim/io/network_calibration_loader.h"

#include "dlsim/io/embedded.h"
#include "dlsim/io/yaml_reader.h"

namespace dlsim::io {
namespace {

net::LinkCalibration ReadLink(const MapReader& m, net::LinkCalibration link) {
  if (!m.present()) return link;
  link.efficiency = m.Get<double>("efficiency", link.efficiency, Range{0, 1.5, true});
  link.ramp_half_size =
      MB(m.Get<double>("ramp_half_mb", link.ramp_half_size.ToBytes() * 1e-6, Range::NonNegative()));
  link.ramp_exponent = m.Get<double>("ramp_exponent", link.ramp_exponent, Range::Positive());
  link.step_latency =
      Micros(m.Get<double>("step_latency_us", link.step_latency.ToMicros(), Range::NonNegative()));
  link.small_group_loss = m.Get<double>("small_group_loss", link.small_group_loss, Range::Between(0, 3.9));
  m.Finish();
  return link;
}

}  // namespace

Result<net::NetworkCalibration> ParseNetworkCalibration(std::string_view yaml_text, std::string file_name) {
  DLSIM_ASSIGN_OR_RETURN(Document doc, ParseYaml(yaml_text, std::move(file_name)));
  net::NetworkCalibration cal;
  MapReader root = doc.Root();
  MapReader nvlink = root.Section("nvlink");
  for (const std::string& arch : nvlink.Keys()) {
    MapReader m = nvlink.Section(arch);
    if (arch == "default") {
      cal.nvlink_default = ReadLink(m, cal.nvlink_default);
    } else {
      cal.nvlink[arch] = ReadLink(m, cal.nvlink_default);
    }
  }
  cal.pcie = ReadLink(root.Section("pcie"), cal.pcie);
  cal.inter_node = ReadLink(root.Section("inter_node"), cal.inter_node);
  cal.nvls_efficiency = root.Get<double>("nvls_efficiency", cal.nvls_efficiency, Range{0, 1.5, true});
  cal.tree_efficiency = root.Get<double>("tree_efficiency", cal.tree_efficiency, Range{0, 1.5, true});
  cal.launch_overhead =
      Micros(root.Get<double>("launch_overhead_us", cal.launch_overhead.ToMicros(), Range::NonNegative()));
  root.Allow({"fit"});
  root.Finish();
  DLSIM_RETURN_IF_ERROR(doc.status());
  return cal;
}

Result<net::NetworkCalibration> LoadNetworkCalibrationFile(const std::string& path) {
  DLSIM_ASSIGN_OR_RETURN(std::string text, ReadTextFile(path));
  return ParseNetworkCalibration(text, path);
}

Result<net::NetworkCalibration> LoadDefaultNetworkCalibration() {
  return ParseNetworkCalibration(embedded::NetworkCalibrationYaml(), "data/calibration/network.yaml");
}

}  // namespace dlsim::io
