#include "config/json_reader.h"

#include <algorithm>
#include <charconv>
#include <cmath>

namespace ampbench::config {
namespace {

const nlohmann::json& empty_object() {
  static const nlohmann::json empty = nlohmann::json::object();
  return empty;
}

// RFC 6901 escaping, so paths stay unambiguous for keys holding '/' or '~'.
std::string escape_pointer_token(const std::string& key) {
  std::string out;
  for (char c : key) {
    if (c == '~') {
      out += "~0";
    } else if (c == '/') {
      out += "~1";
    } else {
      out += c;
    }
  }
  return out;
}

size_t edit_distance(const std::string& a, const std::string& b) {
  std::vector<size_t> row(b.size() + 1);
  for (size_t j = 0; j <= b.size(); ++j) row[j] = j;
  for (size_t i = 1; i <= a.size(); ++i) {
    size_t diagonal = row[0];
    row[0] = i;
    for (size_t j = 1; j <= b.size(); ++j) {
      size_t above = row[j];
      row[j] = std::min({row[j] + 1, row[j - 1] + 1, diagonal + (a[i - 1] == b[j - 1] ? 0 : 1)});
      diagonal = above;
    }
  }
  return row[b.size()];
}

// 0, 1, 1e-06, 1000000: the shortest text that reads back to the same double.
std::string shortest(double x) {
  char buffer[32];
  auto result = std::to_chars(buffer, buffer + sizeof buffer, x);
  return std::string(buffer, result.ptr);
}

std::string bound_text(int64_t min, int64_t max) {
  if (max == std::numeric_limits<int64_t>::max()) return "an integer >= " + std::to_string(min);
  return "an integer in [" + std::to_string(min) + ", " + std::to_string(max) + "]";
}

}  // namespace

nlohmann::json parse_json_strictly(const std::string& text) {
  // The containers being read, outermost first: each one's JSON pointer, and for an object the keys seen
  // so far, for an array the index of its next element.
  struct Container {
    std::string path;
    bool is_array = false;
    size_t next_index = 0;
    std::string last_key;
    std::set<std::string> keys;
  };
  std::vector<Container> open;
  // Where the value that starts now sits: under its key in an object, at its index in an array.
  auto child_path = [&open]() -> std::string {
    if (open.empty()) return "";
    const auto& parent = open.back();
    return parent.path + "/" +
           (parent.is_array ? std::to_string(parent.next_index) : escape_pointer_token(parent.last_key));
  };
  auto value_done = [&open] {
    if (!open.empty() && open.back().is_array) ++open.back().next_index;
  };
  using Event = nlohmann::json::parse_event_t;
  return nlohmann::json::parse(text, [&](int, Event event, nlohmann::json& parsed) {
    switch (event) {
      case Event::object_start:
      case Event::array_start: {
        Container container;
        container.path = child_path();
        container.is_array = event == Event::array_start;
        open.push_back(std::move(container));
        break;
      }
      case Event::key: {
        auto& object = open.back();
        object.last_key = parsed.get<std::string>();
        if (!object.keys.insert(object.last_key).second) {
          throw ConfigError(child_path(), "appears twice in the same object; keep one");
        }
        break;
      }
      case Event::object_end:
      case Event::array_end:
        open.pop_back();
        value_done();
        break;
      case Event::value:
        value_done();
        break;
    }
    return true;
  });
}

std::string describe_json(const nlohmann::json& value) {
  if (value.is_object()) return "an object";
  if (value.is_array()) return "an array";
  if (value.is_null()) return "null";
  std::string text = value.dump();
  if (text.size() > 40) text = text.substr(0, 37) + "...";
  return text;
}

ObjectReader::ObjectReader(const nlohmann::json& value, std::string path)
    : value_(value), path_(std::move(path)) {
  if (!value_.is_object()) {
    throw ConfigError(path_.empty() ? "/" : path_, "expected an object, got " + describe_json(value_));
  }
}

std::string ObjectReader::path_of(const std::string& key) const {
  return path_ + "/" + escape_pointer_token(key);
}

bool ObjectReader::has(const std::string& key) const {
  known_keys_.insert(key);
  return value_.contains(key);
}

std::vector<std::string> ObjectReader::keys() const {
  std::vector<std::string> out;
  for (const auto& [key, unused] : value_.items()) out.push_back(key);
  return out;
}

const nlohmann::json& ObjectReader::at(const std::string& key) {
  read_keys_.insert(key);
  return value_.at(key);
}

void ObjectReader::fail(const std::string& key, const std::string& problem) const {
  throw ConfigError(path_of(key), problem);
}

int64_t ObjectReader::integer(const std::string& key, int64_t fallback, int64_t min, int64_t max) {
  if (!has(key)) return fallback;
  return required_integer(key, min, max);
}

int64_t ObjectReader::required_integer(const std::string& key, int64_t min, int64_t max) {
  if (!has(key)) fail(key, "missing; expected " + bound_text(min, max));
  const auto& v = at(key);
  // Beyond int64_t: name the upper bound too, which bound_text() leaves out when it is int64_t's.
  if (v.is_number_unsigned() && v.get<uint64_t>() > uint64_t(std::numeric_limits<int64_t>::max())) {
    fail(key, "expected an integer in [" + std::to_string(min) + ", " + std::to_string(max) + "], got " +
                  describe_json(v));
  }
  bool in_range = v.is_number_integer() && v.get<int64_t>() >= min && v.get<int64_t>() <= max;
  if (!in_range) fail(key, "expected " + bound_text(min, max) + ", got " + describe_json(v));
  return v.get<int64_t>();
}

double ObjectReader::number(const std::string& key, double fallback, double min, double max,
                            bool exclusive_min) {
  if (!has(key)) return fallback;
  const auto& v = at(key);
  std::string expected = "a number " + std::string(exclusive_min ? "> " : ">= ") + shortest(min);
  if (max < std::numeric_limits<double>::max()) expected += " and <= " + shortest(max);
  if (!v.is_number()) fail(key, "expected " + expected + ", got " + describe_json(v));
  double x = v.get<double>();
  bool below = exclusive_min ? x <= min : x < min;
  if (!std::isfinite(x) || below || x > max) fail(key, "expected " + expected + ", got " + describe_json(v));
  return x;
}

bool ObjectReader::is_number(const std::string& key) const { return has(key) && value_.at(key).is_number(); }

bool ObjectReader::is_object(const std::string& key) const { return has(key) && value_.at(key).is_object(); }

bool ObjectReader::boolean(const std::string& key, bool fallback) {
  if (!has(key)) return fallback;
  const auto& v = at(key);
  if (!v.is_boolean()) fail(key, "expected true or false, got " + describe_json(v));
  return v.get<bool>();
}

std::string ObjectReader::string(const std::string& key, const std::string& fallback) {
  if (!has(key)) return fallback;
  return required_string(key);
}

std::string ObjectReader::required_string(const std::string& key) {
  if (!has(key)) fail(key, "missing; expected a string");
  const auto& v = at(key);
  if (!v.is_string()) fail(key, "expected a string, got " + describe_json(v));
  auto s = v.get<std::string>();
  if (s.empty()) fail(key, "expected a non-empty string");
  return s;
}

std::vector<int64_t> ObjectReader::integer_list(const std::string& key, const std::vector<int64_t>& fallback,
                                                int64_t min_value) {
  if (!has(key)) return fallback;
  const auto& v = at(key);
  if (!v.is_array() || v.empty())
    fail(key, "expected a non-empty array of integers, got " + describe_json(v));
  std::vector<int64_t> out;
  for (size_t i = 0; i < v.size(); ++i) {
    const auto& item = v[i];
    if (!item.is_number_integer() || item.get<int64_t>() < min_value) {
      throw ConfigError(path_of(key) + "/" + std::to_string(i),
                        "expected " + bound_text(min_value, std::numeric_limits<int64_t>::max()) + ", got " +
                            describe_json(item));
    }
    out.push_back(item.get<int64_t>());
  }
  return out;
}

std::vector<std::string> ObjectReader::string_list(const std::string& key,
                                                   const std::vector<std::string>& fallback) {
  if (!has(key)) return fallback;
  const auto& v = at(key);
  if (!v.is_array()) fail(key, "expected an array of strings, got " + describe_json(v));
  std::vector<std::string> out;
  for (size_t i = 0; i < v.size(); ++i) {
    if (!v[i].is_string()) {
      throw ConfigError(path_of(key) + "/" + std::to_string(i),
                        "expected a string, got " + describe_json(v[i]));
    }
    out.push_back(v[i].get<std::string>());
  }
  return out;
}

ObjectReader ObjectReader::object(const std::string& key) {
  if (!has(key)) return ObjectReader(empty_object(), path_of(key));
  return ObjectReader(at(key), path_of(key));
}

ObjectReader ObjectReader::required_object(const std::string& key) {
  if (!has(key)) fail(key, "missing; expected an object");
  return ObjectReader(at(key), path_of(key));
}

void ObjectReader::finish() const {
  for (const auto& [key, unused] : value_.items()) {
    if (read_keys_.count(key)) continue;
    std::string problem = "unknown key";
    // Suggest the closest key the schema knows: catches typos such as "epoch" for "epochs".
    std::string best;
    size_t best_distance = 3;
    for (const auto& known : known_keys_) {
      size_t d = edit_distance(key, known);
      if (d < best_distance) best = known, best_distance = d;
    }
    if (!best.empty()) problem += " (did you mean \"" + best + "\"?)";
    fail(key, problem);
  }
}

}  // namespace ampbench::config
