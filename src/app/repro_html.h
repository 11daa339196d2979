// Private to src/app: `dlsim repro NAME --html` — a reproduction's headline and points beside the
// paper's, as one self-contained page — and the verdict line the terminal report shares.
//
//   std::ostringstream text;  WriteReport(r, text);
//   DLSIM_RETURN_IF_ERROR(ReproHtml(r, text.str()).WriteFile(args.html_path));
#ifndef DLSIM_SRC_APP_REPRO_HTML_H_
#define DLSIM_SRC_APP_REPRO_HTML_H_

#include <string>

#include "dlsim/report/html_page.h"
#include "dlsim/repro/reproduction.h"

namespace dlsim::app {

// "reproduced: 1.13x the paper's (band [0.8, 1.25])", then "; " and the measured cause where it is off; the
// verdict line of the terminal report and of the page.
std::string VerdictLine(const repro::ReproResult& r);

// A summary (claim, operating point, workload, baseline, paper and dlsim, verdict and its cause), the
// headline as two bars with the reproduced band around the paper's, the paper's points against ours on
// equal axes with the y = x line and the band, and `report_text` (the terminal report) at the end.
report::HtmlPage ReproHtml(const repro::ReproResult& r, const std::string& report_text);

}  // namespace dlsim::app

#endif  // DLSIM_SRC_APP_REPRO_HTML_H_
