// The result type used at every library boundary: a Status (ok, or a code with a one-line message a
// user can act on) and Result<T> (a T or a non-ok Status). Both are [[nodiscard]]. Library code
// never throws across its boundary and never asserts on user input.
#ifndef EPOCHCOST_ENGINE_STATUS_H_
#define EPOCHCOST_ENGINE_STATUS_H_

#include <optional>
#include <string>
#include <utility>

namespace epochcost {

enum class StatusCode {
  kOk = 0,
  kInvalidArgument,  // a value out of range or of the wrong form
  kNotFound,         // a file, model, layer or record that does not exist
  kIoError,          // a file that exists but cannot be read or written
  kParseError,       // malformed JSON, protobuf, CSV
  kUnsupported,      // a well-formed input epochcost cannot handle (unknown layer or op)
  kShapeMismatch,    // tensor shapes that do not fit together
  kInternal,         // a bug in epochcost
};

class [[nodiscard]] Status {
 public:
  Status() = default;
  static Status Ok() { return Status(); }
  static Status Error(StatusCode code, std::string message) {
    return Status(code, std::move(message));
  }
  static Status InvalidArgument(std::string m) {
    return Error(StatusCode::kInvalidArgument, std::move(m));
  }
  static Status NotFound(std::string m) { return Error(StatusCode::kNotFound, std::move(m)); }
  static Status IoError(std::string m) { return Error(StatusCode::kIoError, std::move(m)); }
  static Status ParseError(std::string m) { return Error(StatusCode::kParseError, std::move(m)); }
  static Status Unsupported(std::string m) { return Error(StatusCode::kUnsupported, std::move(m)); }
  static Status ShapeMismatch(std::string m) {
    return Error(StatusCode::kShapeMismatch, std::move(m));
  }
  static Status Internal(std::string m) { return Error(StatusCode::kInternal, std::move(m)); }

  bool ok() const { return code_ == StatusCode::kOk; }
  StatusCode code() const { return code_; }
  const std::string& message() const { return message_; }

  // The same status with `context: ` in front of its message (file names, layer names).
  Status WithContext(const std::string& context) const {
    if (ok()) return *this;
    return Status(code_, context + ": " + message_);
  }

 private:
  // A message is one line whatever text it quotes: control characters are escaped ("\n").
  Status(StatusCode code, std::string message)
      : code_(code), message_(OneLine(std::move(message))) {}
  static std::string OneLine(std::string m) {
    static constexpr char kHex[] = "0123456789abcdef";
    std::string out;
    for (char c : m) {
      const auto u = static_cast<unsigned char>(c);
      if (u >= 0x20 && u != 0x7f) {
        out += c;
      } else if (c == '\n') {
        out += "\\n";
      } else if (c == '\r') {
        out += "\\r";
      } else if (c == '\t') {
        out += "\\t";
      } else {
        out += "\\x";
        out += kHex[u >> 4];
        out += kHex[u & 15];
      }
    }
    return out;
  }
  StatusCode code_ = StatusCode::kOk;
  std::string message_;
};

template <typename T>
class [[nodiscard]] Result {
 public:
  Result(T value) : value_(std::move(value)) {}         // NOLINT: implicit by design
  Result(Status status) : status_(std::move(status)) {  // NOLINT: implicit by design
    if (status_.ok()) status_ = Status::Internal("Result built from an ok Status without a value");
  }

  bool ok() const { return value_.has_value(); }
  const Status& status() const { return status_; }
  const T& value() const& { return *value_; }
  T& value() & { return *value_; }
  T&& value() && { return std::move(*value_); }
  const T& operator*() const& { return *value_; }
  T& operator*() & { return *value_; }
  T&& operator*() && { return std::move(*value_); }
  const T* operator->() const { return &*value_; }
  T* operator->() { return &*value_; }

 private:
  std::optional<T> value_;
  Status status_;
};

}  // namespace epochcost

// Returns early from the enclosing function when `expr` (a Status) is not ok.
#define EPOCHCOST_RETURN_IF_ERROR(expr) \
  do {                                  \
    ::epochcost::Status _st = (expr);   \
    if (!_st.ok()) return _st;          \
  } while (0)

#endif  // EPOCHCOST_ENGINE_STATUS_H_
