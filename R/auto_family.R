# auto_family(): a product family (R/product_family.R) whose parts are read
# from the values of the columns of a data frame, not from their storage
# type: an integer-stored temperature is a measurement, not a count.
#
# The choice is recorded in the family as `family$auto`, a data frame with
# one row per column (column, family, reason, override), printed by
# print.mcmix_family_product(). Numeric columns with two values coded other
# than 0/1, and numeric columns named in `categorical`, are turned into
# factors when the model is fitted (and when predicting), with the levels
# recorded in `family$as_factor`.

# Thresholds of the choice (documented in auto_family()).
auto_count_max_mean <- 20     # whole numbers with a larger mean are measurements
auto_overdispersed <- 2       # variance / mean above this: noted as overdispersed
auto_id_share <- 0.9          # distinct values / observed rows of an identifier
auto_id_min_rows <- 10L       # fewer rows: never called an identifier
auto_max_codes <- 6L          # whole numbers with so few values (not counts): categories
auto_many_levels <- 10L       # categories with more levels ...
auto_level_rows <- 5          # ... and fewer observed rows per level: dropped

# The override arguments of auto_family() and the family each one gives.
auto_override_families <- list(
  continuous = function() gaussian_diag(),
  count = function() poisson_gamma(),
  categorical = function() categorical_dirichlet(),
  binary = function() bernoulli_beta()
)

