# One Dirichlet / Pitman-Yor mixture chain over shards of the data
# (src/shard_mixture.h has the sweep and why its draws do not depend on the
# workers; R/chains_shard.R the sharded layer). The session holds the clusters'
# statistics, sizes and the per-shard member counts (O(S K)); the labels
# stay with their shards. Per sweep the session sends the clusters'
# parameters and weights and receives per-cluster statistics; the split /
# merge moves send two launch points' rows and side statistics along the
# shards that hold members of the union.
#
# The chain is a kernel (R/chains.R) whose chunks are single sweeps, each
# run with interrupts held until it ends, so the workers' labels always
# match the session's state of the last completed sweep: Ctrl-C returns the
# fit of the sweeps done, and extend() continues it bit for bit on the
# same workers. A chain whose workers lost its labels (a dead worker, a new
# cluster, a fit read back with readRDS()) continues from its clusters'
# statistics: the labels are drawn again given them (one restricted Gibbs
# proposal per observation), a valid start of a continued chain, not the
# draws of an unbroken run (a classed warning says so).

# --- the workers' operations on one shard ------------------------------------

shard_info <- function(sh, st, K) c(K, sh$block0, 0, st$threads)

# The labels of chain a$chain on shard sh, and the version (sweeps done)
# of that chain's labels on this worker. Each chain has two label vectors
# that trade places: the labels (zs) and the other one (alt), which holds
# the proposals of a sweep from its proposal pass to its commit, and then
# the labels of the sweep's start (the undo of a sweep the session did not
# record, of version snapv) until the next proposal pass. The sides (side)
# are shared, being used within one move.
shard_z <- function(sh, a) {
  z <- sh$zs[[as.character(a$chain)]]
  if (is.null(z)) stop_sync()
  z
}
shard_set_z <- function(sh, a, z) sh$zs[[as.character(a$chain)]] <- z
shard_alt <- function(sh, a) {
  ch <- as.character(a$chain)
  b <- sh$alt[[ch]]
  if (is.null(b)) b <- sh$alt[[ch]] <- integer(nrow(sh$x))
  b
}
# the two vectors trade places (no copy)
shard_swap <- function(sh, a) {
  ch <- as.character(a$chain)
  z <- sh$zs[[ch]]
  sh$zs[[ch]] <- shard_alt(sh, a)
  sh$alt[[ch]] <- z
}
shard_version <- function(sh, a) sh$ver[[as.character(a$chain)]]
shard_set_version <- function(sh, a, v) sh$ver[[as.character(a$chain)]] <- v
# TRUE when the shard holds a sweep of the chain that the session did not
# record (an interrupt served as the sweep ended, before its chunk was
# committed; an error in a move): one version ahead of a$version, with the
# labels of that sweep's start in alt (see commit).
shard_ahead <- function(sh, a)
  !identical(shard_version(sh, a), a$version) &&
    identical(sh$snapv[[as.character(a$chain)]], a$version)
stop_sync <- function()
  base::stop(errorCondition(paste0(
    "The workers' labels do not match this fit (it was continued elsewhere, or the ",
    "workers were restarted): continue it with extend(fit, iter, cl = ), which loads ",
    "the shards again."), class = c("mcmix_error_shard_sync", "mcmix_error")))

