# Discrete Bayesian networks and factor models (Koller and Friedman 2009,
# chapters 3, 10, 12 and 13): exact inference by enumeration and, on tree-structured models,
# by sum-product and max-product message passing (in R); Gibbs sampling
# with Markov-blanket conditionals and annealing/ICM to the MAP assignment
# (src/model_bayesnet.c through src/ffi_bayesnet.c).
#
# A model is a list: vars (names), levels (named list of level names),
# factors (list of non-negative arrays whose named dimnames give the scope),
# parents (Bayesian networks: named list of parent names) and kind.

# ---------------------------------------------------------------------------
# Construction and checks
# ---------------------------------------------------------------------------

bn_stop <- function(...) stop(sprintf(...), call. = FALSE)

# A table given as a named vector (one variable) or an array with named
# dimnames, checked to be finite and non-negative.
bn_table <- function(a, arg, name = NULL) {
  if (is.null(dim(a)) && is.numeric(a) && !is.null(names(a)) && !is.null(name))
    a <- array(a, dim = length(a), dimnames = stats::setNames(list(names(a)), name))
  dn <- dimnames(a)
  if (!is.numeric(a) || is.null(dim(a)) || is.null(dn) || is.null(names(dn)) ||
      any(!nzchar(names(dn))) || any(vapply(dn, is.null, logical(1))))
    bn_stop("`%s` must be a numeric array with named dimnames (variables) giving the levels, not %s.",
            arg, describe_value(a))
  if (anyNA(a) || any(!is.finite(a)) || any(a < 0))
    bn_stop("`%s` must hold finite non-negative numbers.", arg)
  if (anyDuplicated(names(dn))) bn_stop("`%s` names a variable twice.", arg)
  for (v in names(dn)) if (anyDuplicated(dn[[v]]) || any(!nzchar(dn[[v]])))
    bn_stop("`%s`: the levels of `%s` must be distinct non-empty names.", arg, v)
  storage.mode(a) <- "double"
  a
}

# Levels of every variable, checked to agree across tables.
bn_collect_levels <- function(tabs, args) {
  lev <- list()
  for (i in seq_along(tabs)) {
    dn <- dimnames(tabs[[i]])
    for (v in names(dn)) {
      if (is.null(lev[[v]])) lev[[v]] <- dn[[v]]
      else if (!identical(lev[[v]], dn[[v]]))
        bn_stop("`%s` gives the levels of `%s` as %s, but another table as %s.", args[i], v,
                describe_value(dn[[v]]), describe_value(lev[[v]]))
    }
  }
  if ("log_prob" %in% names(lev)) bn_stop("no variable may be named `log_prob`.")
  lev
}

#' Discrete Bayesian networks and factor models
#'
#' `bayes_net()` builds a Bayesian network (Koller and Friedman 2009)
#' from its conditional probability tables: the joint distribution is
#' \eqn{P(X) = \prod_i P(X_i \mid Pa(X_i))}. `factor_model()`
#' builds the more general model \eqn{P(X) \propto \prod_f \phi_f(X_f)} from
#' a list of non-negative factors (a Bayesian network is the case where the
#' factors are the tables). Both are used with [sample_posterior()] (Gibbs
#' sampling given evidence), [bn_marginals()] and [bn_map()].
#'
#' @param cpts A named list, one element per node: for a node without
#'   parents a named probability vector (names are the levels), otherwise
#'   an array whose first dimension is the node and the others its parents,
#'   with named dimnames (`names(dimnames(a)) = c(node, parents)`) giving the
#'   levels; each column (parent configuration) sums to 1.
#' @param factors A list of non-negative arrays with named dimnames (the
#'   variables of each factor and their levels).
#' @return An object of class `mcmix_factor_model` (and `mcmix_bayes_net`
#'   for `bayes_net()`).
#' @seealso [bayes_net_asia()], [bn_marginals()], [bn_map()]
#' @examples
#' rain <- c(yes = 0.2, no = 0.8)
#' wet <- array(c(0.9, 0.1, 0.2, 0.8), c(2, 2),
#'              list(wet = c("yes", "no"), rain = c("yes", "no")))
#' bn <- bayes_net(list(rain = rain, wet = wet))
#' bn
#' bn_marginals(bn, evidence = list(wet = "yes"))
#' # a loop of three binary variables that prefer to agree
#' lv <- c("0", "1")
#' agree <- function(u, v) array(c(2, 1, 1, 2), c(2, 2), setNames(list(lv, lv), c(u, v)))
#' fm <- factor_model(list(agree("a", "b"), agree("b", "c"), agree("c", "a")))
#' bn_marginals(fm, evidence = list(a = "1"))
#' @export
bayes_net <- function(cpts) {
  if (!is.list(cpts) || !length(cpts) || is.null(names(cpts)) || any(!nzchar(names(cpts))) ||
      anyDuplicated(names(cpts)))
    bn_stop("`cpts` must be a list of tables named by their nodes, not %s.", describe_value(cpts))
  nodes <- names(cpts)
  args <- sprintf("cpts$%s", nodes)
  tabs <- Map(function(a, arg, nm) bn_table(a, arg, nm), cpts, args, nodes)
  parents <- list()
  for (i in seq_along(tabs)) {
    vs <- names(dimnames(tabs[[i]]))
    if (vs[1L] != nodes[i])
      bn_stop("`%s` must have its node `%s` as the first dimension, not `%s`.", args[i],
              nodes[i], vs[1L])
    miss <- setdiff(vs[-1L], nodes)
    if (length(miss)) bn_stop("`%s` has a parent `%s` that is not a node.", args[i], miss[1L])
    s <- if (length(vs) == 1L) sum(tabs[[i]]) else apply(tabs[[i]], seq_along(vs)[-1L], sum)
    if (any(abs(s - 1) > 1e-6))
      bn_stop("`%s` must sum to 1 over `%s` for every configuration of its parents.",
              args[i], nodes[i])
    parents[[nodes[i]]] <- vs[-1L]
  }
  lev <- bn_collect_levels(tabs, args)
  bn_topo_order(parents)                    # refuses cycles
  structure(list(vars = nodes, levels = lev[nodes], factors = unname(tabs), parents = parents,
                 kind = "bayes_net"),
            class = c("mcmix_bayes_net", "mcmix_factor_model", "mcmix_model"))
}

#' @rdname bayes_net
#' @export
factor_model <- function(factors) {
  if (!is.list(factors) || !length(factors))
    bn_stop("`factors` must be a non-empty list of arrays, not %s.", describe_value(factors))
  args <- sprintf("factors[[%d]]", seq_along(factors))
  tabs <- Map(function(a, arg) bn_table(a, arg), factors, args)
  for (i in seq_along(tabs)) if (!any(tabs[[i]] > 0))
    bn_stop("`%s` is zero everywhere.", args[i])
  lev <- bn_collect_levels(tabs, args)
  structure(list(vars = names(lev), levels = lev, factors = unname(tabs), parents = NULL,
                 kind = "factor_model"),
            class = c("mcmix_factor_model", "mcmix_model"))
}