#' Choose a product family from the values of the columns of a data frame
#'
#' Picks one component family per column from what the values are, not
#' from how they are stored, prints the choice with its reason (one line per
#' column), and returns the [product_family()].
#'
#' The rules, for the observed (non-missing) values of a column:
#' * **binary** ([bernoulli_beta()]): logical columns, factors with two
#'   levels, and numbers taking two values (0/1, or two other numbers,
#'   which become a factor with two levels, the larger value the second);
#' * **categorical** ([categorical_dirichlet()]): factors and character
#'   columns with more levels;
#' * **categorical** too: whole numbers with at most 6 distinct values in
#'   at least 12 rows that are codes rather than counts: their values do
#'   not start at 0 or 1, or fill less than half of the range from the
#'   smallest to the largest (4 / 6 / 8 cylinders, months 5 to 9, seats 2
#'   to 8), or they are less variable than counts can be (below);
#'   they become factors;
#' * **count** ([poisson_gamma()]): other non-negative whole numbers whose
#'   mean is at most 20 and whose dispersion index (variance / mean) is at
#'   least \eqn{1 - 2\sqrt{2/(n-1)}} (two standard errors below the
#'   Poisson's 1: a mixture of Poissons cannot be less variable than one
#'   Poisson). Counts *more* variable than a Poisson's (index above 2) are
#'   kept as counts, with a note: a mixture needs its counts Poisson only
#'   within each cluster, and counts whose mean differs between clusters
#'   are overdispersed as a whole (a Gaussian fitted to a few small
#'   integer values would instead put a cluster on each value). Name such a
#'   column in `continuous` if it is overdispersed within its groups;
#' * **continuous** ([gaussian_diag()]): every other numeric column:
#'   numbers that are not whole or are negative, and whole numbers that are
#'   large (mean above 20: the Poisson is then close to a normal whose
#'   variance is tied to its mean, while the Gaussian's is free -- a
#'   temperature in degrees or a weight in pounds) or underdispersed;
#' * **dates and times** (`Date`, `POSIXct`, `POSIXlt`, `difftime`) are
#'   converted to numbers (days since 1970-01-01, or the difference in its
#'   units) and treated as continuous, with a message;
#' * **dropped**, with a message: identifier-like columns (at least 10
#'   observed rows and as many distinct values as 90% of them: names,
#'   codes, row numbers -- a whole-number column counts as one only when
#'   its values are consecutive), factors and character columns with
#'   more than 10 levels and fewer than 5 observed rows per level (a
#'   manufacturer among 32 in 93 cars: each cluster would estimate a
#'   probability per level from a row or two; name the column in
#'   `categorical` to keep it), and constant columns. A column with no
#'   observed value is an error (drop it).
#'
#' Each family's default prior is scaled to its column (see the families'
#' pages). Any choice is overridden by naming the column in one of the
#' arguments `continuous`, `count`, `categorical`, `binary` or `drop`, or
#' by giving the column's family in `...`.
#'
#' Without `data`, returns a family that makes this choice when the model is
#' fitted, so `dp_mixture(auto_family())` accepts any data frame.
#'
#' @param data A data frame, or `NULL`.
#' @param ... Overrides by family: `column = family` (or `column = NULL` to
#'   drop the column).
#' @param continuous,count,categorical,binary Names of columns to model as
#'   continuous ([gaussian_diag()]), counts ([poisson_gamma()]), categories
#'   ([categorical_dirichlet()]; numeric columns become factors) or binary
#'   ([bernoulli_beta()]) whatever their values.
#' @param drop Names of columns to leave out.
#' @param quiet Do not print the choice (nor the messages about dropped or
#'   converted columns).
#' @return A [product_family()] (invisibly when the choice was printed),
#'   with the choice in its element `auto`: a data frame with columns
#'   `column`, `family`, `reason` and `override` (the argument that would
#'   change the choice).
#' @seealso [product_family()] to give every part by hand.
#' @examples
#' df <- data.frame(height = c(1.7, 1.8, 1.6, 1.75), smoker = c(TRUE, FALSE, TRUE, NA),
#'                  region = factor(c("N", "S", "E", "N")), visits = c(0L, 3L, 1L, 2L))
#' auto_family(df)
#' fam <- auto_family(airquality)
#' fam$auto
#' auto_family(airquality, count = "Month", drop = "Day")
#' fm <- auto_family(mtcars, quiet = TRUE)   # cyl (4, 6, 8): codes; carb: counts
#' fm$auto[fm$auto$column %in% c("cyl", "carb"), ]
#' @export
auto_family <- function(data = NULL, ..., continuous = NULL, count = NULL, categorical = NULL,
                        binary = NULL, drop = NULL, quiet = FALSE) {
  over <- list(...)
  if (length(over) && (is.null(names(over)) || any(!nzchar(names(over)))))
    stop("`...` must be named: `column = family`.", call. = FALSE)
  check_flag(quiet, "quiet")
  by_type <- list(continuous = continuous, count = count, categorical = categorical,
                  binary = binary, drop = drop)
  for (a in names(by_type)) {
    v <- by_type[[a]]
    if (!is.null(v) && (!is.character(v) || anyNA(v) || !all(nzchar(v))))
      stop(sprintf("`%s` must be a character vector of column names, not %s.", a,
                   describe_value(v)), call. = FALSE)
  }
  named <- unlist(lapply(names(by_type), function(a)
    stats::setNames(rep(a, length(by_type[[a]])), by_type[[a]])))
  if (length(named)) {
    both <- c(names(named), names(over))
    d <- both[duplicated(both)]
    if (length(d))
      stop(sprintf("Column `%s` is named in two overrides; name each column once.", d[1L]),
           call. = FALSE)
  }
  if (is.null(data))
    return(new_builtin_family("auto", list(), data_type = "mixed", overrides = over,
                              by_type = by_type, quiet = quiet))
  df <- product_data_frame(data, convert_dates = FALSE)
  bad <- setdiff(c(names(over), names(named)), names(df))
  if (length(bad)) {
    arg <- if (bad[1L] %in% names(over)) "..." else named[[bad[1L]]]
    stop(sprintf("`%s` names a column that `data` does not have: `%s`.", arg, bad[1L]),
         call. = FALSE)
  }
  parts <- list()
  as_factor <- list()
  rows <- list()
  for (nm in names(df)) {
    col <- df[[nm]]
    ch <- if (nm %in% names(over)) {
      if (is.null(over[[nm]])) auto_row(NULL, "dropped", "given (`= NULL`)", "")
      else {
        product_check_part(over[[nm]], nm)
        auto_row(over[[nm]], over[[nm]]$name, "given in `...`", "")
      }
    } else if (nm %in% names(named)) {
      auto_forced(col, nm, named[[nm]])
    } else {
      auto_choose(col, nm)
    }
    if (!is.null(ch$levels)) as_factor[[nm]] <- ch$levels
    if (!is.null(ch$family)) parts[[nm]] <- ch$family
    rows[[nm]] <- data.frame(column = nm, family = ch$label, reason = ch$reason,
                             override = ch$override, stringsAsFactors = FALSE)
  }
  if (!length(parts)) stop("`data` has no column left to model.", call. = FALSE)
  fam <- do.call(product_family, parts)
  fam$drop <- setdiff(names(df), names(parts))
  fam$as_factor <- if (length(as_factor)) as_factor
  auto <- do.call(rbind, rows)
  rownames(auto) <- NULL
  fam$auto <- auto
  if (!quiet) {
    print(fam)
    auto_messages(auto)
    return(invisible(fam))
  }
  fam
}

