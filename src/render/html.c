/* html.c - the page of `profq html` (render/html.h): head with the inline CSS, the overview
 * section (sources, devices and the capabilities their input states, the captured window
 * with active and idle time, step time over steps), the other sections in turn (html_ops.c,
 * html_mem.c, html_memattr.c, html_trace.c, html_nsys.c), the
 * inline JavaScript (sorting and filtering tables, a buffer's span on click), and the
 * helpers the parts share. Every string from the profile goes through html_escape. Not
 * here: computing anything (the result structs come from src/api/html.c). */
#include "render/html.h"

#include "core/alloc.h"
#include "core/err.h"
#include "model/model.h"
#include "render/doc.h"
#include "render/svg.h"
#include "render/text.h"

#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

static const char CSS[] =
    "body{font:14px/1.45 system-ui,sans-serif;margin:0;background:#f6f7f9;color:#1d2330}"
    "header{background:#1d2330;color:#fff;padding:14px 24px}header h1{margin:0;font-size:20px}"
    "header p{margin:4px 0 0;color:#c8cfdb}main{padding:16px 24px;max-width:1280px}"
    "nav a{color:#c8cfdb;margin-right:14px}"
    "section{background:#fff;border:1px solid #dde1e8;border-radius:8px;padding:12px 16px;"
    "margin:0 0 16px;overflow-x:auto}h2{font-size:17px;margin:0 0 10px}h3{font-size:15px;"
    "margin:14px 0 6px}.cards{display:flex;flex-wrap:wrap;gap:10px;margin:0 0 10px}"
    ".card{border:1px solid #dde1e8;border-radius:6px;padding:8px 12px;min-width:150px;"
    "background:#fbfcfd}.card b{display:block;font-size:17px}.card small{color:#5b6474}"
    "table{border-collapse:collapse;min-width:100%;font-size:13px;margin:0 0 6px}"
    "th,td{border-bottom:1px solid #e6e9ee;padding:3px 6px;text-align:left;vertical-align:top;"
    "white-space:nowrap}td.w{white-space:normal;overflow-wrap:anywhere;min-width:9em;"
    "max-width:30em}th{background:#f0f2f5;cursor:pointer;user-select:none;white-space:normal;"
    "min-width:4.5em}"
    "th[aria-sort=ascending]::after{content:' \\25B2'}th[aria-sort=descending]::after{content:"
    "' \\25BC'}td.n,th.n{text-align:right;"
    "font-variant-numeric:tabular-nums}tbody tr:hover{background:#eef3fb}"
    "input.flt{width:320px;padding:5px 8px;margin:0 0 8px}.pager{margin:4px 0 10px}"
    ".pager button,.zoom button{margin-right:6px}.zoom{margin:0 0 "
    "8px}.pgc{margin-right:6px;font-size:12px}.note{color:#5b6474;font-size:12px}"
    "summary h3{display:inline}summary{cursor:pointer;margin:14px 0 6px}"
    ".warn{color:#a15c00;font-weight:600}.err{color:#b03030}code{font-size:12px}"
    "svg.chart{max-width:100%;height:auto;display:block;margin:6px 0 12px}"
    ".grid{stroke:#e6e9ee}.axis{stroke:#8a93a3}.cap{stroke:#c0392b;stroke-dasharray:6 4}"
    ".ct{font-weight:600;font-size:13px}.yt{font-size:11px;text-anchor:end;fill:#5b6474}"
    ".xt{font-size:11px;text-anchor:middle;fill:#5b6474}.xl,.yl{font-size:12px;fill:#3b4352;"
    "text-anchor:middle}.capl{font-size:11px;fill:#c0392b;text-anchor:end}.lg{font-size:11px}"
    ".roof{stroke:#c0392b;stroke-width:1.5;fill:none}.ridge{stroke:#c0392b;stroke-dasharray:3 3}"
    "circle.op{fill-opacity:.55;stroke:#1d2330;stroke-width:.4}circle.op:hover{fill-opacity:1}"
    "tr.buf{cursor:pointer}tr.sel{background:#fff2cc}.span{stroke:#d35400;stroke-width:2;"
    "fill:#d35400;fill-opacity:.12}"
    ".tree details{margin-left:18px}.tree>details{margin-left:0}.tree summary{margin:2px 0}"
    ".tleaf{margin-left:34px;padding:1px 0}.tt{font-variant-numeric:tabular-nums;color:#1d4e89}"
    ".ts{color:#5b6474;font-variant-numeric:tabular-nums}"
    ".embed{overflow-x:auto}.embed svg{max-width:100%;height:auto}pre.nsys-text{font-size:12px;"
    "background:#fbfcfd;border:1px solid #e6e9ee;padding:8px;overflow-x:auto}"
    ".sides{display:grid;grid-template-columns:repeat(auto-fit,minmax(420px,1fr));gap:12px}"
    ".side{min-width:0;overflow-x:auto}";