shard_ops$setup <- function(sh, a, st) {
  st$spec <- a$spec
  st$threads <- a$threads
  sh$block0 <- a$block0[[as.character(sh$id)]]
  NULL
}
shard_ops$rows <- function(sh, a, st) sh$x[a$rows[[as.character(sh$id)]], , drop = FALSE]
shard_ops$one <- function(sh, a, st) {
  shard_set_z(sh, a, integer(nrow(sh$x)))
  NULL
}
shard_ops$warm <- function(sh, a, st) {
  z <- integer(nrow(sh$x))
  .Call(C_ffi_shard_warm, st$spec, sh$x, z, shard_info(sh, st, 1), a$xs, a$lab)
  shard_set_z(sh, a, z)
  tabulate(z + 1L, a$K)
}
shard_ops$stats <- function(sh, a, st) {
  r <- .Call(C_ffi_shard_stats, st$spec, sh$x, shard_z(sh, a), shard_info(sh, st, a$K))
  shard_set_version(sh, a, a$version)
  r
}
shard_ops$propose <- function(sh, a, st) {
  # The chain's state is that of the last completed sweep: a sweep the
  # session did not record is undone by taking back the labels of its
  # start (shard_ahead()).
  ch <- as.character(a$chain)
  shard_z(sh, a)
  if (!identical(shard_version(sh, a), a$version)) {
    if (!shard_ahead(sh, a)) stop_sync()
    shard_swap(sh, a)
    shard_set_version(sh, a, a$version)
  }
  sh$snapv[[ch]] <- NULL                     # alt takes the proposals
  # the proposals with their risk, and the statistics of the labels they
  # give, kept for the commit unless a scan refuses some (accept)
  r <- .Call(C_ffi_shard_propose, st$spec, sh$x, shard_z(sh, a), shard_alt(sh, a),
             shard_info(sh, st, a$K), a$theta, a$logpi, a$seed)
  sh$pend[[ch]] <- r[c("stats", "size")]
  r$risk
}
# the restart from statistics: every proposal taken
shard_ops$redraw <- function(sh, a, st) {
  if (is.null(sh$zs[[as.character(a$chain)]])) shard_set_z(sh, a, integer(nrow(sh$x)))
  .Call(C_ffi_shard_propose, st$spec, sh$x, NULL, shard_alt(sh, a), shard_info(sh, st, a$K),
        a$theta, a$logpi, a$seed)$size
}
shard_ops$accept <- function(sh, a, st) {
  sh$pend[[as.character(a$chain)]] <- NULL   # the commit sums the accepted labels
  .Call(C_ffi_shard_accept, shard_z(sh, a), shard_alt(sh, a), a$cnt)
}
shard_ops$commit <- function(sh, a, st) {
  # the accepted proposals become the labels; those of the sweep's start
  # stay in alt (version v) until the next proposal pass
  ch <- as.character(a$chain)
  r <- sh$pend[[ch]]
  sh$pend[[ch]] <- NULL
  v <- shard_version(sh, a)
  shard_swap(sh, a)
  sh$snapv[[ch]] <- v
  if (is.null(r))
    r <- .Call(C_ffi_shard_stats, st$spec, sh$x, shard_z(sh, a), shard_info(sh, st, a$K))
  shard_set_version(sh, a, a$version)
  r
}
shard_ops$nth <- function(sh, a, st) {
  i <- .Call(C_ffi_shard_nth, shard_z(sh, a), a$k, a$r)
  list(i = i, row = sh$x[i + 1, , drop = FALSE])
}
shard_ops$apply <- function(sh, a, st) {
  .Call(C_ffi_shard_apply, shard_z(sh, a), sh$side, a$op, a$map)
  NULL
}
shard_ops$labels <- function(sh, a, st) {
  if (!is.null(a$version) && shard_ahead(sh, a))
    return(sh$alt[[as.character(a$chain)]])    # the labels the session recorded
  shard_z(sh, a)
}
# the sequential allocation pass along this worker's shards (a$carry from
# the previous worker): list(st, n, lq, n1 = side-1 members per shard)
shard_ops$sams <- function(st, ids, a) {
  cr <- a$carry
  for (i in ids) {
    if (cr$lq == -Inf) break
    sh <- st[[as.character(i)]]
    sk <- a$skip[[as.character(i)]]
    if (is.null(sk)) sk <- c(-1, -1)
    n1 <- cr$n[2L]
    r <- .Call(C_ffi_shard_sams, st$spec, sh$x, shard_z(sh, a), sh$side, shard_info(sh, st, a$K),
               c(a$a, a$b, sk, a$discount, a$score, cr$lq, a$bound), a$seed, cr$st, cr$n)
    cr$st <- r$st
    cr$n <- r$n
    cr$lq <- r$lq
    cr$n1[[as.character(i)]] <- r$n[2L] - n1
  }
  cr
}
shard_ops_chained <- c(shard_ops_chained, "sams")

# --- the session -------------------------------------------------------------

# The clusters' statistics of per-shard results (list of list(stats, size))
# combined in shard order, and the per-shard counts.
sharded_reduce <- function(spec, res) {
  list(stats = .Call(C_ffi_shard_combine, spec, lapply(res, `[[`, "stats")),
       cnt = do.call(rbind, lapply(res, `[[`, "size")))
}