# Topological order of a DAG given as parent lists (error on a cycle).
bn_topo_order <- function(parents) {
  order <- character()
  left <- names(parents)
  while (length(left)) {
    ready <- left[vapply(left, function(v) all(parents[[v]] %in% order), logical(1))]
    if (!length(ready))
      bn_stop("`cpts` must describe a directed acyclic graph; the nodes %s are on a cycle.",
              paste0("`", left, "`", collapse = ", "))
    order <- c(order, ready)
    left <- setdiff(left, ready)
  }
  order
}

#' The "Asia" (chest clinic) network
#'
#' The Bayesian network of Lauritzen and Spiegelhalter (1988): visit to
#' Asia, smoking, tuberculosis, lung cancer, bronchitis, "either"
#' (tuberculosis or lung cancer, a deterministic OR), X-ray and dyspnoea;
#' every node has levels `yes` and `no`.
#' @return A [bayes_net()].
#' @references Koller, D. and Friedman, N. (2009). *Probabilistic Graphical
#'   Models: Principles and Techniques*. MIT Press.
#'
#'   Lauritzen, S. L. and Spiegelhalter, D. J. (1988). Local
#'   computations with probabilities on graphical structures and their
#'   application to expert systems. *Journal of the Royal Statistical
#'   Society B* 50, 157-224.
#' @examples
#' asia <- bayes_net_asia()
#' asia
#' bn_marginals(asia, evidence = list(asia = "yes", xray = "yes"))
#' @export
bayes_net_asia <- function() {
  yn <- c("yes", "no")
  cond <- function(node, parents, p_yes) {
    dn <- c(stats::setNames(list(yn), node), stats::setNames(rep(list(yn), length(parents)), parents))
    array(rbind(p_yes, 1 - p_yes), dim = rep(2L, length(dn)), dimnames = dn)
  }
  bayes_net(list(
    asia = c(yes = 0.01, no = 0.99),
    smoke = c(yes = 0.5, no = 0.5),
    tub = cond("tub", "asia", c(0.05, 0.01)),
    lung = cond("lung", "smoke", c(0.1, 0.01)),
    bronc = cond("bronc", "smoke", c(0.6, 0.3)),
    either = cond("either", c("tub", "lung"), c(1, 1, 1, 0)),
    xray = cond("xray", "either", c(0.98, 0.05)),
    dysp = cond("dysp", c("bronc", "either"), c(0.9, 0.7, 0.8, 0.1))))
}

#' @export
print.mcmix_factor_model <- function(x, ...) {
  bn <- identical(x$kind, "bayes_net")
  cat(if (bn) "Discrete Bayesian network" else "Discrete factor model", " with ",
      length(x$vars), " variables and ", length(x$factors), " factors\n", sep = "")
  for (v in x$vars) {
    cat("  ", v, " {", paste(x$levels[[v]], collapse = ", "), "}", sep = "")
    if (bn && length(x$parents[[v]]))
      cat(" | ", paste(x$parents[[v]], collapse = ", "), sep = "")
    cat("\n")
  }
  invisible(x)
}

#' @export
summary.mcmix_factor_model <- function(object, ...) {
  out <- list(kind = object$kind, vars = object$vars,
              levels = lengths(object$levels),
              factors = vapply(object$factors, function(f)
                paste(names(dimnames(f)), collapse = ", "), character(1)),
              tree = bn_is_forest(object, integer()),
              states = prod(as.double(lengths(object$levels))))
  class(out) <- "summary.mcmix_factor_model"
  out
}

#' @export
print.summary.mcmix_factor_model <- function(x, ...) {
  cat(if (identical(x$kind, "bayes_net")) "Discrete Bayesian network" else "Discrete factor model",
      "\n", sep = "")
  cat("  variables: ", length(x$vars), " (", format(x$states, big.mark = ","),
      " joint states)\n", sep = "")
  cat("  factors:   ", length(x$factors), "; tree-structured: ",
      if (x$tree) "yes" else "no", "\n", sep = "")
  for (i in seq_along(x$factors)) cat("    [", x$factors[i], "]\n", sep = "")
  invisible(x)
}

# ---------------------------------------------------------------------------
# Evidence and the compiled spec
# ---------------------------------------------------------------------------

# Evidence as 1-based level codes named by variable.
bn_evidence <- function(model, evidence, arg = "evidence") {
  if (is.null(evidence) || !length(evidence)) return(stats::setNames(integer(), character()))
  if (is.data.frame(evidence)) {
    if (nrow(evidence) != 1L) bn_stop("`%s` as a data frame must have one row.", arg)
    evidence <- lapply(evidence, function(v) as.character(v))
  }
  if (!(is.list(evidence) || is.atomic(evidence)) || is.null(names(evidence)) ||
      any(!nzchar(names(evidence))) || anyDuplicated(names(evidence)))
    bn_stop("`%s` must be a named list or vector of observed levels, not %s.", arg,
            describe_value(evidence))
  out <- integer(length(evidence))
  for (i in seq_along(evidence)) {
    v <- names(evidence)[i]
    if (!v %in% model$vars) bn_stop("`%s` names `%s`, which is not a variable of the model.", arg, v)
    e <- evidence[[i]]
    if (length(e) != 1L || is.na(e)) bn_stop("`%s$%s` must be one level.", arg, v)
    code <- match(as.character(e), model$levels[[v]])
    if (is.na(code))
      bn_stop("`%s$%s` must be one of %s, not %s.", arg, v,
              paste0("\"", model$levels[[v]], "\"", collapse = ", "), describe_value(e))
    out[i] <- code
  }
  stats::setNames(out, names(evidence))
}

bn_check_model <- function(model) {
  if (!inherits(model, "mcmix_factor_model"))
    bn_stop("`model` must be a bayes_net() or factor_model(), not %s.", describe_value(model))
  model
}

# The hidden variables, in blocks (list of character vectors), checked;
# a block may have at most `bn_block_max_values` feasible joint values
# (bn_block_states(); `ev` the evidence codes).
bn_blocks <- function(model, hidden, blocks, ev = integer()) {
  if (is.null(blocks)) return(as.list(hidden))
  if (!is.list(blocks) || !all(vapply(blocks, is.character, logical(1))))
    bn_stop("`blocks` must be NULL or a list of character vectors of variable names, not %s.",
            describe_value(blocks))
  used <- unlist(blocks)
  bad <- setdiff(used, hidden)
  if (length(bad)) bn_stop("`blocks` names `%s`, which is not a hidden variable.", bad[1L])
  if (anyDuplicated(used)) bn_stop("`blocks` must not share variables (`%s` is in two).",
                                   used[anyDuplicated(used)])
  for (b in blocks) if (length(b) > 1L && is.null(bn_block_states(model, ev, b)))
    bn_stop(paste0("`blocks`: a block may have at most %s feasible joint values (values that no ",
                   "table rules out given the evidence), but %s has more."),
            format(bn_block_max_values, big.mark = ",", scientific = FALSE), bn_show_block(b))
  c(blocks[lengths(blocks) > 0L], as.list(setdiff(hidden, used)))
}

bn_scope <- function(f) names(dimnames(f))

# The largest number of feasible joint values of a block.
bn_block_max_values <- 1e6

