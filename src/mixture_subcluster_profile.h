/*
 * mixture_subcluster_profile.h -- sectioned CPU-time profile (all threads) of the
 * sub-cluster sweep, compiled in only with -DMCX_SC_PROFILE (off by
 * default: the macros are empty).  Build for a profile with
 *   R_MAKEVARS_USER=file-with "PKG_CPPFLAGS += -DMCX_SC_PROFILE" R CMD INSTALL ...
 * (or CPPFLAGS in that file); every 10 sweeps the running nanoseconds per
 * observation and sweep of each section are written to stderr.
 */
#ifndef MCMIX_MIXTURE_SUBCLUSTER_PROFILE_H
#define MCMIX_MIXTURE_SUBCLUSTER_PROFILE_H

#ifdef MCX_SC_PROFILE
#include <stdio.h>
#include <time.h>
enum { SCP_PARAMS, SCP_PROPOSE, SCP_APPLY, SCP_MOVES, SCP_SAMS, SCP_SINGLES, SCP_REST, SCP_N };
static const char *const scp_names[SCP_N] = {
    "params", "propose", "accept+apply", "2means-moves", "sams", "singles", "prior+loglik"
};
static double scp_ns[SCP_N];
static long scp_sweeps;
static inline double scp_now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
    return 1e9 * (double) t.tv_sec + (double) t.tv_nsec;
}
#define SCP_START double scp_t0 = scp_now(), scp_t1
#define SCP_MARK(sec) (scp_t1 = scp_now(), scp_ns[sec] += scp_t1 - scp_t0, scp_t0 = scp_t1)
static inline void scp_sweep_done(long n)
{
    if (++scp_sweeps % 10 != 0) return;
    double tot = 0.0;
    fprintf(stderr, "sc-profile n=%ld sweeps=%ld ns/point/sweep:", n, scp_sweeps);
    for (int i = 0; i < SCP_N; i++) {
        fprintf(stderr, " %s %.1f", scp_names[i], scp_ns[i] / scp_sweeps / n);
        tot += scp_ns[i];
    }
    fprintf(stderr, " total %.1f\n", tot / scp_sweeps / n);
}
#define SCP_DONE(n) scp_sweep_done(n)
#else
#define SCP_START
#define SCP_MARK(sec)
#define SCP_DONE(n)
#endif

#endif
