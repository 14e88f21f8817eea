#pragma once

namespace ampbench {

// The git commit the binary was built from, or "unknown"; "-dirty" when the sources compiled into it
// (src, models, cmake, CMakeLists.txt) had uncommitted changes. Defined in a source generated at build time.
const char* git_commit();

}  // namespace ampbench
