/*
 * mcmix_abi.h -- the plugin ABI of the mcmix package: the two descriptor
 * structs and their version.  Pure C99: no R header, so the package's
 * engine (which must not see R's API) and plugins both build on it.
 *
 * A plugin includes <mcmix.h> (this header plus the R-facing functions of
 * mcmix_r.h); see there for how a descriptor is registered.
 *
 * ABI: the structs only ever grow at the end.  MCX_ABI_VERSION is bumped
 * when a slot is appended or a convention changes; mcmix refuses
 * descriptors whose abi_version is newer than its own or older than
 * MCX_ABI_MIN_VERSION.  A descriptor must be zero-initialised before its
 * slots are set (static storage, `= {0}`, or memset() of allocated memory),
 * so that the slots appended after the code was written are NULL when it
 * is compiled against a newer header with abi_version = MCX_ABI_VERSION.
 *   1  the first slots;
 *   2  param_update appended (non-conjugate families);
 *   3  every size slot counts doubles (hyper_size and stats_size counted
 *      bytes before); stats blocks are plain doubles with a stable layout
 *      (see the conventions below);
 *   4  two optional speed slots appended: stats_combine (sufficient
 *      statistics computed in parallel blocks and then combined) and
 *      log_predictive_loo (the leave-one-out predictive of a member read
 *      from its full cluster's statistics).
 *   5  one optional target slot appended: log_density_gradient (the log
 *      density and its gradient from one evaluation).
 */
#ifndef MCMIX_ABI_H
#define MCMIX_ABI_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

#define MCX_ABI_VERSION 5
#define MCX_ABI_MIN_VERSION 1

/* The number of doubles that hold `bytes` bytes (for the size slots). */
#define MCX_DOUBLES(bytes) (((size_t) (bytes) + sizeof(double) - 1) / sizeof(double))

/* ------------------------------------------------------------------ */
/* Component family: a likelihood with its prior (conjugate, or       */
/* non-conjugate with param_update: see the ABI version 2 slot).      */
/* ------------------------------------------------------------------ */

/*
 * Conventions
 * - Sizes.  Every size slot (hyper_size, stats_size, work_size,
 *   param_size) counts doubles (ABI >= 3; in ABI 1 and 2 hyper_size and
 *   stats_size counted bytes, and mcmix still reads such descriptors that
 *   way).  Every block is allocated as that many doubles, so it is
 *   aligned for any C type.  Use MCX_DOUBLES(sizeof(my_struct)) to size a
 *   block that holds a struct.  (A descriptor compiled for ABI 1 or 2
 *   against this header, unchanged, still works: its byte counts, read as
 *   double counts, only over-allocate.)
 * - `dim` is the length of one observation x (a row of the data matrix).
 * - `hyper` is an opaque block of hyper_size(dim) doubles, filled once by
 *   hyper_init() from the numeric vector built by the family's R
 *   constructor (for a plugin family, the `hyper` argument of
 *   mcmix_family(), unchecked by R); afterwards it is read-only (const).
 *   It is rebuilt at every .Call and never saved, so it may hold any C data.
 * - `stats` is a block of stats_size(hyper) doubles holding the sufficient
 *   statistics of one cluster and any cache that makes log_predictive
 *   cheap.  stats_reset() makes it the empty cluster.  Rules for stats
 *   blocks: fits save them as raw bytes and extend() copies them back in
 *   (possibly in another session, on another machine of the same kind),
 *   so a stats block must be plain doubles (counts stored as doubles too),
 *   hold no pointers and no padding, and keep the same layout for the same
 *   hyperparameters and dim; its content may depend only on the members
 *   added and removed (in that order).
 * - `work` is caller-owned scratch of work_size(hyper) doubles, so the
 *   family never allocates.  Families must not keep pointers into it.
 * - Every function must be safe to call with an empty cluster: then
 *   log_predictive is the prior predictive, log_marginal is 0 and
 *   param_draw draws from the prior.
 * - Randomness only through R's RNG (unif_rand, norm_rand, Rmath r*()).
 */
