// Strong types for the quantities a cost model mixes up: seconds, bytes, FLOPs, FLOP/s, US dollars
// and US dollars per hour. Each wraps a double and is made through a named factory, so that
// "$/h vs $/s" and "GB vs GiB" slips do not compile. Only meaningful arithmetic is defined.
#ifndef EPOCHCOST_ENGINE_UNITS_H_
#define EPOCHCOST_ENGINE_UNITS_H_

#include <compare>
#include <string>

#include "engine/status.h"

namespace epochcost {

// A scalar of one physical dimension (CRTP: arithmetic returns the derived type). Same-dimension
// values add, subtract and compare; a quantity scales by a plain number; the ratio of two
// quantities of one dimension is a number.
template <typename Derived>
class Quantity {
 public:
  constexpr double value() const { return value_; }

  constexpr Derived operator+(Derived o) const { return Make(value_ + o.value()); }
  constexpr Derived operator-(Derived o) const { return Make(value_ - o.value()); }
  constexpr Derived& operator+=(Derived o) {
    value_ += o.value();
    return static_cast<Derived&>(*this);
  }
  constexpr Derived& operator-=(Derived o) {
    value_ -= o.value();
    return static_cast<Derived&>(*this);
  }
  constexpr Derived operator*(double k) const { return Make(value_ * k); }
  constexpr Derived operator/(double k) const { return Make(value_ / k); }
  constexpr double operator/(Derived o) const { return value_ / o.value(); }
  constexpr auto operator<=>(const Quantity&) const = default;
  friend constexpr Derived operator*(double k, Derived q) { return q * k; }

 protected:
  constexpr Quantity() = default;
  constexpr explicit Quantity(double v) : value_(v) {}

 private:
  static constexpr Derived Make(double v) {
    Derived d;
    static_cast<Quantity&>(d).value_ = v;
    return d;
  }
  double value_ = 0.0;
};

class Seconds : public Quantity<Seconds> {
 public:
  constexpr Seconds() = default;
  static constexpr Seconds FromSeconds(double s) { return Seconds(s); }
  static constexpr Seconds FromMilliseconds(double ms) { return Seconds(ms * 1e-3); }
  static constexpr Seconds FromMicroseconds(double us) { return Seconds(us * 1e-6); }
  static constexpr Seconds FromHours(double h) { return Seconds(h * 3600.0); }
  constexpr double seconds() const { return value(); }
  constexpr double milliseconds() const { return value() * 1e3; }
  constexpr double hours() const { return value() / 3600.0; }

 private:
  constexpr explicit Seconds(double v) : Quantity(v) {}
};

class Bytes : public Quantity<Bytes> {
 public:
  constexpr Bytes() = default;
  static constexpr Bytes FromBytes(double b) { return Bytes(b); }
  static constexpr Bytes FromGiB(double g) { return Bytes(g * 1073741824.0); }
  static constexpr Bytes FromGB(double g) { return Bytes(g * 1e9); }
  constexpr double bytes() const { return value(); }
  constexpr double mib() const { return value() / 1048576.0; }
  constexpr double gib() const { return value() / 1073741824.0; }

 private:
  constexpr explicit Bytes(double v) : Quantity(v) {}
};

// Floating-point operations. A multiply-add counts as 2 FLOPs throughout epochcost.
class Flops : public Quantity<Flops> {
 public:
  constexpr Flops() = default;
  static constexpr Flops FromFlops(double f) { return Flops(f); }
  static constexpr Flops FromMacs(double macs) { return Flops(2.0 * macs); }
  constexpr double flops() const { return value(); }
  constexpr double gflops() const { return value() * 1e-9; }

 private:
  constexpr explicit Flops(double v) : Quantity(v) {}
};

class FlopsPerSecond : public Quantity<FlopsPerSecond> {
 public:
  constexpr FlopsPerSecond() = default;
  static constexpr FlopsPerSecond FromTflops(double t) { return FlopsPerSecond(t * 1e12); }
  static constexpr FlopsPerSecond FromGflops(double g) { return FlopsPerSecond(g * 1e9); }
  static constexpr FlopsPerSecond FromFlopsPerSecond(double f) { return FlopsPerSecond(f); }
  constexpr double flops_per_second() const { return value(); }
  constexpr double tflops() const { return value() * 1e-12; }

 private:
  constexpr explicit FlopsPerSecond(double v) : Quantity(v) {}
};

class BytesPerSecond : public Quantity<BytesPerSecond> {
 public:
  constexpr BytesPerSecond() = default;
  static constexpr BytesPerSecond FromGBps(double g) { return BytesPerSecond(g * 1e9); }
  static constexpr BytesPerSecond FromBytesPerSecond(double b) { return BytesPerSecond(b); }
  constexpr double bytes_per_second() const { return value(); }
  constexpr double gbps() const { return value() * 1e-9; }

 private:
  constexpr explicit BytesPerSecond(double v) : Quantity(v) {}
};

class Usd : public Quantity<Usd> {
 public:
  constexpr Usd() = default;
  static constexpr Usd FromDollars(double d) { return Usd(d); }
  static constexpr Usd FromCents(double c) { return Usd(c / 100.0); }
  constexpr double dollars() const { return value(); }
  constexpr double cents() const { return value() * 100.0; }

 private:
  constexpr explicit Usd(double v) : Quantity(v) {}
};

class UsdPerHour : public Quantity<UsdPerHour> {
 public:
  constexpr UsdPerHour() = default;
  static constexpr UsdPerHour FromDollarsPerHour(double d) { return UsdPerHour(d); }
  constexpr double dollars_per_hour() const { return value(); }
  constexpr double dollars_per_second() const { return value() / 3600.0; }

 private:
  constexpr explicit UsdPerHour(double v) : Quantity(v) {}
};

// The most one instance is believed to cost per hour, in a price file or a run log; above it a
// price is "absurd".
inline constexpr double kMaxUsdPerHour = 2000.0;

// Whether `usd` is a price a price file or a run log may give: more than $0/h (no price file
// lists a free compute instance, and a free one would rank first for every model) and at most
// kMaxUsdPerHour. `what` names the field and the value as the file wrote it: "usd_per_hour 0".
inline Status CheckUsdPerHour(double usd, const std::string& what) {
  if (usd <= 0) return Status::InvalidArgument(what + " is not a price: no instance is free");
  if (usd > kMaxUsdPerHour)
    return Status::InvalidArgument(what + " is absurd (over $" +
                                   std::to_string(static_cast<int>(kMaxUsdPerHour)) + "/h)");
  return Status::Ok();
}

// The only cross-dimension products a cost model needs.
constexpr Seconds operator/(Flops f, FlopsPerSecond r) {
  return Seconds::FromSeconds(f.flops() / r.flops_per_second());
}
constexpr Seconds operator/(Bytes b, BytesPerSecond r) {
  return Seconds::FromSeconds(b.bytes() / r.bytes_per_second());
}
constexpr Usd operator*(UsdPerHour p, Seconds t) {
  return Usd::FromDollars(p.dollars_per_second() * t.seconds());
}
constexpr Usd operator*(Seconds t, UsdPerHour p) { return p * t; }

}  // namespace epochcost

#endif  // EPOCHCOST_ENGINE_UNITS_H_
