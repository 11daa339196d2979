#include "sharegpt_trace.h"

#include <algorithm>
#include <cmath>
#include <nlohmann/json.hpp>

namespace dlsim::io::internal {
namespace {

// benchmark_serving.py's sample_sharegpt_requests (vLLM v0.6.0): "Prune too short sequences" and "Prune too
// long sequences".
constexpr int64_t kMinTokens = 4, kMaxPrompt = 1024, kMaxTotal = 2048;

int64_t Utf8Chars(const std::string& s) {
  return std::count_if(s.begin(), s.end(),
                       [](char c) { return (static_cast<unsigned char>(c) & 0xC0) != 0x80; });
}

// The SAX walk: depth 1 is the array of conversations, 2 a conversation, 3 its "conversations" array, 4 a
// turn; the first two turns' "value" strings are counted.
class Walker final : public nlohmann::json_sax<nlohmann::json> {
 public:
  explicit Walker(double chars_per_token) : cpt_(chars_per_token) {}
  bool null() override { return Scalar("null"); }
  bool boolean(bool) override { return Scalar("a boolean"); }
  bool number_integer(number_integer_t) override { return Scalar("a number"); }
  bool number_unsigned(number_unsigned_t) override { return Scalar("a number"); }
  bool number_float(number_float_t, const string_t&) override { return Scalar("a number"); }
  bool binary(binary_t&) override { return Scalar("binary"); }
  bool string(string_t& s) override {
    if (depth_ == 4 && in_turns_ && key_ == "value" && turn_ < 2) chars_[turn_] = Utf8Chars(s);
    return Scalar("a string");
  }
  bool start_object(std::size_t) override {
    if (depth_ == 0) return Fail("expected an array of conversations, found an object");
    if (depth_ == 1) {
      ++conversation_;
      turn_ = 0;
      chars_[0] = chars_[1] = -1;
    }
    ++depth_;
    return true;
  }
  bool end_object() override {
    if (depth_ == 4 && in_turns_) ++turn_;
    if (depth_ == 2) Emit();
    --depth_;
    return error.empty();
  }
  bool start_array(std::size_t) override {
    if (depth_ == 1) return Fail("expected a conversation object, found an array");
    if (depth_ == 2 && key_ == "conversations") in_turns_ = true;
    ++depth_;
    return true;
  }
  bool end_array() override {
    --depth_;
    if (depth_ == 2) in_turns_ = false;
    return true;
  }
  bool key(string_t& k) override {
    key_ = k;
    return true;
  }
  bool parse_error(std::size_t position, const std::string&, const nlohmann::detail::exception& e) override {
    where_ = position;
    return Fail(e.what());
  }

  std::vector<serve::TraceEntry> out;
  std::string error;
  std::size_t where_ = 0;

 private:
  bool Scalar(const char* what) {
    if (depth_ == 0) return Fail(std::string("expected an array of conversations, found ") + what);
    if (depth_ == 1) return Fail(std::string("expected a conversation object, found ") + what);
    if (depth_ == 4 && in_turns_ && key_ == "value" && std::string_view(what) != "a string")
      return Fail(std::string("a turn's value must be a string, found ") + what);
    return true;
  }
  bool Fail(std::string message) {
    error = conversation_ > 0 && where_ == 0
                ? "conversation " + std::to_string(conversation_) + ": " + message
                : std::move(message);
    return false;
  }
  int64_t Tokens(int64_t chars) const {
    return std::max<int64_t>(1, std::llround(static_cast<double>(chars) / cpt_));
  }
  void Emit() {
    if (chars_[0] < 0 || chars_[1] < 0) return;
    const int64_t prompt = Tokens(chars_[0]), output = Tokens(chars_[1]);
    if (prompt < kMinTokens || output < kMinTokens || prompt > kMaxPrompt || prompt + output > kMaxTotal)
      return;
    if (out.size() >= static_cast<size_t>(serve::kMaxRequests)) {
      Fail("more than " + std::to_string(serve::kMaxRequests) + " requests");
      return;
    }
    out.push_back({0.0, prompt, output});
  }

  double cpt_;
  int depth_ = 0;
  int64_t conversation_ = 0;  // 1-based index of the conversation being read
  bool in_turns_ = false;     // inside a conversation's "conversations" array
  int turn_ = 0;
  int64_t chars_[2] = {-1, -1};
  std::string key_;
};

int LineOf(std::string_view text, std::size_t position) {
  position = std::min(position, text.size());
  return 1 + static_cast<int>(
                 std::count(text.begin(), text.begin() + static_cast<std::ptrdiff_t>(position), '\n'));
}

}  // namespace

Result<std::vector<serve::TraceEntry>> ParseShareGpt(std::string_view text, const std::string& file,
                                                     double chars_per_token) {
  Walker w(chars_per_token);
  nlohmann::json::sax_parse(text.begin(), text.end(), &w);
  if (!w.error.empty()) {
    const std::string at = w.where_ > 0 ? ":" + std::to_string(LineOf(text, w.where_)) : "";
    return Error::Parse(file + at + ": ShareGPT: " + w.error);
  }
  return std::move(w.out);
}

}  // namespace dlsim::io::internal
