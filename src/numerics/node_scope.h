#pragma once

#include <string>

namespace ampbench::numerics {

// The exported-graph node that runs now on this thread, as the graph runner names it.
struct GraphNodeSite {
  const std::string* name = nullptr;         // the node's name in the graph ("linear_1")
  const std::string* module_path = nullptr;  // its nn_module_stack's innermost module; "" at the root
};

// Opened by the graph runner around each node, so that an active observer (op_observer.h) can say which
// node an op ran in. Without an observer it is one relaxed load: the timed trials pay nothing more.
class NodeScope {
 public:
  NodeScope(const std::string& name, const std::string& module_path);
  ~NodeScope();
  NodeScope(const NodeScope&) = delete;
  NodeScope& operator=(const NodeScope&) = delete;

 private:
  bool open_ = false;
  GraphNodeSite outer_;
};

// The innermost open scope on this thread; both pointers null outside every scope.
GraphNodeSite current_node();

// Whether an observer is active: set by the observer only.
bool observing();
void set_observing(bool on);

}  // namespace ampbench::numerics
