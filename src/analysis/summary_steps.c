/* summary_steps.c - step time (spec 1.8): steps from device `Steps` threads, host `train`
 * events with step_num, or Kineto `ProfilerStep#N` annotations; warm-up filtering,
 * duration statistics and the 2-means light/heavy classes with their periodicity.
 * Not here: where the time of a step goes (summary_time.c). */
#include "summary_int.h"

#include "core/alloc.h"

#include <ctype.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

/* ---------------------------------------------------------------------------------------
 * Statistics. */

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

static double quantile(const double *sorted, size_t n, double q)
{
    if (n == 1)
        return sorted[0];
    double pos = (double)(n - 1) * q;
    size_t lo = (size_t)floor(pos), hi = (size_t)ceil(pos);
    double frac = pos - (double)lo;
    return sorted[lo] + (sorted[hi] - sorted[lo]) * frac;
}

/* Statistics of VALS[0..n); 0, or -1 when memory ran out. */
static int duration_stats(const double *vals, size_t n, pq_sm_duration_stats *o)
{
    o->count = n;
    o->mean = o->median = o->p90 = o->min = o->max = NAN;
    if (n == 0)
        return 0;
    double *s = pq_malloc_array(n, sizeof *s);
    if (!s)
        return -1;
    memcpy(s, vals, n * sizeof *s);
    qsort(s, n, sizeof *s, cmp_double);
    double sum = 0;
    for (size_t k = 0; k < n; k++)
        sum += vals[k];
    o->mean = sum / (double)n;
    o->median = quantile(s, n, 0.5);
    o->p90 = quantile(s, n, 0.9);
    o->min = s[0];
    o->max = s[n - 1];
    pq_free(s);
    return 0;
}

/* Python int(): optional spaces, sign, digits (underscores between digits allowed). */
static int parse_py_int(const char *s, int64_t *out)
{
    while (isspace((unsigned char)*s))
        s++;
    int neg = 0;
    if (*s == '+' || *s == '-')
        neg = *s++ == '-';
    if (!isdigit((unsigned char)*s))
        return 0;
    int64_t v = 0;
    while (isdigit((unsigned char)*s) || (*s == '_' && isdigit((unsigned char)s[1]))) {
        if (*s != '_') {
            if (v > (INT64_MAX - 9) / 10)
                return 0;
            v = v * 10 + (*s - '0');
        }
        s++;
    }
    while (isspace((unsigned char)*s))
        s++;
    if (*s)
        return 0;
    *out = neg ? -v : v;
    return 1;
}

typedef struct step_rec {
    int64_t num;
    double sum;
    long n;
} step_rec;

static int cmp_step(const void *a, const void *b)
{
    int64_t x = ((const step_rec *)a)->num, y = ((const step_rec *)b)->num;
    return x < y ? -1 : x > y;
}

/* The class NAME of steps NUMS/DURS[0..n) (N > 0) into O; 0, or -1 (out of memory). */
static int step_class(const char *name, const int64_t *nums, const double *durs, size_t n,
                      size_t nsteady, int64_t periodicity, pq_sm_step_class *o)
{
    o->name = name;
    o->count = n;
    o->fraction_of_steady = (double)n / (double)nsteady;
    o->periodicity = periodicity;
    if (duration_stats(durs, n, &o->duration_stats) != 0)
        return -1;
    double *s = pq_malloc_array(n, sizeof *s);
    if (!s)
        return -1;
    memcpy(s, durs, n * sizeof *s);
    qsort(s, n, sizeof *s, cmp_double);
    double med = quantile(s, n, 0.5);
    size_t best = 0;
    for (size_t k = 1; k < n; k++) {
        double d1 = fabs(durs[k] - med), d0 = fabs(durs[best] - med);
        if (d1 < d0 || (d1 == d0 && nums[k] < nums[best]))
            best = k;
    }
    o->representative_step = nums[best];
    o->representative_duration = durs[best];
    pq_free(s);
    return 0;
}

static double median_of(const double *v, size_t n)
{
    double *s = pq_malloc_array(n, sizeof *s);
    if (!s)
        return 0;
    memcpy(s, v, n * sizeof *s);
    qsort(s, n, sizeof *s, cmp_double);
    double m = quantile(s, n, 0.5);
    pq_free(s);
    return m;
}

/* Periodicity of the heavy steps NUMS[0..n): the most common distance > 1 between them
 * in order (ties: the smaller), when at least two distances > 1 exist and it occurs
 * twice; else 0. */
