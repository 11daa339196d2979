// Must-check result type: a value or an Error.
//
//   dlsim::Result<int> ParsePort(std::string_view s);
//   auto r = ParsePort("80");
//   if (!r.ok()) return r.error();     // propagate
//   int port = *r;
//
// Errors carry a code and a human-readable message that already names the file, line,
// key path, what was expected and what was found (see io/). Library code never exits.
#ifndef DLSIM_CORE_RESULT_H_
#define DLSIM_CORE_RESULT_H_

#include <cassert>
#include <string>
#include <utility>
#include <variant>

namespace dlsim {

enum class ErrorCode {
  kInvalidArgument,  // bad user input (scenario, flag, catalog entry)
  kNotFound,         // unknown name or missing file
  kInfeasible,       // a configuration that cannot run (memory, divisibility)
  kParse,            // malformed file
  kInternal,         // a bug surfaced as an error at a boundary
  kCancelled,        // the run was interrupted (core/cancel.h): no result
};

struct Error {
  ErrorCode code = ErrorCode::kInvalidArgument;
  std::string message;

  static Error InvalidArgument(std::string m) { return {ErrorCode::kInvalidArgument, std::move(m)}; }
  static Error NotFound(std::string m) { return {ErrorCode::kNotFound, std::move(m)}; }
  static Error Parse(std::string m) { return {ErrorCode::kParse, std::move(m)}; }
  // A configuration that cannot run (out of memory, a layout that does not divide). Simulators
  // turn it into a result with feasible = false and this message as the reason.
  static Error Infeasible(std::string m) { return {ErrorCode::kInfeasible, std::move(m)}; }
  static Error Internal(std::string m) { return {ErrorCode::kInternal, std::move(m)}; }
};

template <typename T>
class [[nodiscard]] Result {
 public:
  Result(T value) : v_(std::move(value)) {}      // NOLINT: implicit by design
  Result(Error error) : v_(std::move(error)) {}  // NOLINT: implicit by design

  bool ok() const { return std::holds_alternative<T>(v_); }
  explicit operator bool() const { return ok(); }

  // Preconditions: ok() for value(), !ok() for error().
  T& value() & {
    assert(ok());
    return std::get<T>(v_);
  }
  const T& value() const& {
    assert(ok());
    return std::get<T>(v_);
  }
  T&& value() && {
    assert(ok());
    return std::get<T>(std::move(v_));
  }
  const Error& error() const {
    assert(!ok());
    return std::get<Error>(v_);
  }

  T& operator*() & { return value(); }
  const T& operator*() const& { return value(); }
  T* operator->() { return &value(); }
  const T* operator->() const { return &value(); }

 private:
  std::variant<T, Error> v_;
};

// Result of an operation with no value.
class [[nodiscard]] Status {
 public:
  Status() = default;
  Status(Error e) : error_(std::move(e)), ok_(false) {}  // NOLINT
  static Status Ok() { return Status(); }
  bool ok() const { return ok_; }
  const Error& error() const {
    assert(!ok_);
    return error_;
  }

 private:
  Error error_;
  bool ok_ = true;
};

}  // namespace dlsim

// Propagates an error from a Result or Status expression.
#define DLSIM_RETURN_IF_ERROR(expr)    \
  do {                                 \
    auto _st = (expr);                 \
    if (!_st.ok()) return _st.error(); \
  } while (0)

#define DLSIM_CONCAT_INNER(a, b) a##b
#define DLSIM_CONCAT(a, b) DLSIM_CONCAT_INNER(a, b)
// Declares `lhs` from a Result expression, or returns its error.
#define DLSIM_ASSIGN_OR_RETURN(lhs, expr)                                            \
  auto DLSIM_CONCAT(_r_, __LINE__) = (expr);                                         \
  if (!DLSIM_CONCAT(_r_, __LINE__).ok()) return DLSIM_CONCAT(_r_, __LINE__).error(); \
  lhs = std::move(DLSIM_CONCAT(_r_, __LINE__)).value()

#endif  // DLSIM_CORE_RESULT_H_