# The strongest coupling that automatic blocking looks at (see
# bn_auto_blocks()): a one-variable move of relative probability 1e-2 is
# made about once in 100 sweeps, which any run long enough to be judged
# crosses many times; blocking weaker couplings would only grow the blocks.
bn_coupling_max <- 1e-2

# `c("a", "b")` as R code.
bn_show_block <- function(b) sprintf("c(%s)", paste0("\"", b, "\"", collapse = ", "))

# Factor `f` restricted to the evidence (codes `ev`): an array over its
# hidden variables (a number when it has none).
bn_restrict <- function(f, ev) {
  sc <- bn_scope(f)
  idx <- lapply(sc, function(v) if (v %in% names(ev)) ev[[v]] else TRUE)
  keep <- !sc %in% names(ev)
  g <- do.call(`[`, c(list(f), idx, list(drop = FALSE)))
  if (!any(keep)) return(as.vector(g))
  array(g, dim = dim(f)[keep], dimnames = dimnames(f)[keep])
}

# How strongly a factor `g` (restricted to its hidden variables) ties them
# together, as the relative probability of the least probable one-variable
# move it allows out of a state it favours:
#   min over variables v and levels k of  min_o L(k | o) / max_o L(k | o),
#   L(k | o) = g(v = k, o) / max_k' g(v = k', o),
# over the configurations o of its other variables with some positive
# entry. L(k | o) is how much g alone weighs a move of v to level k against
# v's best level, given o. A factor of product form h(v) h'(o) has L free of
# o and coupling 1 (it makes some levels rare, which needs no block); a
# deterministic child (zeros that depend on the parents) has 0; a noisy
# XOR child with noise eps has about eps.
bn_coupling <- function(g) {
  d <- dim(g)
  rho <- 1
  for (j in seq_along(d)) {
    M <- matrix(aperm(g, c(j, seq_along(d)[-j])), d[j])
    mx <- apply(M, 2L, max)
    if (sum(mx > 0) < 2L) next
    L <- sweep(M[, mx > 0, drop = FALSE], 2L, mx[mx > 0], "/")
    hi <- apply(L, 1L, max)
    lo <- apply(L, 1L, min)
    if (any(hi > 0)) rho <- min(rho, lo[hi > 0] / hi[hi > 0])
  }
  rho
}

# The feasible joint values of the hidden variables `b` given the evidence
# (codes `ev`): those at which no factor touching `b` is zero whatever the
# other hidden variables (a factor's largest value over them is positive).
# No value of positive conditional probability is left out, so a block
# drawn over these values is drawn exactly from its conditional. Built one
# variable at a time, each factor pruning as soon as the block variables of
# its scope are set, so a chain of deterministic copies costs its few
# feasible values, not the product of its cardinalities. A matrix of codes
# (columns `b`, rows in mixed-radix order with the first variable fastest),
# or NULL when more than `max_values` values (or too many partial ones) arise.
bn_block_states <- function(model, ev, b, max_values = bn_block_max_values,
                            ctx = bn_block_ctx(model, ev)) {
  card <- lengths(model$levels[b])
  cons <- list()
  for (i in unique(unlist(ctx$touch[b]))) {
    g <- ctx$red[[i]]
    hv <- bn_scope(g)
    keep <- hv %in% b
    pos <- if (all(keep)) g > 0 else apply(g, which(keep), max) > 0
    if (all(pos)) next
    cons[[length(cons) + 1L]] <- list(vars = hv[keep], pos = as.vector(pos),
                                      stride = cumprod(c(1, dim(g)[keep]))[seq_len(sum(keep))])
  }
  # order: each next variable completes the most constraints
  ord <- character()
  left <- b
  while (length(left)) {
    done <- vapply(left, function(v)
      sum(vapply(cons, function(k) v %in% k$vars && all(k$vars %in% c(ord, v)), logical(1))), 1)
    near <- vapply(left, function(v)
      sum(vapply(cons, function(k) v %in% k$vars && any(k$vars %in% ord), logical(1))), 1)
    v <- left[order(-done, -near)[1L]]
    ord <- c(ord, v)
    left <- setdiff(left, v)
  }
  X <- matrix(0L, 1L, 0L)
  for (v in ord) {
    n <- nrow(X)
    if (n * card[[v]] * (ncol(X) + 1) > 25 * max_values) return(NULL)
    X <- cbind(X[rep(seq_len(n), each = card[[v]]), , drop = FALSE],
               rep(seq_len(card[[v]]), times = n))
    colnames(X)[ncol(X)] <- v
    for (k in cons) {
      if (!v %in% k$vars || !all(k$vars %in% colnames(X))) next
      ok <- k$pos[1 + as.vector((X[, k$vars, drop = FALSE] - 1) %*% k$stride)]
      X <- X[ok, , drop = FALSE]
    }
    if (nrow(X) > max_values) return(NULL)
  }
  X <- X[, b, drop = FALSE]
  X[do.call(order, rev(lapply(seq_along(b), function(j) X[, j]))), , drop = FALSE]
}

# What bn_block_states() reads, computed once for many blocks: the factors
# restricted to the evidence and, for each variable, the factors touching it.
bn_block_ctx <- function(model, ev) {
  red <- lapply(model$factors, bn_restrict, ev = ev)
  sc <- lapply(model$factors, bn_scope)
  touch <- split(rep(seq_along(sc), lengths(sc)), factor(unlist(sc), levels = model$vars))
  list(red = red, touch = touch)
}