/* Tables: a click on a head cell sorts by that column (data-v of numeric cells, else the
 * text), again reverses; a filter box hides the rows without its text; a table of more than
 * 100 rows shows them 100 a page (previous/next and the count under it; sorting and
 * filtering act on all rows, then the pages are cut again). A chart with lines or points
 * (step time, heap, memory profile, roofline) zooms: the wheel about the cursor, buttons
 * +, - and reset under it (its viewBox, clamped to the drawn box). A buffer row shows
 * its live span on the heap chart of its module. */
static const char JS[] =
    "(function(){'use strict';"
    "function key(td,num){if(!td)return num?-Infinity:'';if(num){var v=parseFloat("
    "td.getAttribute('data-v'));return isNaN(v)?-Infinity:v;}return td.textContent.toLowerCase();}"
    "var PS=100;"
    "function pg(t){var p=t._pg,rs=t.tBodies[0].rows,n=0;"
    "for(var j=0;j<rs.length;j++){var out=rs[j].getAttribute('data-out')==='1';"
    "rs[j].hidden=out||(p?n<p.i*PS||n>=(p.i+1)*PS:false);if(!out)n++;}if(!p)return;"
    "var last=Math.max(0,Math.ceil(n/PS)-1);if(p.i>last){p.i=last;pg(t);return;}"
    "p.c.textContent=n?'rows '+(p.i*PS+1)+'\\u2013'+Math.min(n,(p.i+1)*PS)+' of '+n:'no row';"
    "p.a.disabled=p.i===0;p.b.disabled=p.i>=last;}"
    "function btn(d,txt,cls){var e=document.createElement('button');e.type='button';"
    "e.className=cls;e.textContent=txt;d.appendChild(e);return e;}"
    "var ts=document.querySelectorAll('table.st');"
    "for(var i=0;i<ts.length;i++){var t=ts[i];if(!t.tBodies[0]||t.tBodies[0].rows.length<=PS)"
    "continue;var d=document.createElement('div');d.className='pager';d.id=t.id+'-pager';"
    "var p={i:0};p.a=btn(d,'\\u2190 previous','prev');p.c=document.createElement('span');"
    "p.c.className='pgc';d.appendChild(p.c);p.b=btn(d,'next \\u2192','next');t._pg=p;"
    "(function(tt){p.a.addEventListener('click',function(){tt._pg.i--;pg(tt);});"
    "p.b.addEventListener('click',function(){tt._pg.i++;pg(tt);});})(t);"
    "t.parentNode.insertBefore(d,t.nextSibling);pg(t);}"
    "var ths=document.querySelectorAll('table.st thead th');"
    "for(var i=0;i<ths.length;i++){ths[i].addEventListener('click',function(){"
    "var th=this,tr=th.parentNode,col=Array.prototype.indexOf.call(tr.children,th);"
    "var num=th.classList.contains('n'),tb=th.closest('table').tBodies[0];"
    "var desc=th.getAttribute('aria-sort')!=='descending';"
    "for(var k=0;k<tr.children.length;k++)tr.children[k].removeAttribute('aria-sort');"
    "th.setAttribute('aria-sort',desc?'descending':'ascending');"
    "var rows=Array.prototype.slice.call(tb.rows).map(function(r,j){return "
    "[key(r.cells[col],num),j,r];});"
    "rows.sort(function(a,b){var c=a[0]<b[0]?-1:a[0]>b[0]?1:0;if(desc)c=-c;return c||a[1]-b[1];});"
    "for(var j=0;j<rows.length;j++)tb.appendChild(rows[j][2]);pg(th.closest('table'));});}"
    "var fs=document.querySelectorAll('input.flt');"
    "for(var i=0;i<fs.length;i++){fs[i].addEventListener('input',function(){"
    "var q=this.value.toLowerCase(),t=document.getElementById(this.getAttribute('data-for'));"
    "var rs=t.tBodies[0].rows,n=0;for(var j=0;j<rs.length;j++){var m=!q||"
    "rs[j].textContent.toLowerCase().indexOf(q)>=0;if(m){rs[j].removeAttribute('data-out');n++;}"
    "else rs[j].setAttribute('data-out','1');}if(t._pg)t._pg.i=0;pg(t);"
    "var c=document.getElementById(t.id+'-shown');if(c)c.textContent=String(n);});}"
    "var bs=document.querySelectorAll('tr.buf');"
    "for(var i=0;i<bs.length;i++){bs[i].addEventListener('click',function(){"
    "var r=document.getElementById(this.getAttribute('data-chart')+'-span');if(!r)return;"
    "var o=this.parentNode.querySelectorAll('tr.sel');for(var k=0;k<o.length;k++)"
    "o[k].classList.remove('sel');this.classList.add('sel');"
    "var x0=parseFloat(this.getAttribute('data-x0')),x1=parseFloat(this.getAttribute('data-x1'));"
    "r.setAttribute('x',String(x0));r.setAttribute('width',String(Math.max(1,x1-x0)));"
    "r.removeAttribute('visibility');"
    "var l=document.getElementById(this.getAttribute('data-chart')+'-spantext');"
    "if(l)l.textContent=this.getAttribute('data-span');});}"
    "";

