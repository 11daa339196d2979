// Strong unit types for dlsim.
//
// Simulated time is an integer count of nanoseconds (Duration / TimePoint). Quantities
// (Bytes, Flops, BytesPerSecond, FlopsPerSecond) are doubles behind a type, so only
// dimensionally valid operations compile:
//   Bytes / BytesPerSecond -> Duration,  Flops / FlopsPerSecond -> Duration,
//   Bytes / Duration -> BytesPerSecond,  FlopsPerSecond * Duration -> Flops.
// Construct by naming the unit (GiB(80), TFLOPS(989), Seconds(1.5)); leave by naming it
// (ToSeconds(), ToGiB()).
//
//   dlsim::Duration t = dlsim::GiB(1) / dlsim::GBps(100);   // 10.7 ms
//   double s = t.ToSeconds();
//
// All types are trivially copyable values; thread-safe as values.
#ifndef DLSIM_CORE_UNITS_H_
#define DLSIM_CORE_UNITS_H_

#include <cmath>
#include <compare>
#include <cstdint>
#include <limits>

namespace dlsim {

// A span of simulated time, in integer nanoseconds.
//
// Arithmetic saturates at Max() / Min() (about +-292 years) instead of wrapping, so an absurd input
// (a bandwidth of 1e-300 B/s, a rate of 1e-9 req/s) gives a saturated time that IsSaturated()
// recognises, never a negative or wrapped figure. Simulators check their results with
// IsSaturated() and report an error naming the inputs (see train::Simulate, serve::Simulate).
class Duration {
 public:
  constexpr Duration() = default;
  static constexpr Duration Nanos(int64_t ns) { return Duration(ns); }
  // Rounds to the nearest nanosecond; saturates on overflow; NaN becomes Max() (an undefined
  // time is never silently zero or negative).
  static Duration FromSeconds(double s) {
    const double ns = s * 1e9;
    if (!(ns < 9.2e18)) return Max();  // also NaN and +inf
    if (ns <= -9.2e18) return Min();
    return Duration(std::llround(ns));
  }
  static constexpr Duration Zero() { return Duration(0); }
  static constexpr Duration Max() { return Duration(std::numeric_limits<int64_t>::max()); }
  static constexpr Duration Min() { return Duration(std::numeric_limits<int64_t>::min()); }
  // Beyond half the representable range (2^62 ns, about 146 years): the result of an overflow
  // (or of arithmetic on one), not a real time.
  constexpr bool IsSaturated() const { return ns_ >= kHalfRange || ns_ <= -kHalfRange; }

  constexpr int64_t ToNanos() const { return ns_; }
  constexpr double ToSeconds() const { return static_cast<double>(ns_) * 1e-9; }
  constexpr double ToMillis() const { return static_cast<double>(ns_) * 1e-6; }
  constexpr double ToMicros() const { return static_cast<double>(ns_) * 1e-3; }

  constexpr Duration operator+(Duration o) const { return Duration(SaturatingAdd(ns_, o.ns_)); }
  constexpr Duration operator-(Duration o) const { return Duration(SaturatingSub(ns_, o.ns_)); }
  constexpr Duration& operator+=(Duration o) { return *this = *this + o; }
  constexpr Duration& operator-=(Duration o) { return *this = *this - o; }
  constexpr Duration operator*(int64_t k) const {
    int64_t out = 0;
    if (!__builtin_mul_overflow(ns_, k, &out)) return Duration(out);
    return (ns_ < 0) == (k < 0) ? Max() : Min();
  }
  Duration operator*(double k) const { return FromSeconds(ToSeconds() * k); }
  constexpr double operator/(Duration o) const {
    return static_cast<double>(ns_) / static_cast<double>(o.ns_);
  }
  constexpr auto operator<=>(const Duration&) const = default;

 private:
  constexpr explicit Duration(int64_t ns) : ns_(ns) {}
  static constexpr int64_t kHalfRange = int64_t{1} << 62;
  static constexpr int64_t SaturatingAdd(int64_t a, int64_t b) {
    int64_t out = 0;
    if (!__builtin_add_overflow(a, b, &out)) return out;
    return b > 0 ? std::numeric_limits<int64_t>::max() : std::numeric_limits<int64_t>::min();
  }
  static constexpr int64_t SaturatingSub(int64_t a, int64_t b) {
    int64_t out = 0;
    if (!__builtin_sub_overflow(a, b, &out)) return out;
    return b < 0 ? std::numeric_limits<int64_t>::max() : std::numeric_limits<int64_t>::min();
  }
  int64_t ns_ = 0;
};

inline Duration Seconds(double s) { return Duration::FromSeconds(s); }
inline Duration Millis(double ms) { return Duration::FromSeconds(ms * 1e-3); }
inline Duration Micros(double us) { return Duration::FromSeconds(us * 1e-6); }
constexpr Duration Nanos(int64_t ns) { return Duration::Nanos(ns); }

// An instant on the simulated clock: nanoseconds since the start of the simulation.
class TimePoint {
 public:
  constexpr TimePoint() = default;
  static constexpr TimePoint Start() { return TimePoint(); }
  static constexpr TimePoint FromNanos(int64_t ns) {
    TimePoint t;
    t.since_ = Duration::Nanos(ns);
    return t;
  }
  constexpr Duration SinceStart() const { return since_; }
  constexpr int64_t ToNanos() const { return since_.ToNanos(); }
  constexpr double ToSeconds() const { return since_.ToSeconds(); }
  constexpr TimePoint operator+(Duration d) const {
    TimePoint t;
    t.since_ = since_ + d;
    return t;
  }
  constexpr TimePoint& operator+=(Duration d) {
    since_ += d;
    return *this;
  }
  constexpr Duration operator-(TimePoint o) const { return since_ - o.since_; }
  constexpr auto operator<=>(const TimePoint&) const = default;