# The row of shard `s` and local index of the r-th member (0-based) of
# cluster k (0-based).
sharded_locate <- function(h, state, k, r) {
  cum <- cumsum(state$cnt[, k + 1L])
  s <- which(cum > r)[1L]
  before <- if (s > 1L) cum[s - 1L] else 0
  v <- shard_call(h, "nth", list(k = k, r = r - before), ids = s)[[1L]]
  if (v$i < 0) stop_internal("a launch point was not found on its shard")
  list(shard = s, i = v$i, row = v$row)
}

sharded_move <- function(h, spec, state, thin) {
  prior <- c(state$alpha, state$discount)
  pl <- .Call(C_ffi_shard_plan, spec, state$stats, state$size, prior, thin)
  mv <- pl$move
  if (mv[1L] == 0) return(state)
  split <- mv[1L] == 1
  a <- mv[2L]
  b <- mv[3L]
  li <- sharded_locate(h, state, a, mv[4L])
  lj <- sharded_locate(h, state, b, mv[5L])
  st <- c(.Call(C_ffi_shard_stats_of, spec, li$row, NULL, NULL),
          .Call(C_ffi_shard_stats_of, spec, lj$row, NULL, NULL))
  skip <- list()
  for (s in unique(c(li$shard, lj$shard)))
    skip[[as.character(s)]] <- c(if (li$shard == s) li$i else -1, if (lj$shard == s) lj$i else -1)
  ids <- which(state$cnt[, a + 1L] > 0L | state$cnt[, b + 1L] > 0L)
  cr <- shard_call(h, "sams", list(
    carry = list(st = st, n = c(1, 1), lq = 0, n1 = list()), a = a, b = b, skip = skip,
    discount = state$discount, score = as.double(!split), seed = pl$seed,
    bound = if (split) -Inf else mv[7L], K = length(state$size)), ids = ids, chained = TRUE)
  state$n_prop <- state$n_prop + 1
  if (!.Call(C_ffi_shard_decide, spec, state$stats, state$size, prior, thin, mv, cr$st,
             cr$n, cr$lq))
    return(state)
  state$n_accept <- state$n_accept + 1
  K <- length(state$size)
  ss <- nrow(state$stats)
  if (split) {
    shard_call(h, "apply", list(op = c(1, a, K, 0)), ids = ids)
    n1 <- integer(h$S)
    n1[as.integer(names(cr$n1))] <- as.integer(unlist(cr$n1))
    n1[lj$shard] <- n1[lj$shard] + 1L
    state$stats[, a + 1L] <- cr$st[seq_len(ss)]
    state$stats <- cbind(state$stats, cr$st[ss + seq_len(ss)])
    state$size <- c(state$size, as.integer(cr$n[2L]))
    state$size[a + 1L] <- as.integer(cr$n[1L])
    state$cnt[, a + 1L] <- state$cnt[, a + 1L] - n1
    state$cnt <- cbind(state$cnt, n1)
  } else {
    lo <- min(a, b)
    hi <- max(a, b)
    last <- K - 1
    moved <- which(state$cnt[, hi + 1L] > 0L | state$cnt[, last + 1L] > 0L)
    shard_call(h, "apply", list(op = c(2, lo, hi, last)), ids = moved)
    state$stats[, lo + 1L] <- .Call(C_ffi_shard_stats_of, spec, NULL,
                                    state$stats[, lo + 1L], state$stats[, hi + 1L])
    state$stats[, hi + 1L] <- state$stats[, last + 1L]
    state$stats <- state$stats[, -(last + 1L), drop = FALSE]
    state$size[lo + 1L] <- state$size[lo + 1L] + state$size[hi + 1L]
    state$size[hi + 1L] <- state$size[last + 1L]
    state$size <- state$size[-(last + 1L)]
    state$cnt[, lo + 1L] <- state$cnt[, lo + 1L] + state$cnt[, hi + 1L]
    state$cnt[, hi + 1L] <- state$cnt[, last + 1L]
    state$cnt <- state$cnt[, -(last + 1L), drop = FALSE]
  }
  dimnames(state$cnt) <- NULL
  state
}

