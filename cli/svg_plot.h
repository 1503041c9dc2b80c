// A log-log scatter frame in SVG: the title, decade grid lines, tick labels and axis names.
// `recommend --plot` and `validate --plot` draw their points on it.
#ifndef EPOCHCOST_CLI_SVG_PLOT_H_
#define EPOCHCOST_CLI_SVG_PLOT_H_

#include <string>
#include <utility>
#include <vector>

namespace epochcost::cli {

// XML text escaping for labels.
std::string SvgEscape(const std::string& s);

class LogLogPlot {
 public:
  // The axes span whole decades around [x0, x1] and [y0, y1] (all positive).
  LogLogPlot(double x0, double x1, double y0, double y1);
  // The plot spanning every (x, y) point; 1 to 10 on both axes when there are none.
  static LogLogPlot Covering(const std::vector<std::pair<double, double>>& points);
  double X(double v) const;
  double Y(double v) const;
  double left() const { return kLeft; }
  double right() const { return kWidth - kRight; }
  double top() const { return kTop; }
  double bottom() const { return kHeight - kBottom; }
  // The document's start: frame, title, grid, ticks (y ticks prefixed by `y_unit`), axis names.
  std::string Begin(const std::string& title, const std::string& x_name, const std::string& y_name,
                    const std::string& y_unit) const;
  // A legend line at the top right, then the end of the document.
  std::string End(const std::string& legend_svg) const;

 private:
  static constexpr double kWidth = 900, kHeight = 600, kLeft = 80, kRight = 30, kTop = 50,
                          kBottom = 60;
  double lx0_, lx1_, ly0_, ly1_;
};

}  // namespace epochcost::cli

#endif  // EPOCHCOST_CLI_SVG_PLOT_H_
