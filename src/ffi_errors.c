/*
 * ffi_errors.c -- the engine's single exit for errors and its interrupt
 * point (mcmix_engine.h), defined on the glue side of the layers: the
 * engine reports through mcx_error() without seeing R's API.  Its scratch
 * allocator, mcx_alloc(), is in ffi_workspace.c with the arena it serves
 * from.
 */
#include <stdarg.h>
#include <stdio.h>
#include <R.h>
#include <Rinternals.h>
#include "mcmix_engine.h"

void mcx_error(const char *fmt, ...)
{
    char buf[1024];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(buf, sizeof buf, fmt, ap);
    va_end(ap);
    Rf_error("%s", buf);
}

/* The move in progress (mcx_context()): one per process, as samplers run
 * their moves on the host thread one .Call at a time. */
static const char *move_context = NULL;

const char *mcx_context(const char *move)
{
    const char *prev = move_context;
    move_context = move;
    return prev;
}

void mcx_internal_error(const char *func, const char *file, int line, const char *msg)
{
    const char *move = move_context;
    move_context = NULL;                 /* the error ends the .Call */
    if (move != NULL)
        mcx_error("mcmix internal error in %s (%s:%d): %s (found during the move: %s)",
                  func, file, line, msg, move);
    mcx_error("mcmix internal error in %s (%s:%d): %s", func, file, line, msg);
}

void mcx_interrupt_point(double work)
{
    static double done = 0.0;
    done += work > 1.0 ? work : 1.0;
    if (done >= MCX_INTERRUPT_UNITS) {
        done = 0.0;
        R_CheckUserInterrupt();
    }
}
