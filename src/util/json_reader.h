#pragma once

#include <cstdint>
#include <limits>
#include <set>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "util/input_error.h"

namespace ampbench::util {

// Reads one JSON object strictly: every value is type- and range-checked, every error names its JSON
// pointer, and finish() rejects keys nobody asked for, so a typo is never silently ignored.
class ObjectReader {
 public:
  ObjectReader(const nlohmann::json& value, std::string path);

  const std::string& path() const { return path_; }
  std::string path_of(const std::string& key) const;
  bool has(const std::string& key) const;
  bool is_number(const std::string& key) const;  // present and a number
  bool is_object(const std::string& key) const;  // present and an object
  // The keys present, in document order; for objects whose keys are data (such as mode names).
  std::vector<std::string> keys() const;

  int64_t integer(const std::string& key, int64_t fallback, int64_t min,
                  int64_t max = std::numeric_limits<int64_t>::max());
  int64_t required_integer(const std::string& key, int64_t min,
                           int64_t max = std::numeric_limits<int64_t>::max());
  // A finite number in [min, max]; with exclusive_min the bound itself is rejected too.
  double number(const std::string& key, double fallback, double min, double max, bool exclusive_min = false);
  bool boolean(const std::string& key, bool fallback);
  std::string string(const std::string& key, const std::string& fallback);
  std::string required_string(const std::string& key);
  std::vector<int64_t> integer_list(const std::string& key, const std::vector<int64_t>& fallback,
                                    int64_t min_value);
  std::vector<std::string> string_list(const std::string& key, const std::vector<std::string>& fallback);
  // A nested object; when absent, a reader over an empty object (so its defaults apply).
  ObjectReader object(const std::string& key);
  ObjectReader required_object(const std::string& key);

  // Throws for the first key that was never read.
  void finish() const;

 private:
  const nlohmann::json& at(const std::string& key);
  [[noreturn]] void fail(const std::string& key, const std::string& problem) const;
  void check_printable(const std::string& key, const std::string& text) const;

  const nlohmann::json& value_;
  std::string path_;
  std::set<std::string> read_keys_;           // present and consumed
  mutable std::set<std::string> known_keys_;  // asked for, present or not: the schema's keys
};

// Parses JSON text as nlohmann::json::parse does, but refuses an object that holds the same key twice
// (JSON readers differ on which one counts, and one would be silently ignored): throws InputError
// naming the key's JSON pointer. Syntax errors throw nlohmann::json::parse_error as parse() does.
nlohmann::json parse_json_strictly(const std::string& text);
// A file's JSON text (config, report) parsed strictly; a syntax error, or a number too large for a double,
// throws InputError(path, "invalid JSON: " and what and where, at line L, column C), kept printable.
nlohmann::json parse_json_file(const std::string& text, const std::string& path);

// A short rendering of a JSON value for error messages ("-3", "\"abc\"", "an object").
std::string describe_json(const nlohmann::json& value);

}  // namespace ampbench::util