# Blocks under which Gibbs can cross between the parts of the support.
# A factor over two or more hidden variables whose coupling (bn_coupling())
# is 0 -- zeros that depend on several variables, as the deterministic
# `either` of bayes_net_asia() -- can make one-variable Gibbs reducible:
# with either = yes and lung = yes, tub cannot move, nor lung, and the
# chain stays on one of the separated parts of the support. A coupling
# rho > 0 but small is the same trap in practice: each one-variable move
# across costs a move of relative probability about rho, so a chain of
# `sweeps` sweeps crosses about sweeps * rho times, and fewer than
# `min_crossings` crossings leave the share of each part to the starting
# state. So the factors with
#   rho = 0  or  rho < min(min_crossings / sweeps, bn_coupling_max)
# tie their hidden variables, and the variables tied (connected through
# such factors) are merged into one block together with the blocks given
# (`bl`, from bn_blocks()). A block drawn jointly moves between the parts
# in one step (its conditional has its whole feasible set as support, the
# other factors having product-form support): the chain is irreducible
# and crosses freely. Says once (a message) which blocks it made and why;
# refuses, naming the variables and what does work, when a merged block
# has more than bn_block_max_values feasible joint values.
bn_auto_blocks <- function(model, ev, hidden, bl, sweeps, min_crossings) {
  tau <- min(min_crossings / sweeps, bn_coupling_max)
  group <- integer(length(hidden))
  for (b in seq_along(bl)) group[match(bl[[b]], hidden)] <- b
  find_root <- function(g) { while (parent[g] != g) g <- parent[g]; g }
  parent <- seq_along(bl)
  tied <- list()
  bn <- identical(model$kind, "bayes_net")
  labels <- if (bn) sprintf("`%s`", model$vars) else sprintf("`factors[[%d]]`", seq_along(model$factors))
  show_tables <- function(l) {
    l <- unique(l)
    if (bn) sprintf("the table%s of %s", if (length(l) > 1L) "s" else "", paste(l, collapse = ", "))
    else paste(l, collapse = ", ")
  }
  for (i in seq_along(model$factors)) {
    f <- model$factors[[i]]
    sc <- bn_scope(f)
    hv <- sc[sc %in% hidden]
    if (length(hv) < 2L) next
    rho <- bn_coupling(bn_restrict(f, ev))
    if (rho > 0 && rho >= tau) next
    tied[[length(tied) + 1L]] <- list(label = labels[i], rho = rho, var = hv[1L])
    gs <- unique(group[match(hv, hidden)])
    roots <- unique(vapply(gs, find_root, 1L))
    if (length(roots) > 1L) parent[roots[-1L]] <- roots[1L]
  }
  if (!length(tied)) return(bl)
  roots <- vapply(seq_along(bl), find_root, 1L)
  out <- unname(lapply(split(seq_along(bl), roots), function(ix) unlist(bl[ix])))
  out <- out[order(vapply(out, function(b) min(match(b, hidden)), 1L))]
  made <- Filter(function(b) !any(vapply(bl, function(u) setequal(u, b), TRUE)), out)
  if (!length(made)) return(bl)
  # why each block was made: the tying factors inside it
  why <- vapply(made, function(b) {
    k <- Filter(function(t) t$var %in% b, tied)
    rho <- min(vapply(k, `[[`, 0, "rho"))
    sprintf("%s %s them with %s", show_tables(vapply(k, `[[`, "", "label")),
            if (length(unique(vapply(k, `[[`, "", "label"))) > 1L) "tie" else "ties",
            if (rho == 0) "zeros"
            else sprintf("near-zeros (a one-variable move across has relative probability %s)",
                         format(signif(rho, 2))))
  }, "")
  near <- any(vapply(tied, `[[`, 0, "rho") > 0)
  rule <- if (near) sprintf(paste0(" A table ties variables where such a move has relative ",
                                   "probability under min(min_crossings / sweeps, %s) = %s, ",
                                   "fewer than min_crossings = %s crossings in %s sweeps."),
                            format(bn_coupling_max), format(signif(tau, 3)), format(min_crossings),
                            format(sweeps, big.mark = ",", scientific = FALSE)) else ""
  for (j in seq_along(made)) {
    if (!is.null(bn_block_states(model, ev, made[[j]]))) next
    exact <- bn_is_forest(model, ev) || bn_can_enumerate(model, hidden)
    zero <- any(vapply(Filter(function(t) t$var %in% made[[j]], tied), `[[`, 0, "rho") == 0)
    stop_input(sprintf(paste0(
      "`model` cannot be sampled by Gibbs updates given this evidence: %s, so one-variable ",
      "updates of %s would not cross between the parts of the support, and drawing them ",
      "jointly (blocks = list(%s)) needs more than %s feasible joint values. %s%s"),
      why[j], paste0("`", made[[j]], "`", collapse = ", "), bn_show_block(made[[j]]),
      format(bn_block_max_values, big.mark = ",", scientific = FALSE),
      if (exact) "bn_marginals() gives the exact marginals, and bn_map() the most probable state."
      else "bn_map() finds a most probable state (by annealing).",
      if (zero) "" else
        " To sample anyway with one-variable updates (which may not cross), set min_crossings = 0."),
      arg = "model", class = "mcmix_error_bn_blocks")
  }
  message(sprintf(paste0("Gibbs: updating %s; blocks = list(%s). One-variable updates would ",
                         "not cross between the parts of the support that these tables ",
                         "separate.%s"),
                  paste(sprintf("%s jointly, as %s",
                                vapply(made, function(b) paste0("`", b, "`", collapse = ", "), ""),
                                why), collapse = "; and "),
                  paste(vapply(made, bn_show_block, ""), collapse = ", "), rule))
  out
}

# The compiled model for the C side (model_bayesnet.h): tables, scopes and
# the blocks with their feasible joint values.
bn_spec <- function(model, ev, hidden, blocks, arg = "evidence") {
  vars <- model$vars
  scopes <- lapply(model$factors, function(f) match(bn_scope(f), vars) - 1L)
  strides <- lapply(model$factors, function(f) as.integer(cumprod(c(1, dim(f)))[seq_along(dim(f))]))
  sizes <- vapply(model$factors, length, integer(1))
  bvars <- lapply(blocks, function(b) match(b, vars) - 1L)
  bfac <- lapply(bvars, function(b) which(vapply(scopes, function(s) any(s %in% b), logical(1))) - 1L)
  ctx <- bn_block_ctx(model, ev)
  bval <- lapply(blocks, function(b) {
    X <- bn_block_states(model, ev, b, ctx = ctx)
    if (is.null(X)) stop_internal("a block has too many feasible values")
    if (!nrow(X)) bn_stop("`%s` has probability zero under the model: no joint value of %s is feasible.",
                          arg, paste0("`", b, "`", collapse = ", "))
    as.vector(t(X - 1L))
  })
  if (sum(as.double(lengths(bval))) > .Machine$integer.max)
    bn_stop("`blocks`: the blocks have too many feasible joint values in all.")
  ptr <- function(l) as.integer(cumsum(c(0, lengths(l))))
  list(card = as.integer(lengths(model$levels[vars])),
       fac_ptr = ptr(scopes), scope = as.integer(unlist(scopes)),
       stride = as.integer(unlist(strides)), tab_ptr = as.integer(cumsum(c(0, sizes))),
       logtab = log(unlist(lapply(model$factors, as.vector))),
       blk_ptr = ptr(bvars), blk_var = as.integer(unlist(bvars)),
       blk_fac_ptr = ptr(bfac), blk_fac = as.integer(unlist(bfac)),
       blk_nval = as.integer(lengths(bval) / lengths(bvars)), blk_val_ptr = ptr(bval),
       blk_val = as.integer(unlist(bval)),
       hidden = match(hidden, vars) - 1L)
}

# log of the product of the factors at the full assignments X (codes,
# one row per assignment, columns named by variable).
bn_log_joint <- function(model, X) {
  lp <- numeric(nrow(X))
  for (f in model$factors) {
    sc <- bn_scope(f)
    st <- cumprod(c(1, dim(f)))[seq_along(sc)]
    lp <- lp + as.vector(log(f))[1 + as.vector((X[, sc, drop = FALSE] - 1) %*% st)]
  }
  lp
}

