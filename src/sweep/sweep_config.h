#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

namespace ampbench::sweep {

// One swept config value: a JSON pointer into the experiment config and the values it takes.
struct SweepAxis {
  std::string key;  // "/train/batch_size"
  std::vector<nlohmann::json> values;
};

// One point of a sweep: the experiment with one value of each axis written in.
struct SweepPoint {
  int64_t index = 0;                                             // 1-based, in the grid's order
  std::vector<std::pair<std::string, nlohmann::json>> settings;  // (key, value), one per axis
  nlohmann::json config;                                         // the config document of its run
};

// Takes the "sweep" key (a list of {"key": POINTER, "values": [...]}) out of a config document and reads
// it; empty when there is none. Throws util::InputError at the bad entry's JSON pointer.
std::vector<SweepAxis> take_sweep(nlohmann::json& doc);

// Every point of the grid over `axes` (the config's and the command line's together), the first axis
// varying slowest. Throws util::InputError naming the axis for a key that is not a JSON pointer to a
// config value, a key given twice, a value given twice, no values, or something other than an object in
// the way of a key. Whether each point's values are good is its config's parser's to say.
std::vector<SweepPoint> expand_sweep(const nlohmann::json& base, const std::vector<SweepAxis>& axes);

// "/train/batch_size=32, /train/optimizer/lr=0.1": how reports and errors name a point.
std::string describe(const SweepPoint& point);

// "train.batch_size=64,precision.loss_scale=1024": how a benchmark names a point, so that the same point of
// the next sweep continues its series. No two points of a sweep share one: a ',', '=' or '%' in a key or
// value is written %2C, %3D, %25, and a string that reads as another JSON value ("8") keeps its quotes.
std::string settings_label(const SweepPoint& point);

}  // namespace ampbench::sweep