# One sweep; list(state, ll).
sharded_sweep <- function(h, spec, state, moves, thin) {
  K <- length(state$size)
  prior <- c(state$alpha, state$discount)
  p <- .Call(C_ffi_shard_params, spec, state$stats, state$size, prior)
  res <- shard_call(h, "propose", list(theta = p$theta, logpi = p$logpi, seed = p$seed, K = K,
                                       version = state$version))
  # the site-by-site acceptance in global index order, shard by shard
  # (src/shard_mixture.h): a shard scans only when a cluster may empty there
  cnt <- as.double(state$size)
  for (s in seq_len(h$S)) {
    least <- as.double(res[[s]][seq_len(K)])
    total <- as.double(res[[s]][K + seq_len(K)])
    if (any(least < .Machine$integer.max & cnt + least < 2))
      cnt <- as.double(shard_call(h, "accept", list(cnt = as.integer(cnt)), ids = s)[[1L]])
    else cnt <- cnt + total
  }
  state$version <- state$version + 1
  r <- sharded_reduce(spec, shard_call(h, "commit", list(K = K, version = state$version)))
  state$stats <- r$stats
  state$cnt <- r$cnt
  state$size <- as.integer(colSums(r$cnt))
  if (!identical(as.double(state$size), cnt))
    stop_internal("the shards' counts differ from the acceptance scan")
  for (m in seq_len(moves)) state <- sharded_move(h, spec, state, thin)
  # the apply() of the moves changed labels: the version marks the sweep's end
  fin <- .Call(C_ffi_shard_finish_sweep, spec, state$stats, state$size, prior)
  state$alpha <- fin[2L]
  state$discount <- fin[3L]
  list(state = state, ll = fin[1L])
}

# The chain's state from the shards' labels as they are (after a start).
sharded_state <- function(h, spec, K, alpha, discount, version = 0) {
  r <- sharded_reduce(spec, shard_call(h, "stats", list(K = K, version = version)))
  list(stats = r$stats, size = as.integer(colSums(r$cnt)), cnt = r$cnt, alpha = alpha,
       discount = discount, version = version, n_accept = 0, n_prop = 0)
}

# Drop clusters without members (labels renumbered on the shards).
sharded_drop_empty <- function(h, sizes) {
  used <- sizes > 0
  if (all(used)) return(length(sizes))
  map <- as.integer(cumsum(used) - 1L)
  shard_call(h, "apply", list(op = c(3, 0, 0, 0), map = map))
  sum(used)
}

# Tests (check_moves of dp_control_testing()): the session's statistics,
# sizes and per-shard counts against those recomputed from the shards'
# labels (an internal error otherwise); the labels (1-based).
sharded_check <- function(h, spec, state) {
  K <- length(state$size)
  r <- sharded_reduce(spec, shard_call(h, "check", list(K = K)))
  if (!identical(r$cnt, state$cnt) ||
      !isTRUE(all.equal(r$stats, state$stats, tolerance = 1e-8, check.attributes = FALSE)))
    stop_internal("the session's clusters differ from the shards' labels")
  unlist(shard_call(h, "labels")) + 1L
}
shard_ops$check <- function(sh, a, st)
  .Call(C_ffi_shard_stats, st$spec, sh$x, shard_z(sh, a), shard_info(sh, st, a$K))

shard_ops$moments <- function(sh, a, st) {
  x <- sh$x
  m <- colMeans(x)
  list(n = as.double(nrow(x)), mean = m, M2 = crossprod(x) - nrow(x) * tcrossprod(m))
}

# The families a sharded chain takes: real-valued, conjugate, with
# stats_combine (their data-driven defaults need only the data's mean and
# covariance, sharded_prepare()).
sharded_families <- c("gaussian_niw", "gaussian_diag", "gaussian_iso", "gaussian_mean")

