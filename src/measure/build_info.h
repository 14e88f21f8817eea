#pragma once

namespace ampbench {

// The git commit the binary was built from ("-dirty" when the tree had changes), or "unknown".
// Defined in a source generated at build time.
const char* git_commit();

}  // namespace ampbench
