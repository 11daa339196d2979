// Bad-input tests of `dlsim train FILE --check` through the real binary: each asserts a
// non-zero exit and the message, with its file, line and column. The scenario files are in
// tests/data/bad/ so every case can be run by hand:
//   build/tools/dlsim/dlsim train tests/data/bad/unknown_gpu.yaml --check
#include <gtest/gtest.h>
#include <sys/wait.h>

#include <array>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "common/json_checks.h"
#include "common/run_dlsim.h"
#include "dlsim/report/chakra_trace.h"

namespace {

using dlsim::testing::Outcome;
using dlsim::testing::RunDlsim;

const std::string kBad = std::string(DLSIM_TEST_DATA_DIR) + "/bad/";

struct BadCase {
  const char* file;                   // in tests/data/bad/
  std::vector<std::string> expected;  // substrings of the output; the first names FILE:LINE:COL
};

class BadScenarioTest : public ::testing::TestWithParam<BadCase> {};

TEST_P(BadScenarioTest, FailsWithLocatedMessage) {
  const BadCase& c = GetParam();
  Outcome r = RunDlsim("train " + kBad + c.file + " --check");
  EXPECT_NE(r.exit_code, 0) << r.output;
  EXPECT_EQ(r.output.find("ok:"), std::string::npos) << r.output;
  EXPECT_EQ(r.output.rfind("dlsim train: ", 0), 0u) << r.output;
  for (const std::string& e : c.expected) {
    std::string want = e;
    if (want.rfind(":", 0) == 0) want = kBad + c.file + want;  // ":3:1: ..." means FILE:3:1: ...
    EXPECT_NE(r.output.find(want), std::string::npos) << "missing: " << want << "\nin: " << r.output;
  }
}

const BadCase kBadCases[] = {
    {"syntax_unclosed_list.yaml", {":5:5: yaml syntax error: end of sequence flow not found"}},
    {"syntax_tab_indent.yaml", {":2:6: yaml syntax error: illegal map value"}},
    {"syntax_bad_indent.yaml", {":3:2: yaml syntax error: end of map not found"}},
    {"unknown_top_key.yaml",
     {":3:1: paralel: unknown key 'paralel' (did you mean 'parallel'?)",
      "allowed: model, hardware, training, parallel, seed"}},
    {"unknown_parallel_key.yaml",
     {":4:3: parallel.tpp: unknown key 'tpp' (did you mean 'tp'?); allowed: tp, pp"}},
    {"unknown_training_key.yaml",
     {":5:3: training.global_bacth: unknown key 'global_bacth' (did you mean 'global_batch'?)"}},
    {"wrong_type_quoted.yaml",
     {":4:7: parallel.tp: expected an integer, found 'four' (a quoted string); allowed: "
      "1..1048576"}},
    // An explicit tag is not interpreted: "!!str 2" is a string, like "2".
    {"wrong_type_tagged.yaml",
     {":4:7: parallel.tp: expected an integer, found '2' (tagged !!str, a string); allowed: 1..1048576"}},
    {"wrong_type_word.yaml", {":5:7: parallel.pp: expected an integer, found 'two'; allowed: 1..1048576"}},
    {"negative_gpus.yaml", {":4:9: hardware.gpus: expected an integer, found '-8'; allowed: 1..1048576"}},
    {"zero_micro_batch.yaml",
     {":4:16: training.micro_batch: expected an integer, found '0'; allowed: 1..65536"}},
    {"float_for_int.yaml", {":4:7: parallel.tp: expected an integer, found '2.5'; allowed: 1..1048576"}},
    {"bool_yes.yaml",
     {":4:22: parallel.sequence_parallel: expected true or false, found 'yes'; allowed: true, false"}},
    {"negative_nic_gbps.yaml",
     {":5:13: hardware.nic_gbps: expected a number, found '-400'; allowed: 0.001..1000000"}},
    {"zero_stage_4.yaml", {":4:9: parallel.zero: expected an integer, found '4'; allowed: 0..3"}},
    {"unknown_gpu.yaml",
     {":4:8: hardware.gpu: unknown GPU 'h100-sxm5-80g' (did you mean 'h100-sxm5-80gb'?); allowed: ",
      "a100-sxm4-80gb"}},
    {"unknown_model.yaml",
     {":2:9: model.name: unknown model 'llama3-8' (did you mean 'llama3-8b'?); allowed: ", "llama3-70b"}},
    {"unknown_node.yaml", {":4:9: hardware.node: unknown node 'dgx-h10' (did you mean 'dgx-h100'?)"}},
    {"unknown_network.yaml", {":5:12: hardware.network: unknown network 'ib-nd' (did you mean 'ib-ndr'?)"}},
    {"bad_schedule.yaml",
     {":5:22: parallel.pipeline_schedule: expected one of the allowed names, found 'zigzag'; allowed: gpipe, "
      "1f1b, interleaved"}},
    {"bad_recompute.yaml",
     {":4:14: parallel.recompute: ", "found 'partial'; allowed: none, selective, full"}},
    {"bad_precision.yaml", {":4:14: training.precision: ", "found 'fp32'", "allowed: bf16, fp16, fp8"}},
    {"layout_dp_mismatch.yaml",
     {":11:7: parallel.dp: tp*pp*cp*dp = 4*2*1*3 = 24 GPUs, but hardware.gpus is 16"}},
    {"layout_not_dividing.yaml",
     {":8:1: parallel: tp*pp*cp = 4*3*1 = 12 does not divide hardware.gpus = 16"}},
    {"gpus_not_whole_nodes.yaml", {":5:9: hardware.gpus: gpus 12 is not a multiple of gpus_per_node 8"}},
    {"heads_not_divisible_by_tp.yaml",
     {":9:7: parallel.tp: heads 12 of model custom are not divisible by tp 8"}},
    {"global_batch_not_divisible.yaml",
     {":6:17: training.global_batch: global_batch 63 is not divisible by micro_batch * dp = 1 * 4 = 4"}},
    {"virtual_stages_without_interleaved.yaml",
     {":7:19: parallel.virtual_stages: virtual_stages 2 needs pipeline_schedule: interleaved (found 1f1b)"}},
    {"interleaved_pp1.yaml", {":4:22: parallel.pipeline_schedule: interleaved needs pp >= 2, found pp 1"}},
    {"fp8_on_a100.yaml",
     {":7:14: training.precision: fp8 needs tensor cores that a100-sxm4-80gb does not have; allowed on this "
      "GPU: bf16, fp16"}},
    {"layers_per_stage_sum.yaml",
     {":9:21: parallel.layers_per_stage: entries add up to 33 layers, but model llama3-8b has 32"}},
    {"layers_per_stage_length.yaml",
     {":9:21: parallel.layers_per_stage: expected pp*virtual_stages = 4 entries, found 2"}},
    {"seq_not_divisible_by_cp.yaml",
     {":9:7: parallel.cp: training.seq_len 8190 is not divisible by 2*cp = 4"}},
    {"kv_heads_not_dividing.yaml", {":3:13: model.kv_heads: heads 32 is not a multiple of kv_heads 5"}},
    {"custom_model_incomplete.yaml",
     {":1:1: model: missing vocab: a model without 'name' must give layers, hidden, heads and vocab"}},
    {"duplicate_key.yaml", {":6:3: parallel.tp: duplicate key 'tp' (first given at line 4)"}},
    {"empty.yaml", {":1:1: file is empty"}},
    {"comments_only.yaml", {":1:1: file is empty"}},
    {"list_not_mapping.yaml",
     {":1:1: expected a mapping of 'key: value' lines at the top level, found a list"}},
    {"model_not_mapping.yaml",
     {":1:8: model: expected a mapping (indented 'key: value' lines), found 'llama3-8b'"}},
    {"section_not_mapping.yaml",
     {":3:11: parallel: expected a mapping (indented 'key: value' lines), found '8'"}},
    {"list_for_scalar.yaml", {":2:9: model.name: expected a string, found a list"}},
    {"two_documents.yaml", {":4:1: expected one YAML document, found more"}},
    {"too_many_pipeline_tasks.yaml",
     {":5:40: training.global_batch: 2 x 600 micro-batches x 1024 virtual stages = 1228800 forward and "
      "backward tasks per pipeline rank; the schedule holds at most 1000000"}},
    {"unknown_cost_model.yaml",
     {":3:15: cost.model: expected one of the allowed names, found 'learnd' (did you mean 'learned'?)"}},
};

INSTANTIATE_TEST_SUITE_P(Train, BadScenarioTest, ::testing::ValuesIn(kBadCases),
                         [](const ::testing::TestParamInfo<BadCase>& info) {
                           std::string name = info.param.file;
                           name = name.substr(0, name.find('.'));
                           for (char& ch : name) {
                             if (ch == '-') ch = '_';
                           }
                           return name;
                         });

TEST(TrainCliTest, EveryBadFileIsCovered) {
  size_t files = 0;
  for (const auto& entry : std::filesystem::directory_iterator(kBad)) {
    if (entry.path().extension() != ".yaml") continue;
    ++files;
    bool covered = false;
    for (const BadCase& c : kBadCases) covered = covered || entry.path().filename() == c.file;
    EXPECT_TRUE(covered) << entry.path() << " has no expectation";
  }
  EXPECT_EQ(files, std::size(kBadCases));
}

TEST(TrainCliTest, MissingFileNamesThePath) {
  Outcome r = RunDlsim("train " + kBad + "does_not_exist.yaml --check");
  EXPECT_EQ(r.exit_code, 1) << r.output;
  EXPECT_NE(r.output.find("cannot open '" + kBad + "does_not_exist.yaml': No such file or directory"),
            std::string::npos)
      << r.output;
}

TEST(TrainCliTest, DirectoryIsNotAScenario) {
  Outcome r = RunDlsim("train " + kBad + " --check");
  EXPECT_NE(r.exit_code, 0);
  EXPECT_NE(r.output.find("it is a directory, not a file"), std::string::npos) << r.output;
}

TEST(TrainCliTest, NeedsExactlyOneScenario) {
  Outcome none = RunDlsim("train --check");
  EXPECT_EQ(none.exit_code, 2) << none.output;
  EXPECT_NE(none.output.find("give a scenario FILE or --default"), std::string::npos) << none.output;
  Outcome both =
      RunDlsim("train " + std::string(DLSIM_DATA_DIR) + "/scenarios/default_train.yaml --default --check");
  EXPECT_EQ(both.exit_code, 2) << both.output;
}

// The exit codes of docs/scenario-format.md: 0 ran, 1 bad input, 2 usage, 3 infeasible (the result is still
// printed, with its reason).
TEST(TrainCliTest, InfeasibleIsAResultWithExitCodeThree) {
  const std::string path = std::string(DLSIM_TEST_DATA_DIR) + "/scenarios/infeasible_oom.yaml";
  Outcome json = RunDlsim("train " + path + " --json", /*merge_stderr=*/false);
  EXPECT_EQ(json.exit_code, 3) << json.output;
  const auto j = nlohmann::json::parse(json.output);
  EXPECT_FALSE(j["feasible"].get<bool>());
  EXPECT_NE(j["reason"].get<std::string>().find("out of memory"), std::string::npos) << j.dump();
  Outcome text = RunDlsim("train " + path);
  EXPECT_EQ(text.exit_code, 3) << text.output;
  EXPECT_NE(text.output.find("INFEASIBLE: out of memory"), std::string::npos) << text.output;
  EXPECT_EQ(RunDlsim("train " + kBad + "unknown_gpu.yaml").exit_code, 1);
  EXPECT_EQ(RunDlsim("train --default").exit_code, 0);
}

// Issue 18: --trace says where it wrote, and refuses to overwrite the scenario it traces.
TEST(TrainCliTest, TraceSaysWhereAndNeverOverwritesItsInput) {
  const std::filesystem::path dir = std::filesystem::temp_directory_path() / "dlsim_trace_cli_test";
  std::filesystem::create_directories(dir);
  const std::string scenario = (dir / "s.yaml").string();
  std::filesystem::copy_file(std::string(DLSIM_DATA_DIR) + "/scenarios/default_train.yaml", scenario,
                             std::filesystem::copy_options::overwrite_existing);
  const auto size = std::filesystem::file_size(scenario);
  Outcome self = RunDlsim("train " + scenario + " --trace " + scenario);
  EXPECT_EQ(self.exit_code, 1) << self.output;
  EXPECT_NE(self.output.find("would overwrite the input"), std::string::npos) << self.output;
  EXPECT_EQ(std::filesystem::file_size(scenario), size);  // untouched
  const std::string trace = (dir / "t.json").string();
  Outcome ok = RunDlsim("train " + scenario + " --trace " + trace);
  EXPECT_EQ(ok.exit_code, 0) << ok.output;
  EXPECT_NE(ok.output.find("trace: " + trace + " ("), std::string::npos) << ok.output;
  EXPECT_NE(ok.output.find("ui.perfetto.dev"), std::string::npos) << ok.output;
  std::filesystem::remove_all(dir);
}

TEST(TrainCliTest, DefaultScenarioChecks) {
  Outcome r = RunDlsim("train --default --check");
  EXPECT_EQ(r.exit_code, 0) << r.output;
  EXPECT_EQ(r.output.rfind("ok: llama3-8b on 8 x h100-sxm5-80gb (dgx-h100", 0), 0u) << r.output;
}

// The training examples of docs/scenario-format.md (data/scenarios/ also holds plan and serve
// scenarios, which `dlsim train` rightly rejects).
TEST(TrainCliTest, EveryTrainingExampleChecks) {
  for (const char* name : {"default_train.yaml", "llama3_70b_64xh100.yaml", "llama3.1_405b_16k_h100.yaml",
                           "gpt3_175b_1024xa100.yaml", "llama3_8b_fp8_h100.yaml", "custom_model_a100.yaml",
                           "bert_large_v100.yaml", "wan2.1_14b_dsv_128xh100.yaml"}) {
    const std::string path = std::string(DLSIM_DATA_DIR) + "/scenarios/" + name;
    Outcome r = RunDlsim("train " + path + " --check");
    EXPECT_EQ(r.exit_code, 0) << path << ": " << r.output;
    EXPECT_EQ(r.output.rfind("ok: ", 0), 0u) << path << ": " << r.output;
  }
}

// Llama 3 405B as the Llama 3 paper ran it (interleaved, one layer fewer on the first and last chunk, FSDP
// sharding the gradients, no checkpointing) fits in 80 GiB; the same layout with Megatron's distributed
// optimizer (zero 1: every rank keeps whole fp32 gradients) is 11.8 GiB short of fitting: the gradient
// sharding is what makes it fit.
TEST(TrainCliTest, Llama405bFitsAsThePaperRanIt) {
  const std::string path = std::string(DLSIM_DATA_DIR) + "/scenarios/llama3.1_405b_16k_h100.yaml";
  Outcome r = RunDlsim("train " + path + " --json", /*merge_stderr=*/false);
  ASSERT_EQ(r.exit_code, 0) << r.output;
  const auto j = nlohmann::json::parse(r.output);
  EXPECT_TRUE(j["feasible"].get<bool>());
  const double peak_gib = j["memory"]["peak_bytes_per_gpu"].get<double>() / (1024.0 * 1024 * 1024);
  EXPECT_LT(peak_gib, 80.0);
  EXPECT_GT(peak_gib, 60.0);
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  std::string zero1 = text.str();
  zero1.replace(zero1.find("zero: 2"), 7, "zero: 1");
  const std::string file = (std::filesystem::temp_directory_path() / "dlsim_405b_zero1.yaml").string();
  std::ofstream(file) << zero1;
  r = RunDlsim("train " + file, /*merge_stderr=*/true);
  EXPECT_EQ(r.exit_code, 3) << r.output;
  EXPECT_NE(r.output.find("out of memory"), std::string::npos) << r.output;
  std::filesystem::remove(file);
}

// The fits / out-of-memory verdict on the project's measured H200 steps (data/profiles/h200-{fit,heldout}/
// train.jsonl, issue 39): the three configurations that ran out of memory on the 139.8 GiB the H200 gives
// PyTorch are predicted out of memory, and the largest that ran (Llama 3.1 8B, bf16, 2 x 4096 tokens, 100.3
// GiB allocated) fits.
TEST(TrainCliTest, MeasuredH200OutOfMemoryVerdicts) {
  struct Case {
    const char* config;
    const char* stack;
    int micro_batch, seq;
    int exit_code;
  };
  const std::string dir = std::string(DLSIM_DATA_DIR) + "/../examples/calibrate/configs/";
  const std::string file = (std::filesystem::temp_directory_path() / "dlsim_h200_oom.yaml").string();
  for (const Case& c : {Case{"llama-3.2-1b", "pytorch-eager-autocast", 16, 4096, 3},
                        Case{"qwen2.5-1.5b", "pytorch-eager-autocast", 4, 8192, 3},
                        Case{"llama-3.1-8b", "pytorch-eager-autocast", 2, 4096, 3},
                        Case{"llama-3.1-8b", "pytorch-eager-bf16", 2, 4096, 0}}) {
    std::ofstream(file) << "model: {hf_config: " << dir << c.config << ".json}\n"
                        << "hardware: {gpu: h200, gpus: 1}\n"
                        << "training: {seq_len: " << c.seq << ", micro_batch: " << c.micro_batch
                        << ", global_batch: " << c.micro_batch << ", stack: " << c.stack << "}\n"
                        << "parallel: {recompute: none}\n";
    const Outcome r = RunDlsim("train " + file, /*merge_stderr=*/true);
    EXPECT_EQ(r.exit_code, c.exit_code) << c.config << " " << c.stack << ": " << r.output;
    if (c.exit_code == 3) {
      EXPECT_NE(r.output.find("out of memory"), std::string::npos) << r.output;
    }
  }
  std::filesystem::remove(file);
}

// `dlsim list software-stack`: the training.stack profiles of data/catalog/stacks.yaml.
TEST(TrainCliTest, ListShowsTheSoftwareStacks) {
  Outcome r = RunDlsim("list software-stack");
  EXPECT_EQ(r.exit_code, 0) << r.output;
  for (const char* name : {"megatron-core-0.8", "nemo-24.07"})
    EXPECT_NE(r.output.find(name), std::string::npos) << r.output;
}

TEST(TrainCliTest, UserCatalogOverridesWhatTheScenarioChecks) {
  // fp8 on an A100 is rejected with the embedded catalog (see fp8_on_a100 above) but accepted once a
  // user catalog gives that GPU an fp8 rate.
  const std::filesystem::path dir = std::filesystem::temp_directory_path() / "dlsim_train_cli_test";
  std::filesystem::create_directories(dir);
  const std::string catalog = (dir / "fp8_a100.yaml").string();
  FILE* f = fopen(catalog.c_str(), "w");
  ASSERT_NE(f, nullptr);
  fputs("gpus:\n  - name: a100-sxm4-80gb\n    dense_tflops:\n      fp8: 624\n", f);
  fclose(f);
  Outcome r = RunDlsim("--catalog " + catalog + " train " + kBad + "fp8_on_a100.yaml --check");
  EXPECT_EQ(r.exit_code, 0) << r.output;
  EXPECT_NE(r.output.find("a100-sxm4-80gb"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("fp8"), std::string::npos) << r.output;
  std::filesystem::remove_all(dir);
}

// Every byte count of `train --json` is an exact integer, the per-stage totals included (a stage's
// total_bytes was once printed as 107678630000.0), and no figure is negative, NaN or infinite.
TEST(TrainCliTest, JsonByteCountsAreIntegers) {
  const std::string path = std::string(DLSIM_DATA_DIR) + "/scenarios/llama3_70b_64xh100.yaml";
  Outcome r = RunDlsim("train " + path + " --json", /*merge_stderr=*/false);
  ASSERT_EQ(r.exit_code, 0) << r.output;
  const auto j = nlohmann::json::parse(r.output);
  ASSERT_TRUE(j["memory"]["stages"].is_array());
  ASSERT_FALSE(j["memory"]["stages"].empty());
  dlsim::testing::ExpectSaneJson(j);
}

// A MoE model of 16,384 experts (10^14 parameters) once overflowed the step simulator's event keys with
// millions of gradient buckets and crashed; it is an out-of-memory result now.
TEST(TrainCliTest, HugeExpertCountIsAnInfeasibleResultNotACrash) {
  const std::filesystem::path dir = std::filesystem::temp_directory_path() / "dlsim_train_cli_experts";
  std::filesystem::create_directories(dir);
  const std::string path = (dir / "experts.yaml").string();
  FILE* f = fopen(path.c_str(), "w");
  ASSERT_NE(f, nullptr);
  fputs("model: {name: llama3-8b, experts: 16384}\nhardware: {gpus: 8}\n", f);
  fclose(f);
  Outcome r = RunDlsim("train " + path);
  EXPECT_EQ(r.exit_code, 3) << r.output;
  EXPECT_NE(r.output.find("INFEASIBLE: out of memory"), std::string::npos) << r.output;
  std::filesystem::remove_all(dir);
}

// `train --compare-trace`: the real trimmed H200 trace beside its scenario in both renderings; a file that is
// not a trace is an error naming it before anything runs; an output flag on the trace's path is refused.
TEST(TrainCliTest, CompareTracePrintsTheStepBesideTheTrace) {
  const std::string dir = std::string(DLSIM_TEST_DATA_DIR) + "/traces/";
  const std::string run = "train " + dir + "llama-3.2-1b_amp_2x2048.yaml --compare-trace " + dir +
                          "llama-3.2-1b_amp_2x2048.trimmed.json.gz";
  Outcome r = RunDlsim(run);
  ASSERT_EQ(r.exit_code, 0) << r.output;
  for (const char* want :
       {"The profiled step beside dlsim's", "memory-bound", "GPU idle", "largest difference:"})
    EXPECT_NE(r.output.find(want), std::string::npos) << want << "\n" << r.output;
  r = RunDlsim(run + " --json", /*merge_stderr=*/false);
  ASSERT_EQ(r.exit_code, 0) << r.output;
  const auto j = nlohmann::json::parse(r.output);
  ASSERT_EQ(j["compare_trace"]["rows"].size(), 8u);
  EXPECT_EQ(j["compare_trace"]["rows"][7]["category"], "step");
  EXPECT_NEAR(j["compare_trace"]["rows"][7]["dlsim_ms"].get<double>(), 1e3 * j["step_time_s"].get<double>(),
              1e-6);
  EXPECT_TRUE(j["compare_trace"]["notes"].empty()) << j["compare_trace"]["notes"];
  dlsim::testing::ExpectSaneJson(j["breakdown"]);

  r = RunDlsim("train " + dir + "llama-3.2-1b_amp_2x2048.yaml --compare-trace " + dir + "llama-3.2-1b.json");
  EXPECT_EQ(r.exit_code, 1) << r.output;
  EXPECT_EQ(r.output.rfind("dlsim train: " + dir + "llama-3.2-1b.json: not a Kineto", 0), 0u) << r.output;
  const std::string copy = (std::filesystem::temp_directory_path() / "dlsim_compare_trace.json.gz").string();
  std::filesystem::copy_file(dir + "llama-3.2-1b_amp_2x2048.trimmed.json.gz", copy,
                             std::filesystem::copy_options::overwrite_existing);
  const auto size = std::filesystem::file_size(copy);
  r = RunDlsim("train " + dir + "llama-3.2-1b_amp_2x2048.yaml --compare-trace " + copy + " --trace " + copy);
  EXPECT_EQ(r.exit_code, 1) << r.output;
  EXPECT_NE(r.output.find("would overwrite the input"), std::string::npos) << r.output;
  EXPECT_EQ(std::filesystem::file_size(copy), size);
  std::filesystem::remove(copy);
}

// `--chakra DIR` (issue 36): a 2-stage pipeline of 4 data-parallel GPUs each as 8 Chakra files that read
// back: every GPU's forwards and backwards, activations sent to the next stage's GPU and received there under
// the same tag and size, gradients reduce-scattered (ZeRO 2) over the GPU's weight group, and the last node
// ending when the step does.
TEST(TrainChakra, TwoStagePipelineWritesOneTraceEachGpuThatReadsBack) {
  const std::string dir = (std::filesystem::temp_directory_path() / "dlsim_train_chakra").string();
  std::filesystem::remove_all(dir);
  const Outcome r = RunDlsim(
      "train " + std::string(DLSIM_DATA_DIR) + "/scenarios/custom_model_a100.yaml --json --chakra " + dir,
      false);
  ASSERT_EQ(r.exit_code, 0) << r.output;
  const double step_us = nlohmann::json::parse(r.output)["step_time_s"].get<double>() * 1e6;
  std::map<int, dlsim::report::ChakraFile> files;
  for (int gpu = 0; gpu < 8; ++gpu) {
    auto f = dlsim::report::ReadChakraFile(dir + "/dlsim." + std::to_string(gpu) + ".et");
    ASSERT_TRUE(f.ok()) << f.error().message;
    files[gpu] = std::move(*f);
  }
  EXPECT_FALSE(std::filesystem::exists(dir + "/dlsim.8.et"));
  auto count = [](const dlsim::report::ChakraFile& f, int type) {
    return std::count_if(f.nodes.begin(), f.nodes.end(), [type](const auto& n) { return n.type == type; });
  };
  const double activation = 4.0 * 4096 * 2048 * 2;  // micro-batch x sequence x hidden x bf16, tp 1
  uint64_t last_end = 0;
  for (const auto& [gpu, f] : files) {
    // 256 / (4 x 4) = 16 forwards and backwards, the optimizer, and two contention stretches (the backward's
    // beside its reductions, the next forward's beside the hidden parameter gather).
    EXPECT_EQ(count(f, 4), 2 * 16 + 1 + 2) << gpu;
    EXPECT_EQ(count(f, 5), 16) << gpu;  // activations forward (stage 0) or gradients back (stage 1)
    EXPECT_EQ(count(f, 6), 16) << gpu;
    std::set<uint64_t> ids;
    for (const auto& n : f.nodes) {
      for (uint64_t d : n.ctrl_deps) EXPECT_TRUE(ids.count(d)) << n.name;  // written before their users
      for (uint64_t d : n.data_deps) EXPECT_TRUE(ids.count(d)) << n.name;
      ids.insert(n.id);
      last_end = std::max(last_end, n.start_us + n.duration_us);
      if (n.type == 7) {
        EXPECT_EQ(std::get<int64_t>(n.attrs.at("comm_type")), 7) << n.name;  // REDUCE_SCATTER
        EXPECT_EQ(std::get<std::string>(n.attrs.at("pg_name")), gpu < 4 ? "1" : "2");
      }
    }
    EXPECT_GE(count(f, 7), 1) << gpu;
  }
  EXPECT_NEAR(static_cast<double>(last_end), step_us, 2.0);
  for (const auto& send : files[1].nodes) {  // GPU 1 (stage 0) sends to GPU 5 (stage 1), which receives
    if (send.type != 5) continue;
    EXPECT_EQ(std::get<int64_t>(send.attrs.at("comm_dst")), 5);
    EXPECT_EQ(std::get<int64_t>(send.attrs.at("comm_size")), static_cast<int64_t>(activation));
    const auto tag = send.attrs.at("comm_tag");
    EXPECT_EQ(std::count_if(files[5].nodes.begin(), files[5].nodes.end(),
                            [&](const auto& n) {
                              return n.type == 6 && n.attrs.at("comm_tag") == tag &&
                                     std::get<int64_t>(n.attrs.at("comm_src")) == 1;
                            }),
              1);
  }
  std::ifstream groups(dir + "/comm_group.json");
  const auto j = nlohmann::json::parse(groups);
  EXPECT_EQ(j["1"], nlohmann::json({0, 1, 2, 3}));
  EXPECT_EQ(j["2"], nlohmann::json({4, 5, 6, 7}));
  std::filesystem::remove_all(dir);
}

// A layout that does not fit runs no step: the command says so and writes no folder.
TEST(TrainChakra, NoStepNoTrace) {
  const std::filesystem::path tmp = std::filesystem::temp_directory_path();
  const std::string scenario = (tmp / "dlsim_chakra_oom.yaml").string(),
                    dir = (tmp / "dlsim_chakra_none").string();
  std::ofstream(scenario) << "model: {name: llama3-70b}\nhardware: {gpu: h100-sxm5-80gb, gpus: 1}\n"
                             "training: {seq_len: 8192, global_batch: 8, micro_batch: 1, precision: bf16}\n";
  std::filesystem::remove_all(dir);
  const Outcome r = RunDlsim("train " + scenario + " --chakra " + dir);
  EXPECT_NE(r.exit_code, 0) << r.output;
  EXPECT_NE(r.output.find("no step ran"), std::string::npos) << r.output;
  EXPECT_FALSE(std::filesystem::exists(dir));
}

}  // namespace
