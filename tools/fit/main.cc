// dlsim-fit: fits calibration constants on measured profiles and writes them as YAML.
//
//   dlsim-fit compute --profiles ../shared/data/profiles --out data/calibration/compute.yaml
//   dlsim-fit score   --profiles ../shared/data/profiles [--calibration FILE]
//
// `compute` reads the vidur A100/H100 operator profiles and the DistCA H100 attention profile,
// holds out every 4th distinct token count, fits each architecture and writes the YAML with a
// header naming the sources, the date, the command and the fit/held-out MAPE per operator.
// `score` prints that error table for an existing calibration (default: the embedded one).
#include <CLI/CLI.hpp>
#include <algorithm>
#include <cstdio>
#include <ctime>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <string>
#include <vector>

#include "alignment_fit.h"
#include "attention_fit.h"
#include "dlsim/io/calibration_loader.h"
#include "fit.h"
#include "gemm_fit.h"
#include "learned_cmd.h"
#include "profiles.h"
#include "tile_fit.h"
#include "yaml_out.h"

namespace {

namespace fs = std::filesystem;
using dlsim::fit::Sample;

dlsim::Result<std::vector<Sample>> LoadAll(const std::string& root) {
  std::vector<Sample> all;
  const std::pair<const char*, const char*> dirs[] = {{"vidur/a100", "ampere"}, {"vidur/h100", "hopper"}};
  for (const auto& [dir, arch] : dirs) {
    const fs::path d = fs::path(root) / dir;
    if (!fs::is_directory(d)) return dlsim::Error::NotFound("no profile folder " + d.string());
    std::vector<fs::path> files;
    for (const auto& e : fs::directory_iterator(d)) {
      if (e.path().string().ends_with(".mlp.csv")) files.push_back(e.path());
    }
    std::sort(files.begin(), files.end());
    for (const auto& f : files) {
      DLSIM_ASSIGN_OR_RETURN(auto rows, dlsim::fit::ReadVidurCsv(f.string(), arch));
      all.insert(all.end(), rows.begin(), rows.end());
    }
  }
  DLSIM_ASSIGN_OR_RETURN(auto att, dlsim::fit::ReadDistcaAttentionCsv(
                                       (fs::path(root) / "distca/compute-attn-H100.csv").string()));
  all.insert(all.end(), att.begin(), att.end());
  dlsim::fit::MarkHeldOut(all);
  return all;
}

std::string Today() {
  std::time_t t = std::time(nullptr);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y-%m-%d", std::gmtime(&t));
  return buf;
}

int Fail(const dlsim::Error& e) {
  std::cerr << "dlsim-fit: " << e.message << "\n";
  return 1;
}

// Writes `text` to `path` and echoes it; 1 when the write failed.
int WriteText(const std::string& path, const std::string& text) {
  std::ofstream f(path);
  f << text;
  std::cout << text;
  return f.good() ? 0 : 1;
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"Fits dlsim calibration constants on measured profiles"};
  app.require_subcommand(1);
  std::string profiles, out, calibration;
  auto* compute = app.add_subcommand("compute", "Fit the compute model and write its YAML");
  compute->add_option("--profiles", profiles, "Profile root (contains vidur/ and distca/)")->required();
  compute->add_option("--out", out, "Output YAML")->required();
  auto* score = app.add_subcommand("score", "Print fit/held-out MAPE per operator for a calibration");
  score->add_option("--profiles", profiles, "Profile root (contains vidur/ and distca/)")->required();
  score->add_option("--calibration", calibration, "Calibration YAML (default: embedded)");
  auto* accuracy =
      app.add_subcommand("accuracy", "Fit the roofline and tile models on three held-out splits and compare");
  accuracy->add_option("--profiles", profiles, "Profile root (contains vidur/ and distca/)")->required();
  std::string gemm_csv;
  auto* learned = app.add_subcommand("learned", "Fit the learned GEMM latency model and write its file");
  learned->add_option("--profiles", gemm_csv, "Compact GEMM CSV (data/profiles/vidur_gemm.csv)")->required();
  learned->add_option("--out", out, "Output model file")->required();
  std::vector<std::string> ops_csvs;
  std::string gpu = "h200", pytorch_default = "cudnn";
  auto* attention = app.add_subcommand("attention", "Fit attention kernel families on dlsim kernels CSVs");
  attention->add_option("--ops", ops_csvs, "Operator CSV with measured attention rows (repeatable)")
      ->required();
  attention->add_option("--gpu", gpu, "The GPU they were measured on")->capture_default_str();
  attention->add_option("--pytorch-default", pytorch_default, "The family SDPA picks by default there")
      ->capture_default_str();
  attention->add_option("--out", out, "Output YAML")->required();
  std::vector<std::string> align_csvs;
  std::string gemm_method;
  auto* alignment =
      app.add_subcommand("gemm-alignment", "Fit the misaligned-GEMM penalty on dlsim kernels CSVs");
  alignment->add_option("--ops", align_csvs, "Operator CSV with measured GEMM rows (repeatable)")->required();
  alignment->add_option("--gpu", gpu, "The GPU they were measured on")->capture_default_str();
  alignment->add_option("--out", out, "Output YAML")->required();
  alignment->add_option("--method", gemm_method,
                        "How the rows were measured (the call, the timer), written into the source");
  std::vector<std::string> gemm_ops;
  auto* gemm = app.add_subcommand("gemm", "Fit one GPU's GEMM curve on dlsim kernels CSVs");
  gemm->add_option("--ops", gemm_ops, "Operator CSV with measured GEMM rows (repeatable)")->required();
  gemm->add_option("--gpu", gpu, "The GPU they were measured on")->capture_default_str();
  gemm->add_option("--out", out, "Output YAML")->required();
  gemm->add_option("--method", gemm_method,
                   "How the rows were measured (the call, the timer), written into the entry's source");
  CLI11_PARSE(app, argc, argv);
  if (gemm->parsed()) {
    std::string ops_args;
    for (const std::string& p : gemm_ops) ops_args += " --ops " + p;
    const std::string method_arg = gemm_method.empty() ? "" : " --method '" + gemm_method + "'";
    auto text =
        dlsim::fit::FitGpuGemm(gemm_ops, gpu, gemm_method,
                               "dlsim-fit gemm" + ops_args + " --gpu " + gpu + method_arg + " --out " + out);
    if (!text.ok()) return Fail(text.error());
    return WriteText(out, *text);
  }
  if (alignment->parsed()) {
    std::string ops_args;
    for (const std::string& p : align_csvs) ops_args += " --ops " + p;
    const std::string method_arg = gemm_method.empty() ? "" : " --method '" + gemm_method + "'";
    auto text = dlsim::fit::FitGemmAlignment(
        align_csvs, gpu, gemm_method,
        "dlsim-fit gemm-alignment" + ops_args + " --gpu " + gpu + method_arg + " --out " + out);
    if (!text.ok()) return Fail(text.error());
    return WriteText(out, *text);
  }
  if (attention->parsed()) {
    std::string ops_args;
    for (const std::string& p : ops_csvs) ops_args += " --ops " + p;
    auto text =
        dlsim::fit::FitAttentionBackends(ops_csvs, gpu, pytorch_default,
                                         "dlsim-fit attention" + ops_args + " --gpu " + gpu +
                                             " --pytorch-default " + pytorch_default + " --out " + out);
    if (!text.ok()) return Fail(text.error());
    return WriteText(out, *text);
  }
  if (learned->parsed()) {
    auto text = dlsim::fit::FitLearnedModelText(gemm_csv,
                                                "dlsim-fit learned --profiles " + gemm_csv + " --out " + out);
    if (!text.ok()) return Fail(text.error());
    std::ofstream f(out);
    f << *text;
    return f.good() ? 0 : 1;
  }