 private:
  Duration since_;
};

// CRTP base for double-valued quantities of one dimension.
template <typename Derived>
class Quantity {
 public:
  constexpr Quantity() = default;
  constexpr explicit Quantity(double v) : v_(v) {}
  constexpr double value() const { return v_; }
  constexpr Derived operator+(Derived o) const { return Derived(v_ + o.v_); }
  constexpr Derived operator-(Derived o) const { return Derived(v_ - o.v_); }
  constexpr Derived operator*(double k) const { return Derived(v_ * k); }
  constexpr Derived operator/(double k) const { return Derived(v_ / k); }
  constexpr double operator/(Derived o) const { return v_ / o.v_; }
  constexpr Derived& operator+=(Derived o) {
    v_ += o.v_;
    return static_cast<Derived&>(*this);
  }
  constexpr Derived& operator-=(Derived o) {
    v_ -= o.v_;
    return static_cast<Derived&>(*this);
  }
  constexpr auto operator<=>(const Quantity&) const = default;

 protected:
  double v_ = 0.0;
};

class Bytes : public Quantity<Bytes> {
 public:
  using Quantity::Quantity;
  constexpr double ToBytes() const { return v_; }
  constexpr double ToGiB() const { return v_ / (1024.0 * 1024.0 * 1024.0); }
  constexpr double ToGB() const { return v_ * 1e-9; }
  constexpr double ToMiB() const { return v_ / (1024.0 * 1024.0); }
};
constexpr Bytes operator*(double k, Bytes b) { return b * k; }
constexpr Bytes ByteCount(double b) { return Bytes(b); }
constexpr Bytes KiB(double v) { return Bytes(v * 1024.0); }
constexpr Bytes MiB(double v) { return Bytes(v * 1024.0 * 1024.0); }
constexpr Bytes GiB(double v) { return Bytes(v * 1024.0 * 1024.0 * 1024.0); }
constexpr Bytes GB(double v) { return Bytes(v * 1e9); }
constexpr Bytes MB(double v) { return Bytes(v * 1e6); }

class Flops : public Quantity<Flops> {
 public:
  using Quantity::Quantity;
  constexpr double ToFlops() const { return v_; }
  constexpr double ToTeraFlops() const { return v_ * 1e-12; }
};
constexpr Flops operator*(double k, Flops f) { return f * k; }
constexpr Flops FlopCount(double f) { return Flops(f); }

class BytesPerSecond : public Quantity<BytesPerSecond> {
 public:
  using Quantity::Quantity;
  constexpr double ToBytesPerSecond() const { return v_; }
  constexpr double ToGBps() const { return v_ * 1e-9; }
  constexpr double ToGbps() const { return v_ * 8e-9; }
};
constexpr BytesPerSecond GBps(double v) { return BytesPerSecond(v * 1e9); }
constexpr BytesPerSecond Gbps(double v) { return BytesPerSecond(v * 1e9 / 8.0); }

class FlopsPerSecond : public Quantity<FlopsPerSecond> {
 public:
  using Quantity::Quantity;
  constexpr double ToFlopsPerSecond() const { return v_; }
  constexpr double ToTFLOPS() const { return v_ * 1e-12; }
};
constexpr FlopsPerSecond TFLOPS(double v) { return FlopsPerSecond(v * 1e12); }

inline Duration operator/(Bytes b, BytesPerSecond bw) { return Seconds(b.value() / bw.value()); }
inline Duration operator/(Flops f, FlopsPerSecond r) { return Seconds(f.value() / r.value()); }
inline BytesPerSecond operator/(Bytes b, Duration d) { return BytesPerSecond(b.value() / d.ToSeconds()); }
inline FlopsPerSecond operator/(Flops f, Duration d) { return FlopsPerSecond(f.value() / d.ToSeconds()); }
inline Bytes operator*(BytesPerSecond bw, Duration d) { return Bytes(bw.value() * d.ToSeconds()); }
inline Flops operator*(FlopsPerSecond r, Duration d) { return Flops(r.value() * d.ToSeconds()); }

}  // namespace dlsim

#endif  // DLSIM_CORE_UNITS_H_