/* (the script's second half: a C string literal is at most 4095 bytes) */
static const char JS_CHARTS[] =
    "var zs=document.querySelectorAll('svg.chart');"
    "for(var i=0;i<zs.length;i++){if(zs[i].querySelector('polyline,circle'))zoomable(zs[i]);}"
    "function zoomable(s){var vb=s.getAttribute('viewBox'),b0=vb.split(' ').map(Number),"
    "v=b0.slice();function cl(x,lo,w,W){return Math.min(Math.max(x,lo),lo+W-w);}"
    "function zoom(k,cx,cy){var w=v[2]/k,h=v[3]/k;if(w>=b0[2]){v=b0.slice();"
    "s.setAttribute('viewBox',vb);s.removeAttribute('data-zoom');return;}if(w<b0[2]/64)return;"
    "v=[cl(cx-(cx-v[0])/k,b0[0],w,b0[2]),cl(cy-(cy-v[1])/k,b0[1],h,b0[3]),w,h];"
    "s.setAttribute('viewBox',v.map(function(x){return x.toFixed(1);}).join(' '));"
    "s.setAttribute('data-zoom',(b0[2]/w).toFixed(2));}"
    "var d=document.createElement('div');d.className='zoom';"
    "btn(d,'+','zin').addEventListener('click',function(){zoom(2,v[0]+v[2]/2,v[1]+v[3]/2);});"
    "btn(d,'\\u2212','zout').addEventListener('click',function(){zoom(.5,v[0]+v[2]/2,"
    "v[1]+v[3]/2);});btn(d,'reset zoom','zreset').addEventListener('click',function(){"
    "zoom(1/64,0,0);});s.parentNode.insertBefore(d,s.nextSibling);"
    "s.addEventListener('wheel',function(e){e.preventDefault();var r=s.getBoundingClientRect();"
    "zoom(e.deltaY<0?1.25:.8,v[0]+(e.clientX-r.left)/(r.width||1)*v[2],"
    "v[1]+(e.clientY-r.top)/(r.height||1)*v[3]);},{passive:false});}"
    "document.body.setAttribute('data-ready','1');})();";

