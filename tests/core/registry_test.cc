#include "dlsim/core/registry.h"

#include <gtest/gtest.h>

namespace dlsim {
namespace {

struct Shape {
  virtual ~Shape() = default;
  virtual int Sides() const = 0;
};
struct Square : Shape {
  int Sides() const override { return 4; }
};
struct Triangle : Shape {
  int Sides() const override { return 3; }
};

TEST(RegistryTest, CreatesByName) {
  Registry<Shape> reg("shape");
  ASSERT_TRUE(reg.Register("square", "four sides", [] { return std::make_unique<Square>(); }).ok());
  ASSERT_TRUE(reg.Register("triangle", "three sides", [] { return std::make_unique<Triangle>(); }).ok());
  auto s = reg.Create("triangle");
  ASSERT_TRUE(s.ok());
  EXPECT_EQ((*s)->Sides(), 3);
  EXPECT_EQ(reg.Names(), (std::vector<std::string>{"square", "triangle"}));
}

TEST(RegistryTest, UnknownNameListsKnownAndSuggests) {
  Registry<Shape> reg("shape");
  (void)reg.Register("square", "", [] { return std::make_unique<Square>(); });
  auto s = reg.Create("sqare");
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(s.error().code, ErrorCode::kNotFound);
  EXPECT_NE(s.error().message.find("did you mean 'square'"), std::string::npos);
  EXPECT_NE(s.error().message.find("known: square"), std::string::npos);
}

TEST(RegistryTest, DuplicateRegistrationIsError) {
  Registry<Shape> reg("shape");
  EXPECT_TRUE(reg.Register("square", "", [] { return std::make_unique<Square>(); }).ok());
  EXPECT_FALSE(reg.Register("square", "", [] { return std::make_unique<Square>(); }).ok());
}

TEST(RegistryTest, BuiltinRegistrationAddsTheEntry) {
  Registry<Shape> reg("shape");
  reg.RegisterBuiltin("square", "four sides", [] { return std::make_unique<Square>(); });
  ASSERT_TRUE(reg.Contains("square"));
  EXPECT_EQ((*reg.Create("square"))->Sides(), 4);
}

TEST(RegistryDeathTest, DuplicateBuiltinAbortsWithTheName) {
  Registry<Shape> reg("shape");
  reg.RegisterBuiltin("square", "", [] { return std::make_unique<Square>(); });
  EXPECT_DEATH(reg.RegisterBuiltin("square", "", [] { return std::make_unique<Square>(); }),
               "builtin registration failed: shape 'square' is registered twice");
}

TEST(RegistryTest, FactoryArguments) {
  struct Poly : Shape {
    explicit Poly(int n) : n_(n) {}
    int Sides() const override { return n_; }
    int n_;
  };
  Registry<Shape, int> reg("poly");
  (void)reg.Register("poly", "", [](int n) { return std::make_unique<Poly>(n); });
  EXPECT_EQ((*reg.Create("poly", 6))->Sides(), 6);
}

TEST(StringsTest, WrapTextBreaksAtSpacesWithAHangingIndent) {
  EXPECT_EQ(WrapText("a bb cc", 4, 1), "a bb\n cc");
  EXPECT_EQ(WrapText("short", 80, 4), "short");
  EXPECT_EQ(WrapText("", 10, 2), "");
  EXPECT_EQ(WrapText("aaaaaaaa b", 4, 2), "aaaaaaaa\n  b");  // a long word stays whole
  EXPECT_EQ(WrapText("one two three four", 9, 2), "one two\n  three\n  four");
  EXPECT_EQ(WrapText("   3  ab cd", 8, 5), "   3 ab\n     cd");
}

TEST(StringsTest, ClosestMatch) {
  std::vector<std::string> gpus{"a100-sxm4-80gb", "h100-sxm5-80gb", "h200-sxm-141gb"};
  EXPECT_EQ(ClosestMatch("h100-sxm5-80g", gpus).value_or(""), "h100-sxm5-80gb");
  EXPECT_EQ(ClosestMatch("h100", gpus).value_or(""), "h100-sxm5-80gb");
  EXPECT_FALSE(ClosestMatch("tpu-v5", gpus).has_value());
  EXPECT_EQ(EditDistance("kitten", "sitting"), 3u);
}

}  // namespace
}  // namespace dlsim
