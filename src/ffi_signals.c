/*
 * ffi_signals.c -- the terminal's interrupt (SIGINT) and the processes that
 * run chains (R/chains_signals.R). A Ctrl-C at a terminal reaches every
 * process of its foreground process group; the workers of a run leave that
 * group, so that only the R session sees it and stops them through their
 * run directory (a stop request at a chunk boundary), and the session
 * holds SIGINT back while it exchanges a message with a worker, so that no
 * message is cut in the middle. POSIX only: elsewhere every action is a
 * no-op returning FALSE.
 *
 * action: 1 block SIGINT in this process (a signal that arrives stays
 * pending), 2 unblock it (a pending one is delivered now), 3 leave the
 * process group (a new group with this process as leader), dropping a
 * pending SIGINT, then unblock it, 4 is SIGINT blocked?, 5 the process
 * group id, 6 send SIGINT to process group `arg` (test tool), 7 is a
 * SIGINT pending (held back)?
 */
#include <R.h>
#include <Rinternals.h>

#ifndef _WIN32
#include <signal.h>
#include <string.h>
#include <unistd.h>
#include <sys/types.h>
#endif

SEXP ffi_sigint(SEXP action, SEXP arg)
{
    int a = asInteger(action);
#ifdef _WIN32
    (void) arg;
    (void) a;
    return ScalarLogical(FALSE);
#else
    sigset_t set, old;
    sigemptyset(&set);
    sigaddset(&set, SIGINT);
    switch (a) {
    case 1:
        return ScalarLogical(sigprocmask(SIG_BLOCK, &set, NULL) == 0);
    case 2:
        return ScalarLogical(sigprocmask(SIG_UNBLOCK, &set, NULL) == 0);
    case 3: {
        /* block first: nothing may arrive between leaving and dropping */
        sigprocmask(SIG_BLOCK, &set, &old);
        int ok = (getpgid(0) == getpid()) || setpgid(0, 0) == 0;
        sigset_t pend;
        sigemptyset(&pend);
        if (ok && sigpending(&pend) == 0 && sigismember(&pend, SIGINT)) {
            /* setting SIG_IGN discards a pending signal (POSIX) */
            struct sigaction ign, prev;
            memset(&ign, 0, sizeof ign);
            ign.sa_handler = SIG_IGN;
            sigemptyset(&ign.sa_mask);
            sigaction(SIGINT, &ign, &prev);
            sigaction(SIGINT, &prev, NULL);
        }
        sigprocmask(SIG_UNBLOCK, &set, NULL);
        return ScalarLogical(ok);
    }
    case 4:
        sigprocmask(SIG_BLOCK, NULL, &old);
        return ScalarLogical(sigismember(&old, SIGINT) == 1);
    case 5:
        return ScalarInteger((int) getpgid(0));
    case 7: {
        sigset_t pend;
        sigemptyset(&pend);
        return ScalarLogical(sigpending(&pend) == 0 && sigismember(&pend, SIGINT) == 1);
    }
    case 6: {
        int g = asInteger(arg);
        if (g == NA_INTEGER || g <= 1) return ScalarLogical(FALSE);
        return ScalarLogical(kill((pid_t) -g, SIGINT) == 0);
    }
    default:
        return ScalarLogical(FALSE);
    }
#endif
}

/* Whether the package was built with OpenMP (SHLIB_OPENMP_CFLAGS not
 * empty): without it every run has one thread (R/mixture_dp.R). */
SEXP ffi_openmp(void)
{
#ifdef _OPENMP
    return ScalarLogical(TRUE);
#else
    return ScalarLogical(FALSE);
#endif
}