void html_text(buf *b, const char *s)
{
    if (s)
        html_escape(b, s, strlen(s));
}

void html_str(buf *b, pq_str s)
{
    if (s.p)
        html_escape(b, s.p, s.n);
}

void html_time(buf *b, double ps)
{
    char t[32];
    html_text(b, text_time(t, ps));
}

void html_bytes(buf *b, double bytes)
{
    char t[32];
    buf_puts(b, text_bytes(t, bytes));
}

void html_num(buf *b, double v)
{
    if (!isfinite(v)) {
        buf_puts(b, "n/a");
        return;
    }
    if (v == floor(v) && fabs(v) < 1e15)
        buf_printf(b, "%.0f", v);
    else
        buf_printf(b, "%.4g", v);
}

void html_failed(buf *b, const html_part *part)
{
    buf_printf(b, "<p class=\"err\">Not computed (%s): ", pq_status_name(part->status));
    html_text(b, part->message);
    buf_puts(b, "</p>");
}

void html_table_begin(buf *b, const char *id, const char *const *cols, const int *numeric,
                      size_t ncols, int filter)
{
    if (filter) {
        buf_puts(b, "<input class=\"flt\" type=\"search\" placeholder=\"filter rows\" data-for=\"");
        html_text(b, id);
        buf_puts(b, "\">");
    }
    buf_puts(b, "<table class=\"st\" id=\"");
    html_text(b, id);
    buf_puts(b, "\"><thead><tr>");
    for (size_t i = 0; i < ncols; i++) {
        buf_puts(b, numeric[i] ? "<th class=\"n\">" : "<th>");
        html_text(b, cols[i]);
        buf_puts(b, "</th>");
    }
    buf_puts(b, "</tr></thead><tbody>\n");
}

void html_table_end(buf *b, size_t shown, size_t total, const char *dropped_by)
{
    buf_puts(b, "</tbody></table>");
    if (shown < total)
        buf_printf(b,
                   "<p class=\"note dropped\">%zu of %zu rows shown; the %zu rows after them "
                   "(by %s) are left out of this page.</p>",
                   shown, total, total - shown, dropped_by);
    buf_putc(b, '\n');
}

void html_cell_num(buf *b, double v, const char *text)
{
    buf_puts(b, "<td class=\"n\" data-v=\"");
    if (isfinite(v))
        buf_printf(b, "%.17g", v);
    buf_puts(b, "\">");
    html_text(b, text);
    buf_puts(b, "</td>");
}

/* A card showing PS picoseconds; data-ps holds the exact figure. */
void html_cell_fixed(buf *b, double v, int decimals)
{
    char t[40];
    snprintf(t, sizeof t, "%.*f", decimals, v);
    html_cell_num(b, v, isfinite(v) ? t : "n/a");
}

void html_cell_time(buf *b, double ps)
{
    char t[32];
    html_cell_num(b, ps, isfinite(ps) ? text_time(t, ps) : "n/a");
}

static void card(buf *b, const char *id, const char *label, double ps, const char *note)
{
    char t[32];
    buf_printf(b, "<div class=\"card\" id=\"card-%s\" data-ps=\"%.0f\"><small>", id, ps);
    html_text(b, label);
    buf_puts(b, "</small><b>");
    html_text(b, text_time(t, ps));
    buf_puts(b, "</b>");
    if (note) {
        buf_puts(b, "<small>");
        html_text(b, note);
        buf_puts(b, "</small>");
    }
    buf_puts(b, "</div>");
}