static int64_t periodicity(const int64_t *nums, size_t n)
{
    if (n < 3)
        return 0;
    int64_t *sn = pq_malloc_array(n, sizeof *sn);
    if (!sn)
        return 0;
    memcpy(sn, nums, n * sizeof *sn);
    for (size_t x = 1; x < n; x++)
        for (size_t y = x; y > 0 && sn[y - 1] > sn[y]; y--) {
            int64_t t = sn[y];
            sn[y] = sn[y - 1];
            sn[y - 1] = t;
        }
    size_t ngaps = 0;
    int64_t best = 0;
    size_t bestc = 0;
    for (size_t x = 1; x < n; x++) {
        int64_t g = sn[x] - sn[x - 1];
        if (g <= 1)
            continue;
        ngaps++;
        size_t cnt = 0;
        for (size_t y = 1; y < n; y++)
            cnt += sn[y] - sn[y - 1] == g;
        if (cnt > bestc || (cnt == bestc && g < best)) {
            bestc = cnt;
            best = g;
        }
    }
    pq_free(sn);
    return ngaps >= 2 && bestc >= 2 ? best : 0;
}

/* Spec 1.8 classes: 2-means on log(duration). */
static int step_classes(ctx *c, const int64_t *nums, const double *durs, size_t n,
                        pq_sm_step_time *st)
{
    if (n == 0)
        return 0;
    pq_sm_step_class *rows = arena_alloc(&c->res->mem, 2 * sizeof *rows);
    size_t nrows = 0;
    int rc = 0;
    if (!rows)
        return -1;
    double mn = durs[0], mx = durs[0];
    for (size_t k = 1; k < n; k++) {
        mn = durs[k] < mn ? durs[k] : mn;
        mx = durs[k] > mx ? durs[k] : mx;
    }
    int split = 0;
    uint8_t *lab = pq_calloc(n, 1);
    if (n >= 6 && mn > 0 && mx / mn >= 1.25 && lab) {
        double c0 = log(mn), c1 = log(mx);
        int ok = 1;
        for (int it = 0; it < 40; it++) {
            int changed = 0;
            for (size_t k = 0; k < n; k++) {
                double x = log(durs[k]);
                uint8_t l = fabs(x - c0) <= fabs(x - c1) ? 0 : 1;
                if (it == 0 || l != lab[k])
                    changed = 1;
                lab[k] = l;
            }
            double s0 = 0, s1 = 0;
            size_t n0 = 0, n1 = 0;
            for (size_t k = 0; k < n; k++) {
                if (lab[k])
                    s1 += log(durs[k]), n1++;
                else
                    s0 += log(durs[k]), n0++;
            }
            if (!n0 || !n1) {
                ok = 0;
                break;
            }
            double nc0 = s0 / (double)n0, nc1 = s1 / (double)n1;
            double move = fabs(nc0 - c0) + fabs(nc1 - c1);
            c0 = nc0;
            c1 = nc1;
            if (!changed && move < 1e-9)
                break;
        }
        size_t n0 = 0, n1 = 0;
        for (size_t k = 0; k < n; k++)
            lab[k] ? n1++ : n0++;
        if (ok && n0 >= 2 && n1 >= 2 && (double)n0 >= 0.1 * (double)n &&
            (double)n1 >= 0.1 * (double)n) {
            int hi_lab = c1 > c0 ? 1 : 0;
            double *dl = pq_malloc_array(n, sizeof *dl), *dh = pq_malloc_array(n, sizeof *dh);
            int64_t *nl = pq_malloc_array(n, sizeof *nl), *nh = pq_malloc_array(n, sizeof *nh);
            size_t kl = 0, kh = 0;
            if (dl && dh && nl && nh) {
                for (size_t k = 0; k < n; k++) {
                    if (lab[k] == hi_lab) {
                        dh[kh] = durs[k];
                        nh[kh++] = nums[k];
                    } else {
                        dl[kl] = durs[k];
                        nl[kl++] = nums[k];
                    }
                }
                if (median_of(dh, kh) / median_of(dl, kl) >= 1.5) {
                    split = 1;
                    rc |= step_class("light", nl, dl, kl, n, 0, &rows[nrows++]);
                    int64_t per = periodicity(nh, kh);
                    rc |= step_class("heavy", nh, dh, kh, n, per, &rows[nrows++]);
                }
            }
            pq_free(dl);
            pq_free(dh);
            pq_free(nl);
            pq_free(nh);
        }
    }
    pq_free(lab);
    if (!split)
        rc |= step_class("typical", nums, durs, n, n, 0, &rows[nrows++]);
    st->classes = rows;
    st->nclasses = nrows;
    return rc ? -1 : 0;
}

