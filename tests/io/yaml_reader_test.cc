#include "dlsim/io/yaml_reader.h"

#include <gtest/gtest.h>

#include <string>

namespace dlsim::io {
namespace {

enum class Color { kRed, kGreen };

// Parses `text` as "t.yaml" and returns the reader state message after `read` ran on the root.
template <typename F>
std::string ErrorsAfter(const std::string& text, F read) {
  auto doc = ParseYaml(text, "t.yaml");
  if (!doc.ok()) return doc.error().message;
  MapReader root = doc->Root();
  read(root);
  root.Finish();
  Status st = doc->status();
  return st.ok() ? "" : st.error().message;
}

TEST(YamlReaderTest, ReadsTypedValuesAndDefaults) {
  auto doc = ParseYaml("a: 3\nb: 2.5\nc: true\nd: hello\ne: [1, 2, 3]\nsub:\n  x: -4\n", "t.yaml");
  ASSERT_TRUE(doc.ok());
  MapReader r = doc->Root();
  EXPECT_EQ(r.Get<int>("a", 0, Range::Positive()), 3);
  EXPECT_DOUBLE_EQ(r.Get<double>("b", 0), 2.5);
  EXPECT_TRUE(r.Get<bool>("c", false));
  EXPECT_EQ(r.Get<std::string>("d", ""), "hello");
  EXPECT_EQ(r.FindList<int>("e").value(), (std::vector<int>{1, 2, 3}));
  EXPECT_EQ(r.Get<int>("absent", 42), 42);
  MapReader sub = r.Section("sub");
  EXPECT_TRUE(sub.present());
  EXPECT_EQ(sub.Get<int>("x", 0), -4);
  EXPECT_EQ(sub.PathOf("x"), "sub.x");
  EXPECT_FALSE(r.Section("nope").present());
  sub.Finish();
  r.Finish();
  EXPECT_TRUE(doc->status().ok());
}

TEST(YamlReaderTest, IntegerAcceptsDoubleAsNumber) {
  auto doc = ParseYaml("n: 400\n", "t.yaml");
  ASSERT_TRUE(doc.ok());
  EXPECT_DOUBLE_EQ(doc->Root().Get<double>("n", 0), 400.0);
}

TEST(YamlReaderTest, TypeErrorNamesFileLineColumnPathAndFound) {
  std::string e = ErrorsAfter("x: 1\nsub:\n  tp: four\n", [](MapReader& r) {
    r.Get<int>("x", 0);
    r.Section("sub").Get<int>("tp", 1, Range::Positive());
    r.Section("sub").Finish();
  });
  EXPECT_EQ(e, "t.yaml:3:7: sub.tp: expected a positive integer, found 'four'; allowed: 1..2147483647");
}

TEST(YamlReaderTest, RangeAndFloatErrors) {
  EXPECT_EQ(ErrorsAfter("n: -2\n", [](MapReader& r) { r.Get<int>("n", 1, Range::AtLeast(1)); }),
            "t.yaml:1:4: n: expected a positive integer, found '-2'; allowed: 1..2147483647");
  EXPECT_EQ(ErrorsAfter("n: 1.5\n", [](MapReader& r) { r.Get<int>("n", 1, Range::NonNegative()); }),
            "t.yaml:1:4: n: expected a non-negative integer, found '1.5'; allowed: 0..2147483647");
  EXPECT_EQ(ErrorsAfter("z: 4\n", [](MapReader& r) { r.Get<int>("z", 0, Range::Between(0, 3)); }),
            "t.yaml:1:4: z: expected an integer, found '4'; allowed: 0..3");
  // Issue 18: a value just over the integer's limit names the limit, not just ">= 1".
  EXPECT_EQ(ErrorsAfter("n: 2147483648\n", [](MapReader& r) { r.Get<int>("n", 1, Range::Positive()); }),
            "t.yaml:1:4: n: expected a positive integer, found '2147483648'; allowed: 1..2147483647");
  EXPECT_EQ(ErrorsAfter("x: 0.5\n", [](MapReader& r) { r.Get<double>("x", 1, Range::AtLeast(1)); }),
            "t.yaml:1:4: x: expected a number >= 1, found '0.5'; allowed: >= 1");
  EXPECT_EQ(ErrorsAfter("n: 99999999999\n", [](MapReader& r) { r.Get<int>("n", 0); }),
            "t.yaml:1:4: n: expected an integer, found '99999999999'; allowed: -2147483648..2147483647");
  EXPECT_EQ(ErrorsAfter("n: \"4\"\n", [](MapReader& r) { r.Get<int>("n", 0); }),
            "t.yaml:1:4: n: expected an integer, found '4' (a quoted string)");
  EXPECT_EQ(ErrorsAfter("g: .nan\n", [](MapReader& r) { r.Get<double>("g", 0, Range::Positive()); }),
            "t.yaml:1:4: g: expected a positive number, found '.nan'; allowed: > 0");
}

TEST(YamlReaderTest, BoolStringAndListErrors) {
  EXPECT_EQ(ErrorsAfter("b: yes\n", [](MapReader& r) { r.Get<bool>("b", false); }),
            "t.yaml:1:4: b: expected true or false, found 'yes'; allowed: true, false");
  // Issue 18: the docs say exactly true or false; YAML 1.1 spellings are rejected too.
  for (const char* b : {"True", "TRUE", "False", "on", "y"})
    EXPECT_EQ(ErrorsAfter(std::string("b: ") + b + "\n", [](MapReader& r) { r.Get<bool>("b", false); }),
              std::string("t.yaml:1:4: b: expected true or false, found '") + b + "'; allowed: true, false");
  EXPECT_EQ(ErrorsAfter("s: [1]\n", [](MapReader& r) { r.Get<std::string>("s", ""); }),
            "t.yaml:1:4: s: expected a string, found a list");
  EXPECT_EQ(ErrorsAfter("l: 3\n", [](MapReader& r) { (void)r.FindList<int>("l"); }),
            "t.yaml:1:4: l: expected a list of integers such as [1, 2], found '3'");
  EXPECT_EQ(
      ErrorsAfter("l: [1, x, 2]\n", [](MapReader& r) { (void)r.FindList<int>("l", Range::Positive()); }),
      "t.yaml:1:8: l[1]: expected a positive integer, found 'x'; allowed: 1..2147483647");
  EXPECT_EQ(ErrorsAfter("n:\n", [](MapReader& r) { r.Get<int>("n", 0); }).find("found nothing"),
            std::string("t.yaml:1:3: n: expected an integer, ").size());
}

TEST(YamlReaderTest, EnumListsAllowedAndSuggests) {
  std::vector<std::pair<std::string, Color>> names = {{"red", Color::kRed}, {"green", Color::kGreen}};
  Color c = Color::kRed;
  std::string e =
      ErrorsAfter("color: gren\n", [&](MapReader& r) { c = r.GetEnum("color", Color::kRed, names); });
  EXPECT_EQ(e,
            "t.yaml:1:8: color: expected one of the allowed names, found 'gren' (did you mean 'green'?); "
            "allowed: red, green");
  EXPECT_EQ(c, Color::kRed);
  auto doc = ParseYaml("color: green\n", "t.yaml");
  EXPECT_EQ(doc->Root().GetEnum("color", Color::kRed, names), Color::kGreen);
}

TEST(YamlReaderTest, UnknownKeysSuggestAndListAllowed) {
  std::string e = ErrorsAfter("tp: 1\nppp: 2\n", [](MapReader& r) {
    r.Get<int>("tp", 1);
    r.Get<int>("pp", 1);
  });
  EXPECT_EQ(e, "t.yaml:2:1: ppp: unknown key 'ppp' (did you mean 'pp'?); allowed: tp, pp");
  std::string nested = ErrorsAfter("par:\n  tpp: 1\n", [](MapReader& r) {
    MapReader p = r.Section("par");
    p.Get<int>("tp", 1);
    p.Finish();
  });
  EXPECT_EQ(nested, "t.yaml:2:3: par.tpp: unknown key 'tpp' (did you mean 'tp'?); allowed: tp");
}

TEST(YamlReaderTest, ErrorsAreReportedInFileOrder) {
  std::string e = ErrorsAfter("a: x\nb: y\n", [](MapReader& r) {
    r.Get<int>("b", 0);
    r.Get<int>("a", 0);
  });
  EXPECT_EQ(e,
            "t.yaml:1:4: a: expected an integer, found 'x'\n"
            "t.yaml:2:4: b: expected an integer, found 'y'");
}

TEST(YamlReaderTest, DuplicateKeysAreErrors) {
  std::string e = ErrorsAfter("a: 1\nb: 2\na: 3\n", [](MapReader& r) {
    r.Get<int>("a", 0);
    r.Get<int>("b", 0);
  });
  EXPECT_EQ(e, "t.yaml:3:1: a: duplicate key 'a' (first given at line 1)");
}

TEST(YamlReaderTest, RequiredKeys) {
  std::string e = ErrorsAfter("sub:\n  a: 1\n", [](MapReader& r) {
    MapReader s = r.Section("sub");
    (void)s.Require<int>("a");
    (void)s.Require<int>("b");
    s.Finish();
  });
  EXPECT_EQ(e, "t.yaml:1:1: sub: missing required key 'b'");
}

TEST(YamlReaderTest, SectionMustBeMapping) {
  std::string e = ErrorsAfter("sub: 3\n", [](MapReader& r) { r.Section("sub").Get<int>("x", 0); });
  EXPECT_EQ(e, "t.yaml:1:6: sub: expected a mapping (indented 'key: value' lines), found '3'");
}

TEST(YamlReaderTest, SectionListReadsEachMapping) {
  auto doc = ParseYaml("items:\n  - {n: 1}\n  - {n: 2}\n  - 3\n", "t.yaml");
  ASSERT_TRUE(doc.ok());
  std::vector<MapReader> items = doc->Root().SectionList("items");
  ASSERT_EQ(items.size(), 2u);
  EXPECT_EQ(items[1].Get<int>("n", 0), 2);
  EXPECT_EQ(items[1].path(), "items[1]");
  EXPECT_EQ(doc->status().error().message,
            "t.yaml:4:5: items[2]: expected a mapping (indented 'key: value' lines), found '3'");
}

// Integer ranges print exact integers: "0..9223372036854775807", not "0..9.22337203685e+18".
TEST(YamlReaderTest, IntegerRangesPrintExactIntegers) {
  EXPECT_EQ(ErrorsAfter("seed: -1\n", [](MapReader& r) { r.Get<int64_t>("seed", 0, Range::NonNegative()); }),
            "t.yaml:1:7: seed: expected a non-negative integer, found '-1'; allowed: 0..9223372036854775807");
  EXPECT_EQ(
      ErrorsAfter("t: 0\n", [](MapReader& r) { r.Get<int64_t>("t", 1, Range::Between(1, 1099511627776.0)); }),
      "t.yaml:1:4: t: expected an integer, found '0'; allowed: 1..1099511627776");
  EXPECT_EQ(
      ErrorsAfter("x: 0\n", [](MapReader& r) { r.Get<double>("x", 1, Range::Between(1, 1099511627776.0)); }),
      "t.yaml:1:4: x: expected a number, found '0'; allowed: 1..1.09951162778e+12");
}

// Block (indentation) nesting 3000 levels deep said only "yaml syntax error: bad file".
TEST(YamlReaderTest, DeepBlockNestingIsLocated) {
  std::string deep = "a:\n";
  for (int i = 0; i < 3000; ++i) deep += std::string(i + 1, ' ') + "k" + std::to_string(i) + ":\n";
  auto r = ParseYaml(deep, "d.yaml");
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().message,
            "d.yaml:65:1: lists or mappings nested deeper than 64 levels; no scenario key needs that");
  std::string dashes = "a:\n";
  for (int i = 0; i < 3000; ++i) dashes += "- ";
  EXPECT_EQ(ParseYaml(dashes + "x\n", "d.yaml").error().message,
            "d.yaml:2:1: lists or mappings nested deeper than 64 levels; no scenario key needs that");
  EXPECT_TRUE(ParseYaml("a:\n  b:\n    - c: 1\n      d: [1, 2]\n  e: |\n    text\n", "ok.yaml").ok());
}

TEST(YamlReaderTest, SyntaxEmptyAndNonMappingDocuments) {
  auto syntax = ParseYaml("a: [1, 2\nb: 3\n", "s.yaml");
  ASSERT_FALSE(syntax.ok());
  EXPECT_EQ(syntax.error().code, ErrorCode::kParse);
  EXPECT_NE(syntax.error().message.find("s.yaml:"), std::string::npos);
  EXPECT_NE(syntax.error().message.find("yaml syntax error"), std::string::npos);

  for (const char* empty : {"", "  \n", "# only a comment\n"}) {
    auto e = ParseYaml(empty, "e.yaml");
    ASSERT_FALSE(e.ok()) << empty;
    EXPECT_EQ(e.error().message, "e.yaml:1:1: file is empty; expected a mapping of 'key: value' lines");
  }
  EXPECT_EQ(ErrorsAfter("- a\n- b\n", [](MapReader&) {}),
            "t.yaml:1:1: expected a mapping of 'key: value' lines at the top level, found a list");
  auto two = ParseYaml("a: 1\n---\nb: 2\n", "m.yaml");
  ASSERT_FALSE(two.ok());
  EXPECT_NE(two.error().message.find("expected one YAML document, found more"), std::string::npos);
}

// Regression: yaml-cpp 0.7's LoadAll loops forever (allocating) on a stray ',' at the top level
// (jbeder/yaml-cpp#1040); found by scenario_fuzz_test. ParseYaml must return a syntax error.
TEST(YamlReaderTest, RegressionStrayCommaDoesNotHang) {
  for (const char* text : {",", "  , a\n", "# c\n, interleaved\nmodel:\n  name: x\n", "a: 1\n---\n,\n"}) {
    auto r = ParseYaml(text, "c.yaml");
    ASSERT_FALSE(r.ok()) << text;
    EXPECT_EQ(r.error().code, ErrorCode::kParse);
    EXPECT_EQ(r.error().message.rfind("c.yaml:", 0), 0u) << r.error().message;
  }
  auto r = ParseYaml("  , a\n", "c.yaml");
  EXPECT_EQ(r.error().message, "c.yaml:1:3: yaml syntax error: unexpected ',' (no YAML value starts here)");
}

TEST(YamlReaderTest, MissingFileNamesThePath) {
  auto r = LoadYamlFile("/nonexistent/dir/x.yaml");
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().code, ErrorCode::kNotFound);
  EXPECT_NE(r.error().message.find("/nonexistent/dir/x.yaml"), std::string::npos);
}

