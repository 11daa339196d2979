// Private to src/app: `dlsim validate --html` — every set's predictions against its measurements as
// one self-contained page — and the rows table the terminal report shares.
//
//   DLSIM_RETURN_IF_ERROR(ValidateHtml(sets).WriteFile(args.html_path));
#ifndef DLSIM_SRC_APP_VALIDATE_HTML_H_
#define DLSIM_SRC_APP_VALIDATE_HTML_H_

#include <vector>

#include "dlsim/report/html_page.h"
#include "dlsim/report/table.h"
#include "dlsim/validate/validation.h"

namespace dlsim::app {

// The set's rows (measured, predicted, signed error, note) under its name and source: the terminal
// report's table, and the page's.
report::Table ValidationRowsTable(const validate::ValidationSet& s);

// A summary (sets, rows, sets within their CI bound), MAPE per set (coloured by its bound), then per set
// each row's signed error against its measured value (the bound as dashed lines where the set has one),
// and the set's rows as a table.
report::HtmlPage ValidateHtml(const std::vector<validate::ValidationSet>& sets);

}  // namespace dlsim::app

#endif  // DLSIM_SRC_APP_VALIDATE_HTML_H_