# One row of the choice.
auto_row <- function(family, label, reason, override, levels = NULL)
  list(family = family, label = label, reason = reason, override = override, levels = levels)

# `arg = "col"`, the way to ask for a choice.
auto_arg <- function(arg, nm) sprintf("%s = \"%s\"", arg, nm)

# Messages about the columns the user might not expect to lose or see
# converted.
auto_messages <- function(auto) {
  d <- auto[auto$family == "dropped" & !startsWith(auto$reason, "given"), , drop = FALSE]
  if (nrow(d)) {
    many <- d$column[startsWith(d$reason, "too many levels")]
    keep <- if (!length(many)) "" else
      sprintf("; `categorical = %s` keeps %s",
              if (length(many) > 1L) sprintf("c(%s)", paste0("\"", many, "\"", collapse = ", "))
              else sprintf("\"%s\"", many), if (length(many) > 1L) "them" else "it")
    message(sprintf("auto_family(): dropped %s (%s)%s.",
                    paste0("`", d$column, "`", collapse = ", "),
                    paste(unique(sub(":.*", "", d$reason)), collapse = "; "), keep))
  }
  o <- auto[auto$family == "poisson_gamma" & grepl("overdispersed", auto$reason), , drop = FALSE]
  if (nrow(o))
    message(sprintf(paste0("auto_family(): %s: counts more variable than one Poisson's, kept as ",
                           "Poisson counts: a mixture needs them Poisson only within each ",
                           "cluster, and its clusters make the column overdispersed (name %s ",
                           "in `continuous` for a Gaussian part)."),
                    paste0("`", o$column, "`", collapse = ", "),
                    if (nrow(o) > 1L) "them" else "it"))
  t <- auto[grepl("^(date|time)", auto$reason), , drop = FALSE]
  if (nrow(t))
    message(sprintf("auto_family(): %s converted to numbers (%s).",
                    paste0("`", t$column, "`", collapse = ", "),
                    paste(unique(t$reason), collapse = "; ")))
}

# Facts about the observed values of a column used by the rules.
auto_facts <- function(col) {
  obs <- col[!is.na(col)]
  n <- length(obs)
  u <- unique(obs)
  list(obs = obs, n = n, distinct = length(u), values = u)
}

