#include "cli/svg_plot.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <sstream>

namespace epochcost::cli {
namespace {

std::string G(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%g", v);
  return buf;
}

}  // namespace

std::string SvgEscape(const std::string& s) {
  std::string out;
  for (char c : s) {
    if (c == '&')
      out += "&amp;";
    else if (c == '<')
      out += "&lt;";
    else if (c == '>')
      out += "&gt;";
    else
      out += c;
  }
  return out;
}

LogLogPlot::LogLogPlot(double x0, double x1, double y0, double y1)
    : lx0_(std::floor(std::log10(x0))),
      lx1_(std::ceil(std::log10(x1) + 1e-9)),
      ly0_(std::floor(std::log10(y0))),
      ly1_(std::ceil(std::log10(y1) + 1e-9)) {}

LogLogPlot LogLogPlot::Covering(const std::vector<std::pair<double, double>>& points) {
  if (points.empty()) return LogLogPlot(1, 10, 1, 10);
  double x0 = 1e300, x1 = 0, y0 = 1e300, y1 = 0;
  for (const auto& [x, y] : points) {
    x0 = std::min(x0, x);
    x1 = std::max(x1, x);
    y0 = std::min(y0, y);
    y1 = std::max(y1, y);
  }
  return LogLogPlot(x0, x1, y0, y1);
}

double LogLogPlot::X(double v) const {
  return kLeft + (std::log10(v) - lx0_) / std::max(lx1_ - lx0_, 1.0) * (kWidth - kLeft - kRight);
}

double LogLogPlot::Y(double v) const {
  return kHeight - kBottom -
         (std::log10(v) - ly0_) / std::max(ly1_ - ly0_, 1.0) * (kHeight - kTop - kBottom);
}

std::string LogLogPlot::Begin(const std::string& title, const std::string& x_name,
                              const std::string& y_name, const std::string& y_unit) const {
  const double w = kWidth, h = kHeight;
  std::ostringstream s;
  s << "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"" << w << "\" height=\"" << h
    << "\" font-family=\"sans-serif\" font-size=\"12\">\n"
    << "<rect width=\"100%\" height=\"100%\" fill=\"white\"/>\n"
    << "<text x=\"" << w / 2 << "\" y=\"25\" text-anchor=\"middle\" font-size=\"16\">"
    << SvgEscape(title) << "</text>\n";
  s << "<g stroke=\"#ddd\">\n";
  for (double e = lx0_; e <= std::max(lx1_, lx0_ + 1); ++e) {
    const double x = X(std::pow(10, e));
    s << "<line x1=\"" << x << "\" y1=\"" << kTop << "\" x2=\"" << x << "\" y2=\"" << bottom()
      << "\"/>\n";
  }
  for (double e = ly0_; e <= std::max(ly1_, ly0_ + 1); ++e) {
    const double y = Y(std::pow(10, e));
    s << "<line x1=\"" << kLeft << "\" y1=\"" << y << "\" x2=\"" << right() << "\" y2=\"" << y
      << "\"/>\n";
  }
  s << "</g>\n";
  for (double e = lx0_; e <= std::max(lx1_, lx0_ + 1); ++e)
    s << "<text x=\"" << X(std::pow(10, e)) << "\" y=\"" << bottom() + 18
      << "\" text-anchor=\"middle\">" << G(std::pow(10, e)) << "</text>\n";
  for (double e = ly0_; e <= std::max(ly1_, ly0_ + 1); ++e)
    s << "<text x=\"" << kLeft - 6 << "\" y=\"" << Y(std::pow(10, e)) + 4
      << "\" text-anchor=\"end\">" << y_unit << G(std::pow(10, e)) << "</text>\n";
  s << "<text x=\"" << (kLeft + right()) / 2 << "\" y=\"" << h - 15 << "\" text-anchor=\"middle\">"
    << SvgEscape(x_name) << "</text>\n"
    << "<text x=\"20\" y=\"" << (kTop + bottom()) / 2 << "\" transform=\"rotate(-90 20 "
    << (kTop + bottom()) / 2 << ")\" text-anchor=\"middle\">" << SvgEscape(y_name) << "</text>\n";
  return s.str();
}

std::string LogLogPlot::End(const std::string& legend_svg) const {
  std::ostringstream s;
  s << "<text x=\"" << right() << "\" y=\"" << kTop - 8
    << "\" text-anchor=\"end\" font-size=\"11\">" << legend_svg << "</text>\n</svg>\n";
  return s.str();
}

}  // namespace epochcost::cli
