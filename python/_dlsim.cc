// The C++ side of `import dlsim` (pybind11): each command runs exactly as the CLI runs it with
// --json — the same app::Run*Command, the same renderer — and returns (exit code, stdout, stderr)
// for python/dlsim/__init__.py to turn into a dict or a dlsim.ScenarioError. The GIL is released
// while a simulation runs, and Ctrl-C stops it (KeyboardInterrupt, as for any Python call).
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <chrono>
#include <functional>
#include <future>
#include <sstream>
#include <string>
#include <thread>
#include <tuple>
#include <vector>

#include "dlsim/app/cluster_command.h"
#include "dlsim/app/gnn_command.h"
#include "dlsim/app/plan_command.h"
#include "dlsim/app/serve_command.h"
#include "dlsim/app/train_command.h"
#include "dlsim/core/cancel.h"
#include "dlsim/io/catalog_loader.h"

namespace py = pybind11;

namespace {

using Outcome = std::tuple<int, std::string, std::string>;

// Runs `work` on a worker thread while this one, holding the GIL every 50 ms, lets Python handle its signals:
// on Ctrl-C (KeyboardInterrupt, or any exception a signal handler raises) the run is asked to stop
// (core/cancel.h), joined, and the exception propagates; the simulation never holds the GIL.
int RunInterruptibly(const std::function<int()>& work) {
  dlsim::ClearCancel();
  std::packaged_task<int()> task(work);
  std::future<int> result = task.get_future();
  std::thread worker(std::move(task));
  bool interrupted = false;
  for (;;) {
    {
      py::gil_scoped_release release;
      if (result.wait_for(std::chrono::milliseconds(50)) == std::future_status::ready) break;
    }
    if (!interrupted && PyErr_CheckSignals() != 0) {
      interrupted = true;
      dlsim::RequestCancel();
    }
  }
  worker.join();
  dlsim::ClearCancel();
  if (interrupted) throw py::error_already_set();
  return result.get();
}

template <typename Args, typename Run>
Outcome RunJson(Args args, const std::vector<std::string>& catalogs, Run run,
                const std::vector<std::string>& calibrations = {}) {
  args.json = true;
  std::ostringstream out, err;
  const int code = RunInterruptibly([&] {
    return run(args, dlsim::app::CommonArgs{catalogs, calibrations}, out, err);
  });
  return {code, out.str(), err.str()};
}

Outcome Train(const std::string& file, const std::string& text, const std::vector<std::string>& catalogs,
              const std::vector<std::string>& calibrations, const std::string& compare_trace) {
  dlsim::app::TrainArgs a;
  a.file = file;
  a.text = text;
  a.compare_trace = compare_trace;
  return RunJson(a, catalogs, dlsim::app::RunTrainCommand, calibrations);
}

Outcome Serve(const std::string& file, const std::string& text, const std::vector<std::string>& catalogs,
              const std::vector<std::string>& calibrations, bool capacity, double target) {
  dlsim::app::ServeArgs a;
  a.file = file;
  a.text = text;
  a.capacity = capacity;
  a.target = target;
  return RunJson(a, catalogs, dlsim::app::RunServeCommand, calibrations);
}

Outcome Plan(const std::string& file, const std::string& text, const std::vector<std::string>& catalogs,
             const std::vector<std::string>& calibrations, int threads, int top) {
  dlsim::app::PlanArgs a;
  a.file = file;
  a.text = text;
  a.threads = threads;
  a.top = top;
  return RunJson(a, catalogs, dlsim::app::RunPlanCommand, calibrations);
}

Outcome Cluster(const std::string& file, const std::string& text, const std::vector<std::string>& catalogs,
                bool records, const std::string& compare, const std::string& policy) {
  dlsim::app::ClusterArgs a;
  a.file = file;
  a.text = text;
  a.records = records;
  a.compare = compare;
  a.policy = policy;
  return RunJson(a, catalogs, dlsim::app::RunClusterCommand);
}

Outcome Gnn(const std::string& file, const std::string& text, const std::vector<std::string>& catalogs,
            bool compare) {
  dlsim::app::GnnArgs a;
  a.file = file;
  a.text = text;
  a.compare = compare;
  return RunJson(a, catalogs, dlsim::app::RunGnnCommand);
}

// Canonical names of every catalog kind (the embedded catalogs plus `catalogs` files).
py::dict Catalog(const std::vector<std::string>& catalogs) {
  auto cat = dlsim::io::LoadCatalogs(catalogs);
  if (!cat.ok()) throw std::invalid_argument(cat.error().message);
  py::dict d;
  d["gpus"] = cat->hardware.GpuNames();
  d["nodes"] = cat->hardware.NodeNames();
  d["networks"] = cat->hardware.NetworkNames();
  d["models"] = cat->models.Names();
  return d;
}

}  // namespace

PYBIND11_MODULE(_dlsim, m) {
  m.doc() = "dlsim's C++ core; use the `dlsim` package (python/dlsim/__init__.py)";
  m.def("train", &Train, py::arg("file"), py::arg("text"), py::arg("catalogs"), py::arg("calibrations"),
        py::arg("compare_trace"));
  m.def("serve", &Serve, py::arg("file"), py::arg("text"), py::arg("catalogs"), py::arg("calibrations"),
        py::arg("capacity"), py::arg("target"));
  m.def("plan", &Plan, py::arg("file"), py::arg("text"), py::arg("catalogs"), py::arg("calibrations"),
        py::arg("threads"), py::arg("top"));
  m.def("cluster", &Cluster, py::arg("file"), py::arg("text"), py::arg("catalogs"), py::arg("records"),
        py::arg("compare"), py::arg("policy"));
  m.def("gnn", &Gnn, py::arg("file"), py::arg("text"), py::arg("catalogs"), py::arg("compare"));
  m.def("catalog", &Catalog, py::arg("catalogs"));
}
