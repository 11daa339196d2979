// `dlsim catalog list|show` through the real binary (DLSIM_BINARY), with and without --catalog.
#include <gtest/gtest.h>
#include <sys/wait.h>

#include <cstdio>
#include <string>

namespace {

// Runs dlsim with `args`; returns the exit code and stdout+stderr.
std::pair<int, std::string> Dlsim(const std::string& args) {
  std::string text;
  FILE* p = popen((std::string(DLSIM_BINARY) + " " + args + " 2>&1").c_str(), "r");
  if (!p) return {-1, text};
  char chunk[4096];
  for (size_t n; (n = fread(chunk, 1, sizeof chunk, p)) > 0;) text.append(chunk, n);
  const int status = pclose(p);
  return {WIFEXITED(status) ? WEXITSTATUS(status) : -1, text};
}

const std::string kExample = std::string(DLSIM_DATA_DIR) + "/../docs/examples/my-gpu.yaml";

TEST(CatalogCliTest, ListShowsAllTenGpus) {
  auto [code, out] = Dlsim("catalog list");
  ASSERT_EQ(code, 0) << out;
  for (const char* n : {"v100-sxm2-32gb", "a100-sxm4-40gb", "a100-sxm4-80gb", "h100-sxm5-80gb",
                        "h200-sxm-141gb", "b200-sxm-180gb", "l4-24gb", "l40s-48gb", "a10-24gb", "t4-16gb",
                        "dgx-h100", "ib-ndr", "llama3-70b", "BF16 (TFLOP/s)", "Memory (GiB)"}) {
    EXPECT_NE(out.find(n), std::string::npos) << n << "\n" << out;
  }
}

TEST(CatalogCliTest, ListOneKind) {
  auto [code, out] = Dlsim("catalog list networks");
  ASSERT_EQ(code, 0) << out;
  EXPECT_NE(out.find("ib-xdr"), std::string::npos) << out;
  EXPECT_EQ(out.find("h100-sxm5-80gb"), std::string::npos) << out;
  auto [bad, msg] = Dlsim("catalog list gpuz");
  EXPECT_NE(bad, 0);
  EXPECT_NE(msg.find("did you mean 'gpus'"), std::string::npos) << msg;
}

TEST(CatalogCliTest, ShowH100WithUnitsAndMig) {
  auto [code, out] = Dlsim("catalog show h100-sxm5-80gb");
  ASSERT_EQ(code, 0) << out;
  for (const char* s : {"989.4 TFLOP/s", "80 GiB", "3350 GB/s", "450 GB/s per direction", "700 W", "50 MiB",
                        "Gen5 x16", "1g.10gb", "7g.80gb", "0,1,2,3,4,5,6"}) {
    EXPECT_NE(out.find(s), std::string::npos) << s << "\n" << out;
  }
}

TEST(CatalogCliTest, ShowByAliasAndOtherKinds) {
  EXPECT_NE(Dlsim("catalog show a100").second.find("a100-sxm4-80gb"), std::string::npos);
  EXPECT_NE(Dlsim("catalog show dgx-a100").second.find("300 GB/s per GPU per direction"), std::string::npos);
  EXPECT_NE(Dlsim("catalog show ib-hdr").second.find("200 Gb/s"), std::string::npos);
  EXPECT_NE(Dlsim("catalog show llama2-7b").second.find("6.7384 B"), std::string::npos);
}

// Hugging Face hub ids name the catalog entry written from that checkpoint's config.json (issue 36), in any
// case, in the catalog and in scenarios; an unknown one says how to import its config instead of suggesting
// a different model.
TEST(CatalogCliTest, HubIdsNameTheirPublishedConfigs) {
  EXPECT_NE(Dlsim("catalog show meta-llama/Llama-3.1-8B-Instruct").second.find("Model llama3.1-8b"),
            std::string::npos);
  EXPECT_NE(Dlsim("catalog show qwen/qwen2.5-7b").second.find("Model qwen2.5-7b"), std::string::npos);
  auto [code, out] = Dlsim("catalog show meta-llama/Llama-3.2-3B");
  EXPECT_NE(code, 0);
  EXPECT_NE(out.find("'meta-llama/Llama-3.2-3B' is a Hugging Face hub id that is not in dlsim's table"),
            std::string::npos)
      << out;
  EXPECT_NE(out.find("dlsim catalog import"), std::string::npos) << out;
  EXPECT_EQ(out.find("did you mean"), std::string::npos) << out;
  const std::string scenario = testing::TempDir() + "/dlsim_hub_id.yaml";
  FILE* f = fopen(scenario.c_str(), "w");
  fputs("model: {name: mistralai/Mixtral-8x7B-v0.1}\nhardware: {gpu: h100, gpus: 8}\n", f);
  fclose(f);
  auto [ok, summary] = Dlsim("train " + scenario + " --check");
  EXPECT_EQ(ok, 0) << summary;
  EXPECT_NE(summary.find("mixtral-8x7b"), std::string::npos) << summary;
  f = fopen(scenario.c_str(), "w");
  fputs("model: {name: org/unknown-model}\nhardware: {gpu: h100, gpus: 8}\n", f);
  fclose(f);
  auto [bad, message] = Dlsim("train " + scenario + " --check");
  EXPECT_NE(bad, 0);
  EXPECT_NE(message.find("1:15: model.name: 'org/unknown-model' is a Hugging Face hub id"), std::string::npos)
      << message;
}

TEST(CatalogCliTest, MultimodalModels) {
  auto [code, out] = Dlsim("catalog show qwen2.5-vl-7b");
  ASSERT_EQ(code, 0) << out;
  for (const char* s : {"qwen2.5-7b", "windows of 64 patches, full in layers 7,15,23,31", "2 x 2 merge",
                        "8.2922 B", "LLM tokens per image"})
    EXPECT_NE(out.find(s), std::string::npos) << s << "\n" << out;
  auto [lc, list] = Dlsim("catalog list multimodal");
  ASSERT_EQ(lc, 0) << list;
  for (const char* s : {"llava-1.5-7b", "llava-1.5-13b", "internvl2.5-38b", "Tokens / image"})
    EXPECT_NE(list.find(s), std::string::npos) << s << "\n" << list;
  EXPECT_EQ(list.find("h100-sxm5-80gb"), std::string::npos);
  auto [jc, json] = Dlsim("catalog show internvl2.5-38b --json");
  ASSERT_EQ(jc, 0);
  EXPECT_NE(json.find("\"llm_tokens_per_image\": 256"), std::string::npos) << json;
  // Parameter counts are exact integers (they were printed as 8292166656.0).
  auto [qc, qwen] = Dlsim("catalog show qwen2.5-vl-7b --json");
  EXPECT_NE(qwen.find("\"parameters\": 8292166656\n"), std::string::npos) << qwen;
  auto [lc3, llama] = Dlsim("catalog show llama3-8b --json");
  EXPECT_NE(llama.find("\"parameters\": 8030261248\n"), std::string::npos) << llama;
}

TEST(CatalogCliTest, UnknownNameFailsWithSuggestion) {
  auto [code, out] = Dlsim("catalog show h100-sxm5-80g");
  EXPECT_EQ(code, 2);  // a name on the command line: a usage error
  EXPECT_NE(out.find("unknown catalog entry 'h100-sxm5-80g'"), std::string::npos) << out;
  EXPECT_NE(out.find("did you mean 'h100-sxm5-80gb'"), std::string::npos) << out;
}

TEST(CatalogCliTest, JsonUsesYamlKeys) {
  auto [code, out] = Dlsim("catalog show h100 --json");
  ASSERT_EQ(code, 0) << out;
  EXPECT_NE(out.find("\"memory_bandwidth_gb_per_s\": 3350"), std::string::npos) << out;
  EXPECT_NE(out.find("\"bf16\": 989.4"), std::string::npos) << out;
  auto [lc, list] = Dlsim("catalog list models --json");
  ASSERT_EQ(lc, 0);
  EXPECT_NE(list.find("\"models\""), std::string::npos);
  EXPECT_EQ(list.find("\"gpus\""), std::string::npos);
}

TEST(CatalogCliTest, CatalogFileAddsAndOverrides) {
  auto [code, out] = Dlsim("--catalog " + kExample + " catalog list gpus");
  ASSERT_EQ(code, 0) << out;
  EXPECT_NE(out.find("my-gpu-96gb"), std::string::npos) << out;
  auto [sc, show] = Dlsim("catalog show h100 --catalog " + kExample);  // option after the subcommand
  ASSERT_EQ(sc, 0) << show;
  EXPECT_NE(show.find("500 W"), std::string::npos) << show;
}

TEST(CatalogCliTest, BadCatalogFileNamesLine) {
  const std::string path = ::testing::TempDir() + "/cli_bad_catalog.yaml";
  FILE* f = fopen(path.c_str(), "w");
  ASSERT_NE(f, nullptr);
  fputs("gpus:\n  - name: h100\n    sm_cout: 1\n", f);
  fclose(f);
  auto [code, out] = Dlsim("--catalog " + path + " catalog list");
  EXPECT_EQ(code, 1);
  EXPECT_NE(out.find(path + ":3:5: gpus[0].sm_cout: unknown key"), std::string::npos) << out;
  EXPECT_NE(out.find("did you mean 'sm_count'"), std::string::npos) << out;
}

}  // namespace