# The family prepared as on the whole data: its data-driven defaults (mean
# and covariance) from the shards' moments combined in shard order (Chan,
# Golub and LeVeque 1983), through a proxy of 2 D rows with exactly that
# mean and covariance.
sharded_prepare <- function(family, h) {
  mo <- shard_call(h, "moments")
  n <- 0
  mean <- 0
  M2 <- 0
  for (r in mo) {
    if (n == 0) {
      n <- r$n; mean <- r$mean; M2 <- r$M2
      next
    }
    tot <- n + r$n
    delta <- r$mean - mean
    mean <- mean + delta * r$n / tot
    M2 <- M2 + r$M2 + tcrossprod(delta) * (n * r$n / tot)
    n <- tot
  }
  D <- length(mean)
  cv <- M2 / max(1, n - 1)
  e <- eigen((cv + t(cv)) / 2, symmetric = TRUE)
  sd <- sqrt(pmax(e$values, 0) * (2 * D - 1) / 2)
  off <- t(e$vectors) * sd                     # row j: sd_j v_j
  proxy <- rbind(sweep(off, 2, mean, "+"), sweep(-off, 2, mean, "+"))
  prep <- family_prepare(family, proxy)
  prep$x <- NULL
  prep$N <- n
  prep
}

# The run of sample_posterior(dp_mixture(...), data, cl = , shards = ).
sharded_run <- function(model, data, cl, shards, iter, burnin, thin, chains, init, progress,
                        control, threads, call) {
  if (!inherits(model, "mcmix_dp_mixture"))
    stop_input("A sharded run (`cl` or shards) needs a dp_mixture() model.", "model")
  if (!(model$family$name %in% sharded_families))
    stop_input(sprintf(paste0("A sharded run needs one of the families %s; `model` has %s."),
                       or_list(sharded_families), model$family$name), "model")
  if (inherits(model$discount, "mcmix_beta_prior"))
    stop_input("A sharded run takes a fixed `discount` (no Beta prior).", "model")
  src <- if (inherits(data, "mcmix_shard_source")) data
         else {
           x <- if (is.data.frame(data)) as.matrix(data) else data
           if (is.null(dim(x)) && is.numeric(x)) x <- matrix(x, ncol = 1L)
           if (!is.matrix(x) || !is.numeric(x))
             stop_input(sprintf(paste0("`data` must be a numeric matrix or a shard_source() ",
                                       "for a sharded run, not %s."), describe_value(data)),
                        "data")
           shard_source_matrix(x, shards)
         }
  if (!is.null(init) && !(is.character(init) && length(init) == 1L &&
                          init %in% c("subsample", "one")))
    stop_input(sprintf("`init` of a sharded run must be \"subsample\" or \"one\", not %s.",
                       describe_value(init)), "init")
  cl <- shard_cluster(cl)
  sd <- sharded_data(src, cl, threads)
  if (is.null(init)) init <- if (warm_start_default(sd$N)) "subsample" else "one"
  sd$prepared <- sharded_prepare(model$family, sd$handle)
  kernel <- sharded_kernel(model, sd, init, control)
  finish <- function(fit) {
    fit$family <- sd$prepared
    fit$N <- sd$N
    fit$row_names <- NULL
    fit$algorithm <- "sharded"
    fit$mixture <- "dp"
    class(fit) <- unique(c("mcmix_sharded_fit", class(fit)))
    fit
  }
  # a dead worker's error holds the fit so far (e$fit), made a sharded fit
  # here so that extend(e$fit, cl = ) continues it
  fit <- withCallingHandlers(
    run_fit(kernel, iter = iter, burnin = burnin, thin = thin, chains = chains,
            cores = 1L, backend = "sequential", progress = progress,
            labels = isTRUE(control$check_moves), psm = FALSE, model = model, data = sd,
            call = call, kind = "dp", class = "mcmix_mixture_fit"),
    mcmix_chain_error = function(e) {
      e$fit <- finish(e$fit)
      base::stop(e)
    })
  finish(fit)
}

