# Error conditions of the package. Every error the package raises is an R
# condition with a class, so callers can catch it by what went wrong rather
# than by the text of its message:
#
#   c("mcmix_error_input", "mcmix_error", "error", "condition")
#       bad input; the field `arg` names the offending argument (or NA when
#       the error concerns no single argument);
#   c("mcmix_error_internal", "mcmix_error", "error", "condition")
#       a broken invariant of the package itself (a bug: please report it).
#
# Errors are raised by stop_input() and stop_internal(), or by the `stop()`
# below, which masks base::stop() inside the namespace only: a message (with
# `call.` as in base::stop()) becomes a classed condition whose `arg` is the
# first back-quoted name of the message, e.g. "`iter` must be ..." gives
# arg = "iter", unless `arg` is given explicitly. Messages starting with
# "mcmix internal error" or "internal error" become internal errors. A
# condition object passed to stop() is signalled unchanged.

#' Error conditions raised by mcmix
#'
#' Every error raised by mcmix is a condition of class `"mcmix_error"`
#' (and `"error"`, `"condition"`). Errors caused by bad input have class
#' `c("mcmix_error_input", "mcmix_error", "error", "condition")` and carry
#' the name of the offending argument in the field `arg` (`NA` when no
#' single argument is at fault), so they can be told apart from the text of
#' the message; errors that signal a fault of the package itself have class
#' `"mcmix_error_internal"`. Some errors add a more specific class in front,
#' e.g. `"mcmix_error_chib_unsupported"` from [chib_evidence()]. Sharded runs
#' (`sample_posterior(..., cl = )`) raise `"mcmix_error_worker"` for a
#' worker that died or failed (field `worker`; the error of the run holds
#' the fit so far in `fit`), `"mcmix_error_shard"` for a shard that failed
#' to load (field `shard`) and `"mcmix_error_shard_sync"` for workers whose
#' labels belong to another fit.
#'
#' Every warning of mcmix is classed too: it has class `"mcmix_warning"`
#' (and `"warning"`, `"condition"`) and a more specific class in front, so
#' it can be caught or muffled by what it says, e.g.
#' `withCallingHandlers(expr, mcmix_warning_interrupted = function(w)
#' invokeRestart("muffleWarning"))`:
#' * `"mcmix_warning_mixing"` (also `"mcmix_warning_convergence"`):
#'   `print()` and `summary()` of a fit whose draws do not represent the
#'   posterior yet (see [summary.mcmix_fit()]);
#' * `"mcmix_warning_stuck"`: a Bayesian network's hidden variable that never
#'   moved (see [sample_posterior()]);
#' * `"mcmix_warning_interrupted"` (also `"mcmix_warning_interrupt"`): a run
#'   stopped by Ctrl-C, whose fit holds the draws collected so far;
#'   `"mcmix_warning_interrupt_late"` (also `"mcmix_warning_interrupt"`): a
#'   Ctrl-C that came after the chains had finished;
#' * `"mcmix_warning_evidence"`: an estimate of the evidence that is
#'   unreliable, more specifically `"mcmix_warning_harmonic_mean"`
#'   ([harmonic_mean_evidence()]), `"mcmix_warning_bridge_convergence"`
#'   ([bridge_evidence()]), `"mcmix_warning_smc_degenerate"`
#'   ([sample_smc()]) and `"mcmix_warning_ais_ess"` ([ais()]);
#' * `"mcmix_warning_vocabulary"`: terms of new documents outside an LDA
#'   fit's vocabulary;
#' * `"mcmix_warning_resync"`: a sharded fit continued from its clusters'
#'   statistics with its labels drawn again (see [extend()]);
#'   `"mcmix_warning_shard"`: a warning of a shard's reader;
#' * `"mcmix_deprecated"` (also `"deprecatedWarning"`): a deprecated
#'   argument or form of a call.
#'
#' @name mcmix-conditions
#' @examples
#' e <- tryCatch(rcrp(-1, alpha = 1), mcmix_error_input = function(e) e)
#' class(e)
#' e$arg
#' conditionMessage(e)
NULL