# The rules of auto_family() for one column.
auto_choose <- function(col, nm) {
  dt <- auto_date(col)
  if (!is.null(dt)) col <- dt$x
  f <- auto_facts(col)
  if (is.list(col) || !(is.atomic(col) && (is.numeric(col) || is.logical(col) ||
                                           is.factor(col) || is.character(col))))
    stop(sprintf("`data` column `%s` is %s: give its family in `...` or drop it (`drop = \"%s\"`).",
                 nm, fam_type_label(col), nm), call. = FALSE)
  if (f$n == 0L)
    stop(sprintf("`data` column `%s` has no observed value: drop it (`drop = \"%s\"`).", nm, nm),
         call. = FALSE)
  if (f$distinct == 1L && !is.factor(col))
    return(auto_row(NULL, "dropped", sprintf("constant: one value (%s)", format(f$values[1L])), ""))
  if (!is.null(dt))
    return(auto_row(gaussian_diag(), "gaussian_diag", dt$reason, auto_arg("drop", nm)))
  if (is.logical(col))
    return(auto_row(bernoulli_beta(), "bernoulli_beta", "logical", auto_arg("drop", nm)))
  if (is.character(col) || is.factor(col)) {
    nlev <- if (is.factor(col)) nlevels(col) else f$distinct
    if (nlev == 1L)
      return(auto_row(NULL, "dropped", "constant: one level", ""))
    if (f$n >= auto_id_min_rows && f$distinct >= auto_id_share * f$n)
      return(auto_row(NULL, "dropped",
                      sprintf("identifier-like: %d values in %d rows", f$distinct, f$n),
                      auto_arg("categorical", nm)))
    if (f$distinct > auto_many_levels && f$n < auto_level_rows * f$distinct)
      return(auto_row(NULL, "dropped",
                      sprintf("too many levels: %d in %d rows", f$distinct, f$n),
                      auto_arg("categorical", nm)))
    if (nlev == 2L)
      return(auto_row(bernoulli_beta(), "bernoulli_beta", "2 levels",
                      auto_arg("drop", nm)))
    return(auto_row(categorical_dirichlet(), "categorical_dirichlet",
                    sprintf("%d levels", nlev), auto_arg("drop", nm)))
  }
  x <- as.double(f$obs)
  whole <- all(x == round(x))
  if (f$distinct == 2L) {
    if (all(x %in% c(0, 1)))
      return(auto_row(bernoulli_beta(), "bernoulli_beta", "two values, 0 and 1",
                      auto_arg("continuous", nm)))
    lev <- format(sort(unique(x)))
    return(auto_row(bernoulli_beta(), "bernoulli_beta",
                    sprintf("two values, %s and %s", lev[1L], lev[2L]),
                    auto_arg("continuous", nm), levels = sort(unique(x))))
  }
  if (whole && f$n >= auto_id_min_rows && f$distinct == f$n &&
      max(x) - min(x) + 1 == f$n)
    return(auto_row(NULL, "dropped", "identifier-like: row numbers",
                    auto_arg("continuous", nm)))
  if (!whole)
    return(auto_row(gaussian_diag(), "gaussian_diag", "not whole numbers",
                    auto_arg("drop", nm)))
  if (any(x < 0))
    return(auto_row(gaussian_diag(), "gaussian_diag", "whole numbers, some negative",
                    auto_arg("drop", nm)))
  m <- mean(x)
  disp <- if (f$n > 1L && m > 0) stats::var(x) / m else NA_real_
  low <- if (f$n > 1L) 1 - 2 * sqrt(2 / (f$n - 1)) else -Inf
  under <- !is.na(disp) && disp < low
  # few values that are not shaped like counts (or are less variable than
  # counts can be): codes such as 4 / 6 / 8 cylinders or months 5 to 9
  if (f$distinct <= auto_max_codes && f$n >= 2L * auto_max_codes &&
      (!auto_count_shaped(x) || under))
    return(auto_row(categorical_dirichlet(), "categorical_dirichlet",
                    sprintf("whole, %d distinct values: codes", f$distinct),
                    auto_arg("continuous", nm), levels = sort(unique(x))))
  if (m > auto_count_max_mean)
    return(auto_row(gaussian_diag(), "gaussian_diag",
                    sprintf("whole, mean %s > %d: a measurement", fmt_num(m),
                            auto_count_max_mean),
                    auto_arg("count", nm)))
  if (under)
    return(auto_row(gaussian_diag(), "gaussian_diag",
                    sprintf("whole, underdispersed (var/mean %s)", fmt_num(disp)),
                    auto_arg("count", nm)))
  auto_row(poisson_gamma(), "poisson_gamma",
           if (is.na(disp)) "counts"
           else if (disp > auto_overdispersed)
             sprintf("counts, overdispersed (var/mean %s): Poisson within clusters", fmt_num(disp))
           else sprintf("counts (var/mean %s)", fmt_num(disp)),
           auto_arg("continuous", nm))
}

