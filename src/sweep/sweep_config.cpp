#include "sweep/sweep_config.h"

#include <algorithm>
#include <charconv>
#include <limits>
#include <string>
#include <vector>

#include "util/input_error.h"
#include "util/json_reader.h"

namespace ampbench::sweep {
namespace {

constexpr const char* kSweepKey = "sweep";

SweepAxis read_axis(const nlohmann::json& entry, const std::string& path) {
  if (!entry.is_object())
    throw util::InputError(path, "must be an object, {\"key\": POINTER, \"values\": [...]}");
  // The values are any JSON: the reader sees the rest of the entry, and refuses keys it does not know.
  auto rest = entry;
  rest.erase("values");
  util::ObjectReader reader(rest, path);
  SweepAxis axis{reader.required_string("key"), {}};
  reader.finish();
  if (!entry.contains("values") || !entry["values"].is_array())
    throw util::InputError(reader.path_of("values"), "must be a list of the values the key takes");
  axis.values = entry["values"].get<std::vector<nlohmann::json>>();
  return axis;
}

// Where the axis cannot go, said at its key; the values are the config parser's to judge.
void check_axis(const SweepAxis& axis, const std::string& where) {
  if (axis.key.empty() || axis.key.front() != '/' || axis.key == "/")
    throw util::InputError(where, "the key must be a JSON pointer to a config value, as /train/batch_size");
  try {
    const nlohmann::json::json_pointer pointer(axis.key);
    if (pointer.to_string().rfind("/" + std::string(kSweepKey), 0) == 0)
      throw util::InputError(where, "a sweep cannot sweep itself");
    // Every point runs into the sweep's one folder: a swept output folder would change nothing.
    if (pointer.to_string().rfind("/output", 0) == 0 &&
        (pointer.to_string().size() == 7 || pointer.to_string()[7] == '/'))
      throw util::InputError(where,
                             "every point runs into the sweep's folder: the output folder is not swept "
                             "(give it once, in the config or with --out)");
  } catch (const nlohmann::json::exception&) {
    throw util::InputError(where, "the key is not a JSON pointer (RFC 6901): " + axis.key);
  }
  if (axis.values.empty()) throw util::InputError(where, axis.key + " has no values");
  for (size_t i = 0; i < axis.values.size(); ++i) {
    if (std::find(axis.values.begin(), axis.values.begin() + i, axis.values[i]) != axis.values.begin() + i)
      throw util::InputError(where, axis.key + " takes " + util::describe_json(axis.values[i]) + " twice");
  }
}

// The key's tokens, root first.
std::vector<std::string> tokens_of(nlohmann::json::json_pointer pointer) {
  std::vector<std::string> tokens;
  for (; !pointer.empty(); pointer = pointer.parent_pointer()) tokens.insert(tokens.begin(), pointer.back());
  return tokens;
}

// Whether a pointer's token is a list index (digits only), into `index`; a number too large is past any end.
bool is_index(const std::string& token, size_t& index) {
  const auto [end, error] = std::from_chars(token.data(), token.data() + token.size(), index);
  if (error == std::errc::result_out_of_range) index = std::numeric_limits<size_t>::max();
  return error != std::errc::invalid_argument && end == token.data() + token.size();
}

// An index past a list's end would pad the list with nulls, and the config parser would then name a null
// the user never wrote: refused at the key, saying how long the list is.
void check_within_lists(const nlohmann::json& doc, const std::string& key) {
  const nlohmann::json* node = &doc;
  std::string at;
  for (const auto& token : tokens_of(nlohmann::json::json_pointer(key))) {
    if (node->is_object() && node->contains(token)) {
      node = &(*node)[token];
    } else if (size_t index = 0; node->is_array() && is_index(token, index)) {
      const auto size = node->size();
      if (index > size) {
        const auto last = size == 0 ? std::string() : "0 to " + std::to_string(size - 1) + ", or ";
        throw util::InputError(key, "the list at " + (at.empty() ? "/" : at) + " has " +
                                        std::to_string(size) + " element(s): index " + token +
                                        " is past its end (give " + last + std::to_string(size) +
                                        " to append)");
      }
      if (index == size) return;
      node = &(*node)[index];
    } else {
      return;
    }
    at += "/" + token;
  }
}

nlohmann::json with_value(nlohmann::json doc, const std::string& key, const nlohmann::json& value) {
  check_within_lists(doc, key);
  try {
    doc[nlohmann::json::json_pointer(key)] = value;
  } catch (const nlohmann::json::exception&) {
    throw util::InputError(key, "something other than an object is in the way of the swept key");
  }
  return doc;
}

}  // namespace

std::vector<SweepAxis> take_sweep(nlohmann::json& doc) {
  if (!doc.is_object() || !doc.contains(kSweepKey)) return {};
  const auto sweep = doc[kSweepKey];
  doc.erase(kSweepKey);
  const std::string path = "/" + std::string(kSweepKey);
  if (!sweep.is_array() || sweep.empty())
    throw util::InputError(path, "must be a non-empty list of {\"key\": POINTER, \"values\": [...]}");
  std::vector<SweepAxis> axes;
  for (size_t i = 0; i < sweep.size(); ++i) {
    const auto where = path + "/" + std::to_string(i);
    axes.push_back(read_axis(sweep[i], where));
    check_axis(axes.back(), where + "/key");
  }
  return axes;
}

std::vector<SweepPoint> expand_sweep(const nlohmann::json& base, const std::vector<SweepAxis>& axes) {
  std::vector<SweepPoint> points{{1, {}, base}};
  for (size_t a = 0; a < axes.size(); ++a) {
    const auto& axis = axes[a];
    check_axis(axis, "sweep " + axis.key);
    for (size_t b = 0; b < a; ++b) {
      if (nlohmann::json::json_pointer(axes[b].key) == nlohmann::json::json_pointer(axis.key))
        throw util::InputError("sweep " + axis.key, "the key is swept twice");
    }
    std::vector<SweepPoint> grown;
    for (const auto& point : points) {
      for (const auto& value : axis.values) {
        auto settings = point.settings;
        settings.emplace_back(axis.key, value);
        grown.push_back(
            {static_cast<int64_t>(grown.size()) + 1, settings, with_value(point.config, axis.key, value)});
      }
    }
    points = std::move(grown);
  }
  return points;
}

namespace {

// A key's or value's text in a label: the label's own separators (',' between settings, '=' in one) and
// '%' written as %2C, %3D and %25.
std::string label_text(const std::string& text) {
  std::string out;
  for (const char c : text) {
    if (c == ',')
      out += "%2C";
    else if (c == '=')
      out += "%3D";
    else if (c == '%')
      out += "%25";
    else
      out += c;
  }
  return out;
}

}  // namespace

std::string settings_label(const SweepPoint& point) {
  std::string out;
  for (const auto& [key, value] : point.settings) {
    std::string dotted = key.substr(1);
    std::replace(dotted.begin(), dotted.end(), '/', '.');
    // A string that reads as another JSON value ("8", "true") keeps its quotes: it is not that value.
    const bool plain = value.is_string() && !nlohmann::json::accept(value.get<std::string>());
    out += (out.empty() ? "" : ",") + label_text(dotted) + "=" +
           label_text(plain ? value.get<std::string>() : value.dump());
  }
  return out;
}

std::string describe(const SweepPoint& point) {
  std::string out;
  for (const auto& [key, value] : point.settings)
    out +=
        (out.empty() ? "" : ", ") + key + "=" + (value.is_string() ? value.get<std::string>() : value.dump());
  return out;
}

}  // namespace ampbench::sweep
