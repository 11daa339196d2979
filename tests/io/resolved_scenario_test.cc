// The resolved scenario (io/resolved_scenario.h) is a scenario: every shipped training, plan, serving and GNN
// scenario, resolved, written as JSON and read back by its own reader, resolves to the same JSON (a fixpoint:
// no key lost, renamed or mistyped), and the run it describes is the same. Cluster scenarios carry every key
// their policy reads, set or default.
#include "dlsim/io/resolved_scenario.h"

#include <gtest/gtest.h>

#include <filesystem>

#include "dlsim/cluster/policy.h"
#include "dlsim/io/catalog_loader.h"
#include "dlsim/io/cluster_scenario.h"
#include "dlsim/io/gnn_scenario.h"
#include "dlsim/io/plan_scenario.h"
#include "dlsim/io/serve_scenario.h"
#include "dlsim/io/train_scenario.h"
#include "dlsim/report/json_report.h"

namespace dlsim::io {
namespace {

using nlohmann::ordered_json;

const catalog::Catalogs& Cat() {
  static const catalog::Catalogs* c = new catalog::Catalogs(LoadCatalogs({}).value());
  return *c;
}

const ServeNames kServeNames{{"distserve", "orca", "sarathi", "vllm"},
                             {"least-outstanding-tokens", "round-robin"}};

std::string Scenario(const std::string& name) { return std::string(DLSIM_DATA_DIR) + "/scenarios/" + name; }

TEST(YamlToJson, TypesScalarsAsTheReadersDo) {
  const ordered_json j = YamlToJson(
      "a: 1\nb: 2.5\nc: true\nd: null\ne: \"123\"\nf: text\ng: [1, x]\nh: 18446744073709551615\ni: 1e-05\n");
  EXPECT_EQ(j["a"], 1);
  EXPECT_EQ(j["b"], 2.5);
  EXPECT_EQ(j["c"], true);
  EXPECT_TRUE(j["d"].is_null());
  EXPECT_EQ(j["e"], "123");  // quoted: text
  EXPECT_EQ(j["f"], "text");
  EXPECT_EQ(j["g"], ordered_json::parse("[1, \"x\"]"));
  EXPECT_EQ(j["h"].get<uint64_t>(), 18446744073709551615ull);
  EXPECT_DOUBLE_EQ(j["i"].get<double>(), 1e-5);
  EXPECT_TRUE(YamlToJson("a: [1,").is_string());  // malformed: the text, never a throw
}

// Every shipped scenario of `prefix` (and, with an empty prefix, those no other reader claims) that `resolve`
// reads: resolved, dumped, re-read and resolved again gives the same JSON.
template <typename Resolve>
int ExpectFixpoints(const std::string& prefix, Resolve resolve) {
  int checked = 0;
  for (const auto& entry : std::filesystem::directory_iterator(std::string(DLSIM_DATA_DIR) + "/scenarios")) {
    const std::string file = entry.path().filename().string();
    if (entry.path().extension() != ".yaml" || file.rfind(prefix, 0) != 0) continue;
    Result<ordered_json> first = resolve(ReadTextFile(entry.path().string()).value(), entry.path().string());
    if (!first.ok()) continue;  // another command's scenario
    const std::string text = report::DumpDeterministic(*first);
    Result<ordered_json> second = resolve(text, entry.path().string());
    EXPECT_TRUE(second.ok()) << file << ": the resolved scenario does not read back: "
                             << (second.ok() ? "" : second.error().message) << "\n"
                             << text;
    if (!second.ok()) continue;
    EXPECT_EQ(report::DumpDeterministic(*second), text) << file;
    ++checked;
  }
  return checked;
}

TEST(ResolvedScenario, TrainingScenariosAreFixpoints) {
  const int n =
      ExpectFixpoints("", [](const std::string& text, const std::string& file) -> Result<ordered_json> {
        DLSIM_ASSIGN_OR_RETURN(train::TrainOptions o,
                               ParseTrainScenario(text, file, Cat().hardware, Cat().models));
        return ResolvedTrainScenario(o);
      });
  EXPECT_GE(n, 8);
}

TEST(ResolvedScenario, PlanScenariosAreFixpoints) {
  const int n =
      ExpectFixpoints("plan_", [](const std::string& text, const std::string& file) -> Result<ordered_json> {
        DLSIM_ASSIGN_OR_RETURN(PlanScenario s, ParsePlanScenario(text, file, Cat().hardware, Cat().models));
        return ResolvedPlanScenario(s.base, s.options);
      });
  EXPECT_GE(n, 10);
}

TEST(ResolvedScenario, GnnScenariosAreFixpoints) {
  const int n =
      ExpectFixpoints("gnn_", [](const std::string& text, const std::string& file) -> Result<ordered_json> {
        DLSIM_ASSIGN_OR_RETURN(GnnScenario s,
                               ParseGnnScenario(text, file, Cat().hardware, BuiltinGnnNames(),
                                                std::filesystem::path(file).parent_path().string()));
        return ResolvedGnnScenario(s.options, s.compare);
      });
  EXPECT_GE(n, 3);
}

Result<ordered_json> ResolveServe(const std::string& text) {
  DLSIM_ASSIGN_OR_RETURN(serve::ServeOptions o,
                         ParseServeScenario(text, "s.yaml", Cat().hardware, Cat().models, kServeNames));
  return ResolvedServeScenario(o);
}

TEST(ResolvedScenario, ServingScenariosAreFixpoints) {
  EXPECT_GE(ExpectFixpoints("serve_",
                            [](const std::string& text, const std::string&) { return ResolveServe(text); }),
            1);
  // Every scheduler's and offload mode's keys, speculative decoding, an engine profile's CPU time, FP8.
  for (const char* yaml : {
           "model: {name: llama2-7b}\nscheduler: {name: sarathi, chunk_size: 256}\nworkload: {rate: 2, "
           "requests: 50, "
           "prompt_tokens: {distribution: uniform, low: 10, high: 90}}\n",
           "model: {name: llama2-7b}\nhardware: {replicas: 4}\nscheduler: {name: distserve, "
           "prefill_replicas: 1, "
           "decode_replicas: 3}\n",
           "model: {name: llama2-7b}\nscheduler: {name: orca, max_seq_len: 2048}\noffload: {mode: static, "
           "weight_fraction: 0.5}\n",
           "model: {name: llama2-13b}\noffload: {mode: select-n, state: weights}\nslo: {tpot_s: 0.2}\n",
           "model: {name: llama2-7b}\nspeculative: {num_tokens: 4, acceptance_rate: 0.7}\nengine: vllm-0.6\n",
           "model: {name: llama3-8b, weight_dtype: fp8, kv_cache_dtype: fp8}\nhardware: {gpu: "
           "h100-sxm5-80gb}\n"
           "workload: {arrival: gamma, cv: 2, duration_s: 30, output_tokens: {distribution: fixed, value: "
           "64}}\n",
       }) {
    const Result<ordered_json> first = ResolveServe(yaml);
    ASSERT_TRUE(first.ok()) << yaml << first.error().message;
    const Result<ordered_json> second = ResolveServe(report::DumpDeterministic(*first));
    ASSERT_TRUE(second.ok()) << second.error().message << "\n" << first->dump(2);
    EXPECT_EQ(*second, *first) << yaml;
  }
}

TEST(ResolvedScenario, ServingCarriesTheResolvedEngineAndDefaults) {
  const ordered_json j = ResolveServe("model: {name: llama2-7b}\nengine: vllm-0.6\n").value();
  EXPECT_EQ(j["engine"], "vllm-0.6");
  EXPECT_GT(j["engine_host"]["step_ms"].get<double>(), 0);  // the profile's measured CPU time
  EXPECT_EQ(j["scheduler"]["block_size"], 16);
  EXPECT_EQ(j["model"]["layers"], 32);
  EXPECT_FALSE(j["scheduler"].contains("chunk_size"));  // vllm does not read it (the reader refuses it)
}

TEST(ResolvedScenario, ClusterCarriesEveryKeyOfItsPolicy) {
  std::string text = ReadTextFile(Scenario("cluster_training_jobs.yaml")).value();
  auto o = ParseClusterScenario(text, Scenario("cluster_training_jobs.yaml"), Cat(),
                                std::string(DLSIM_DATA_DIR) + "/scenarios");
  ASSERT_TRUE(o.ok()) << o.error().message;
  o->policy = "tiresias";
  const ordered_json j = ResolvedClusterScenario(*o);
  const auto& keys = cluster::BuiltinPolicies().Keys("tiresias");
  ASSERT_FALSE(keys.empty());
  for (const cluster::ParamSpec& k : keys) EXPECT_TRUE(j["policy"].contains(k.key)) << k.key;
  EXPECT_EQ(j["jobs"]["count"].get<size_t>(), o->jobs.size());
  int64_t nodes = 0;
  for (const ordered_json& g : j["cluster"]["nodes"]) nodes += g["count"].get<int64_t>();
  EXPECT_EQ(nodes, static_cast<int64_t>(o->cluster.nodes().size()));
  EXPECT_LT(j["cluster"]["nodes"].size(), o->cluster.nodes().size());  // identical nodes grouped
  EXPECT_EQ(j["cluster"]["gpus"].get<int64_t>(), o->cluster.total_gpus());
}

}  // namespace
}  // namespace dlsim::io