TEST(YamlReaderTest, ErrorAtPointsAtTheKey) {
  auto doc = ParseYaml("a: 1\nsub:\n  b: 2\n", "t.yaml");
  ASSERT_TRUE(doc.ok());
  MapReader sub = doc->Root().Section("sub");
  EXPECT_EQ(sub.ErrorAt("b", "too big").message, "t.yaml:3:6: sub.b: too big");
  EXPECT_EQ(sub.ErrorAt("missing", "x").message, "t.yaml:2:1: sub.missing: x");
}

// Data-file cells (CSV) are read exactly as plain YAML scalars: decimal, finite, in range.
TEST(YamlReaderTest, ParseNumberReadsCellsAsGetReadsScalars) {
  const Range tokens = Range::Between(1, 16777216);
  EXPECT_DOUBLE_EQ(ParseNumber("600", tokens, true).value(), 600);
  EXPECT_DOUBLE_EQ(ParseNumber("+2.5e3", Range::Positive(), false).value(), 2500);
  EXPECT_DOUBLE_EQ(ParseNumber("0.25", Range::Between(0, 1), false).value(), 0.25);
  struct Case {
    const char* text;
    bool integral;
    const char* message;
  };
  const Case cases[] = {
      {"-5", true, "expected an integer, found '-5'; allowed: 1..16777216"},
      {"nan", true, "expected an integer, found 'nan'; allowed: 1..16777216"},
      {"1e300", true, "expected an integer, found '1e300'; allowed: 1..16777216"},
      {"12.5", true, "expected an integer, found '12.5'; allowed: 1..16777216"},
      {"0x10", true, "expected an integer, found '0x10'; allowed: 1..16777216"},
      {"inf", false, "expected a number, found 'inf'; allowed: 1..16777216"},
      {"12,500", false, "expected a number, found '12,500'; allowed: 1..16777216"},
      {"", false, "expected a number, found ''; allowed: 1..16777216"},
  };
  for (const Case& c : cases) {
    auto v = ParseNumber(c.text, tokens, c.integral);
    ASSERT_FALSE(v.ok()) << c.text;
    EXPECT_EQ(v.error().message, c.message);
  }
}

// A range's note says why the limit is there, after the allowed range.
TEST(YamlReaderTest, RangeNoteFollowsTheAllowedRange) {
  const Range r = Range::Between(1, 100).WithNote("a memory limit: split the run");
  EXPECT_EQ(
      ErrorsAfter("n: 1000\n", [&](const MapReader& m) { m.Get<int64_t>("n", 1, r); }),
      "t.yaml:1:4: n: expected an integer, found '1000'; allowed: 1..100 (a memory limit: split the run)");
  EXPECT_EQ(ErrorsAfter("x: 1e9\n", [&](const MapReader& m) { m.Get<double>("x", 1, r); }),
            "t.yaml:1:4: x: expected a number, found '1e9'; allowed: 1..100 (a memory limit: split the run)");
  EXPECT_EQ(ParseNumber("0", r, true).error().message,
            "expected an integer, found '0'; allowed: 1..100 (a memory limit: split the run)");
}

}  // namespace
}  // namespace dlsim::io