# The classed condition for message `msg`; `arg` NULL means "read it from
# the message".
mcmix_condition <- function(msg, arg = NULL, class = NULL, call = NULL) {
  if (grepl("^(mcmix )?internal error", msg)) {
    return(errorCondition(msg, class = c(class, "mcmix_error_internal", "mcmix_error"),
                          call = call))
  }
  if (is.null(arg)) arg <- message_arg(msg)
  errorCondition(msg, class = c(class, "mcmix_error_input", "mcmix_error"),
                 call = call, arg = arg)
}

# The first back-quoted name in a message ("`iter` must be ..." -> "iter"),
# NA when there is none. Only R names count: "`base(3)`" gives "base".
message_arg <- function(msg) {
  m <- regmatches(msg, regexpr("`[.A-Za-z][._A-Za-z0-9]*", msg))
  if (length(m)) substring(m, 2L) else NA_character_
}

# An input error naming the argument `arg`.
stop_input <- function(msg, arg, class = NULL, call = NULL) {
  base::stop(mcmix_condition(msg, if (is.null(arg)) NA_character_ else arg,
                             class, call))
}

# A fault of the package itself.
stop_internal <- function(msg, call = NULL) {
  if (!grepl("^(mcmix )?internal error", msg))
    msg <- paste0("mcmix internal error: ", msg)
  base::stop(errorCondition(msg, class = c("mcmix_error_internal", "mcmix_error"),
                            call = call))
}

# base::stop() with classed conditions (see the top of this file); `arg`
# and `class` are optional extras.
stop <- function(..., call. = TRUE, domain = NULL, arg = NULL, class = NULL) {
  if (...length() == 1L && inherits(..1, "condition")) base::stop(..1)
  msg <- .makeMessage(..., domain = domain)
  call <- if (isTRUE(call.)) sys.call(-1L) else NULL
  base::stop(mcmix_condition(msg, arg, class, call))
}

# Run `expr`, a .Call into the C glue, giving the plain errors raised there
# (Rf_error()) the classes above: "mcmix internal error: ..." messages
# become internal errors, others input errors naming `arg` (or the first
# back-quoted name of the message). Conditions of the package pass
# unchanged.
with_c_errors <- function(expr, arg = NULL) {
  withCallingHandlers(expr, error = function(e) {
    if (!inherits(e, "mcmix_error"))
      base::stop(mcmix_condition(conditionMessage(e), arg, call = conditionCall(e)))
  })
}

# The one way the package warns: a warning of class c(`class`,
# "mcmix_warning", "warning", "condition") without a call, so callers can
# catch or muffle it by what it says (see ?mcmix-conditions for the
# classes). tests/testthat/test-classed-messages.R fails on any other
# warning() in R/.
warn <- function(msg, class) {
  warning(warningCondition(msg, class = unique(c(class, "mcmix_warning")), call = NULL))
}

# A deprecation warning (class "mcmix_deprecated", once per call): `old` is
# the deprecated form, `new` its replacement, `why` a short reason.
warn_deprecated <- function(old, new, why = NULL) {
  msg <- sprintf("`%s` is deprecated; use `%s` instead%s.", old, new,
                 if (is.null(why)) "" else paste0(" (", why, ")"))
  warn(msg, c("mcmix_deprecated", "deprecatedWarning"))
}

# A renamed argument passed under its former name `old` among the further
# arguments `dots` of function `fun`: warns of the deprecation and returns
# list(value = <the value>), or NULL when `old` was not given. Any other
# argument in `dots` is an error naming it.
renamed_arg <- function(dots, old, new, fun) {
  check_dots(dots, old)   # R/checks.R
  if (!old %in% names(dots)) return(NULL)
  warn_deprecated(sprintf("%s(%s = )", fun, old), sprintf("%s(%s = )", fun, new),
                  "the same name as in the other samplers")
  list(value = dots[[old]])
}

# Evaluate `expr` (a check written for the fitted data) on data the user
# gave under another name, e.g. `newdata` of a predict() method: its
# errors name `to` instead of `from`.
with_arg_renamed <- function(expr, from = "data", to = "newdata") {
  tryCatch(expr, error = function(e) {
    msg <- conditionMessage(e)
    new <- gsub(sprintf("`%s`", from), sprintf("`%s`", to), msg, fixed = TRUE)
    if (identical(new, msg)) base::stop(e)
    stop_input(new, to)
  })
}
