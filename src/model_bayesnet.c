/*
 * model_bayesnet.c -- Gibbs sampling on discrete Bayesian networks and
 * factor models (Koller and Friedman 2009, section 12.3), and its annealed /
 * ICM form for the MAP assignment (Geman and Geman 1984; Besag 1986).
 *
 * A sweep visits the blocks of hidden variables in a random permutation.
 * For block b it enumerates the feasible joint values of its variables
 * (model_bayesnet.h) and scores
 * each by the sum of the log factors touching the block (the other
 * factors cancel in the conditional), then draws from the scores times
 * `power` (or takes the best one when power is infinite).  A block whose
 * scores are all -Inf (possible only while the chain starts outside the
 * support) is drawn uniformly, so a chain started at a zero-probability
 * state walks into the support and never leaves it.
 */
#include <Rmath.h>
#include "model_bayesnet.h"

void mcx_bn_setup(mcx_bn *m)
{
    int most = 1;
    m->sweep_work = 0.0;
    for (int b = 0; b < m->nblock; b++) {
        int c = m->blk_nval[b];
        if (c > most) most = c;
        /* each joint value scores the block's factors */
        m->sweep_work += (double) c * (m->blk_fac_ptr[b + 1] - m->blk_fac_ptr[b] + 2);
    }
    m->lw = mcx_alloc((size_t) most, sizeof(double));
    m->perm = mcx_alloc((size_t) (m->nblock > 0 ? m->nblock : 1), sizeof(int));
}

static double log_factor(const mcx_bn *m, int f, const int *x)
{
    size_t idx = 0;
    for (int j = m->fac_ptr[f]; j < m->fac_ptr[f + 1]; j++)
        idx += (size_t) x[m->scope[j]] * (size_t) m->stride[j];
    return m->logtab[m->tab_ptr[f] + idx];
}

double mcx_bn_log_joint(const mcx_bn *m, const int *x)
{
    double s = 0.0;
    for (int f = 0; f < m->nfac; f++) s += log_factor(m, f, x);
    return s;
}

/* Set the block's variables to its feasible joint value c. */
static void set_block(const mcx_bn *m, int b, int c, int *x)
{
    int nv = m->blk_ptr[b + 1] - m->blk_ptr[b];
    const int *val = m->blk_val + m->blk_val_ptr[b] + (size_t) c * (size_t) nv;
    for (int j = 0; j < nv; j++) x[m->blk_var[m->blk_ptr[b] + j]] = val[j];
}

static void update_block(const mcx_bn *m, int b, int *x, double power)
{
    int nc = m->blk_nval[b], best = 0, any = 0;
    for (int c = 0; c < nc; c++) {
        set_block(m, b, c, x);
        double s = 0.0;
        for (int j = m->blk_fac_ptr[b]; j < m->blk_fac_ptr[b + 1]; j++)
            s += log_factor(m, m->blk_fac[j], x);
        m->lw[c] = s;
        if (s > m->lw[best]) best = c;
        any |= s > R_NegInf;
    }
    int c;
    if (!any) c = (int) floor(nc * unif_rand());
    else if (power == R_PosInf) c = best;
    else {
        for (int t = 0; t < nc; t++) m->lw[t] *= power;
        c = mcx_rcat_log(m->lw, nc);
    }
    set_block(m, b, c, x);
}

void mcx_bn_sweep(const mcx_bn *m, int *x, double power)
{
    mcx_rperm(m->perm, m->nblock);
    for (int t = 0; t < m->nblock; t++) update_block(m, m->perm[t], x, power);
}