# An initial state (0-based codes of every variable), dispersed so that
# chains started apart show when they do not mix (R-hat, R/guard.R):
# hidden variables drawn uniformly (evidence clamped), 10 tries for a
# state of positive probability; then, for Bayesian networks, ancestral
# sampling (10 tries); then (when the hidden states can be enumerated)
# the most probable state; an error naming `arg` when the evidence has
# probability zero or no positive state was found.
bn_init_state <- function(model, ev, arg = "evidence") {
  vars <- model$vars
  x <- stats::setNames(integer(length(vars)), vars)
  for (try in 1:20) {
    if (identical(model$kind, "bayes_net") && try > 10L) {
      for (v in bn_topo_order(model$parents)) {
        if (v %in% names(ev)) { x[v] <- ev[[v]]; next }
        f <- model$factors[[match(v, vars)]]
        pa <- model$parents[[v]]
        p <- if (length(pa)) do.call(`[`, c(list(f), list(TRUE), unname(as.list(x[pa])))) else f
        x[v] <- sample.int(length(p), 1L, prob = as.vector(p))
      }
    } else {
      for (v in vars) x[v] <- if (v %in% names(ev)) ev[[v]] else
        sample.int(length(model$levels[[v]]), 1L)
    }
    if (is.finite(bn_log_joint(model, matrix(x, 1L, dimnames = list(NULL, vars)))))
      return(as.integer(x - 1L))
  }
  hidden <- setdiff(vars, names(ev))
  if (bn_can_enumerate(model, hidden)) {
    en <- bn_enumerate(model, ev)
    if (is.finite(max(en$lp))) return(as.integer(en$X[which.max(en$lp), vars] - 1L))
    bn_stop("`%s` has probability zero under the model.", arg)
  }
  bn_stop("no state of positive probability was found given `%s` (it may have probability zero under the model).",
          arg)
}

# ---------------------------------------------------------------------------
# Gibbs sampling
# ---------------------------------------------------------------------------

#' @rdname sample_posterior
#' @param blocks Factor models and Bayesian networks: `NULL` (every hidden
#'   variable updated alone) or a list of character vectors, groups of
#'   hidden variables drawn jointly from their conditional, over their
#'   feasible joint values (those no table rules out given the evidence; at
#'   most 1e6 per block, however large the product of the cardinalities).
#'   Variables tied by a near-deterministic table are merged into such
#'   blocks automatically, with a message (see `min_crossings`). For these
#'   models `chains` defaults to 4, started from dispersed states (hidden
#'   variables drawn uniformly until a state of positive probability is
#'   found), because a single chain cannot show that it is stuck; and a
#'   warning of class `"mcmix_warning_stuck"` names any hidden variable that
#'   kept one level in every kept draw of every chain although another
#'   level is feasible and the run could not have moved it (fewer than one
#'   expected move away, from its conditionals at the kept states), unless
#'   its other levels are rare whatever the rest of the state. `data` is
#'   the evidence: a named list (or vector) of observed levels, or `NULL`.
#' @param min_crossings Factor models and Bayesian networks: the number of
#'   crossings a chain should be able to make between the parts of the
#'   support that a table separates (default 100). A table over two or more
#'   hidden variables ties them when a one-variable move it allows out of a
#'   state it favours has relative probability \eqn{\rho} (the smallest,
#'   over its variables \eqn{v} and levels \eqn{k}, of
#'   \eqn{\min_o L(k|o) / \max_o L(k|o)} with \eqn{L(k|o) = \phi(v = k, o) /
#'   \max_{k'} \phi(v = k', o)}, over the configurations \eqn{o} of its
#'   other variables): a deterministic child has \eqn{\rho = 0}, a noisy
#'   XOR with noise \eqn{\epsilon} has \eqn{\rho \approx \epsilon}, and a
#'   table of product form (a level that is rare whatever the other
#'   variables) has \eqn{\rho = 1}. One-variable Gibbs crosses such a tie
#'   about once per \eqn{1/\rho} sweeps, so a chain of \eqn{S} = `burnin +
#'   iter` sweeps crosses it about \eqn{S \rho} times; the share of each part
#'   estimated from \eqn{m} crossings has a relative error near
#'   \eqn{1/\sqrt{m}}, and with few crossings the Monte Carlo error itself
#'   cannot be estimated. So a table ties its variables when \eqn{\rho = 0}
#'   (the chain could never cross) or \eqn{S \rho < m}, \eqn{m} =
#'   `min_crossings`, i.e. \eqn{\rho < \min(m / S, 0.01)} (ties weaker than
#'   0.01 are crossed every hundred sweeps or so, and left to one-variable
#'   updates). The variables tied together are drawn as one block (exactly,
#'   from their conditional), so the chain crosses in one step; a block with
#'   more than 1e6 feasible joint values is refused, with a classed error
#'   (`"mcmix_error_bn_blocks"`) saying what to use instead. `min_crossings
#'   = 0` blocks only structural zeros.
#' @export
sample_posterior.mcmix_factor_model <- function(
    model, data = NULL, iter = 1000, burnin = floor(iter / 2), thin = 1, chains = 4,
    blocks = NULL, min_crossings = 100, progress = interactive(),
    cores = mcmix_option("cores"), backend = mcmix_option("backend"), ...) {
  check_dots(list(...))   # R/checks.R
  ev <- bn_evidence(model, data, "data")
  hidden <- setdiff(model$vars, names(ev))
  if (!length(hidden)) bn_stop("`data` observes every variable; there is nothing to sample.")
  iter <- check_count(iter, "iter", 1L)
  burnin <- check_count(burnin, "burnin", 0L)
  min_crossings <- check_number(min_crossings, "min_crossings", lower = 0)
  bl <- bn_auto_blocks(model, ev, hidden, bn_blocks(model, hidden, blocks, ev),
                       sweeps = as.double(iter) + burnin, min_crossings = min_crossings)
  spec <- bn_spec(model, ev, hidden, bl, "data")
  trace_names <- c(hidden, "log_prob")
  kernel <- new_kernel(
    name = "bn_gibbs",
    init = function(chain) list(x = bn_init_state(model, ev, "data")),
    step = function(state, n, thin, offset, warmup) {
      r <- .Call(C_ffi_bn_step, spec, state, as.integer(c(n, thin, offset, warmup)))
      colnames(r$traces) <- trace_names
      list(state = r$state, draws = list(traces = r$traces))
    },
    trace_names = trace_names)
  fit <- run_fit(kernel, iter = iter, burnin = burnin, thin = thin, chains = chains,
                 cores = cores, backend = backend, progress = progress, labels = FALSE,
                 model = model, call = match.call(), kind = "bn")   # R/models.R
  fit$evidence <- ev
  fit$hidden <- hidden
  fit$blocks <- bl
  bn_stuck_warning(fit, as.double(iter) + burnin)
  fit
}