  auto samples = LoadAll(profiles);
  if (!samples.ok()) return Fail(samples.error());

  if (accuracy->parsed()) {
    std::cout << dlsim::fit::SplitTable(dlsim::fit::CompareModels(*samples, dlsim::fit::LiteratureStart()));
    return 0;
  }
  if (score->parsed()) {
    auto cal = calibration.empty() ? dlsim::io::LoadDefaultComputeCalibration()
                                   : dlsim::io::LoadComputeCalibrationFile(calibration);
    if (!cal.ok()) return Fail(cal.error());
    std::cout << "All rows:\n" << dlsim::fit::ErrorTable(dlsim::fit::Score(*samples, *cal));
    std::cout << "\nRows with >= " << dlsim::fit::kTrainingTokens << " tokens (training regime):\n"
              << dlsim::fit::ErrorTable(dlsim::fit::Score(*samples, *cal, dlsim::fit::kTrainingTokens));
    return 0;
  }

  dlsim::cost::ComputeCalibration cal;
  for (const auto& arch : dlsim::fit::LiteratureStart()) {
    cal.archs.push_back(dlsim::fit::FitArchitecture(*samples, arch));
    dlsim::fit::FitTile(*samples, cal.archs.back());
  }
  dlsim::fit::AddLiteratureConstants(cal);
  const auto errors = dlsim::fit::Score(*samples, cal);
  const auto training_errors = dlsim::fit::Score(*samples, cal, dlsim::fit::kTrainingTokens);
  std::string command = "dlsim-fit compute --profiles " + profiles + " --out " + out;
  std::ofstream f(out);
  if (!f) return Fail(dlsim::Error::NotFound("cannot write " + out));
  f << dlsim::fit::CalibrationYaml(cal, errors, training_errors, command, Today());
  std::cout << dlsim::fit::ErrorTable(errors) << "\n" << dlsim::fit::ErrorTable(training_errors);
  return f.good() ? 0 : 1;
}
