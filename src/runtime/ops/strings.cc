// String tensors: Cast between strings and numbers, and StringNormalizer.
#include <locale.h>
#include <wctype.h>

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cmath>
#include <limits>
#include <memory>
#include <optional>
#include <string_view>
#include <type_traits>

#include "kiln/support/utf8.h"
#include "op_util.h"
#include "runtime_ops.h"

namespace kiln::runtime::ops {
namespace {

// Numbers as NumPy prints them (what ONNX's test data hold). A float: the shortest digits that read
// back as V, positional with a fractional digit when 1e-4 <= |V| < 1e16 ("0.0001", "1.0",
// "123456792.0"), else scientific ("1e-05"); and ONNX's "NaN", "INF", "-INF". A bool: "True",
// "False".
template <typename T>
std::string numberText(T v) {
  if constexpr (std::is_same_v<T, bool>) {
    return v ? "True" : "False";
  } else {
    char buf[64];
    if constexpr (std::is_floating_point_v<T>) {
      if (std::isnan(v)) return "NaN";
      if (std::isinf(v)) return v < 0 ? "-INF" : "INF";
      T a = std::fabs(v);
      bool positional = a == 0 || (a >= T(1e-4) && a < T(1e16));
      auto r = std::to_chars(buf, buf + sizeof buf, v,
                             positional ? std::chars_format::fixed : std::chars_format::scientific);
      std::string text(buf, r.ptr);
      if (positional && text.find('.') == std::string::npos) text += ".0";
      return text;
    } else {
      auto r = std::to_chars(buf, buf + sizeof buf, v);
      return std::string(buf, r.ptr);
    }
  }
}

bool equalsNoCase(std::string_view a, std::string_view b) {
  if (a.size() != b.size()) return false;
  for (size_t i = 0; i < a.size(); ++i) {
    if (std::tolower(static_cast<unsigned char>(a[i])) !=
        std::tolower(static_cast<unsigned char>(b[i])))
      return false;
  }
  return true;
}

// TEXT as a double: plain and scientific notation, a leading '+', surrounding spaces, and "INF",
// "-INF", "NaN" in any case; nullopt for anything else.
std::optional<double> parseDouble(std::string_view text) {
  while (!text.empty() && std::isspace(static_cast<unsigned char>(text.front())))
    text.remove_prefix(1);
  while (!text.empty() && std::isspace(static_cast<unsigned char>(text.back())))
    text.remove_suffix(1);
  if (!text.empty() && text.front() == '+') text.remove_prefix(1);
  double v = 0;
  auto r = std::from_chars(text.data(), text.data() + text.size(), v);
  if (r.ptr != text.data() + text.size() || text.empty()) return std::nullopt;
  if (r.ec == std::errc::result_out_of_range) {
    // Beyond a double: infinite for a large exponent, zero for a small one (as strtod gives).
    bool negative = text.front() == '-';
    size_t e = text.find_first_of("eE");
    bool tiny = e != std::string_view::npos && e + 1 < text.size() && text[e + 1] == '-';
    double mag = tiny ? 0.0 : std::numeric_limits<double>::infinity();
    return negative ? -mag : mag;
  }
  if (r.ec != std::errc()) return std::nullopt;
  return v;
}

// Element E of a string input read as a T; an error naming the element and its text otherwise.
template <typename T>
T parseNumber(const RuntimeOpContext& ctx, const std::string& s, int64_t e) {
  if constexpr (std::is_same_v<T, bool>) {
    if (equalsNoCase(s, "true")) return true;
    if (equalsNoCase(s, "false")) return false;
  }
  std::optional<double> v = parseDouble(s);
  if (!v) fail(ctx, "element ", e, " is '", s, "', which is not a number");
  if constexpr (std::is_floating_point_v<T>) {
    // Beyond the type's range: infinite, as rounding would make it.
    if (std::isfinite(*v) && std::fabs(*v) > static_cast<double>(std::numeric_limits<T>::max()))
      return std::copysign(std::numeric_limits<T>::infinity(), static_cast<T>(*v));
    return static_cast<T>(*v);
  } else if constexpr (std::is_same_v<T, bool>) {
    return *v != 0;
  } else {
    // Integers: exact when the text is an integer (doubles hold only 53 bits), else truncated.
    T exact = 0;
    auto r = std::from_chars(s.data(), s.data() + s.size(), exact);
    if (r.ec == std::errc() && r.ptr == s.data() + s.size()) return exact;
    double t = std::trunc(*v);
    // 2^digits is exact in a double, where max() may round up to it.
    if (std::isnan(t) || t < static_cast<double>(std::numeric_limits<T>::lowest()) ||
        t >= std::ldexp(1.0, std::numeric_limits<T>::digits)) {
      fail(ctx, "element ", e, " is '", s, "', which is outside the range of ",
           ctx.outputDtype(0).str());
    }
    return static_cast<T>(t);
  }
}

// A locale for case mapping: LOCALE's UTF-8 form when installed, else C.UTF-8 (whose mapping is
// Unicode's, the same in every locale but a few such as Turkish), else C (ASCII only).
using Locale = std::unique_ptr<std::remove_pointer_t<locale_t>, decltype(&freelocale)>;

Locale caseLocale(const std::string& locale) {
  std::string name = locale.empty() ? "C" : locale;
  if (name.find('.') == std::string::npos) name += ".UTF-8";
  locale_t l = newlocale(LC_CTYPE_MASK, name.c_str(), static_cast<locale_t>(nullptr));
  if (!l) l = newlocale(LC_CTYPE_MASK, "C.UTF-8", static_cast<locale_t>(nullptr));
  // The "C" locale always exists; it maps ASCII letters only.
  if (!l) l = newlocale(LC_CTYPE_MASK, "C", static_cast<locale_t>(nullptr));
  return Locale(l, &freelocale);
}

// S decoded as UTF-8 (an invalid byte stands for itself), mapped code point by code point with
// MAP, and encoded again.
std::string mapUtf8(const std::string& s, wint_t (*map)(wint_t, locale_t), locale_t loc) {
  std::string out;
  out.reserve(s.size());
  for (size_t i = 0; i < s.size();) {
    char32_t cp = 0;
    size_t len = decodeUtf8(s, i, cp);
    if (len == 0) {
      out += s[i++];
      continue;
    }
    i += len;
    appendUtf8(out, loc ? static_cast<char32_t>(map(static_cast<wint_t>(cp), loc)) : cp);
  }
  return out;
}

}  // namespace

void castStrings(const RuntimeOpContext& ctx, const NDArray& x, NDArray& y) {
  if (x.dtype().isString() && y.dtype().isString()) {
    y.copyFrom(x);
    return;
  }
  if (y.dtype().isString()) {
    auto* out = y.data<std::string>();
    visitNumeric(ctx, x.dtype(), [&](auto t) {
      using T = decltype(t);
      const T* in = static_cast<const T*>(x.data());
      for (int64_t e = 0; e < x.numel(); ++e) out[e] = numberText(in[e]);
    });
    return;
  }
  const auto* in = x.data<std::string>();
  visitNumeric(ctx, y.dtype(), [&](auto t) {
    using T = decltype(t);
    T* out = static_cast<T*>(y.data());
    for (int64_t e = 0; e < x.numel(); ++e) out[e] = parseNumber<T>(ctx, in[e], e);
  });
}

// Removes the stopwords (compared with or without case), then changes case; [C] or [1, C] in,
// the same rank out, with one empty string when every word was removed.
void runStringNormalizer(RuntimeOpContext& ctx) {
  const NDArray& x = ctx.input(0);
  if (!x.dtype().isString()) fail(ctx, "input is ", x.dtype().str(), "; expected string");
  const Shape& shape = x.shape();
  if (!(shape.size() == 1 || (shape.size() == 2 && shape[0] == 1))) {
    fail(ctx, "input has shape ", shapeStr(shape), "; expected [C] or [1,C]");
  }
  std::string action = attrString(ctx, "case_change_action", "NONE");
  if (action != "NONE" && action != "LOWER" && action != "UPPER") {
    fail(ctx, "case_change_action is '", action, "'; expected NONE, LOWER or UPPER");
  }
  bool caseSensitive = attrInt(ctx, "is_case_sensitive", 0) != 0;
  Locale loc = caseLocale(attrString(ctx, "locale", ""));
  auto lower = [&](const std::string& s) { return mapUtf8(s, towlower_l, loc.get()); };
  std::vector<std::string> stopwords;
  if (hasAttr(ctx, "stopwords")) {
    for (const Json& w : ctx.attrs().at("stopwords").asArray())
      stopwords.push_back(caseSensitive ? w.asString() : lower(w.asString()));
  }
  std::vector<std::string> kept;
  const auto* in = x.data<std::string>();
  for (int64_t e = 0; e < x.numel(); ++e) {
    std::string key = caseSensitive ? in[e] : lower(in[e]);
    if (std::find(stopwords.begin(), stopwords.end(), key) != stopwords.end()) continue;
    if (action == "LOWER") {
      kept.push_back(lower(in[e]));
    } else if (action == "UPPER") {
      kept.push_back(mapUtf8(in[e], towupper_l, loc.get()));
    } else {
      kept.push_back(in[e]);
    }
  }
  if (kept.empty()) kept.emplace_back();
  Shape out = shape.size() == 1 ? Shape{static_cast<int64_t>(kept.size())}
                                : Shape{1, static_cast<int64_t>(kept.size())};
  NDArray y = ctx.output(0, out);
  std::move(kept.begin(), kept.end(), y.data<std::string>());
}

}  // namespace kiln::runtime::ops
