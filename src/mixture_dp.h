/*
 * mixture_dp.h -- Dirichlet / Pitman-Yor process mixture samplers as a
 * table (SEXP-free engine).
 *
 * Every DP/PY algorithm is one row of type mcx_dp_algorithm, defined in
 * its own engine file and listed once in MCX_DP_ALGORITHMS below; one glue
 * routine (ffi_dp_step(), src/ffi_mixture_dp.c) runs any of them after
 * looking the row up by name with mcx_dp_algorithm_find().  The R side has
 * one matching row in `dp_algorithms` (R/mixture_dp.R).
 *
 * Adding an algorithm "foo":
 *   1. src/mixture_foo.c defines `const mcx_dp_algorithm mcx_dp_foo = {...}`
 *      (the row; its state struct and functions stay static in the file);
 *   2. add X(foo) to MCX_DP_ALGORITHMS here;
 *   3. add a `foo = dp_algorithm(...)` row to `dp_algorithms` in
 *      R/mixture_dp.R (its dp_control() settings, flags).
 * Nothing else switches on algorithm names.
 *
 * The row interface (one chunk of one chain, all inside one
 * GetRNGstate()/PutRNGstate() bracket; memory from mcx_alloc):
 *   setup(st, m, p, control, saved)
 *       build the algorithm's state `st` (state_size bytes, zeroed) for the
 *       partition `m` (built from the exported labels and stats) and the
 *       partition prior `p`.  control[j] is the value of the setting
 *       control_names[j] (from dp_control(), always as doubles).  `saved`
 *       holds what the row exported at the end of the previous chunk (its
 *       params and aux blocks; NULL pointers in a fresh state: then draw
 *       them -- setup may use the RNG) and the chunk's number of sweeps.
 *   sweep(st, m, p)
 *       one iteration: moves of the partition, the algorithm's own
 *       variables and the updates of p (alpha, discount) it makes (most
 *       rows call mcx_partition_prior_update() at the end).  Returns the
 *       log-likelihood trace of the iteration.
 *   params(st, m, &rows, &cols)  optional (NULL; or returning NULL: no block): a double block exported
 *       as state$params, a rows x cols matrix (neal8: psize x K);
 *   aux(st, m, &len)           optional (NULL): an integer block exported
 *       as state$aux (e.g. per-observation sub-cluster labels);
 *   counters(st)               optional (NULL): pointer to the two
 *       doubles {accepted, proposed} of Metropolis-Hastings moves, carried
 *       in state$n_accept / state$n_prop across chunks.
 *   capacity(st)               optional (NULL): the number of cluster
 *       slots the labels may reach (sticks of "slice"), for the glue's
 *       label renumbering buffer; default n + 1.
 * Continuing a chain must give the draws of one longer run: what a row
 * needs beyond the labels, the stats and p goes into params / aux.
 * Flags: conjugate_only (needs log_predictive / log_marginal), empty_slots
 * (labels may name empty clusters, e.g. stick indices: kept in the state),
 * random_discount (the sweep samples a Beta-prior discount).
 */
#ifndef MCMIX_MIXTURE_DP_H
#define MCMIX_MIXTURE_DP_H

#include <math.h>
#include <stdint.h>
#include "mixture.h"

/* ---------------- the prior over partitions (mixture_prior.c) ---------------- */

/* Pitman-Yor partition prior: concentration alpha, discount d (d = 0 is
 * the DP).  Random alpha: Gamma(shape, rate) prior (needs d = 0); random
 * d: Beta(da, db) prior (fixed alpha).  log_count[j] = log(j - d),
 * j = 0..n (log_count[0] = -Inf), kept in step with d by every update:
 * tabulated only for the rows that read it (8 bytes per item: 8 MB at
 * n = 1e6), by mcx_partition_prior_tabulate() in their setup; NULL for
 * the others ("slice", "subcluster"). */
typedef struct mcx_partition_prior {
    double alpha, discount;
    int alpha_random, discount_random;
    double shape, rate;       /* Gamma prior of alpha */
    double da, db;            /* Beta prior of the discount */
    int n;
    double *log_count;        /* n + 1, or NULL when not tabulated */
} mcx_partition_prior;

/* Check the fields set by the caller, for n items (log_count NULL). */
void mcx_partition_prior_setup(mcx_partition_prior *p, int n);
/* Tabulate log_count (once; no random numbers): called by the setup of
 * the rows whose sweeps read it ("collapsed", "split_merge" through
 * mcx_dp_collapsed_init(), "neal8"). */
void mcx_partition_prior_tabulate(mcx_partition_prior *p);
/* The one update of the prior parameters after a sweep, as their priors
 * ask: alpha by Escobar-West (d = 0), d by slice sampling; log_count
 * (when tabulated) follows d. */
void mcx_partition_prior_update(mcx_partition_prior *p, const mcx_mix *m);
/* The same update of alpha (when random) given K clusters among n
 * items only, without a mixture state: the top-level DP of an HDP, K
 * dishes among its m_.. tables (n < 1: unchanged). */
