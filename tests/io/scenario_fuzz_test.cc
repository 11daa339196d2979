// Robustness: mutated scenario files never crash the parser, never trip an assert, and every
// error names the file. Deterministic (fixed seed, our own generator).
#include <gtest/gtest.h>

#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "dlsim/io/catalog_loader.h"
#include "dlsim/io/train_scenario.h"

namespace dlsim::io {
namespace {

// SplitMix64: tiny, portable, same sequence everywhere.
class Gen {
 public:
  explicit Gen(uint64_t seed) : s_(seed) {}
  uint64_t Next() {
    uint64_t z = (s_ += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
  }
  size_t Below(size_t n) { return n == 0 ? 0 : static_cast<size_t>(Next() % n); }

 private:
  uint64_t s_;
};

std::vector<std::string> SeedFiles() {
  std::vector<std::string> texts;
  for (const std::string& dir :
       {std::string(DLSIM_DATA_DIR) + "/scenarios", std::string(DLSIM_TEST_DATA_DIR) + "/bad"}) {
    for (const auto& e : std::filesystem::directory_iterator(dir)) {
      if (e.path().extension() != ".yaml") continue;
      std::ifstream in(e.path());
      std::stringstream ss;
      ss << in.rdbuf();
      texts.push_back(ss.str());
    }
  }
  return texts;
}

std::string Mutate(std::string s, Gen& g) {
  static const std::string kAlphabet = ":-[]{}#&*!|>'\"%@`,? \t\n0123456789abcxyz.~\\";
  static const std::vector<std::string> kTokens = {"-1",    "0",     "99999999999999999999",
                                                   "1e400", ".nan",  "~",
                                                   "[]",    "{}",    "&a",
                                                   "*a",    "!!str", "<<: *a",
                                                   "\"",    "'",     "\n  ",
                                                   "\t"};
  const int edits = 1 + static_cast<int>(g.Below(4));
  for (int i = 0; i < edits; ++i) {
    const size_t pos = g.Below(s.size() + 1);
    switch (g.Below(5)) {
      case 0:  // delete a range
        s.erase(pos, g.Below(8) + 1);
        break;
      case 1:  // insert a YAML-significant byte
        s.insert(pos, 1, kAlphabet[g.Below(kAlphabet.size())]);
        break;
      case 2:  // insert a token
        s.insert(pos, kTokens[g.Below(kTokens.size())]);
        break;
      case 3: {  // duplicate a line
        size_t start = s.rfind('\n', pos == 0 ? 0 : pos - 1);
        start = start == std::string::npos ? 0 : start + 1;
        size_t end = s.find('\n', start);
        if (end == std::string::npos) end = s.size();
        s.insert(end, "\n" + s.substr(start, end - start));
        break;
      }
      default:  // truncate
        s.resize(pos);
    }
  }
  return s;
}

class ScenarioFuzzTest : public ::testing::Test {
 protected:
  void SetUp() override {
    auto c = LoadCatalogs({});
    ASSERT_TRUE(c.ok()) << c.error().message;
    catalogs_ = std::move(*c);
  }
  // Parses and checks the outcome is either a scenario or an error naming the file.
  void Check(const std::string& text) {
    auto r = ParseTrainScenario(text, "fuzz.yaml", catalogs_.hardware, catalogs_.models);
    if (r.ok()) {
      EXPECT_GT(r->parallel.dp, 0);
      EXPECT_EQ(int64_t{r->parallel.tp} * r->parallel.pp * r->parallel.cp * r->parallel.dp, r->hardware.gpus);
    } else {
      EXPECT_EQ(r.error().message.rfind("fuzz.yaml", 0), 0u) << r.error().message << "\n--- input:\n" << text;
    }
  }
  Catalogs catalogs_;
};

TEST_F(ScenarioFuzzTest, MutatedFilesNeverCrash) {
  const std::vector<std::string> seeds = SeedFiles();
  ASSERT_GE(seeds.size(), 10u);
  int ok = 0;
  // DLSIM_FUZZ_ITERATIONS / DLSIM_FUZZ_SEED run a longer or different campaign by hand.
  const char* iterations = std::getenv("DLSIM_FUZZ_ITERATIONS");
  const char* seed = std::getenv("DLSIM_FUZZ_SEED");
  const int n = iterations ? std::atoi(iterations) : 4000;
  Gen g(seed ? std::strtoull(seed, nullptr, 10) : 20241129);
  for (int i = 0; i < n; ++i) {
    std::string text = Mutate(seeds[g.Below(seeds.size())], g);

    Check(text);
    ok += ParseTrainScenario(text, "fuzz.yaml", catalogs_.hardware, catalogs_.models).ok();
  }
  EXPECT_GT(ok, 0);  // some mutations stay valid (comments, whitespace)
}

TEST_F(ScenarioFuzzTest, PathologicalInputs) {
  Check(std::string(20000, '['));
  Check(std::string(5000, '{') + std::string(5000, '}'));
  Check("a: &a [*a]\n");
  Check("model: &m\n  name: llama3-8b\nhardware: *m\n");
  Check("model:\n  name: llama3-8b\n  <<: {layers: 2}\n");
  Check(std::string("model:\n  name: \0\n", 17));
  Check("\xEF\xBB\xBFmodel:\n  name: llama3-8b\n");  // UTF-8 byte-order mark
  Check("model:\n  name: llama3-8b\nparallel:\n  tp: 2147483648\n  pp: 65536\n  cp: 65536\n");
  Check("model:\n  name: llama3-8b\nhardware:\n  gpus: 2147483647\ntraining:\n  global_batch: 2147483647\n");
  Check("? [a, b]\n: 1\n");
  Check(std::string(1 << 16, '#'));
}

}  // namespace
}  // namespace dlsim::io
