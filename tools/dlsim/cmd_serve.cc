// dlsim serve FILE [--json] [--trace OUT.json] [--check] [--capacity [--target 0.9]]
//
// Simulates an LLM serving deployment (docs/serving.md). Parsing and printing only.
#include <fmt/format.h>

#include <fstream>
#include <iostream>
#include <memory>

#include "commands.h"
#include "dlsim/io/calibration_loader.h"
#include "dlsim/io/catalog_loader.h"
#include "dlsim/io/network_calibration_loader.h"
#include "dlsim/io/serve_scenario.h"
#include "dlsim/report/chrome_trace_sink.h"
#include "dlsim/report/json_report.h"
#include "dlsim/serve/setup.h"

namespace dlsim::cli {
namespace {

struct ServeArgs {
  std::string file;
  bool json = false;
  bool check = false;
  bool capacity = false;
  double target = 0.9;
  std::string trace_path;
};

void RunServe(const ServeArgs& args, const GlobalOptions& global) {
  auto catalogs = io::LoadCatalogs(global.catalog_files);
  if (!catalogs.ok()) Fail("serve", catalogs.error().message);
  auto compute = io::LoadDefaultComputeCalibration();
  if (!compute.ok()) Fail("serve", compute.error().message);
  auto network = io::LoadDefaultNetworkCalibration();
  if (!network.ok()) Fail("serve", network.error().message);
  auto env = serve::MakeServeEnvironment(*compute, *network);
  if (!env.ok()) Fail("serve", env.error().message);
  const io::ServeNames names{(*env)->schedulers.Names(), (*env)->routers.Names()};
  auto options = io::LoadServeScenarioFile(args.file, catalogs->hardware, catalogs->models, names);
  if (!options.ok()) Fail("serve", options.error().message);
  if (args.check) {
    fmt::print("ok: {}\n", io::SummarizeServeOptions(*options));
    return;
  }
  auto cost = serve::MakeCostModel(*options, **env);
  if (!cost.ok()) Fail("serve", cost.error().message);
  if (args.capacity) {
    auto cap =
        serve::FindCapacity(*options, **cost, (*env)->schedulers, (*env)->routers, {.target = args.target});
    if (!cap.ok()) Fail("serve", cap.error().message);
    if (args.json) {
      report::JsonReport j;
      j.Set("target_slo_attainment", args.target).Set("rate_per_replica", cap->rate_per_replica);
      nlohmann::ordered_json probes = nlohmann::ordered_json::array();
      for (const auto& p : cap->probes)
        probes.push_back({{"rate_per_replica", p.rate_per_replica}, {"slo_attainment", p.slo_attainment}});
      j.Set("probes", probes).Set("at_capacity", serve::ToJson(cap->at_capacity));
      if (!j.Write(std::cout).ok()) Fail("serve", "cannot write to stdout");
    } else {
      std::cout << serve::FormatCapacityReport(*options, *cap, args.target);
    }
    return;
  }
  std::ofstream trace_file;
  std::unique_ptr<report::ChromeTraceSink> trace;
  if (!args.trace_path.empty()) {
    trace_file.open(args.trace_path);
    if (!trace_file) Fail("serve", "cannot write the trace file '" + args.trace_path + "'");
    trace = std::make_unique<report::ChromeTraceSink>(trace_file);
    Status st =
        trace->Begin({options->name, "serve", {{"seed", static_cast<int64_t>(options->workload.seed)}}});
    if (!st.ok()) Fail("serve", st.error().message);
  }
  auto result = serve::Simulate(*options, **cost, (*env)->schedulers, (*env)->routers, trace.get());
  if (!result.ok()) Fail("serve", result.error().message);
  if (trace) {
    Status st = trace->Finish();
    if (!st.ok()) Fail("serve", st.error().message);
  }
  if (args.json) {
    report::JsonReport j;
    j.root() = serve::ToJson(*result);
    if (!j.Write(std::cout).ok()) Fail("serve", "cannot write to stdout");
  } else {
    std::cout << serve::FormatReport(*options, *result);
  }
  if (!result->feasible) throw CLI::RuntimeError(3);
}

}  // namespace

void AddServeCommand(CLI::App& app, GlobalOptions& global) {
  auto* cmd = app.add_subcommand(
      "serve", "Simulate LLM serving: latency percentiles, throughput, SLO attainment (docs/serving.md)");
  auto args = std::make_shared<ServeArgs>();
  cmd->add_option("FILE", args->file, "Serving scenario (YAML)")->required();
  cmd->add_flag("--json", args->json, "Print the result as one JSON object");
  cmd->add_flag("--check", args->check, "Validate the scenario and print a summary");
  cmd->add_flag("--capacity", args->capacity,
                "Search the highest arrival rate per replica meeting the SLO target");
  cmd->add_option("--target", args->target, "SLO attainment target of --capacity (default 0.9)")
      ->check(CLI::Range(0.0, 1.0));
  cmd->add_option("--trace", args->trace_path, "Write a Perfetto / Chrome trace JSON of the iterations");
  cmd->callback([args, &global] { RunServe(*args, global); });
}

}  // namespace dlsim::cli