# Warn (class "mcmix_warning_stuck", once) about the hidden variables that
# kept one level in every kept draw of every chain although another level
# is feasible given the evidence (bn_block_states() of its block) and
# although nothing in the run moved them: in chain c the update of its
# block moves it with conditional probability p_c on average over the kept
# states (at most 2e5 / (block values) of them), and the run of `sweeps`
# sweeps per chain expected sum_c sweeps * p_c < 1 such moves. Then the draws cannot tell a posterior with almost all its mass on
# that level from chains stuck where they started (a level that is merely
# rare, expected to be left about once or more, is not flagged). Nor is a
# variable whose other levels have so little posterior mass in any case
# (bn_level_bound()) that the run could not have shown them. Chains with
# fewer than guard_min_draws (R/guard.R) kept draws are not judged.
bn_stuck_warning <- function(fit, sweeps) {
  tr <- lapply(fit$chains, function(ch) ch$traces)
  if (!length(tr) || any(vapply(tr, nrow, 1L) < guard_min_draws)) return(invisible(character()))
  model <- fit$model
  stuck <- character()
  p_move <- numeric()
  ctx <- NULL
  for (v in fit$hidden) {
    if (!all(vapply(tr, function(t) all(t[, v] == t[1L, v]), logical(1)))) next
    if (is.null(ctx)) ctx <- bn_block_ctx(model, fit$evidence)
    b <- Find(function(b) v %in% b, fit$blocks)
    S <- bn_block_states(model, fit$evidence, b, max_values = 1e5, ctx = ctx)
    if (is.null(S)) S <- bn_block_states(model, fit$evidence, b <- v, ctx = ctx)
    if (length(unique(S[, v])) < 2L) next
    ns <- nrow(S)
    p <- vapply(tr, function(t) {
      rows <- unique(round(seq(1, nrow(t), length.out = max(1, min(nrow(t), 1000, 2e5 %/% ns)))))
      X <- matrix(0L, length(rows) * ns, length(model$vars), dimnames = list(NULL, model$vars))
      X[, fit$hidden] <- t[rep(rows, each = ns), fit$hidden]
      for (e in names(fit$evidence)) X[, e] <- fit$evidence[[e]]
      X[, b] <- S[rep(seq_len(ns), times = length(rows)), ]
      lp <- matrix(bn_log_joint(model, X), ns)
      W <- exp(sweep(lp, 2L, apply(lp, 2L, log_sum_exp)))
      mean(colSums(W[S[, v] != t[1L, v], , drop = FALSE]))
    }, 0)
    if (sum(sweeps * p) >= 1) next
    if (bn_level_bound(ctx, v, tr[[1L]][1L, v]) * sweeps * length(tr) < 1) next
    stuck <- c(stuck, v)
    p_move <- c(p_move, max(p))
  }
  if (length(stuck)) {
    msg <- sprintf(paste0(
      "Gibbs: %s kept one level in every kept draw of %s, and an update moves each away with ",
      "conditional probability at most %s on average over the draws of a chain, fewer than one expected move in ",
      "the run. Either the posterior puts almost all its mass on that level, or the chains are ",
      "stuck where they started and the estimated marginals are shares of starting states: ",
      "compare with bn_marginals() where it can enumerate, or draw these variables jointly ",
      "with those they are tied to (`blocks`, `min_crossings`)."),
      paste0("`", stuck, "`", collapse = ", "),
      if (length(tr) > 1L) sprintf("each of the %d chains", length(tr)) else "the chain",
      format(signif(max(p_move), 2)))
    warn(msg, "mcmix_warning_stuck")   # R/conditions.R
  }
  invisible(stuck)
}

# An upper bound on the posterior probability that variable `v` is not at
# level `c` (`ctx` from bn_block_ctx()): P(v = k, rest) / P(v = c, rest) is
# the product, over the factors touching v, of f(k, o) / f(c, o), so
#   P(v != c) <= sum_{k != c} prod_f max_o f(k, o) / f(c, o)
# over the configurations o of each factor's other hidden variables (Inf
# where some f(c, o) = 0 < f(k, o)). Small only when the other levels are
# rare whatever the rest of the state.
bn_level_bound <- function(ctx, v, c) {
  ratio <- 1
  for (i in ctx$touch[[v]]) {
    g <- ctx$red[[i]]
    d <- dim(g)
    j <- match(v, names(dimnames(g)))
    M <- matrix(aperm(g, c(j, seq_along(d)[-j])), d[j])
    r <- apply(M, 1L, function(m) {
      q <- m / M[c, ]
      max(c(0, q[!is.nan(q)]))
    })
    ratio <- ratio * r
  }
  sum(ratio[-c])
}

#' Posterior marginals estimated from a Gibbs run
#'
#' The proportion of kept draws in which each hidden variable of a
#' [bayes_net()] or [factor_model()] fit takes each level (chains pooled),
#' with Monte Carlo standard errors from the effective sample size of each
#' indicator.
#'
#' @param fit A fit from [sample_posterior()] of a factor model.
#' @return An object of class `mcmix_bn_marginals`: a named list (one
#'   probability vector per hidden variable) with attribute `mcse`.
#' @examples
#' set.seed(1)
#' asia <- bayes_net_asia()
#' fit <- sample_posterior(asia, list(dysp = "yes"), iter = 2000,
#'                         blocks = list(c("tub", "lung", "either")), progress = FALSE)
#' posterior_marginals(fit)
#' # without `blocks`, the variables tied by the deterministic table of
#' # "either" are blocked automatically (with a message)
#' fit2 <- sample_posterior(asia, list(dysp = "yes"), iter = 2000, progress = FALSE)
#' posterior_marginals(fit2)$either
#' @export
posterior_marginals <- function(fit) {
  if (!inherits(fit, "mcmix_bn_fit"))
    bn_stop("`fit` must be a Gibbs fit of a bayes_net() or factor_model(), not %s.",
            describe_value(fit))
  lev <- fit$model$levels
  out <- list()
  se <- list()
  for (v in fit$hidden) {
    codes <- lapply(fit$chains, function(ch) ch$traces[, v])
    if (!length(unlist(codes))) bn_stop("`fit` has no kept draws.")
    out[[v]] <- stats::setNames(vapply(seq_along(lev[[v]]), function(k)
      mean(unlist(codes) == k), numeric(1)), lev[[v]])
    se[[v]] <- stats::setNames(vapply(seq_along(lev[[v]]), function(k)
      indicator_mcse(codes, k), numeric(1)), lev[[v]])   # R/rjmcmc.R
  }
  structure(out, mcse = se, class = "mcmix_bn_marginals")
}

#' @export
summary.mcmix_bn_fit <- function(object, ...) {
  out <- NextMethod()
  out$marginals <- posterior_marginals(object)
  class(out) <- c("summary.mcmix_bn_fit", class(out))
  out
}

#' @export
print.summary.mcmix_bn_fit <- function(x, ...) {
  NextMethod()
  cat("\nPosterior marginals of the hidden variables:\n")
  print(x$marginals)
  invisible(x)
}

#' @export
print.mcmix_bn_marginals <- function(x, digits = 4, ...) {
  digits <- check_digits(digits)   # R/checks.R
  se <- attr(x, "mcse")
  for (v in names(x)) {
    p <- formatC(x[[v]], digits = digits, format = "f")
    if (!is.null(se)) p <- paste0(p, " (", formatC(se[[v]], digits = digits, format = "f"), ")")
    cat(v, ": ", paste(names(x[[v]]), p, sep = " ", collapse = ", "), "\n", sep = "")
  }
  if (!is.null(se)) cat("(Monte Carlo standard errors in parentheses)\n")
  if (!is.null(attr(x, "log_evidence")))
    cat("log P(evidence) = ", format(attr(x, "log_evidence"), digits = 8), "\n", sep = "")
  invisible(x)
}

# ---------------------------------------------------------------------------
# Exact inference: enumeration, and sum-product / max-product on trees
# ---------------------------------------------------------------------------