# Are the distinct whole numbers `x` shaped like counts: do they start at 0
# or 1 and fill at least half of the range from the smallest to the largest?
auto_count_shaped <- function(x) {
  lo <- min(x)
  lo <= 1 && length(unique(x)) >= (max(x) - lo + 1) / 2
}

# A column whose type the user gave by name (`type`: an argument of
# auto_family()); refuses values the family cannot take.
auto_forced <- function(col, nm, type) {
  if (type == "drop") return(auto_row(NULL, "dropped", "given (`drop`)", ""))
  dt <- auto_date(col)
  if (!is.null(dt)) col <- dt$x
  fam <- auto_override_families[[type]]()
  obs <- col[!is.na(col)]
  refuse <- function(what)
    stop(sprintf("`%s` names column `%s`, which %s.", type, nm, what), call. = FALSE)
  levels <- NULL
  if (type %in% c("continuous", "count")) {
    if (!is.numeric(obs) && !is.logical(obs)) refuse(sprintf("is %s, not numbers", fam_type_label(col)))
    if (type == "count" && any(obs < 0 | obs != round(obs)))
      refuse("has values that are not counts (non-negative whole numbers)")
  } else if (type == "categorical") {
    if (is.numeric(col) || is.logical(col)) levels <- sort(unique(obs))
  } else if (type == "binary") {
    u <- unique(obs)
    if (is.factor(col) && nlevels(col) > 2L || length(u) > 2L)
      refuse(sprintf("has %d values; a binary column has two", length(u)))
    if (is.numeric(col) && !all(u %in% c(0, 1))) levels <- sort(u)
    if (is.character(col)) levels <- sort(u)
  }
  auto_row(fam, fam$name, sprintf("given (`%s`)", type), "", levels = levels)
}

# A date or time column as numbers, with the reason; NULL for other columns.
auto_date <- function(col) {
  if (inherits(col, "Date"))
    return(list(x = as.numeric(col), reason = "date, as days since 1970-01-01"))
  if (inherits(col, "POSIXt"))
    return(list(x = as.numeric(as.POSIXct(col)) / 86400,
                reason = "time, as days since 1970-01-01 00:00 UTC"))
  if (inherits(col, "difftime"))
    return(list(x = as.numeric(col), reason = sprintf("time difference, in %s", units(col))))
  NULL
}

# Date and time columns of a data frame as numbers (auto_date()).
auto_convert_dates <- function(df) {
  for (nm in names(df)) {
    dt <- auto_date(df[[nm]])
    if (!is.null(dt)) df[[nm]] <- dt$x
  }
  df
}

# Numeric columns that a product family reads as factors (`as_factor`:
# column = levels), when fitting and when predicting.
auto_apply_factors <- function(df, as_factor) {
  for (nm in intersect(names(as_factor), names(df))) {
    v <- df[[nm]]
    if (is.factor(v)) next
    lev <- as_factor[[nm]]
    new <- setdiff(unique(v[!is.na(v)]), lev)
    if (length(new))
      stop(sprintf("`data` column `%s` has a value not seen when the family was set up: %s.",
                   nm, format(new[1L])), call. = FALSE)
    df[[nm]] <- factor(v, levels = lev, labels = format(lev, trim = TRUE))
  }
  df
}

fmt_num <- function(x) trimws(formatC(x, digits = 3, format = "fg"))

# The choice, one line per column: column, family, reason, override.
print_auto <- function(auto) {
  n_used <- sum(auto$family != "dropped")
  cat(sprintf("auto_family(): %d of %d column%s modelled; [the argument that changes a choice]\n",
              n_used, nrow(auto), if (nrow(auto) == 1L) "" else "s"))
  pad <- function(v) formatC(v, width = -max(nchar(v)))
  ov <- ifelse(nzchar(auto$override), paste0("[", auto$override, "]"), "")
  lines <- paste(" ", pad(auto$column), pad(auto$family), pad(auto$reason), ov)
  cat(sub(" +$", "", lines), sep = "\n")
  invisible(auto)
}