static void cap_value(buf *b, const pq_device_value *v)
{
    switch (v->kind) {
    case PQ_DEV_NUM:
        html_num(b, v->d);
        break;
    case PQ_DEV_UINT:
        buf_printf(b, "%" PRIu64, v->u);
        break;
    case PQ_DEV_INT:
        buf_printf(b, "%" PRId64, v->i);
        break;
    case PQ_DEV_BOOL:
        buf_puts(b, v->i ? "true" : "false");
        break;
    case PQ_DEV_STR:
        html_str(b, v->s);
        break;
    }
}

/* Sources, then every device of every source with its capabilities. */
static void sources_devices(buf *b, const pq_profile *p, size_t max_rows)
{
    static const char *const scols[] = {"source", "format", "host", "size", "events"};
    static const int snum[] = {0, 0, 0, 1, 1};
    html_table_begin(b, "sources", scols, snum, 5, 0);
    size_t shown = 0;
    for (size_t i = 0; i < p->nsources && shown < max_rows; i++, shown++) {
        const pq_source_info *s = &p->sources[i].info;
        buf_puts(b, "<tr><td class=\"w\">");
        html_str(b, s->path);
        buf_printf(b, "</td><td>%s</td><td>", pq_format_name(s->format));
        html_str(b, s->host);
        buf_puts(b, "</td>");
        char t[32];
        html_cell_num(b, (double)s->size_bytes, text_bytes(t, (double)s->size_bytes));
        snprintf(t, sizeof t, "%" PRIu64, s->events);
        html_cell_num(b, (double)s->events, t);
        buf_puts(b, "</tr>\n");
    }
    html_table_end(b, shown, p->nsources, "input order");
    size_t ndev = 0;
    for (size_t i = 0; i < p->nsources; i++)
        ndev += p->sources[i].devices.dev.n;
    if (!ndev) {
        buf_puts(b, "<h3>Devices (0)</h3><p class=\"note\">The inputs state no device.</p>");
        return;
    }
    /* more than four devices: folded (a click on the heading shows them) */
    buf_printf(b, "<details id=\"devices-box\"%s><summary><h3>Devices (%zu)</h3></summary>",
               ndev > 4 ? "" : " open", ndev);
    static const char *const dcols[] = {"source", "id", "kind", "name", "capabilities"};
    static const int dnum[] = {0, 1, 0, 0, 0};
    html_table_begin(b, "devices", dcols, dnum, 5, ndev > 20);
    shown = 0;
    for (size_t i = 0; i < p->nsources; i++) {
        const model_devices *d = &p->sources[i].devices;
        for (size_t k = 0; k < d->dev.n && shown < max_rows; k++, shown++) {
            const model_device *v = &d->dev.v[k];
            buf_printf(b, "<tr><td>%zu</td>", i);
            char t[32];
            snprintf(t, sizeof t, "%" PRId64, v->id);
            html_cell_num(b, (double)v->id, t);
            buf_puts(b, "<td>");
            html_text(b, v->kind);
            buf_puts(b, "</td><td class=\"w\">");
            html_text(b, v->name);
            buf_puts(b, "</td><td class=\"w\">");
            const model_device_cap *caps = devices_caps(d, v);
            for (size_t c = 0; caps && c < v->ncaps; c++) {
                buf_puts(b, c ? "; <code>" : "<code>");
                html_text(b, caps[c].key);
                buf_puts(b, "</code>=");
                cap_value(b, &caps[c].v);
            }
            buf_puts(b, "</td></tr>\n");
        }
    }
    html_table_end(b, shown, ndev, "source and input order");
    buf_puts(b, "</details>");
}

/* The captured window, time in ops and idle time (summed over the device planes; the
 * figures of `profq ops`), the idle warning first. */
