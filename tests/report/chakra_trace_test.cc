// The execution graph built from spans and its Chakra files: dependencies as the simulation ran them,
// sends paired with receives, collectives on their process groups, and every error before a file is written.
#include "dlsim/report/chakra_trace.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <string>

#include "dlsim/report/execution_graph.h"

namespace dlsim::report {
namespace {

TimePoint At(int us) { return TimePoint::Start() + Duration::FromSeconds(us * 1e-6); }
Duration Us(int us) { return Duration::FromSeconds(us * 1e-6); }

std::string TmpDir(const std::string& name) {
  const std::string dir = (std::filesystem::temp_directory_path() / ("dlsim_chakra_" + name)).string();
  std::filesystem::remove_all(dir);
  return dir;
}

// Two pipeline ranks (processes 0 and 1), each compute (thread 0), p2p (1) and dp (2) streams:
//   rank 0: F0 [0, 10), send act 0 [10, 12) -> rank 1, grad reduce [20, 25) over "dp"
//   rank 1: F0 [12, 22), then grad reduce [22, 30)
ExecutionGraph TwoStages() {
  ExecutionGraphRecorder rec;
  EXPECT_TRUE(rec.Begin({"two stages"}).ok());
  rec.OnSpan({0, 0, "F0", "forward", At(0), Us(10)});
  rec.OnSpan({0,
              1,
              "send act 0",
              "pp",
              At(10),
              Us(2),
              {{"comm", std::string("send")}, {"peer", int64_t{1}}, {"bytes", 4096.0}}});
  rec.OnSpan({1, 0, "F0", "forward", At(12), Us(10)});
  rec.OnSpan(
      {0,
       2,
       "grad reduce",
       "dp",
       At(20),
       Us(5),
       {{"comm", std::string("all_reduce")}, {"group", std::string("dp")}, {"bytes", int64_t{1 << 20}}}});
  rec.OnSpan({1,
              2,
              "grad reduce",
              "dp",
              At(22),
              Us(8),
              {{"comm", std::string("reduce_scatter")}, {"group", std::string("dp")}, {"bytes", 1e6}}});
  EXPECT_TRUE(rec.Finish().ok());
  return rec.graph();
}

const ExecNode& Named(const std::vector<ExecNode>& nodes, const std::string& name) {
  for (const ExecNode& n : nodes)
    if (n.name == name) return n;
  ADD_FAILURE() << "no node " << name;
  return nodes.front();
}

TEST(ExecutionGraph, NodesWaitForWhatTheSimulationWaitedFor) {
  const ExecutionGraph g = TwoStages();
  ASSERT_EQ(g.nodes(), 6u);  // 5 spans and the receive of the send
  const auto& r0 = g.processes.at(0);
  const auto& r1 = g.processes.at(1);
  const ExecNode& send = Named(r0, "send act 0");
  EXPECT_EQ(send.kind, ExecKind::kSend);
  EXPECT_EQ(send.data_deps, std::vector<uint64_t>{Named(r0, "F0").id});  // sent when F0 ended
  const ExecNode& recv = Named(r1, "recv send act 0");
  EXPECT_EQ(recv.kind, ExecKind::kRecv);
  EXPECT_EQ(recv.tag, send.tag);
  EXPECT_EQ(recv.peer, 0);
  EXPECT_EQ(recv.bytes, 4096);
  EXPECT_EQ(Named(r1, "F0").data_deps, std::vector<uint64_t>{recv.id});  // the activation arrived first
  // Rank 0's reduce began at 20: after F0 (ended 10) and the send (ended 12) on the other streams.
  const ExecNode& reduce = Named(r0, "grad reduce");
  EXPECT_EQ(reduce.kind, ExecKind::kCollective);
  EXPECT_EQ(reduce.data_deps.size(), 2u);
  EXPECT_TRUE(reduce.ctrl_deps.empty());
  for (const auto& [p, nodes] : g.processes)  // every dependency earlier in its process's list
    for (size_t i = 0; i < nodes.size(); ++i)
      for (uint64_t d : nodes[i].data_deps) {
        bool before = false;
        for (size_t j = 0; j < i; ++j) before |= nodes[j].id == d;
        EXPECT_TRUE(before) << nodes[i].name;
      }
}

TEST(ExecutionGraph, RefusesUnknownCommunicationAndTooManyNodes) {
  ExecutionGraphRecorder bad;
  bad.OnSpan({0, 0, "x", "c", At(0), Us(1), {{"comm", std::string("broadcast-ish")}}});
  EXPECT_NE(bad.Finish().error().message.find("unknown \"comm\" 'broadcast-ish'"), std::string::npos);
  ExecutionGraphRecorder small(2);
  for (int i = 0; i < 3; ++i) small.OnSpan({0, 0, "x", "c", At(i), Us(1)});
  EXPECT_NE(small.Finish().error().message.find("more than 2 nodes"), std::string::npos);
  ExecutionGraphRecorder orphan;
  orphan.OnSpan({0, 1, "send", "pp", At(0), Us(1), {{"comm", std::string("send")}}});
  EXPECT_NE(orphan.Finish().error().message.find("without a \"peer\""), std::string::npos);
}

ChakraLayout TwoByTwo() {  // each stage on 2 data-parallel GPUs
  return {.ranks = {{0, {0, 1}}, {1, {2, 3}}}, .groups = {{"dp", {{0, 1}, {2, 3}}}, {"unused", {{0, 2}}}}};
}

TEST(ChakraTrace, WritesOneFilePerRankThatReadsBack) {
  const std::string dir = TmpDir("write");
  const auto s = WriteChakraTraces(TwoStages(), TwoByTwo(), dir);
  ASSERT_TRUE(s.ok()) << s.error().message;
  EXPECT_EQ(s->files, 4u);
  EXPECT_EQ(s->nodes, 12u);
  const auto r1 = ReadChakraFile(dir + "/dlsim.1.et");  // stage 0, second data-parallel GPU
  ASSERT_TRUE(r1.ok()) << r1.error().message;
  EXPECT_EQ(std::get<std::string>(r1->metadata.at("schema")), "1.0.2-chakra.0.0.4");
  ASSERT_EQ(r1->nodes.size(), 3u);
  const ChakraNode& f0 = r1->nodes[0];
  EXPECT_EQ(f0.type, 4);  // COMP_NODE
  EXPECT_EQ(f0.duration_us, 10u);
  EXPECT_EQ(std::get<bool>(f0.attrs.at("is_cpu_op")), false);
  const ChakraNode& send = r1->nodes[1];
  EXPECT_EQ(send.type, 5);  // COMM_SEND_NODE, from GPU 1 to its peer in stage 1, GPU 3
  EXPECT_EQ(std::get<int64_t>(send.attrs.at("comm_src")), 1);
  EXPECT_EQ(std::get<int64_t>(send.attrs.at("comm_dst")), 3);
  EXPECT_EQ(std::get<int64_t>(send.attrs.at("comm_size")), 4096);
  const ChakraNode& reduce = r1->nodes[2];
  EXPECT_EQ(reduce.type, 7);  // COMM_COLL_NODE, ALL_REDUCE over group 1 = {0, 1}
  EXPECT_EQ(std::get<int64_t>(reduce.attrs.at("comm_type")), 0);
  EXPECT_EQ(std::get<std::string>(reduce.attrs.at("pg_name")), "1");
  const auto r3 = ReadChakraFile(dir + "/dlsim.3.et");
  ASSERT_TRUE(r3.ok());
  const ChakraNode& recv = r3->nodes[0];
  EXPECT_EQ(recv.type, 6);  // COMM_RECV_NODE from GPU 1, the same tag
  EXPECT_EQ(std::get<int64_t>(recv.attrs.at("comm_src")), 1);
  EXPECT_EQ(std::get<int64_t>(recv.attrs.at("comm_tag")), std::get<int64_t>(send.attrs.at("comm_tag")));
  EXPECT_EQ(std::get<int64_t>(r3->nodes[2].attrs.at("comm_type")), 7);  // REDUCE_SCATTER, group 2 = {2, 3}
  EXPECT_EQ(std::get<std::string>(r3->nodes[2].attrs.at("pg_name")), "2");
  std::ifstream groups(dir + "/comm_group.json");
  const std::string text((std::istreambuf_iterator<char>(groups)), std::istreambuf_iterator<char>());
  EXPECT_EQ(text, "{\n  \"1\": [0, 1],\n  \"2\": [2, 3]\n}\n");  // the unused kind is not written
}

TEST(ChakraTrace, LayoutErrorsWriteNothing) {
  const ExecutionGraph g = TwoStages();
  ChakraLayout no_ranks = TwoByTwo();
  no_ranks.ranks.erase(1);
  ChakraLayout uneven = TwoByTwo();
  uneven.ranks[1] = {2};
  ChakraLayout no_group = TwoByTwo();
  no_group.groups["dp"] = {{0, 1}};
  for (const auto& [layout, message] :
       {std::pair{no_ranks, "process 1 of the run has no ranks"},
        std::pair{uneven, "not as many as the sender"}, std::pair{no_group, "holds no group of rank 2"}}) {
    const std::string dir = TmpDir("bad");
    const auto s = WriteChakraTraces(g, layout, dir);
    ASSERT_FALSE(s.ok());
    EXPECT_NE(s.error().message.find(message), std::string::npos) << s.error().message;
    EXPECT_FALSE(std::filesystem::exists(dir));
  }
}

TEST(ChakraTrace, ReadingAnythingElseIsAParseErrorNamingTheFile) {
  const std::string dir = TmpDir("read");
  std::filesystem::create_directories(dir);
  EXPECT_NE(ReadChakraFile(dir + "/none.et").error().message.find("none.et: cannot read"), std::string::npos);
  ASSERT_TRUE(WriteChakraTraces(TwoStages(), TwoByTwo(), dir).ok());
  const std::string path = dir + "/dlsim.0.et";
  const auto size = std::filesystem::file_size(path);
  std::filesystem::resize_file(path, size - 3);  // the last node cut short
  const auto cut = ReadChakraFile(path);
  ASSERT_FALSE(cut.ok());
  EXPECT_NE(cut.error().message.find("dlsim.0.et: message 3 is truncated"), std::string::npos)
      << cut.error().message;
}

}  // namespace
}  // namespace dlsim::report
