#include "numerics/node_scope.h"

#include <atomic>

namespace ampbench::numerics {
namespace {

std::atomic<bool> g_observing{false};
thread_local GraphNodeSite t_node;

}  // namespace

NodeScope::NodeScope(const std::string& name, const std::string& module_path) {
  if (!observing()) return;
  open_ = true;
  outer_ = t_node;
  t_node = {&name, &module_path};
}

NodeScope::~NodeScope() {
  if (open_) t_node = outer_;
}

GraphNodeSite current_node() { return t_node; }

bool observing() { return g_observing.load(std::memory_order_relaxed); }

void set_observing(bool on) { g_observing.store(on, std::memory_order_relaxed); }

}  // namespace ampbench::numerics