/* Spec 1.8. */
static int step_time(ctx *c, double *steady_median, double *steady_p90, size_t *nsteady)
{
    sm_builder *b = c->b;
    step_rec *st = NULL;
    size_t ns = 0, cap = 0;
    /* Per name id: 0 not looked at yet, 1 not a ProfilerStep#N, 2 one (its N in knum). */
    uint32_t npool = b->names->n;
    uint8_t *kstep = pq_calloc(npool + 1, 1);
    int64_t *knum = pq_malloc_array(npool + 1, sizeof *knum);
    if (!kstep || !knum) {
        pq_free(kstep);
        pq_free(knum);
        return -1;
    }
    for (int pass = 0; pass < 3 && ns == 0; pass++) {
        for (size_t e = 0; e < b->m->n; e++) {
            const track *tr = &b->tracks[b->m->track[e]];
            int64_t num;
            if (pass == 0) {
                if (!(tr->device && tr->steps &&
                      parse_py_int(intern_str(b->names, b->m->name[e]), &num)))
                    continue;
            } else if (pass == 1) {
                if (!((b->m->flags[e] & SLICE_HAS_STEP) &&
                      strcmp(intern_str(b->names, b->m->name[e]), "train") == 0 &&
                      strncmp(sm_pname(b, tr->pid), "/host:", 6) == 0))
                    continue;
                num = b->m->step[e];
            } else {
                /* Kineto: ProfilerStep#N annotations, recognised once per name. */
                uint32_t id = b->m->name[e];
                const char *nm = intern_str(b->names, id);
                if (!kstep[id])
                    kstep[id] =
                        strncmp(nm, "ProfilerStep#", 13) == 0 && parse_py_int(nm + 13, &knum[id])
                            ? 2
                            : 1;
                if (kstep[id] != 2)
                    continue;
                num = knum[id];
            }
            size_t k = 0;
            for (; k < ns; k++)
                if (st[k].num == num)
                    break;
            if (k == ns) {
                if (ns == cap) {
                    cap = cap ? cap * 2 : 64;
                    step_rec *nst = pq_realloc_array(st, cap, sizeof *nst);
                    if (!nst) {
                        pq_free(st);
                        pq_free(kstep);
                        pq_free(knum);
                        return -1;
                    }
                    st = nst;
                }
                st[ns++] = (step_rec){num, 0, 0};
            }
            st[k].sum += us_of(b->m->dur_ps[e]);
            st[k].n++;
        }
    }
    pq_free(kstep);
    pq_free(knum);
    if (ns)
        qsort(st, ns, sizeof *st, cmp_step);
    double *all = pq_malloc_array(ns + 1, sizeof *all),
           *steady = pq_malloc_array(ns + 1, sizeof *all);
    int64_t *snums = pq_malloc_array(ns + 1, sizeof *snums);
    size_t nst = 0;
    for (size_t k = 0; k < ns && all && steady && snums; k++) {
        all[k] = st[k].sum / (double)st[k].n;
        if (st[k].num >= c->o->warmup_steps) {
            snums[nst] = st[k].num;
            steady[nst++] = all[k];
        }
    }
    pq_sm_step_time *o = &c->res->r.step_time;
    o->warmup_steps_ignored = c->o->warmup_steps;
    int rc = !all || !steady || !snums || duration_stats(all, ns, &o->all_steps) != 0 ||
                     duration_stats(steady, nst, &o->steady_state_steps) != 0 ||
                     step_classes(c, snums, steady, nst, o) != 0
                 ? -1
                 : 0;
    if (rc == 0 && ns) { /* every step for the HTML report's chart */
        int64_t *nums = arena_alloc(&c->res->mem, ns * sizeof *nums);
        double *durs = arena_alloc(&c->res->mem, ns * sizeof *durs);
        rc = nums && durs ? 0 : -1;
        for (size_t k = 0; k < ns && rc == 0; k++) {
            nums[k] = st[k].num;
            durs[k] = all[k];
        }
        o->step_numbers = nums;
        o->step_durations = durs;
        o->nsteps = rc == 0 ? ns : 0;
    }
    *nsteady = nst;
    *steady_median = *steady_p90 = NAN;
    if (nst) {
        qsort(steady, nst, sizeof *steady, cmp_double);
        *steady_median = quantile(steady, nst, 0.5);
        *steady_p90 = quantile(steady, nst, 0.9);
    }
    pq_free(all);
    pq_free(steady);
    pq_free(snums);
    pq_free(st);
    return rc;
}

int sm_step_time(ctx *c)
{
    return step_time(c, &c->steady_median, &c->steady_p90, &c->nsteady);
}
