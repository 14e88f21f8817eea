#pragma once

#include <filesystem>
#include <string>
#include <vector>

#include "sweep/sweep_report.h"

namespace ampbench::sweep {

// What `ampbench merge` is asked: the sweep folders of one sweep's shards, and where to write the whole.
struct MergeRequest {
  std::vector<std::string> folders;
  std::string out_dir = "results";
  bool force = false;  // merge points that ran on other builds, machines or archives, marked so
};

struct MergeOutcome {
  SweepReport report;            // the whole sweep, every point from the shard that ran it
  std::filesystem::path folder;  // <out_dir>/<name>-sweep-merged-<UTC time>: sweep.json, .csv, .md
};

// Joins the shards' sweep reports into one whose run folders are the shards' point folders, each point's
// figures read from its own report.json. The points are those the sweep's axes make, whatever any folder's
// sweep.json lists. Throws util::InputError, before anything is written, for a folder without a sweep
// report, shards of different sweeps (other keys or values), a point the axes do not make, a point run in
// two folders, a point that did not finish (by its sweep.json or its report.json), points no folder ran
// (named), points of another experiment (each point's report.json config, apart from the swept keys and the
// output folder, must be the first point's), and, unless `force`, points whose report records another build,
// machine or archive than the first point's (what decides the figures: ampbench's version and commit,
// LibTorch's and CUDA's, the device's name and compute capability, the CPU, its cores and LibTorch's threads,
// an exported model's fingerprint; every differing field is named, and with `force` the report keeps them);
// util::OutputError when the merged folder cannot be made.
MergeOutcome run_merge(const MergeRequest& request);

}  // namespace ampbench::sweep