# The data of a sharded fit: its source, the live handle (workers holding
# the shards), the shards' sizes and block offsets, and the prepared family.
sharded_data <- function(src, cl, threads, family = NULL) {
  h <- shard_handle(cl, src, threads)
  dims <- shard_load(h, src)
  shard_live[[h$run]] <- TRUE
  if (length(unique(dims[, 2L])) != 1L)
    stop_input(sprintf("The shards of `data` differ in their number of columns (%s).",
                       list_some(unique(dims[, 2L]), 5L)), "data")
  sd <- structure(list(source = src, handle = h, n = as.double(dims[, 1L]),
                       N = sum(as.double(dims[, 1L])), dim = dims[1L, 2L]),
                  class = "mcmix_sharded_data")
  if (sd$N > .Machine$integer.max)
    stop_input(sprintf("A sharded chain takes at most %d observations, not %.0f.",
                       .Machine$integer.max, sd$N), "data")
  blocks <- ceiling(sd$n / shard_block_rows)
  b0 <- c(0, cumsum(blocks)[-length(blocks)])
  sd$block0 <- stats::setNames(as.list(b0), as.character(seq_len(h$S)))
  sd
}

#' @export
print.mcmix_sharded_data <- function(x, ...) {
  cat(sprintf("<mcmix sharded data> %.0f observations of dimension %d in %d shards\n",
              x$N, x$dim, length(x$n)))
  invisible(x)
}

# Set the workers up for the chain (spec, block offsets, threads).
sharded_setup <- function(sd, spec) {
  h <- sd$handle
  shard_call(h, "setup", list(spec = spec, block0 = sd$block0, threads = h$threads))
  h$ready <- TRUE
}

sharded_kernel <- function(model, sd, init, control) {
  h <- sd$handle
  if (is.null(control)) control <- dp_control()
  prepared <- sd$prepared
  random_alpha <- inherits(model$alpha, "mcmix_gamma_prior")
  alpha0 <- if (random_alpha) model$alpha$shape / model$alpha$rate else as.double(model$alpha)
  d0 <- as.double(model$discount)
  spec <- list(family = prepared$name, dim = as.integer(prepared$dim),
               hyper = as.double(prepared$hyper), algorithm = "sharded",
               alpha_prior = if (random_alpha) c(model$alpha$shape, model$alpha$rate)
                             else numeric(),
               discount_prior = numeric())
  sharded_setup(sd, spec)
  moves <- if (is.null(control$sc_moves)) 4L else as.integer(control$sc_moves)
  # (tests: dp_control_testing() lowers the thinning size and asks for the
  # state to be verified and the labels kept after every sweep)
  thin_size <- if (is.null(control$sc_thin)) mcmix_option("shard_thin") else control$sc_thin
  check <- isTRUE(control$check_moves)
  warm <- if (identical(as.vector(init), "subsample") && sd$N >= 2) warm_start_settings(sd$N)
  sm_control <- as.list(vapply(dp_algorithms$split_merge$control(control, model,
                                                                  if (is.null(warm)) 2 else warm$m),
                               as.double, 0))
  trace_names <- c("n_clusters", if (random_alpha) "alpha", "log_lik")
  step_on <- function(sd) {
    force(sd)
    function(state, n, thin, offset, warmup) {
      h <- sd$handle
      if (!isTRUE(h$ready)) sharded_setup(sd, spec)
      h$chain <- state$chain
      if (isTRUE(state$resync)) state <- sharded_resync(sd, spec, state)
      keep <- if (warmup) integer() else which((offset + seq_len(n)) %% thin == 0)
      tr <- matrix(NA_real_, length(keep), length(trace_names),
                   dimnames = list(NULL, trace_names))
      lab <- if (check) matrix(NA_integer_, length(keep), sd$N)
      r <- 0L
      for (g in seq_len(n)) {
        # one sweep with interrupts held: the workers' labels stay those of
        # the session's state (an interrupt is served between sweeps)
        sw <- suspendInterrupts(sharded_sweep(h, spec, state, moves, thin_size))
        state <- sw$state
        if ((offset + g) %in% (offset + keep)) {
          r <- r + 1L
          tr[r, ] <- c(length(state$size), if (random_alpha) state$alpha, sw$ll)
          if (check) lab[r, ] <- sharded_check(h, spec, state)
        }
      }
      list(state = state, draws = list(traces = tr, labels = lab, extra = NULL))
    }
  }
  init_on <- function(sd) {
    force(sd)
    function(chain) {
      h <- sd$handle
      if (!isTRUE(h$ready)) sharded_setup(sd, spec)
      h$chain <- chain
      K <- 1L
      if (is.null(warm)) {
        shard_call(h, "one")
      } else {
        K <- sharded_warm(sd, spec, warm, sm_control, alpha0, d0)
      }
      st <- sharded_state(h, spec, K, alpha0, d0)
      st$chain <- chain
      st
    }
  }
  new_kernel("dp_sharded", init = function(chain) unbound_step(),
             step = unbound_step, trace_names = trace_names,
             spec = spec, N = sd$N, chunk_fixed = 1L,
             counters = TRUE, carried_params = FALSE,
             init_deferred = TRUE,
             init_label = warm$label,
             bind = function(data) list(step = step_on(data), init = init_on(data)))
}

