// The "## Verdicts" table of docs/reproductions.md: rows read with their lines; a missing section,
// an unknown verdict word, a short row and a name listed twice are errors naming file and line; the
// compiled-in docs list every registered reproduction.
#include "dlsim/io/repro_verdicts.h"

#include <gtest/gtest.h>

#include <set>

#include "dlsim/repro/reproduction.h"

namespace dlsim::io {
namespace {

constexpr const char* kDoc =
    "# Reproductions\n"
    "| a | b |\n|---|---|\n| other | table |\n"
    "\n## Verdicts (`dlsim repro --check`)\n"
    "Prose before the table.\n"
    "\n| Reproduction | Verdict | Cause |\n"
    "|---|---|---|\n"
    "| `chunkflow` | reproduced | |\n"
    "| `aryl` | off | the baseline queues 9x longer |\n"
    "| gnn-algebra | no-claim | paper not identified |\n"
    "\nAfter the table.\n| not | read |\n";

TEST(ReproVerdicts, ReadsTheRowsWithTheirLines) {
  auto v = ParseReproVerdicts(kDoc, "r.md");
  ASSERT_TRUE(v.ok()) << v.error().message;
  ASSERT_EQ(v->size(), 3u);
  EXPECT_EQ((*v)[0].name, "chunkflow");
  EXPECT_EQ((*v)[0].status, repro::VerdictStatus::kReproduced);
  EXPECT_EQ((*v)[0].line, 11);
  EXPECT_EQ((*v)[1].status, repro::VerdictStatus::kOff);
  EXPECT_EQ((*v)[2].name, "gnn-algebra");
  EXPECT_EQ((*v)[2].status, repro::VerdictStatus::kNoClaim);
}

void ExpectError(const std::string& doc, const std::string& piece) {
  auto v = ParseReproVerdicts(doc, "r.md");
  ASSERT_FALSE(v.ok());
  EXPECT_NE(v.error().message.find(piece), std::string::npos) << v.error().message;
}

TEST(ReproVerdicts, BadTablesNameFileAndLine) {
  const std::string head = "## Verdicts\n| name | verdict |\n|---|---|\n";
  ExpectError("# nothing here\n", "r.md: no '## Verdicts' section");
  ExpectError(head + "| x | almost |\n", "r.md:4: verdict 'almost' of 'x'");
  ExpectError(head + "| x |\n", "r.md:4: a verdict row needs");
  ExpectError(head + "| x | off |\n| x | reproduced |\n", "r.md:5: 'x' is listed twice");
  ExpectError(head + "\n", "has no rows");
}

TEST(ReproVerdicts, TheShippedDocsListEveryReproduction) {
  auto v = ParseReproVerdicts(embedded::ReproductionsMd(), "docs/reproductions.md");
  ASSERT_TRUE(v.ok()) << v.error().message;
  std::set<std::string> listed;
  for (const auto& e : *v) listed.insert(e.name);
  repro::ReproRegistry reg("reproduction");
  repro::RegisterReproductions(reg);
  for (const auto* e : reg.Entries()) EXPECT_EQ(listed.count(e->name), 1u) << e->name;
  EXPECT_EQ(listed.size(), reg.Entries().size());
}

}  // namespace
}  // namespace dlsim::io