void mcx_partition_prior_update_counts(mcx_partition_prior *p, int K, int n);
/* The update of alpha (when random) shared by J DPs with n_j[j] items
 * and K_total clusters in all (the group-level DPs of an HDP, K_total =
 * the table count m_..): Teh et al. (2006), appendix A. */
void mcx_partition_prior_update_groups(mcx_partition_prior *p, int K_total,
                                       const int *n_j, int J);
/* Escobar & West (1995, sec. 6) auxiliary-variable update of the DP
 * concentration given K clusters among n observations, Gamma(shape, rate)
 * prior: eta ~ Beta(alpha + 1, n), then alpha from the two-component
 * Gamma mixture. */
double mcx_dp_alpha_update(double alpha, int K, int n, double shape, double rate);
/* log p(d | partition) up to a constant, for the cluster sizes size[0 ..
 * nslots-1] (empty slots are skipped; K = the non-empty ones):
 *   (da - 1) log d + (db - 1) log(1 - d) + sum_{j=1}^{K-1} log(alpha + j d)
 *   + sum_k [lgamma(n_k - d) - lgamma(1 - d)]        (Pitman 2006, eq. 3.6) */
double mcx_py_discount_logpost(double d, double alpha, const int *size, int nslots,
                               double da, double db);
/* One slice-sampling update of d on (max(0, -alpha), 1) (Neal 2003,
 * shrinkage from the whole support). */
double mcx_py_discount_update(double d, double alpha, const int *size, int nslots,
                              double da, double db);

/* ---------------- the algorithm table ---------------- */

/* What a row exported at the end of the previous chunk (NULL / 0 when
 * fresh or when the row exports none), and the number of sweeps the chunk
 * runs (caches that pay off only from a chunk's second sweep on). */
typedef struct mcx_dp_saved {
    const double *params;
    size_t n_params;
    const int *aux;
    size_t n_aux;
    int sweeps;
} mcx_dp_saved;

typedef struct mcx_dp_algorithm {
    const char *name;                  /* "collapsed", "neal8", ... */
    int conjugate_only;
    int empty_slots;
    int random_discount;
    size_t state_size;                 /* bytes */
    const char *const *control_names;  /* NULL-terminated (may be empty) */
    void   (*setup)(void *st, mcx_mix *m, mcx_partition_prior *p, const double *control,
                    const mcx_dp_saved *saved);
    double (*sweep)(void *st, mcx_mix *m, mcx_partition_prior *p);
    const double *(*params)(const void *st, const mcx_mix *m, int *rows, int *cols);
    const int *(*aux)(const void *st, const mcx_mix *m, int *len);
    double *(*counters)(void *st);
    int    (*capacity)(const void *st);
} mcx_dp_algorithm;

/* The rows, one per engine file (X-macro: the externs and the table). */
#define MCX_DP_ALGORITHMS(X) \
    X(collapsed)             \
    X(neal8)                 \
    X(slice)                 \
    X(split_merge)           \
    X(subcluster)

#define MCX_DP_DECLARE(name) extern const mcx_dp_algorithm mcx_dp_##name;
MCX_DP_ALGORITHMS(MCX_DP_DECLARE)
#undef MCX_DP_DECLARE

/* The row called `name`; an unknown name is an error listing the valid
 * ones (mixture_dp_table.c). */
const mcx_dp_algorithm *mcx_dp_algorithm_find(const char *name);

/* ---------------- shared by several rows ---------------- */

/* An upper bound on exp(y) for y <= 0: 2^ceil(y log2 e) from the bits of
 * a double (no call into libm); 2^-1022 below that.  For t = y log2 e <= 0
 * the conversion to an integer (truncation toward zero) is ceil(t), which
 * the baseline x86-64 instruction set has no instruction for. */
static inline double mcx_exp_bound(double y)
{
    double t = y * M_LOG2E;
    union { double d; uint64_t u; } v;
    v.u = (uint64_t) (t < -1022.0 ? 1 : (int64_t) t + 1023) << 52;
    return v.d;
}

/* log(1 + exp(x)) without overflow (the log normaliser of a two-way
 * choice in the split-merge proposals). */
static inline double mcx_softplus(double x)
{
    return x > 0 ? x + log1p(exp(-x)) : log1p(exp(x));
}

/* The collapsed Gibbs sweep (mixture_dp.c), Neal (2000) algorithm 3 with
 * Pitman-Yor weights, in a cyclic order from a random start in a random
 * direction; returns nothing, the prior is not updated.  `st` is a state
 * of the "collapsed" row. */
typedef struct mcx_dp_scan {
    double *logw;          /* logw_cap >= K + 1: grown between blocks of points */
    int logw_cap;
    double *prior_pred;    /* n: log p(x_i) under the prior predictive, or
                            * NULL in a chunk of one sweep */
    int prior_ready;       /* prior_pred filled (after the first sweep) */
} mcx_dp_scan;
/* The scan's state for a chunk of `sweeps` sweeps (tabulates p->log_count). */
void mcx_dp_collapsed_init(mcx_dp_scan *s, const mcx_mix *m, mcx_partition_prior *p,
                           int sweeps);
void mcx_dp_collapsed_scan(mcx_mix *m, mcx_dp_scan *s, const mcx_partition_prior *p);

#endif