# The warm start (R/mixture_warm.R) on sharded data: the evenly spaced
# subsample gathered from the shards, its partition by the small-data
# sampler, every observation allocated on its shard; returns K.
sharded_warm <- function(sd, spec, warm, sm_control, alpha0, d0) {
  h <- sd$handle
  idx <- unique(round(seq(1, sd$N, length.out = warm$m)))
  ends <- cumsum(sd$n)
  sh <- findInterval(idx - 1, ends) + 1L
  loc <- idx - c(0, ends)[sh]
  rows <- split(loc, sh)
  got <- shard_call(h, "rows", list(rows = rows), ids = as.integer(names(rows)))
  xs <- do.call(rbind, got)
  state0 <- function(labels)
    list(labels = labels, alpha = alpha0, discount = d0, params = NULL, aux = NULL,
         stats = NULL, n_accept = 0, n_prop = 0, online = NULL)
  sub <- warm_start_subsample(spec, state0, sm_control, warm, xs)
  K <- sub$K
  sizes <- Reduce(`+`, shard_call(h, "warm", list(xs = xs[sub$keep, , drop = FALSE],
                                                  lab = sub$lab, K = K)))
  sharded_drop_empty(h, sizes)
}

# A chain whose workers lost its labels: the shards reloaded if needed and
# the labels drawn again given the clusters' statistics.
sharded_resync <- function(sd, spec, state) {
  h <- sd$handle
  K <- length(state$size)
  p <- .Call(C_ffi_shard_params, spec, state$stats, state$size, c(state$alpha, state$discount))
  sizes <- Reduce(`+`, shard_call(h, "redraw", list(theta = p$theta, logpi = p$logpi,
                                                    seed = p$seed, K = K)))
  shard_call(h, "take")
  K <- sharded_drop_empty(h, sizes)
  new <- sharded_state(h, spec, K, state$alpha, state$discount, version = state$version)
  new$n_accept <- state$n_accept
  new$n_prop <- state$n_prop
  new$chain <- state$chain
  new
}
shard_ops$take <- function(sh, a, st) {
  shard_swap(sh, a)
  sh$snapv[[as.character(a$chain)]] <- NULL
  NULL
}

# The data of a sharded fit loaded again from their sources on the
# workers of `cl` (extend(); LDA's corpus: R/lda_sharded.R).
shard_reload <- function(sd, cl) UseMethod("shard_reload")
shard_reload.mcmix_sharded_data <- function(sd, cl) {
  new <- sharded_data(sd$source, shard_cluster(cl), sd$handle$threads)
  new$prepared <- sd$prepared
  new
}

# What a chain continues from when its workers lost their part of the
# state, and what is drawn again (the messages of extend()).
shard_state_words <- function(sd) UseMethod("shard_state_words")
shard_state_words.mcmix_sharded_data <- function(sd)
  c("their clusters' statistics", "labels")

# A handle is live when this session made it and its workers still hold
# the run (a fit read back with readRDS() has a copy whose workers are gone).
shard_live <- new.env(parent = emptyenv())

