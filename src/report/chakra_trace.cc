#include "dlsim/report/chakra_trace.h"

#include <fmt/format.h>
#include <google/protobuf/io/zero_copy_stream_impl.h>
#include <google/protobuf/util/delimited_message_util.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <set>

#include "chakra/et_def.pb.h"
#include "dlsim/report/format.h"

namespace dlsim::report {
namespace {

namespace pb = ChakraProtoMsg;
using google::protobuf::util::ParseDelimitedFromZeroCopyStream;
using google::protobuf::util::SerializeDelimitedToOstream;

constexpr const char* kSchema = "1.0.2-chakra.0.0.4";  // the schema version Chakra's own converters write

pb::CollectiveCommType CommType(const std::string& c) {
  if (c == "reduce_scatter") return pb::REDUCE_SCATTER;
  if (c == "all_gather") return pb::ALL_GATHER;
  if (c == "all_to_all") return pb::ALL_TO_ALL;
  return pb::ALL_REDUCE;
}

uint64_t Micros(Duration d) {
  return static_cast<uint64_t>(std::llround(std::max(0.0, d.ToSeconds()) * 1e6));
}

template <typename T>
void Attr(pb::Node& n, const std::string& name, T value) {
  pb::AttributeProto* a = n.add_attr();
  a->set_name(name);
  if constexpr (std::is_same_v<T, bool>)
    a->set_bool_val(value);
  else if constexpr (std::is_same_v<T, int32_t>)
    a->set_int32_val(value);
  else if constexpr (std::is_same_v<T, int64_t>)
    a->set_int64_val(value);
  else
    a->set_string_val(value);
}

// The group ids of comm_group.json: every group of every kind a collective uses, numbered from 1 in the
// layout's order; and per (kind, rank) the id of the group holding the rank.
struct GroupIds {
  std::map<std::pair<std::string, int>, int> of;
  std::vector<const std::vector<int>*> groups;  // id - 1 -> ranks
};

GroupIds NumberGroups(const ExecutionGraph& graph, const ChakraLayout& layout) {
  std::set<std::string> used;  // only the kinds some collective runs over
  for (const auto& [p, nodes] : graph.processes)
    for (const ExecNode& n : nodes)
      if (n.kind == ExecKind::kCollective) used.insert(n.group);
  GroupIds ids;
  for (const auto& [kind, groups] : layout.groups) {
    if (!used.count(kind)) continue;
    for (const std::vector<int>& g : groups) {
      ids.groups.push_back(&g);
      for (int r : g) ids.of.emplace(std::pair{kind, r}, static_cast<int>(ids.groups.size()));
    }
  }
  return ids;
}

// Every check WriteChakraTraces makes before writing (chakra_trace.h): the size first, so a layout too large
// to export is refused before anything else is looked at; each process's collective groups once per kind.
Status CheckLayout(const ExecutionGraph& graph, const ChakraLayout& layout, const GroupIds& ids) {
  uint64_t total = 0;
  for (const auto& [p, nodes] : graph.processes) {
    auto it = layout.ranks.find(p);
    if (it == layout.ranks.end() || it->second.empty())
      return Error::InvalidArgument(fmt::format("process {} of the run has no ranks in the layout", p));
    total += nodes.size() * it->second.size();
  }
  if (total > kMaxChakraNodes)
    return Error::InvalidArgument(fmt::format(
        "the Chakra traces would hold {} nodes (one file per rank), more "
        "than the {} written at most: export a smaller layout",
        FormatCount(static_cast<double>(total)), FormatCount(static_cast<double>(kMaxChakraNodes))));
  for (const auto& [p, nodes] : graph.processes) {
    const std::vector<int>& ranks = layout.ranks.at(p);
    std::set<std::string> kinds;
    for (const ExecNode& n : nodes) {
      if (n.kind == ExecKind::kSend || n.kind == ExecKind::kRecv) {
        auto peer = layout.ranks.find(n.peer);
        if (peer == layout.ranks.end() || peer->second.size() != ranks.size())
          return Error::InvalidArgument(
              fmt::format("'{}' of process {}: its peer {} has no ranks or not as "
                          "many as the sender",
                          n.name, p, n.peer));
      }
      if (n.kind != ExecKind::kCollective || !kinds.insert(n.group).second) continue;
      for (int r : ranks)
        if (!ids.of.count({n.group, r}))
          return Error::InvalidArgument(
              fmt::format("'{}' runs over group '{}', which holds no group of rank {}", n.name, n.group, r));
    }
  }
  return Status::Ok();
}

// The node of `n` as rank `rank` (position `k` of its process's ranks) runs it.
pb::Node ToProto(const ExecNode& n, const ChakraLayout& layout, const GroupIds& ids, int rank, size_t k) {
  pb::Node out;
  out.set_id(n.id);
  out.set_name(n.name);
  for (uint64_t d : n.ctrl_deps) out.add_ctrl_deps(d);
  for (uint64_t d : n.data_deps) out.add_data_deps(d);
  out.set_start_time_micros(Micros(n.start - TimePoint::Start()));
  out.set_duration_micros(Micros(n.duration));
  Attr(out, "is_cpu_op", false);
  const auto bytes = static_cast<int64_t>(std::llround(n.bytes));
  switch (n.kind) {
    case ExecKind::kCompute:
      out.set_type(pb::COMP_NODE);
      break;
    case ExecKind::kCollective:
      out.set_type(pb::COMM_COLL_NODE);
      Attr(out, "comm_type", static_cast<int64_t>(CommType(n.collective)));
      Attr(out, "comm_size", bytes);
      Attr(out, "pg_name", std::to_string(ids.of.at({n.group, rank})));
      break;
    case ExecKind::kSend:
    case ExecKind::kRecv: {
      const bool send = n.kind == ExecKind::kSend;
      const int peer = layout.ranks.at(n.peer)[k];
      out.set_type(send ? pb::COMM_SEND_NODE : pb::COMM_RECV_NODE);
      Attr(out, "comm_src", static_cast<int32_t>(send ? rank : peer));
      Attr(out, "comm_dst", static_cast<int32_t>(send ? peer : rank));
      Attr(out, "comm_size", bytes);
      Attr(out, "comm_tag", static_cast<int32_t>(n.tag));
    }
  }
  return out;
}

Status WriteRankFile(const std::string& path, const std::vector<ExecNode>& nodes, const ChakraLayout& layout,
                     const GroupIds& ids, int rank, size_t k) {
  std::ofstream file(path, std::ios::binary | std::ios::trunc);
  pb::GlobalMetadata meta;
  meta.set_version("0.0.4");
  pb::AttributeProto* schema = meta.add_attr();
  schema->set_name("schema");
  schema->set_string_val(kSchema);
  bool ok = file && SerializeDelimitedToOstream(meta, &file);
  for (size_t i = 0; ok && i < nodes.size(); ++i)
    ok = SerializeDelimitedToOstream(ToProto(nodes[i], layout, ids, rank, k), &file);
  file.flush();
  if (!ok || !file) return Error::InvalidArgument(path + ": writing the Chakra trace failed");
  return Status::Ok();
}

Status WriteGroups(const std::string& path, const GroupIds& ids) {
  std::ofstream file(path, std::ios::trunc);
  file << "{";
  for (size_t i = 0; i < ids.groups.size(); ++i) {
    file << (i ? ",\n  " : "\n  ") << fmt::format("\"{}\": [{}]", i + 1, fmt::join(*ids.groups[i], ", "));
  }
  file << "\n}\n";
  file.flush();
  if (!file) return Error::InvalidArgument(path + ": writing the process groups failed");
  return Status::Ok();
}

ArgValue AttrValue(const pb::AttributeProto& a) {
  switch (a.value_case()) {
    case pb::AttributeProto::kDoubleVal:
      return a.double_val();
    case pb::AttributeProto::kInt32Val:
      return static_cast<int64_t>(a.int32_val());
    case pb::AttributeProto::kInt64Val:
      return a.int64_val();
    case pb::AttributeProto::kUint64Val:
      return static_cast<int64_t>(a.uint64_val());
    case pb::AttributeProto::kBoolVal:
      return a.bool_val();
    default:
      return a.string_val();
  }
}

ChakraNode FromProto(const pb::Node& n) {
  ChakraNode out{.id = n.id(), .name = n.name(), .type = static_cast<int>(n.type())};
  out.ctrl_deps.assign(n.ctrl_deps().begin(), n.ctrl_deps().end());
  out.data_deps.assign(n.data_deps().begin(), n.data_deps().end());
  out.start_us = n.start_time_micros();
  out.duration_us = n.duration_micros();
  for (const pb::AttributeProto& a : n.attr()) out.attrs[a.name()] = AttrValue(a);
  return out;
}

}  // namespace

std::string ChakraSummary::Summary() const {
  return fmt::format(
      "chakra: {} files ({} nodes, {}) in {}/dlsim.RANK.et, process groups in {}/comm_group.json", files,
      FormatCount(static_cast<double>(nodes)), FormatBytes(Bytes(static_cast<double>(bytes))), dir, dir);
}

Result<ChakraSummary> WriteChakraTraces(const ExecutionGraph& graph, const ChakraLayout& layout,
                                        const std::string& dir) {
  const GroupIds ids = NumberGroups(graph, layout);
  DLSIM_RETURN_IF_ERROR(CheckLayout(graph, layout, ids));
  std::error_code ec;
  std::filesystem::create_directories(dir, ec);
  if (ec || !std::filesystem::is_directory(dir))
    return Error::InvalidArgument(dir + ": cannot create the folder for the Chakra traces");
  ChakraSummary s{.dir = dir};
  for (const auto& [p, nodes] : graph.processes) {
    const std::vector<int>& ranks = layout.ranks.at(p);
    for (size_t k = 0; k < ranks.size(); ++k) {
      const std::string path = fmt::format("{}/dlsim.{}.et", dir, ranks[k]);
      DLSIM_RETURN_IF_ERROR(WriteRankFile(path, nodes, layout, ids, ranks[k], k));
      s.files++;
      s.nodes += nodes.size();
      s.bytes += std::filesystem::file_size(path, ec);
    }
  }
  DLSIM_RETURN_IF_ERROR(WriteGroups(dir + "/comm_group.json", ids));
  return s;
}

Result<ChakraFile> ReadChakraFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return Error::Parse(path + ": cannot read the Chakra trace");
  google::protobuf::io::IstreamInputStream stream(&in);
  pb::GlobalMetadata meta;
  bool clean_eof = false;
  if (!ParseDelimitedFromZeroCopyStream(&meta, &stream, &clean_eof))
    return Error::Parse(path + ": message 0 (the metadata) is missing, truncated or not Chakra's");
  ChakraFile out{.version = meta.version()};
  for (const pb::AttributeProto& a : meta.attr()) out.metadata[a.name()] = AttrValue(a);
  for (size_t i = 1;; ++i) {
    pb::Node node;
    if (!ParseDelimitedFromZeroCopyStream(&node, &stream, &clean_eof)) {
      if (clean_eof) break;
      return Error::Parse(fmt::format("{}: message {} is truncated or not a Chakra node", path, i));
    }
    out.nodes.push_back(FromProto(node));
  }
  return out;
}

}  // namespace dlsim::report
