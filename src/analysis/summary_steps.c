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

static jval *duration_stats(const double *vals, size_t n)
{
    jval *o = jv_obj();
    jv_set(o, "count", jv_int((int64_t)n));
    if (n == 0) {
        const char *keys[] = {"mean", "median", "p90", "min", "max"};
        for (int k = 0; k < 5; k++)
            jv_set(o, keys[k], jv_null());
        return o;
    }
    double *s = pq_malloc(n * sizeof *s);
    if (!s) {
        jv_free(o);
        return NULL;
    }
    memcpy(s, vals, n * sizeof *s);
    qsort(s, n, sizeof *s, cmp_double);
    double sum = 0;
    for (size_t k = 0; k < n; k++)
        sum += vals[k];
    jv_set(o, "mean", jv_num(sum / (double)n));
    jv_set(o, "median", jv_num(quantile(s, n, 0.5)));
    jv_set(o, "p90", jv_num(quantile(s, n, 0.9)));
    jv_set(o, "min", jv_num(s[0]));
    jv_set(o, "max", jv_num(s[n - 1]));
    pq_free(s);
    return o;
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

static jval *step_class(const char *name, const int64_t *nums, const double *durs, size_t n,
                        size_t nsteady, jval *periodicity)
{
    jval *o = jv_obj();
    jv_set(o, "name", jv_cstr(name));
    jv_set(o, "count", jv_int((int64_t)n));
    jv_set(o, "fraction_of_steady", jv_num((double)n / (double)nsteady));
    jv_set(o, "duration_stats", duration_stats(durs, n));
    double *s = pq_malloc(n * sizeof *s);
    if (s) {
        memcpy(s, durs, n * sizeof *s);
        qsort(s, n, sizeof *s, cmp_double);
        double med = quantile(s, n, 0.5);
        size_t best = 0;
        for (size_t k = 1; k < n; k++) {
            double d1 = fabs(durs[k] - med), d0 = fabs(durs[best] - med);
            if (d1 < d0 || (d1 == d0 && nums[k] < nums[best]))
                best = k;
        }
        jv_set(o, "representative_step", jv_int(nums[best]));
        jv_set(o, "representative_duration", jv_num(durs[best]));
        pq_free(s);
    }
    jv_set(o, "periodicity", periodicity ? periodicity : jv_null());
    return o;
}

static double median_of(const double *v, size_t n)
{
    double *s = pq_malloc(n * sizeof *s);
    if (!s)
        return 0;
    memcpy(s, v, n * sizeof *s);
    qsort(s, n, sizeof *s, cmp_double);
    double m = quantile(s, n, 0.5);
    pq_free(s);
    return m;
}

/* Spec 1.8 classes: 2-means on log(duration). */
static jval *step_classes(const int64_t *nums, const double *durs, size_t n)
{
    jval *arr = jv_arr();
    if (n == 0)
        return arr;
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
            double *dl = pq_malloc(n * sizeof *dl), *dh = pq_malloc(n * sizeof *dh);
            int64_t *nl = pq_malloc(n * sizeof *nl), *nh = pq_malloc(n * sizeof *nh);
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
                    jv_push(arr, step_class("light", nl, dl, kl, n, NULL));
                    /* periodicity: most common gap > 1 between sorted heavy steps. */
                    jval *per = NULL;
                    if (kh >= 3) {
                        int64_t *sn = pq_malloc(kh * sizeof *sn);
                        if (sn) {
                            memcpy(sn, nh, kh * sizeof *sn);
                            for (size_t x = 1; x < kh; x++)
                                for (size_t y = x; y > 0 && sn[y - 1] > sn[y]; y--) {
                                    int64_t t = sn[y];
                                    sn[y] = sn[y - 1];
                                    sn[y - 1] = t;
                                }
                            size_t ngaps = 0;
                            int64_t best = 0;
                            size_t bestc = 0;
                            for (size_t x = 1; x < kh; x++) {
                                int64_t g = sn[x] - sn[x - 1];
                                if (g <= 1)
                                    continue;
                                ngaps++;
                                size_t cnt = 0;
                                for (size_t y = 1; y < kh; y++)
                                    cnt += sn[y] - sn[y - 1] == g;
                                if (cnt > bestc || (cnt == bestc && g < best)) {
                                    bestc = cnt;
                                    best = g;
                                }
                            }
                            if (ngaps >= 2 && bestc >= 2)
                                per = jv_int(best);
                            pq_free(sn);
                        }
                    }
                    jv_push(arr, step_class("heavy", nh, dh, kh, n, per));
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
        jv_push(arr, step_class("typical", nums, durs, n, n, NULL));
    return arr;
}

/* Spec 1.8. */
static jval *step_time(ctx *c, double *steady_median, double *steady_p90, size_t *nsteady)
{
    sm_builder *b = c->b;
    step_rec *st = NULL;
    size_t ns = 0, cap = 0;
    /* Per name id: 0 not looked at yet, 1 not a ProfilerStep#N, 2 one (its N in knum). */
    uint32_t npool = b->m->names.n;
    uint8_t *kstep = pq_calloc(npool + 1, 1);
    int64_t *knum = pq_malloc((npool + 1) * sizeof *knum);
    if (!kstep || !knum) {
        pq_free(kstep);
        pq_free(knum);
        return NULL;
    }
    for (int pass = 0; pass < 3 && ns == 0; pass++) {
        for (size_t e = 0; e < b->m->n; e++) {
            const track *tr = &b->tracks[b->m->track[e]];
            int64_t num;
            if (pass == 0) {
                if (!(tr->device && tr->steps &&
                      parse_py_int(intern_str(&b->m->names, b->m->name[e]), &num)))
                    continue;
            } else if (pass == 1) {
                if (!((b->m->flags[e] & SLICE_HAS_STEP) &&
                      strcmp(intern_str(&b->m->names, b->m->name[e]), "train") == 0 &&
                      strncmp(sm_pname(b, tr->pid), "/host:", 6) == 0))
                    continue;
                num = b->m->step[e];
            } else {
                /* Kineto: ProfilerStep#N annotations, recognised once per name. */
                uint32_t id = b->m->name[e];
                const char *nm = intern_str(&b->m->names, id);
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
                    step_rec *nst = pq_realloc(st, cap * sizeof *nst);
                    if (!nst) {
                        pq_free(st);
                        pq_free(kstep);
                        pq_free(knum);
                        return NULL;
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
    double *all = pq_malloc((ns + 1) * sizeof *all), *steady = pq_malloc((ns + 1) * sizeof *all);
    int64_t *snums = pq_malloc((ns + 1) * sizeof *snums);
    size_t nst = 0;
    for (size_t k = 0; k < ns && all && steady && snums; k++) {
        all[k] = st[k].sum / (double)st[k].n;
        if (st[k].num >= c->o->warmup_steps) {
            snums[nst] = st[k].num;
            steady[nst++] = all[k];
        }
    }
    jval *o = jv_obj();
    jv_set(o, "warmup_steps_ignored", jv_int(c->o->warmup_steps));
    jv_set(o, "all_steps", duration_stats(all, ns));
    jv_set(o, "steady_state_steps", duration_stats(steady, nst));
    jv_set(o, "classes", step_classes(snums, steady, nst));
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
    return o;
}

jval *sm_step_time(ctx *c)
{
    return step_time(c, &c->steady_median, &c->steady_p90, &c->nsteady);
}