#' @rdname extend
#' @param cl For a sharded fit (`sample_posterior(..., cl = )`), a new
#'   cluster of workers to continue on (after a worker died, or for a fit
#'   read back with [readRDS()]): the shards are loaded again from their
#'   sources and each chain continues from its clusters' statistics (the
#'   labels drawn again given them, with a warning: a valid continuation,
#'   not the draws of an unbroken run). `NULL` continues on the fit's
#'   workers, bit for bit as one longer run.
#' @export
extend.mcmix_sharded_fit <- function(fit, iter, cl = NULL, ...) {
  sd <- fit$data
  h <- sd$handle
  lost <- !is.null(cl) || !isTRUE(shard_live[[h$run]]) || isTRUE(h$dirty)
  words <- shard_state_words(sd)
  stale <- FALSE
  if (!lost) {
    # a chain whose workers' labels moved on (this fit was extended before)
    for (i in seq_along(fit$chains)) {
      st <- fit$chains[[i]]$state
      if (is.null(st)) next
      h$chain <- i
      if (!identical(shard_call(h, "version", list(version = st$version), ids = 1L)[[1L]],
                     st$version)) {
        fit$chains[[i]]$state$resync <- TRUE
        stale <- TRUE
      }
    }
  }
  if (stale)
    warn(sprintf(paste0(
      "This sharded fit was extended before, so the workers' %2$s belong to the later fit: ",
      "its chains continue from %1$s with %2$s drawn again (a valid ",
      "continuation, not the draws of an unbroken run); extend the latest fit instead for ",
      "that."), words[1L], words[2L]), "mcmix_warning_resync")
  if (lost) {
    if (is.null(cl) && !is.null(h$cl))
      stop_input(paste0("The workers of this sharded fit are gone (a dead worker, or a fit ",
                        "read back with readRDS()): give a new cluster as `cl`."), "cl")
    fit$data <- shard_reload(sd, cl)
    for (i in seq_along(fit$chains))
      if (!is.null(fit$chains[[i]]$state)) fit$chains[[i]]$state$resync <- TRUE
    warn(sprintf(paste0(
      "The sharded chains continue from %s on reloaded shards: ",
      "the %s were drawn again given them (a valid continuation, not the draws of ",
      "an unbroken run)."), words[1L], words[2L]), "mcmix_warning_resync")
  }
  NextMethod()
}

#' Labels of a sharded fit
#'
#' Collects the current cluster labels of every observation from the
#' workers of a sharded fit (`sample_posterior(..., cl = )`), in shard
#' order, as they are after the chain's last sweep; the labels of earlier
#' draws are not kept (they stay on the workers and change every sweep).
#'
#' @param fit A sharded fit.
#' @param chain Which chain's labels (each chain's are kept on the workers;
#'   `NULL`, the default: the last chain).
#' @return An integer vector of length `N` (clusters numbered 1..K as in
#'   the fit's last draw); `4 N` bytes, refused beyond
#'   `getOption("mcmix.memory_budget")`.
#' @examples
#' set.seed(1)
#' x <- rbind(matrix(rnorm(200, -3), ncol = 2), matrix(rnorm(200, 3), ncol = 2))
#' fit <- sample_posterior(dp_mixture(gaussian_niw()), x, shards = 2, iter = 20,
#'                         progress = FALSE)
#' table(shard_labels(fit))
#' @export
shard_labels <- function(fit, chain = NULL) {
  if (!inherits(fit, "mcmix_sharded_fit"))
    stop_input(sprintf("`fit` must be a sharded fit (sample_posterior(..., cl = )), not %s.",
                       describe_value(fit)), "fit")
  if (is.null(chain)) chain <- length(fit$chains)
  chain <- check_count_max(chain, "chain", 1L, length(fit$chains), "chains")
  h <- fit$data$handle
  if (!isTRUE(shard_live[[h$run]]) || isTRUE(h$dirty))
    stop_input(paste0("The workers of this sharded fit are gone: continue it with ",
                      "extend(fit, cl = ) first."), "fit")
  check_budget(4 * fit$N, "fit", "the labels of every observation",
               fix = "keep them on the workers")
  st <- fit$chains[[chain]]$state
  if (is.null(st)) stop_input(sprintf("Chain %d has not run yet.", chain), "chain")
  h$chain <- chain
  if (!identical(shard_call(h, "version", list(version = st$version), ids = 1L)[[1L]],
                 st$version))
    stop_input(paste0("The workers' labels of this chain belong to a later fit (the fit was ",
                      "extended since): use the latest fit."), "fit")
  unlist(shard_call(h, "labels", list(version = st$version)), use.names = FALSE) + 1L
}
shard_ops$version <- function(sh, a, st) {
  # a sweep the session did not record is undone by the next one (propose)
  if (shard_ahead(sh, a)) a$version else shard_version(sh, a)
}
