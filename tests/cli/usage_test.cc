// Command-line errors (issue 18): every one exits 2 (app::kExitUsage) with a message that says what
// was wrong and where to look, never a CLI11 internal code (105, 106, 109, ...).
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <string>

#include "common/run_dlsim.h"
#include "common/sanitizers.h"

namespace dlsim {
namespace {

using testing::Outcome;
using testing::RunDlsim;

struct UsageCase {
  std::string args;
  std::string message;  // a part of the message
};

class UsageTest : public ::testing::TestWithParam<UsageCase> {};

TEST_P(UsageTest, ExitsTwoWithAMessage) {
  const Outcome r = RunDlsim(GetParam().args);
  EXPECT_EQ(r.exit_code, 2) << r.output;
  EXPECT_NE(r.output.find(GetParam().message), std::string::npos) << r.output;
}

const std::string kPlan = std::string(DLSIM_DATA_DIR) + "/scenarios/plan_nemo_llama2-7b_8gpu.yaml";
const std::string kServe = std::string(DLSIM_DATA_DIR) + "/scenarios/serve_llama2_7b_a100_vllm.yaml";

INSTANTIATE_TEST_SUITE_P(
    Cli, UsageTest,
    ::testing::Values(UsageCase{"", "give a command; commands: version, catalog, list, train"},
                      UsageCase{"bogus", "unknown command 'bogus'; known: version, catalog"},
                      UsageCase{"trian --default", "unknown command 'trian' (did you mean 'train'?)"},
                      UsageCase{"train --bogus", "The following argument was not expected: --bogus"},
                      UsageCase{"train --bogus", "Run 'dlsim train --help' for the options."},
                      UsageCase{"train", "give a scenario FILE or --default"},
                      UsageCase{"serve", "FILE is required"},
                      UsageCase{"--catalog /nonexistent.yaml train --default",
                                "File does not exist: /nonexistent.yaml"}));

const std::string kCluster = std::string(DLSIM_DATA_DIR) + "/scenarios/cluster_philly_las.yaml";
const std::string kGnn = std::string(DLSIM_DATA_DIR) + "/scenarios/gnn_small.yaml";

// Hostile-input audit: these exited 1 (an unknown name on the command line), or 0 with the option
// ignored (an empty value, an empty list item, an option without the one it modifies).
INSTANTIATE_TEST_SUITE_P(
    Audit, UsageTest,
    ::testing::Values(
        UsageCase{"list bogus-kind", "dlsim list: unknown registry kind 'bogus-kind'; known: cache-policy"},
        UsageCase{"catalog show nonexistent-gpu", "unknown catalog entry 'nonexistent-gpu'"},
        UsageCase{"catalog show h100-sxm5-80g", "did you mean 'h100-sxm5-80gb'"},
        UsageCase{"catalog show ''", "name: expected a value, found an empty string"},
        UsageCase{"validate --cross-validate --folds 0", "--folds: Value 0 not in range 2 to 1000"},
        UsageCase{"validate --folds 3", "--folds requires --cross-validate"},
        UsageCase{"repro select-m", "unknown reproduction 'select-m' (did you mean 'select-n'?)"},
        UsageCase{"train --default --trace ''", "--trace: expected a value, found an empty string"},
        UsageCase{"serve " + kServe + " --csv ''", "--csv: expected a value, found an empty string"},
        UsageCase{"cluster " + kCluster + " --policy ''",
                  "--policy: expected a value, found an empty string"},
        UsageCase{"cluster " + kCluster + " --placement ''", "--placement: expected a value"},
        UsageCase{"cluster " + kCluster + " --compare fifo,,las",
                  "--compare: the list 'fifo,,las' has an empty item"},
        UsageCase{"cluster " + kCluster + " --compare las,", "--compare: the list 'las,' has an empty item"},
        UsageCase{"serve " + kServe + " --target 0.5", "--target requires --capacity"},
        UsageCase{"cluster " + kCluster + " --records", "--records requires --json"},
        UsageCase{"cluster " + kCluster + " --threads 5", "--threads requires --sweep"},
        // Two outputs on one path overwrote each other silently (issue 35), also through a different
        // spelling.
        UsageCase{"train --default --trace /tmp/dlsim_same.out --html /tmp/dlsim_same.out",
                  "--html: names the same path as --trace (/tmp/dlsim_same.out)"},
        UsageCase{"cluster " + kCluster + " --csv /tmp/dlsim_same.csv --series /tmp/../tmp/dlsim_same.csv",
                  "names the same path as --csv (/tmp/dlsim_same.csv)"},
        // Output options a mode does not write were ignored with exit 0 and no file (issue 35).
        UsageCase{
            "cluster " + kCluster + " --compare fifo,las --csv /tmp/dlsim_x.csv --trace /tmp/dlsim_x.json",
            "--csv, --trace: not written with --compare"},
        UsageCase{"cluster " + kCluster + " --sweep --html /tmp/dlsim_x.html",
                  "--html: not written with --sweep"},
        // --check only checks: an output beside it wrote nothing, with exit 0.
        UsageCase{"train --default --check --html /tmp/dlsim_x.html", "--html: not written with --check"},
        UsageCase{"serve " + kServe + " --check --csv /tmp/dlsim_x", "--csv: not written with --check"},
        UsageCase{"cluster " + kCluster + " --check --trace /tmp/dlsim_x.json",
                  "--trace: not written with --check"},
        UsageCase{"gnn " + kGnn + " --check --html /tmp/dlsim_x.html", "--html: not written with --check"},
        UsageCase{"repro --check --html /tmp/dlsim_x.html", "--html: not written with --check"},
        // The new pages' modes: written where they draw something, refused elsewhere.
        UsageCase{"gnn " + kGnn + " --compare --trace /tmp/dlsim_x.json",
                  "--trace: not written with --compare"},
        UsageCase{"validate --cross-validate --html /tmp/dlsim_x.html",
                  "--html: not written with --cross-validate"},
        UsageCase{"validate --calibrate-with 3 --html /tmp/dlsim_x.html",
                  "--html: not written with --calibrate-with"},
        UsageCase{"repro list --html /tmp/dlsim_x.html", "--html draws one reproduction; give its NAME"}));

// Values outside a flag's range name the range in words, not a 309-digit double.
TEST(UsageRanges, FlagRangesAreReadable) {
  Outcome threads = RunDlsim("plan " + kPlan + " --threads -1");
  EXPECT_EQ(threads.exit_code, 2);
  EXPECT_NE(threads.output.find("not in range 0 to 4096"), std::string::npos) << threads.output;
  EXPECT_LT(threads.output.size(), 300u) << threads.output;
  Outcome top = RunDlsim("plan " + kPlan + " --top 0");
  EXPECT_EQ(top.exit_code, 2) << top.output;
  for (const char* bad : {"nan", "0", "1.5", "-0.1", "abc"}) {
    Outcome target = RunDlsim("serve " + kServe + " --capacity --target " + bad);
    EXPECT_EQ(target.exit_code, 2) << bad << ": " << target.output;
    EXPECT_NE(target.output.find("expected a number in (0, 1]"), std::string::npos) << target.output;
  }
}

// --catalog is an option of dlsim itself; it is also accepted after the command name.
TEST(UsageRanges, CatalogMayFollowTheCommand) {
  const std::string gpu = std::string(DLSIM_DATA_DIR) + "/../docs/examples/my-gpu.yaml";
  Outcome before = RunDlsim("--catalog " + gpu + " catalog show my-gpu-96gb");
  Outcome after = RunDlsim("catalog show my-gpu-96gb --catalog " + gpu);
  EXPECT_EQ(before.exit_code, 0) << before.output;
  EXPECT_EQ(after.exit_code, 0) << after.output;
  EXPECT_EQ(before.output, after.output);
}

// `dlsim --version` and `dlsim version` print the same line and exit 0.
TEST(UsageOutput, VersionFlagAndCommandAgree) {
  const Outcome flag = RunDlsim("--version");
  const Outcome command = RunDlsim("version");
  EXPECT_EQ(flag.exit_code, 0) << flag.output;
  EXPECT_EQ(command.exit_code, 0) << command.output;
  EXPECT_EQ(flag.output.rfind("dlsim ", 0), 0u) << flag.output;
  EXPECT_EQ(flag.output, command.output);
}

// Output that cannot be written is an error (exit 1), never a silent exit 0 (issue 18).
TEST(UsageOutput, UnwritableOutputIsAnError) {
  if (!std::ifstream("/dev/full")) GTEST_SKIP() << "no /dev/full";
  Outcome stdout_full = testing::RunCommand(std::string(DLSIM_BINARY) + " train --default 2>&1 >/dev/full");
  EXPECT_EQ(stdout_full.exit_code, 1) << stdout_full.output;
  EXPECT_NE(stdout_full.output.find("cannot write the output"), std::string::npos) << stdout_full.output;
  Outcome csv = RunDlsim("plan " + kPlan + " --quiet --csv /dev/full");
  EXPECT_EQ(csv.exit_code, 1) << csv.output;
  EXPECT_NE(csv.output.find("cannot write /dev/full"), std::string::npos) << csv.output;
  Outcome best = RunDlsim("plan " + kPlan + " --quiet --write-best /dev/full");
  EXPECT_EQ(best.exit_code, 1) << best.output;
  // The trace's error named no file (issue 35).
  Outcome trace = RunDlsim("train --default --trace /dev/full");
  EXPECT_EQ(trace.exit_code, 1) << trace.output;
  EXPECT_NE(trace.output.find("--trace /dev/full: writing the trace failed"), std::string::npos)
      << trace.output;
}

// Files that are not regular files, or too large, are refused before they are read (issue 18):
// /dev/zero used to abort with bad_alloc, a FIFO to hang.
TEST(UsageOutput, DevicesAndHugeFilesAreRefused) {
  Outcome zero = RunDlsim("train /dev/zero");
  EXPECT_EQ(zero.exit_code, 1) << zero.output;
  EXPECT_NE(zero.output.find("not a regular file"), std::string::npos) << zero.output;
  Outcome cat = RunDlsim("--catalog /dev/zero train --default --check");
  EXPECT_NE(cat.exit_code, 0) << cat.output;
  const std::string big = (std::filesystem::temp_directory_path() / "dlsim_big.yaml").string();
  {
    std::ofstream f(big);
    f << "model: {name: llama3-8b}\n#";
    f << std::string(17 << 20, 'x') << "\n";
  }
  Outcome huge = RunDlsim("train " + big + " --check");
  EXPECT_EQ(huge.exit_code, 1) << huge.output.substr(0, 300);
  EXPECT_NE(huge.output.find("input files are limited to 16 MiB (set DLSIM_MAX_INPUT_MIB"), std::string::npos)
      << huge.output.substr(0, 300);
  Outcome raised = testing::RunCommand("DLSIM_MAX_INPUT_MIB=64 " + std::string(DLSIM_BINARY) + " train " +
                                       big + " --check 2>&1");
  EXPECT_EQ(raised.exit_code, 0) << raised.output.substr(0, 300);
  std::filesystem::remove(big);
}

// Past the size checks (DLSIM_MEMORY_GIB claims a huge machine; `ulimit -v` gives it 1 GB of address space),
// an R-MAT graph of 134M edges runs out of memory: the line names the command, the machine's memory and what
// to do, and the exit code is 1, not a crash.
TEST(OutOfMemory, PastTheSizeChecksTheLineNamesTheCommandAndWhatToDo) {
  DLSIM_SKIP_UNDER_SANITIZERS();  // the sanitizers reserve terabytes of address space
  const std::string path = (std::filesystem::temp_directory_path() / "dlsim_oom_gnn.yaml").string();
  std::ofstream(path) << "gnn:\n  graph: {rmat: {scale: 23, edge_factor: 16, seed: 1}}\n"
                         "  hardware: {node: dgx-a100, machines: 1, gpus_per_machine: 1}\n";
  const Outcome r = testing::RunCommand("ulimit -v 1000000; DLSIM_MEMORY_GIB=100000 " +
                                        std::string(DLSIM_BINARY) + " gnn " + path + " --quiet 2>&1");
  EXPECT_EQ(r.exit_code, 1) << r.output;
  EXPECT_NE(r.output.find("dlsim: out of memory running `dlsim gnn " + path + " --quiet`"), std::string::npos)
      << r.output;
  EXPECT_NE(r.output.find("which count 100000.0 GiB of memory here"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("set DLSIM_MEMORY_GIB"), std::string::npos) << r.output;
}

}  // namespace
}  // namespace dlsim