typedef struct mcx_family {
    int         abi_version;      /* MCX_ABI_VERSION at compile time */
    const char *name;             /* registry key, e.g. "gaussian_niw" */

    size_t (*hyper_size)(int dim);                   /* in doubles (ABI >= 3) */
    /* Parse and check the hyperparameter vector; return 0 on success,
     * non-zero when the values do not fit `dim` (wrong n_values, values
     * out of range).  This is how a plugin family's `hyper` is validated:
     * mcmix_family() (when given `dim`) or else the samplers (once the
     * data give `dim`) call hyper_init() first and turn a non-zero return
     * into an R error about `hyper` (quoting the code returned), so return
     * a code rather than calling Rf_error().  For the built-in families
     * the R constructors check first, so there it is an internal error. */
    int    (*hyper_init)(void *hyper, int dim, const double *values, int n_values);
    size_t (*work_size)(const void *hyper);          /* in doubles */

    size_t (*stats_size)(const void *hyper);         /* in doubles (ABI >= 3) */
    void   (*stats_reset)(const void *hyper, void *stats);
    void   (*stats_add)(const void *hyper, void *stats, const double *x, double *work);
    void   (*stats_remove)(const void *hyper, void *stats, const double *x, double *work);
    /* log p(x | data in the cluster), the collapsed (posterior) predictive */
    double (*log_predictive)(const void *hyper, const void *stats, const double *x, double *work);
    /* log p(data in the cluster), the marginal likelihood */
    double (*log_marginal)(const void *hyper, const void *stats, double *work);

    size_t (*param_size)(const void *hyper);         /* in doubles */
    /* theta ~ p(theta | data in the cluster); the prior when empty */
    void   (*param_draw)(const void *hyper, const void *stats, double *theta, double *work);
    /* log p(x | theta) */
    double (*log_lik)(const void *hyper, const double *theta, const double *x, double *work);

    /* ---- ABI version >= 2 (read only when abi_version >= 2) ---- */
    /* Optional (NULL for conjugate families, whose param_draw is exact):
     * one Markov move of theta (param_size doubles, updated in place) that
     * leaves p(theta | the cluster's data) invariant.  x holds the n
     * members of the cluster (dim x n, column-major) and stats their
     * sufficient statistics.  A family with param_update may leave
     * log_predictive and log_marginal NULL (a non-conjugate family): it is
     * then accepted only by samplers that instantiate the component
     * parameters (the DP sampler "neal8"); param_draw must still draw from
     * the prior when the cluster is empty. */
    void   (*param_update)(const void *hyper, const void *stats, double *theta,
                           const double *x, int n, double *work);

    /* ---- ABI version >= 4 (read only when abi_version >= 4) ---- */
    /* Optional (NULL: the host adds the members one by one): make `stats`
     * the statistics of the union of its members and those of `other`
     * (disjoint sets).  The result must equal, up to rounding, adding
     * other's members to stats one by one; hosts combine blocks in a fixed
     * order, so results do not depend on the number of threads. */
    void   (*stats_combine)(const void *hyper, void *stats, const void *other,
                            double *work);
    /* Optional (NULL: the host copies stats, removes x and calls
     * log_predictive): log p(x | the cluster's data without x), for an x
     * that is a member of the cluster with statistics `stats` (at least
     * two members).  Read from the full cluster's cached factors (e.g. by
     * a rank-one identity), without modifying stats. */
    double (*log_predictive_loo)(const void *hyper, const void *stats, const double *x,
                                 double *work);
} mcx_family;

/* ------------------------------------------------------------------ */
/* Target: an unnormalised log density for the generic samplers.       */
/* ------------------------------------------------------------------ */
typedef struct mcx_target {
    int    abi_version;
    int    dim;
    /* log density at theta; -INFINITY outside the support */
    double (*log_density)(const double *theta, void *ctx);
    /* gradient of the log density; may be NULL (Hamiltonian Monte Carlo
     * then uses central finite differences of log_density) */
    void   (*gradient)(const double *theta, double *grad, void *ctx);
    void   *ctx;

    /* ---- ABI version >= 5 (read only when abi_version >= 5) ---- */
    /* Optional (NULL: log_density, then gradient): return the log density
     * at theta and write its gradient into grad, from one evaluation (most
     * of the work of a gradient is usually the log density's).  grad need
     * not be written when the value is -INFINITY.  Given only together
     * with `gradient` (samplers that need one of the two still call it). */
    double (*log_density_gradient)(const double *theta, double *grad, void *ctx);
} mcx_target;

#ifdef __cplusplus
}
#endif

#endif /* MCMIX_ABI_H */
