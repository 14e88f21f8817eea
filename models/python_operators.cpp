#include "models/python_operators.h"

#include <cmath>
#include <map>

namespace ampbench::models {
namespace {

using c10::IValue;
using Arguments = std::vector<IValue>;

bool both_ints(const Arguments& a) { return !a[0].isDouble() && !a[1].isDouble(); }
int64_t integer(const IValue& v) { return v.isBool() ? int64_t(v.toBool()) : v.toInt(); }
double real(const IValue& v) { return v.isDouble() ? v.toDouble() : double(integer(v)); }

// Python's floor division and modulo round toward negative infinity.
int64_t floor_div(int64_t a, int64_t b) { return a / b - ((a % b != 0) && ((a < 0) != (b < 0))); }

template <typename IntOp, typename RealOp>
IValue arithmetic(const Arguments& a, IntOp int_op, RealOp real_op) {
  if (both_ints(a)) return int_op(integer(a[0]), integer(a[1]));
  return real_op(real(a[0]), real(a[1]));
}

template <typename Compare>
IValue comparison(const Arguments& a, Compare compare) {
  return both_ints(a) ? compare(integer(a[0]), integer(a[1])) : compare(real(a[0]), real(a[1]));
}

IValue add(const Arguments& a) { return arithmetic(a, std::plus<int64_t>(), std::plus<double>()); }
IValue sub(const Arguments& a) { return arithmetic(a, std::minus<int64_t>(), std::minus<double>()); }
IValue mul(const Arguments& a) {
  return arithmetic(a, std::multiplies<int64_t>(), std::multiplies<double>());
}
IValue truediv(const Arguments& a) { return real(a[0]) / real(a[1]); }
IValue floordiv(const Arguments& a) {
  return arithmetic(a, floor_div, [](double x, double y) { return std::floor(x / y); });
}
IValue mod(const Arguments& a) {
  return arithmetic(
      a, [](int64_t x, int64_t y) { return x - floor_div(x, y) * y; },
      [](double x, double y) { return x - std::floor(x / y) * y; });
}
IValue max(const Arguments& a) {
  return arithmetic(
      a, [](int64_t x, int64_t y) { return std::max(x, y); },
      [](double x, double y) { return std::max(x, y); });
}
IValue min(const Arguments& a) {
  return arithmetic(
      a, [](int64_t x, int64_t y) { return std::min(x, y); },
      [](double x, double y) { return std::min(x, y); });
}
IValue neg(const Arguments& a) { return a[0].isDouble() ? IValue(-a[0].toDouble()) : IValue(-integer(a[0])); }
IValue logical_not(const Arguments& a) { return !(a[0].isBool() ? a[0].toBool() : real(a[0]) != 0); }
IValue eq(const Arguments& a) { return comparison(a, std::equal_to<>()); }
IValue ne(const Arguments& a) { return comparison(a, std::not_equal_to<>()); }
IValue lt(const Arguments& a) { return comparison(a, std::less<>()); }
IValue le(const Arguments& a) { return comparison(a, std::less_equal<>()); }
IValue gt(const Arguments& a) { return comparison(a, std::greater<>()); }
IValue ge(const Arguments& a) { return comparison(a, std::greater_equal<>()); }

}  // namespace

PythonOperatorEntry find_python_operator(const std::string& target) {
  static const std::map<std::string, PythonOperatorEntry> operators{{"_operator.add", {add, 2}},
                                                                    {"_operator.sub", {sub, 2}},
                                                                    {"_operator.mul", {mul, 2}},
                                                                    {"_operator.truediv", {truediv, 2}},
                                                                    {"_operator.floordiv", {floordiv, 2}},
                                                                    {"_operator.mod", {mod, 2}},
                                                                    {"_operator.neg", {neg, 1}},
                                                                    {"_operator.eq", {eq, 2}},
                                                                    {"_operator.ne", {ne, 2}},
                                                                    {"_operator.lt", {lt, 2}},
                                                                    {"_operator.le", {le, 2}},
                                                                    {"_operator.gt", {gt, 2}},
                                                                    {"_operator.ge", {ge, 2}},
                                                                    {"torch.sym_max", {max, 2}},
                                                                    {"torch.sym_min", {min, 2}},
                                                                    {"torch.sym_not", {logical_not, 1}}};
  const auto found = operators.find(target);
  return found == operators.end() ? PythonOperatorEntry{} : found->second;
}

}  // namespace ampbench::models
