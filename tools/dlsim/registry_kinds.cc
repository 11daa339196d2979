#include "registry_kinds.h"

#include "dlsim/cluster/placement.h"
#include "dlsim/cluster/policy.h"
#include "dlsim/cost/compute_model.h"
#include "dlsim/data/data_policy.h"
#include "dlsim/gnn/feature_cache.h"
#include "dlsim/gnn/kernels/gnn_rewrite.h"
#include "dlsim/gnn/kernels/graph_op.h"
#include "dlsim/gnn/kernels/graph_schedule.h"
#include "dlsim/gnn/online/online_serving.h"
#include "dlsim/gnn/partition.h"
#include "dlsim/gnn/sampler.h"
#include "dlsim/gnn/seed_order.h"
#include "dlsim/gnn/topology_cache.h"
#include "dlsim/io/catalog_loader.h"
#include "dlsim/io/stack_profiles.h"
#include "dlsim/net/collective.h"
#include "dlsim/repro/reproduction.h"
#include "dlsim/serve/mig/dnn_model.h"
#include "dlsim/serve/mig/mig_serving.h"
#include "dlsim/serve/router.h"
#include "dlsim/serve/scheduler.h"
#include "dlsim/studies/compress/selector.h"
#include "dlsim/studies/mixprec/allocator.h"
#include "dlsim/studies/recsys/embedding_cache.h"
#include "dlsim/studies/recsys/iteration.h"
#include "dlsim/train/context_parallel.h"
#include "dlsim/train/expert_routing.h"
#include "dlsim/train/mm_schedule.h"
#include "dlsim/train/pipeline_schedule.h"

namespace dlsim::cli {
namespace {

// Builds registry `Reg` named `kind`, fills it with `add` and lists its entries.
template <typename Reg, typename Add>
std::function<RegistryEntries()> Kind(const char* kind, Add add) {
  return [kind, add] {
    Reg reg(kind);
    add(reg);
    RegistryEntries out;
    for (const auto* e : reg.Entries()) out.emplace_back(e->name, e->description);
    return out;
  };
}

}  // namespace

std::map<std::string, std::function<RegistryEntries()>> RegistryKinds() {
  std::map<std::string, std::function<RegistryEntries()>> kinds;
  kinds["pipeline-schedule"] =
      Kind<train::PipelineScheduleRegistry>("pipeline-schedule", train::RegisterPipelineSchedules);
  kinds["mm-schedule"] =
      Kind<train::MmSchedulePolicyRegistry>("mm-schedule", train::RegisterMmSchedulePolicies);
  kinds["cp-layout"] = Kind<train::CpLayoutRegistry>("cp-layout", train::RegisterCpLayouts);
  kinds["routing-skew"] = Kind<train::RoutingSkewRegistry>("routing-skew", train::RegisterRoutingSkews);
  kinds["compute-model"] = Kind<cost::ComputeModelRegistry>("compute-model", cost::RegisterComputeModels);
  kinds["collective-model"] =
      Kind<net::CollectiveRegistry>("collective-model", net::RegisterCollectiveModels);
  kinds["reproduction"] = Kind<repro::ReproRegistry>("reproduction", repro::RegisterReproductions);
  kinds["data-policy"] = Kind<data::DataPolicyRegistry>("data-policy", data::RegisterDataPolicies);
  kinds["serving-scheduler"] = Kind<serve::SchedulerRegistry>("serving-scheduler", serve::RegisterSchedulers);
  kinds["router"] = Kind<serve::RouterRegistry>("router", serve::RegisterRouters);
  kinds["mig-optimizer"] = Kind<serve::MigOptimizerRegistry>("mig-optimizer", serve::RegisterMigOptimizers);
  kinds["dnn-model"] = Kind<serve::DnnModelRegistry>("dnn-model", [](serve::DnnModelRegistry& reg) {
    const Result<catalog::Catalogs> cat = io::LoadCatalogs({});  // the embedded model shapes
    model::ModelCatalog none;
    serve::RegisterDnnModels(reg, cat.ok() ? cat->models : none);
  });
  kinds["cluster-policy"] = Kind<cluster::PolicyRegistry>("cluster-policy", cluster::RegisterBuiltinPolicies);
  kinds["cluster-placement"] =
      Kind<cluster::PlacementRegistry>("cluster-placement", cluster::RegisterBuiltinPlacements);
  kinds["sampler"] = Kind<gnn::SamplerRegistry>("sampler", gnn::RegisterSamplers);
  kinds["seed-order"] = Kind<gnn::SeedOrderRegistry>("seed-order", gnn::RegisterSeedOrders);
  kinds["cache-policy"] = Kind<gnn::CachePolicyRegistry>("cache-policy", gnn::RegisterCachePolicies);
  kinds["partitioner"] = Kind<gnn::PartitionerRegistry>("partitioner", gnn::RegisterPartitioners);
  kinds["topology-cache"] = Kind<gnn::TopologyCacheRegistry>("topology-cache", gnn::RegisterTopologyCaches);
  kinds["graph-op"] = Kind<gnn::GraphOpRegistry>("graph-op", gnn::RegisterGraphOps);
  kinds["graph-schedule"] =
      Kind<gnn::ScheduleFamilyRegistry>("graph-schedule", gnn::RegisterScheduleFamilies);
  kinds["graph-op-baseline"] =
      Kind<gnn::StaticKernelRegistry>("graph-op-baseline", gnn::RegisterStaticKernels);
  kinds["gnn-rewrite"] = Kind<gnn::RewriteRegistry>("gnn-rewrite", gnn::RegisterRewrites);
  kinds["online-sampler"] = Kind<gnn::SampleStoreRegistry>("online-sampler", gnn::RegisterSampleStores);
  kinds["online-serving"] = Kind<gnn::OnlineServingRegistry>("online-serving", gnn::RegisterOnlineServing);
  kinds["compression-selector"] =
      Kind<compress::SelectorRegistry>("compression-selector", compress::RegisterSelectors);
  kinds["embedding-cache"] =
      Kind<recsys::EmbeddingCacheRegistry>("embedding-cache", recsys::RegisterEmbeddingCaches);
  kinds["recsys-system"] = Kind<recsys::SystemRegistry>("recsys-system", recsys::RegisterSystems);
  kinds["precision-allocator"] =
      Kind<mixprec::AllocatorRegistry>("precision-allocator", mixprec::RegisterAllocators);
  kinds["software-stack"] = [] {  // training.stack profiles (data/catalog/stacks.yaml)
    RegistryEntries out;
    Result<io::Document> doc = io::ParseStackProfiles();
    if (!doc.ok()) return out;
    const io::MapReader stacks = doc->Root().Section("stacks");
    for (const std::string& n : stacks.Keys())
      out.emplace_back(n, stacks.Section(n).Get<std::string>("description", ""));
    return out;
  };
  return kinds;
}

}  // namespace dlsim::cli