# Every assignment of the hidden variables (codes; evidence columns fixed)
# with its log joint.
bn_enumerate <- function(model, ev) {
  hidden <- setdiff(model$vars, names(ev))
  card <- lengths(model$levels[hidden])
  if (!bn_can_enumerate(model, hidden))
    bn_stop("`model` has %s joint hidden states, too many to enumerate (at most 2^20, and 2^24 states times variables); use sum-product on a tree, annealing or sample_posterior().",
            format(prod(as.double(card)), big.mark = ","))
  X <- as.matrix(expand.grid(lapply(card, seq_len), KEEP.OUT.ATTRS = FALSE))
  colnames(X) <- hidden
  for (v in names(ev)) X <- cbind(X, stats::setNames(rep(ev[[v]], nrow(X)), NULL))
  colnames(X) <- c(hidden, names(ev))
  list(X = X[, model$vars, drop = FALSE], lp = bn_log_joint(model, X), hidden = hidden)
}

bn_can_enumerate <- function(model, hidden) {
  states <- prod(as.double(lengths(model$levels[hidden])))
  states <= 2^20 && states * length(model$vars) <= 2^24
}

log_sum_exp <- function(v) {
  m <- max(v)
  if (m == -Inf) -Inf else m + log(sum(exp(v - m)))
}

# The factors restricted to the evidence, as log arrays over their hidden
# variables; factors with no hidden variable add to `const`.
bn_reduce <- function(model, ev) {
  out <- list()
  const <- 0
  for (f in model$factors) {
    sc <- bn_scope(f)
    idx <- lapply(sc, function(v) if (v %in% names(ev)) ev[[v]] else TRUE)
    keep <- !sc %in% names(ev)
    g <- do.call(`[`, c(list(log(f)), idx, list(drop = FALSE)))
    if (!any(keep)) { const <- const + as.vector(g); next }
    g <- array(g, dim = dim(f)[keep], dimnames = dimnames(f)[keep])
    out[[length(out) + 1L]] <- g
  }
  list(factors = out, const = const)
}

# Is the factor graph of the model given the evidence (codes `ev`) a forest?
bn_is_forest <- function(model, ev) {
  red <- bn_reduce(model, ev)
  hidden <- setdiff(model$vars, names(ev))
  edges <- sum(vapply(red$factors, function(f) length(dim(f)), integer(1)))
  nodes <- length(hidden) + length(red$factors)
  # union-find over variables and factors
  parent <- seq_len(nodes)
  find <- function(i) { while (parent[i] != i) i <- parent[i]; i }
  comps <- nodes
  for (j in seq_along(red$factors)) for (v in bn_scope(red$factors[[j]])) {
    a <- find(match(v, hidden)); b <- find(length(hidden) + j)
    if (a == b) return(FALSE)
    parent[a] <- b
    comps <- comps - 1L
  }
  edges == nodes - comps
}

# Message passing on the (forest) factor graph in the log domain, with
# `op` = log_sum_exp (sum-product, section 2.3.2) or max (max-product,
# section 2.3.3).  Returns the beliefs of the variables, the upward
# messages, the BFS structure and the reduced factors.
bn_messages <- function(model, ev, op) {
  red <- bn_reduce(model, ev)
  fs <- red$factors
  hidden <- setdiff(model$vars, names(ev))
  nv <- length(hidden)
  scopes <- lapply(fs, bn_scope)
  adj <- c(lapply(hidden, function(v) nv + which(vapply(scopes, function(s) v %in% s, logical(1)))),
           lapply(scopes, function(s) match(s, hidden)))
  card <- lengths(model$levels[hidden])
  msg <- new.env(hash = TRUE)
  key <- function(a, b) paste(a, b)
  get_msg <- function(a, b) msg[[key(a, b)]]
  # message from node a to node b
  send <- function(a, b) {
    if (a <= nv) {                               # variable -> factor
      m <- numeric(card[a])
      for (g in setdiff(adj[[a]], b)) m <- m + get_msg(g, a)
    } else {                                     # factor -> variable
      f <- fs[[a - nv]]
      vs <- adj[[a]]
      for (j in seq_along(vs)) if (vs[j] != b) f <- sweep(f, j, get_msg(vs[j], a), `+`)
      m <- as.vector(apply(f, match(b, vs), op))
    }
    assign(key(a, b), m, envir = msg)
  }
  # BFS from a root in each component
  seen <- logical(nv + length(fs))
  order <- integer()
  up <- integer(nv + length(fs))
  for (r in seq_len(nv)) {
    if (seen[r]) next
    queue <- r
    seen[r] <- TRUE
    while (length(queue)) {
      a <- queue[1L]; queue <- queue[-1L]
      order <- c(order, a)
      for (b in adj[[a]]) if (!seen[b]) { seen[b] <- TRUE; up[b] <- a; queue <- c(queue, b) }
    }
  }
  for (a in rev(order)) if (up[a] > 0L) send(a, up[a])
  for (a in order) for (b in adj[[a]]) if (b != up[a]) send(a, b)
  beliefs <- lapply(seq_len(nv), function(a) {
    m <- numeric(card[a])
    for (g in adj[[a]]) m <- m + get_msg(g, a)
    m
  })
  names(beliefs) <- hidden
  list(beliefs = beliefs, get_msg = get_msg, order = order, up = up, adj = adj, fs = fs,
       nv = nv, hidden = hidden, const = red$const)
}

# The roots of the BFS forest (one per connected component).
bn_roots <- function(mp) mp$order[mp$up[mp$order] == 0L]

#' Exact marginals of a discrete Bayesian network or factor model
#'
#' The posterior marginal distribution of every hidden variable given the
#' evidence, by enumerating every joint assignment of the hidden variables
#' (`"enumerate"`), or by sum-product message passing (`"sum_product"`;
#' Pearl 1988, Kschischang, Frey and Loeliger 2001), exact when the factor graph restricted to
#' the hidden variables is a tree or a forest (for a Bayesian network: a
#' polytree, e.g. a tree where each node has at most one parent).
#'
#' @param model A [bayes_net()] or [factor_model()].
#' @param evidence A named list (or vector) of observed levels, or `NULL`.
#' @param method `"auto"` (sum-product on trees, enumeration otherwise),
#'   `"enumerate"` or `"sum_product"`.
#' @return An object of class `mcmix_bn_marginals`: a named list of
#'   probability vectors, with attribute `log_evidence`, the log of the
#'   normalising constant (for a Bayesian network, `log P(evidence)`).
#' @references Pearl, J. (1988). *Probabilistic Reasoning in Intelligent
#'   Systems*. Morgan Kaufmann.
#'
#'   Kschischang, F. R., Frey, B. J. and Loeliger, H.-A. (2001). Factor
#'   graphs and the sum-product algorithm. *IEEE Transactions on Information
#'   Theory* 47, 498-519.
#'
#'   Koller, D. and Friedman, N. (2009). *Probabilistic Graphical Models:
#'   Principles and Techniques*. MIT Press.
#' @seealso [posterior_marginals()] for Gibbs estimates, [bn_map()]
#' @examples
#' bn_marginals(bayes_net_asia(), list(xray = "yes", smoke = "yes"))
#' @export
bn_marginals <- function(model, evidence = NULL, method = c("auto", "enumerate", "sum_product")) {
  bn_check_model(model)
  method <- match_choice(method, c("auto", "enumerate", "sum_product"), "method")
  ev <- bn_evidence(model, evidence)
  hidden <- setdiff(model$vars, names(ev))
  if (!length(hidden)) bn_stop("`evidence` observes every variable; there is nothing to infer.")
  tree <- bn_is_forest(model, ev)
  if (method == "auto") method <- if (tree) "sum_product" else "enumerate"
  if (method == "sum_product") {
    if (!tree)
      bn_stop("`method = \"sum_product\"` needs a tree-structured model given the evidence; use \"enumerate\".")
    mp <- bn_messages(model, ev, log_sum_exp)
    roots <- bn_roots(mp)
    logz <- mp$const + sum(vapply(roots, function(r) log_sum_exp(mp$beliefs[[r]]), numeric(1)))
    out <- lapply(mp$beliefs, function(b) exp(b - log_sum_exp(b)))
  } else {
    en <- bn_enumerate(model, ev)
    logz <- log_sum_exp(en$lp)
    w <- exp(en$lp - logz)
    out <- lapply(hidden, function(v)
      vapply(seq_along(model$levels[[v]]), function(k) sum(w[en$X[, v] == k]), numeric(1)))
    names(out) <- hidden
  }
  if (!is.finite(logz)) bn_stop("`evidence` has probability zero under the model.")
  for (v in hidden) names(out[[v]]) <- model$levels[[v]]
  structure(out, log_evidence = logz, method = method, class = "mcmix_bn_marginals")
}