static void windows(buf *b, const pq_ops_result *r)
{
    double win = (double)r->window_ps, inops = (double)r->total_op_time_ps;
    double idle = (double)r->idle_ps, idle_share = win > 0 ? idle / win : 0;
    if (idle_share > 0.5)
        buf_printf(b,
                   "<p class=\"warn\" id=\"idle-warning\">The devices were idle %.1f%% of the "
                   "captured window: the profile may hold little of the work (warm-up, host "
                   "waits or a capture that outlasted the run).</p>",
                   idle_share * 100);
    char note[96];
    buf_puts(b, "<div class=\"cards\" id=\"windows\">");
    snprintf(note, sizeof note, "summed over %u device plane(s)", r->ndevices);
    card(b, "captured", "Captured window", win, note);
    snprintf(note, sizeof note, "%.1f%% of the window", win > 0 ? inops / win * 100 : 0);
    card(b, "in-ops", "In ops", inops, note);
    snprintf(note, sizeof note, "%.1f%% of the window", idle_share * 100);
    card(b, "idle", "Idle", idle, note);
    card(b, "busy", "Busy (union of top-level ops)", (double)r->busy_ps, NULL);
    if (r->has_dominant) {
        snprintf(note, sizeof note, "after the first execution of program %" PRIu64,
                 r->dominant_program);
        card(b, "steady", "Steady-state window", (double)r->steady_window_ps, note);
    }
    if (r->has_modules)
        card(b, "in-modules", "In module executions", (double)r->module_ps, NULL);
    buf_puts(b, "</div>\n");
}

static void overview(buf *b, const html_inputs *in)
{
    buf_puts(b, "<section id=\"overview\"><h2>Overview</h2>");
    if (in->ops_result) {
        buf_puts(b, "<h3>Time</h3>");
        windows(b, in->ops_result);
    }
    const pq_summary_result *sr = in->summary_result;
    if (sr && sr->step_time.nsteps) {
        const pq_sm_step_time *st = &sr->step_time;
        double *ms = NULL; /* the chart's y: the steps' times in ms (the summary's are µs) */
        if (b->status == PQ_OK && !(ms = pq_malloc_array(st->nsteps, sizeof *ms)))
            b->status = PQ_ERR_NOMEM;
        if (ms) {
            for (size_t i = 0; i < st->nsteps; i++)
                ms[i] = st->step_durations[i] / 1e3;
            html_line lc = {"step-time", "Step time over steps",   "step",
                            "ms",        st->step_numbers,         ms,
                            st->nsteps,  st->warmup_steps_ignored, (size_t)in->opts->max_points};
            buf_puts(b, "<h3>Step time</h3>");
            size_t drawn = html_line_chart(b, &lc);
            buf_printf(b,
                       "<p class=\"note\" id=\"step-note\">%zu step(s) of the trace's step "
                       "markers (the summary's step_time); steps numbered below %" PRId64
                       " are warm-up (shaded).",
                       st->nsteps, st->warmup_steps_ignored);
            if (drawn < st->nsteps)
                buf_printf(b, " %zu points, drawn as %zu (per bucket its lowest and highest).",
                           st->nsteps, drawn);
            buf_puts(b, "</p>");
        }
        pq_free(ms);
    }
    if (!(sr && sr->step_time.nsteps) && in->nxsteps) {
        html_line lc = {"step-time",
                        "Step time over steps",
                        "step",
                        "ms",
                        in->xsteps,
                        in->xstep_ms,
                        in->nxsteps,
                        INT64_MIN,
                        (size_t)in->opts->max_points};
        buf_puts(b, "<h3>Step time</h3>");
        size_t drawn = html_line_chart(b, &lc);
        buf_printf(b,
                   "<p class=\"note\" id=\"step-note\">%zu step(s) of the XPlane's step markers "
                   "(XProf's well-formed steps, as in roofline_model's step rows; each step's host "
                   "span) of ",
                   in->nxsteps);
        html_text(b, in->xsteps_path);
        buf_puts(b, "; no warm-up marked.");
        if (drawn < in->nxsteps)
            buf_printf(b, " %zu points, drawn as %zu (per bucket its lowest and highest).",
                       in->nxsteps, drawn);
        buf_puts(b, "</p>");
    }
    buf_printf(b, "<h3>Sources (%zu)</h3>", in->profile->nsources);
    sources_devices(b, in->profile, (size_t)in->opts->max_rows);
    buf_puts(b, "<h3>Sections</h3><ul id=\"feeds\">");
    const struct {
        const char *name, *anchor;
        const html_part *p;
    } parts[] = {
        {"where time goes (ops, roofline)", "ops", &in->ops},
        {"memory viewer", "memory-viewer", &in->memviewer},
        {"memory profile", "memory-profile", &in->memprofile},
        {"memory attribution (KV cache, parameters, gradients, temporaries)", "memory-attribution",
         &in->memattr_part},
        {"traces (profile_summary.v1 of a trace JSON source)", "traces", &in->summary},
        {"Nsight (nsys-jax module table, runtime, collectives, compilation)", "nsys", &in->nsys}};
    for (size_t i = 0; i < sizeof parts / sizeof parts[0]; i++) {
        if (!parts[i].p->fed) {
            buf_printf(b, "<li class=\"note\">%s: the inputs do not feed it</li>", parts[i].name);
            continue;
        }
        buf_printf(b, "<li><a href=\"#%s\">%s</a>%s</li>", parts[i].anchor, parts[i].name,
                   parts[i].p->status == PQ_OK ? "" : " (failed)");
    }
    buf_puts(b, "</ul></section>\n");
}