// `catalog import` prints an entry that --catalog reads back, MoE keys included.
TEST(CatalogCliTest, ImportWritesAnEntryThatLoads) {
  const std::string hf = std::string(DLSIM_TEST_DATA_DIR) + "/hf/";
  const std::string out_file = ::testing::TempDir() + "/imported.yaml";
  auto [code, out] = Dlsim("catalog import " + hf + "Qwen2.5-7B/config.json --name my-qwen > " + out_file);
  ASSERT_EQ(code, 0) << out;
  auto [show_code, shown] = Dlsim("--catalog " + out_file + " catalog show my-qwen");
  ASSERT_EQ(show_code, 0) << shown;
  EXPECT_NE(shown.find("18944"), std::string::npos) << shown;
  const std::string moe_file = ::testing::TempDir() + "/imported-moe.yaml";
  auto [moe_code, moe] =
      Dlsim("catalog import " + hf + "Mixtral-8x7B-v0.1/config.json --name my-mixtral > " + moe_file);
  ASSERT_EQ(moe_code, 0) << moe;
  auto [moe_show_code, moe_shown] = Dlsim("--catalog " + moe_file + " catalog show my-mixtral");
  ASSERT_EQ(moe_show_code, 0) << moe_shown;
  EXPECT_NE(moe_shown.find("46.7"), std::string::npos) << moe_shown;
}