#' Most probable assignment of a discrete Bayesian network or factor model
#'
#' The MAP assignment of the hidden variables given the evidence,
#' \eqn{\arg\max_y P(y \mid x)}: by enumeration, by max-product message
#' passing with back-tracking on tree-structured models (Koller and Friedman
#' 2009, chapter 13), or by annealed Gibbs sampling (Geman and Geman 1984)
#' followed by iterated conditional modes (Besag 1986; any model, no
#' guarantee).
#'
#' @inheritParams bn_marginals
#' @param method `"auto"` (max-product on trees, else enumeration when
#'   feasible, else annealing), `"enumerate"`, `"max_product"` or `"anneal"`.
#' @param schedule,restarts,max_icm For `"anneal"`: the powers of the
#'   annealed sweeps (see [map_partition()]), the number of runs from
#'   random initial states, and the largest number of ICM sweeps.
#' @param blocks For `"anneal"`: blocks of hidden variables updated jointly
#'   (see [sample_posterior()]).
#' @return An object of class `mcmix_bn_map`: `state` (a named character
#'   vector, the level of every hidden variable), `log_prob` (the log of the
#'   product of the factors there, i.e. `log P(state, evidence)` for a
#'   Bayesian network) and `method`.
#' @references Koller, D. and Friedman, N. (2009), chapter 13; see
#'   [bn_marginals()]. Geman, S. and Geman, D. (1984) and Besag, J. (1986),
#'   see [map_partition()].
#' @examples
#' bn_map(bayes_net_asia(), list(xray = "yes", dysp = "yes"))
#' @export
bn_map <- function(model, evidence = NULL,
                   method = c("auto", "enumerate", "max_product", "anneal"),
                   schedule = exp(seq(0, log(100), length.out = 200)), restarts = 5,
                   max_icm = 100, blocks = NULL) {
  bn_check_model(model)
  method <- match_choice(method, c("auto", "enumerate", "max_product", "anneal"), "method")
  ev <- bn_evidence(model, evidence)
  hidden <- setdiff(model$vars, names(ev))
  if (!length(hidden)) bn_stop("`evidence` observes every variable; there is nothing to infer.")
  # the annealing arguments are checked whatever the method
  schedule <- check_schedule(schedule)   # R/checks.R
  restarts <- check_count_max(restarts, "restarts", 1L, 1e5, "runs")
  max_icm <- check_count_max(max_icm, "max_icm", 0L, 1e6, "sweeps")
  bn_blocks(model, hidden, blocks, ev)
  if (method == "auto")
    method <- if (bn_is_forest(model, ev)) "max_product" else
      if (bn_can_enumerate(model, hidden)) "enumerate" else "anneal"
  codes <- switch(method,
    enumerate = {
      en <- bn_enumerate(model, ev)
      en$X[which.max(en$lp), hidden]
    },
    max_product = {
      if (!bn_is_forest(model, ev))
        bn_stop("`method = \"max_product\"` needs a tree-structured model given the evidence; use \"enumerate\" or \"anneal\".")
      bn_max_product(model, ev)
    },
    anneal = bn_anneal(model, ev, hidden, schedule, restarts, max_icm, blocks))
  x <- stats::setNames(integer(length(model$vars)), model$vars)
  x[hidden] <- codes
  x[names(ev)] <- ev
  lp <- bn_log_joint(model, matrix(x, 1L, dimnames = list(NULL, model$vars)))
  if (!is.finite(lp)) bn_stop("`evidence` has probability zero under the model (or no state of positive probability was found).")
  state <- vapply(hidden, function(v) model$levels[[v]][x[[v]]], character(1))
  structure(list(state = state, log_prob = lp, method = method), class = "mcmix_bn_map")
}

# Max-product with back-tracking (section 2.3.3): the root of each tree
# takes the argmax of its max-marginal, then each factor, reached from its
# assigned parent variable, sets its child variables to the best joint
# value given the parent and the upward messages of the children.
bn_max_product <- function(model, ev) {
  mp <- bn_messages(model, ev, max)
  x <- integer(mp$nv)
  for (a in mp$order) {
    if (mp$up[a] == 0L) { x[a] <- which.max(mp$beliefs[[a]]); next }
    if (a <= mp$nv) next                          # set by its parent factor
    f <- mp$fs[[a - mp$nv]]
    vs <- mp$adj[[a]]
    p <- mp$up[a]
    for (j in seq_along(vs)) if (vs[j] != p) f <- sweep(f, j, mp$get_msg(vs[j], a), `+`)
    idx <- lapply(vs, function(v) if (v == p) x[p] else TRUE)
    g <- do.call(`[`, c(list(f), idx, list(drop = FALSE)))
    best <- arrayInd(which.max(g), dim(g))
    for (j in seq_along(vs)) if (vs[j] != p) x[vs[j]] <- best[j]
  }
  x
}

# Annealed Gibbs then ICM from `restarts` starts (arguments checked by bn_map()).
bn_anneal <- function(model, ev, hidden, schedule, restarts, max_icm, blocks) {
  spec <- bn_spec(model, ev, hidden, bn_blocks(model, hidden, blocks, ev))
  runs <- lapply(seq_len(restarts), function(r)
    .Call(C_ffi_bn_anneal, spec, bn_init_state(model, ev), as.double(schedule), max_icm))
  best <- runs[[which.max(vapply(runs, `[[`, numeric(1), "log_prob"))]]
  (best$x + 1L)[match(hidden, model$vars)]
}

#' @export
print.mcmix_bn_map <- function(x, ...) {
  cat("MAP assignment (", x$method, ")\n", sep = "")
  print(noquote(x$state))
  cat("log probability: ", format(x$log_prob, digits = 8), "\n", sep = "")
  invisible(x)
}