void html_page_begin(buf *b, const char *kind, pq_str title, const char *title2)
{
    buf_puts(b, "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
                "<meta name=\"viewport\" content=\"width=device-width,initial-scale=1\">"
                "<title>");
    html_text(b, kind);
    buf_puts(b, ": ");
    html_str(b, title);
    html_text(b, title2);
    buf_puts(b, "</title><style>");
    buf_puts(b, CSS);
    buf_puts(b, "</style></head><body>\n<header><h1>");
    html_text(b, kind);
    buf_puts(b, "</h1><p>");
}

pq_status html_page_end(buf *b, pq_error *err)
{
    buf_puts(b, "</main>\n<script>");
    buf_puts(b, JS);
    buf_puts(b, JS_CHARTS);
    buf_puts(b, "</script>\n</body></html>\n");
    return render_finish(b, err);
}

pq_status html_render(const html_inputs *in, pq_sink *sink, pq_error *err)
{
    buf b;
    buf_init(&b, sink);
    const pq_profile *p = in->profile;
    char more[64] = "";
    if (p->nsources > 1)
        snprintf(more, sizeof more, " and %zu more", p->nsources - 1);
    html_page_begin(&b, "profq report", p->nsources ? p->sources[0].info.path : pq_str_of("", 0),
                    more);
    if (p->nsources)
        html_str(&b, p->sources[0].info.path);
    if (p->nsources > 1)
        buf_printf(&b, " and %zu more source(s)", p->nsources - 1);
    buf_printf(&b, ". Written by profq %s.</p><nav><a href=\"#overview\">Overview</a>",
               PQ_VERSION_STRING);
    if (in->ops.fed)
        buf_puts(&b, "<a href=\"#ops\">Where time goes</a>");
    if (in->memviewer.fed || in->memprofile.fed || in->memattr_part.fed)
        buf_puts(&b, "<a href=\"#memory\">Memory</a>");
    if (in->summary.fed)
        buf_puts(&b, "<a href=\"#traces\">Traces</a>");
    if (in->nsys.fed)
        buf_puts(&b, "<a href=\"#nsys\">Nsight</a>");
    buf_puts(&b, "</nav></header>\n<main>\n");
    overview(&b, in);
    if (in->ops.fed)
        html_section_ops(&b, in);
    if (in->memviewer.fed || in->memprofile.fed || in->memattr_part.fed)
        html_section_memory(&b, in);
    if (in->summary.fed)
        html_section_traces(&b, in);
    if (in->nsys.fed)
        html_section_nsys(&b, in);
    return html_page_end(&b, err);
}
