#include "util/json_reader.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <optional>

namespace ampbench::util {
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

// Why `v` is not an integer in [min, max], or nullopt when it is. A value beyond int64_t names both
// bounds, which bound_text() leaves out when the upper one is int64_t's.
std::optional<std::string> integer_problem(const nlohmann::json& v, int64_t min, int64_t max) {
  if (v.is_number_unsigned() && v.get<uint64_t>() > uint64_t(std::numeric_limits<int64_t>::max())) {
    return "expected an integer in [" + std::to_string(min) + ", " + std::to_string(max) + "], got " +
           describe_json(v);
  }
  if (v.is_number_integer() && v.get<int64_t>() >= min && v.get<int64_t>() <= max) return std::nullopt;
  return "expected " + bound_text(min, max) + ", got " + describe_json(v);
}

// Finds the first key that appears twice in one object, from the parser's SAX events; the document itself
// is built by an ordinary parse afterwards (nlohmann's callback parser rescans a parent at each object's
// end, quadratic in its size). Each open container keeps its own token only, so memory grows with the
// nesting depth, not with its square; the pointer is joined only for the error.
class DuplicateKeyFinder : public nlohmann::json_sax<nlohmann::json> {
 public:
  std::optional<std::string> duplicate;  // the first repeated key's JSON pointer

  bool null() override { return value_done(); }
  bool boolean(bool) override { return value_done(); }
  bool number_integer(number_integer_t) override { return value_done(); }
  bool number_unsigned(number_unsigned_t) override { return value_done(); }
  bool number_float(number_float_t, const string_t&) override { return value_done(); }
  bool string(string_t&) override { return value_done(); }
  bool binary(binary_t&) override { return value_done(); }
  bool start_object(std::size_t) override {
    open_.emplace_back();
    return true;
  }
  bool key(string_t& key) override {
    auto& object = open_.back();
    object.token = key;
    if (object.keys.insert(key).second) return true;
    duplicate = pointer();
    return false;  // stop: one error is reported
  }
  bool end_object() override {
    open_.pop_back();
    return value_done();
  }
  bool start_array(std::size_t) override {
    open_.emplace_back();
    open_.back().is_array = true;
    return true;
  }
  bool end_array() override {
    open_.pop_back();
    return value_done();
  }
  // Syntax errors are left to the ordinary parse, whose message names them.
  bool parse_error(std::size_t, const std::string&, const nlohmann::detail::exception&) override {
    return false;
  }

 private:
  struct Container {
    bool is_array = false;
    size_t index = 0;            // an array's current element
    std::string token;           // an object's current key
    std::set<std::string> keys;  // an object's keys so far
  };

  // A value ended: in an array, the next one has the next index.
  bool value_done() {
    if (!open_.empty() && open_.back().is_array) ++open_.back().index;
    return true;
  }
  std::string pointer() const {
    std::string out;
    for (const auto& c : open_) {
      out += '/';
      out += c.is_array ? std::to_string(c.index) : escape_pointer_token(c.token);
    }
    return out;
  }

  std::vector<Container> open_;
};

}  // namespace

nlohmann::json parse_json_strictly(const std::string& text) {
  DuplicateKeyFinder finder;
  nlohmann::json::sax_parse(text, &finder);
  if (finder.duplicate) throw InputError(*finder.duplicate, "appears twice in the same object; keep one");
  return nlohmann::json::parse(text);
}

nlohmann::json parse_json_file(const std::string& text, const std::string& path) {
  try {
    return parse_json_strictly(text);
  } catch (const nlohmann::json::exception& e) {
    std::string message = e.what();
    // The parser quotes what it last read, which may be any bytes: keep the line printable.
    for (char& c : message) {
      if (static_cast<unsigned char>(c) < 0x20 || static_cast<unsigned char>(c) >= 0x7f) c = '?';
    }
    // nlohmann prefixes "[json.exception.parse_error.101] "; the rest names what and where.
    const auto bracket = message.find("] ");
    throw InputError(
        path, "invalid JSON: " + (bracket == std::string::npos ? message : message.substr(bracket + 2)));
  }
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
    throw InputError(path_.empty() ? "/" : path_, "expected an object, got " + describe_json(value_));
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
  throw InputError(path_of(key), problem);
}

int64_t ObjectReader::integer(const std::string& key, int64_t fallback, int64_t min, int64_t max) {
  if (!has(key)) return fallback;
  return required_integer(key, min, max);
}

int64_t ObjectReader::required_integer(const std::string& key, int64_t min, int64_t max) {
  if (!has(key)) fail(key, "missing; expected " + bound_text(min, max));
  const auto& v = at(key);
  if (auto problem = integer_problem(v, min, max)) fail(key, *problem);
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
  check_printable(key, s);
  return s;
}

// No name, path or type needs a control byte; one (a NUL, an escape sequence) would cut a path short or
// reach the terminal.
void ObjectReader::check_printable(const std::string& key, const std::string& text) const {
  for (size_t i = 0; i < text.size(); ++i) {
    const auto byte = static_cast<unsigned char>(text[i]);
    if (byte < 0x20 || byte == 0x7f) {
      char code[8];
      std::snprintf(code, sizeof code, "0x%02x", byte);
      fail(key, std::string("contains a control character (byte ") + code + " at offset " +
                    std::to_string(i) + "): only printable text is taken");
    }
  }
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
    if (auto problem = integer_problem(item, min_value, std::numeric_limits<int64_t>::max())) {
      throw InputError(path_of(key) + "/" + std::to_string(i), *problem);
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
      throw InputError(path_of(key) + "/" + std::to_string(i),
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

}  // namespace ampbench::util
