/* report_html.c -- report.html as a page: its inline CSS and JS, the HTML
 * helpers (escaped text, code, lists, severities, signals), tables whose
 * columns are data (h_col), base64 for embedded screenshots, and rp_html,
 * which puts the sections (report_html_sections.c) together.
 */
#include "report_int.h"
/* ---- HTML ------------------------------------------------------------------------------------ */
static const char html_css[] =
  ":root{--fg:#0f172a;--muted:#64748b;--line:#e2e8f0;--bg:#f8fafc;--card:#fff;--high:#b91c1c;--medium:#b45309;--low:#475569}"
  "*{box-sizing:border-box}body{margin:0;font:14px/1.45 system-ui,-apple-system,'Segoe UI',Roboto,sans-serif;color:var(--fg);background:var(--bg)}"
  ".access-direct{background:#fee2e2;color:var(--high);font-weight:600}"
  "header{background:#0f172a;color:#f8fafc;padding:18px 28px}header h1{margin:0 0 4px;font-size:20px}header .meta{color:#cbd5e1;font-size:13px}"
  "nav{position:sticky;top:0;z-index:5;background:#1e293b;padding:6px 28px}nav a{color:#e2e8f0;margin-right:16px;text-decoration:none;font-size:13px}"
  "nav a:hover{text-decoration:underline}main{padding:8px 28px 40px}section{margin:22px 0}h2{font-size:17px;border-bottom:1px solid var(--line);padding-bottom:4px}"
  "table{border-collapse:collapse;width:100%;background:var(--card);font-size:13px}th,td{border:1px solid var(--line);padding:5px 7px;text-align:left;vertical-align:top}"
  "th{background:#f1f5f9;font-weight:600}code{font:12px ui-monospace,SFMono-Regular,Menlo,monospace;background:#f1f5f9;padding:0 3px;border-radius:3px;word-break:break-all}"
  ".cards{display:flex;flex-wrap:wrap;gap:10px}.card{background:var(--card);border:1px solid var(--line);border-radius:8px;padding:10px 14px;min-width:120px}"
  ".card .n{font-size:22px;font-weight:700}.card .t{color:var(--muted);font-size:12px}"
  ".sev{display:inline-block;border-radius:10px;padding:0 8px;font-size:12px;font-weight:600;color:#fff}.sev-high{background:var(--high)}.sev-medium{background:var(--medium)}.sev-low{background:var(--low)}"
  ".eff{display:inline-block;border-radius:4px;padding:0 6px;font-size:12px;font-weight:600}.eff-deny{background:#fee2e2;color:#991b1b}.eff-review{background:#fef3c7;color:#92400e}.eff-skip{background:#e2e8f0;color:#334155}"
  ".muted{color:var(--muted)}.graphbox{overflow:auto;background:#fff;border:1px solid var(--line);border-radius:8px;max-height:80vh}"
  ".graphbox svg{display:block}.graphbox .node text{font:11px system-ui,sans-serif;fill:#0f172a}.graphbox .node .l2{fill:#475569;font-size:10px}"
  ".graphbox .node:hover rect{stroke:#2563eb;stroke-width:2}.legend span{display:inline-block;margin:2px 10px 2px 0;font-size:12px}"
  ".legend i{display:inline-block;width:12px;height:12px;border:1px solid #94a3b8;border-radius:3px;margin-right:4px;vertical-align:-2px}"
  ".states{display:grid;grid-template-columns:repeat(auto-fill,minmax(300px,1fr));gap:12px}.state{background:var(--card);border:1px solid var(--line);border-radius:8px;padding:10px}"
  ".state:target{outline:3px solid #2563eb}.state img{width:100%;height:auto;border:1px solid var(--line);border-radius:4px;display:block;cursor:zoom-in}"
  ".state img.big{position:fixed;inset:4vh 4vw;width:92vw;height:92vh;object-fit:contain;background:#0f172acc;z-index:10;cursor:zoom-out}"
  ".noshot{height:80px;display:flex;align-items:center;justify-content:center;background:#f1f5f9;color:var(--muted);border-radius:4px;font-size:12px}"
  ".state h3{font-size:13px;margin:8px 0 4px;word-break:break-all}.state ul{margin:4px 0 0;padding-left:18px;font-size:12px}"
  ".filters{display:flex;flex-wrap:wrap;gap:14px;align-items:center;margin:8px 0;font-size:13px}.filters input[type=search]{padding:3px 6px;min-width:220px}"
  ".wf{background:var(--card);border:1px solid var(--line);border-radius:8px;padding:10px 14px;margin:10px 0}.wf h3{margin:0 0 6px;font-size:15px}"
  ".wf ol{margin:6px 0;padding-left:22px}.wf li.notrun{color:#92400e}.note{background:#fffbeb;border:1px solid #fde68a;border-radius:6px;padding:6px 10px;font-size:13px}"
  "footer{color:var(--muted);font-size:12px;padding:0 28px 24px}td.nw code{word-break:normal;white-space:nowrap}";

static const char html_js[] =
  "(function(){\n"
  "  var boxes = document.querySelectorAll('#review-filters input[data-sev]');\n"
  "  var kind = document.getElementById('kind-filter'), q = document.getElementById('review-search');\n"
  "  var rows = document.querySelectorAll('#review-table tbody tr'), count = document.getElementById('review-count');\n"
  "  function apply() {\n"
  "    var on = {}, k = kind ? kind.value : '', t = q ? q.value.toLowerCase() : '', n = 0;\n"
  "    for (var i = 0; i < boxes.length; i++) on[boxes[i].getAttribute('data-sev')] = boxes[i].checked;\n"
  "    for (var j = 0; j < rows.length; j++) {\n"
  "      var r = rows[j], ok = on[r.getAttribute('data-severity')] !== false &&\n"
  "        (!k || r.getAttribute('data-kind') === k) && (!t || r.textContent.toLowerCase().indexOf(t) >= 0);\n"
  "      r.hidden = !ok;\n"
  "      if (ok) n++;\n"
  "    }\n"
  "    if (count) count.textContent = String(n);\n"
  "  }\n"
  "  for (var i = 0; i < boxes.length; i++) boxes[i].addEventListener('change', apply);\n"
  "  if (kind) kind.addEventListener('change', apply);\n"
  "  if (q) q.addEventListener('input', apply);\n"
  "  apply();\n"
  "  var imgs = document.querySelectorAll('.state img');\n"
  "  for (var m = 0; m < imgs.length; m++) imgs[m].addEventListener('click', function () { this.classList.toggle('big'); });\n"
  "})();\n";

void rp_h_code(crawl__buf *b, const char *s) {
  if (!s) { crawl__buf_puts(b, "<span class=\"muted\">–</span>"); return; }
  crawl__buf_puts(b, "<code>");
  h(b, s);
  crawl__buf_puts(b, "</code>");
}
void rp_h_list(crawl__buf *b, const cJSON *arr, size_t max, int code) {
  size_t i = 0;
  const cJSON *x;
  int n = cJSON_GetArraySize(arr);
  cJSON_ArrayForEach(x, arr) {
    if (i == max) { crawl__buf_printf(b, " <span class=\"muted\">(+%d more)</span>", n - (int)max); break; }
    if (i++) crawl__buf_puts(b, code ? " " : ", ");
    if (!cJSON_IsString(x)) continue;
    if (code) rp_h_code(b, x->valuestring);
    else h(b, x->valuestring);
  }
  if (!n) crawl__buf_puts(b, "<span class=\"muted\">–</span>");
}
void rp_h_sev(crawl__buf *b, const char *sev) {
  int s = pk_severity_rank(sev);
  crawl__buf_printf(b, "<span class=\"sev sev-%s\">%s</span>", s >= 0 ? pk_severities[s] : "low", s >= 0 ? pk_severities[s] : "?");
}
void rp_h_signal(crawl__buf *b, const cJSON *sg) {
  rp_h_code(b, crawl__str(sg, "kind"));
  if (crawl__str(sg, "pattern")) { crawl__buf_puts(b, " "); h(b, crawl__str(sg, "pattern")); }
  if (crawl__str(sg, "text")) { crawl__buf_puts(b, " “"); h(b, crawl__str(sg, "text")); crawl__buf_puts(b, "”"); }
}

/* <thead> with the columns' headings, and <tbody> opened. */
void rp_h_thead(crawl__buf *b, const h_col *cols, size_t n) {
  crawl__buf_puts(b, "<thead><tr>");
  for (size_t i = 0; i < n; i++) {
    crawl__buf_puts(b, "<th>");
    crawl__buf_puts(b, cols[i].head);
    crawl__buf_puts(b, "</th>");
  }
  crawl__buf_puts(b, "</tr></thead><tbody>");
}

/* The <td> cells of one row (the caller writes <tr> and </tr>). */
void rp_h_cells(crawl__buf *b, const h_col *cols, size_t n, const cJSON *o, const void *ctx) {
  for (size_t i = 0; i < n; i++) {
    const h_col *c = &cols[i];
    crawl__buf_puts(b, "<td");
    crawl__buf_puts(b, c->td);
    crawl__buf_puts(b, ">");
    switch (c->kind) {
    case HC_TEXT: h(b, crawl__str(o, c->key)); break;
    case HC_CODE: rp_h_code(b, crawl__str(o, c->key)); break;
    case HC_LIST: rp_h_list(b, crawl__arr(o, c->key), c->max, c->code); break;
    case HC_NUM: crawl__buf_printf(b, "%.0f", crawl__num(crawl__get(o, "metadata"), c->key, 0)); break;
    case HC_YESNO: crawl__buf_puts(b, cJSON_IsTrue(crawl__get(o, c->key)) ? "yes" : "no"); break;
    case HC_FN: c->fn(b, o, ctx); break;
    }
    crawl__buf_puts(b, "</td>");
  }
}

static const char b64[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
void rp_buf_base64(crawl__buf *b, const unsigned char *p, size_t n) {
  char out[4];
  for (size_t i = 0; i < n; i += 3) {
    unsigned v = (unsigned)p[i] << 16 | (i + 1 < n ? (unsigned)p[i + 1] << 8 : 0) | (i + 2 < n ? p[i + 2] : 0);
    out[0] = b64[v >> 18 & 63];
    out[1] = b64[v >> 12 & 63];
    out[2] = i + 1 < n ? b64[v >> 6 & 63] : '=';
    out[3] = i + 2 < n ? b64[v & 63] : '=';
    crawl__buf_put(b, out, 4);
  }
}

char *rp_html(rp *r, const char *svg, const char *how) {
  const cJSON *run = crawl__get(r->pkg, "run"), *env = crawl__get(r->pkg, "environment");
  cJSON *api = rp_api_load(r); /* DIR/api.json: the API section */
  crawl__buf b = {0};
  crawl__buf_puts(&b, "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\n"
                      "<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; img-src data:; "
                      "style-src 'unsafe-inline'; script-src 'unsafe-inline'\">\n"
                      "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n<title>Discovery report: ");
  h(&b, crawl__str(env, "environmentId"));
  crawl__buf_puts(&b, "</title>\n<style>");
  crawl__buf_puts(&b, html_css);
  crawl__buf_puts(&b, "</style></head>\n<body>\n<header><h1>Discovery report: ");
  h(&b, crawl__str(env, "environmentId"));
  crawl__buf_puts(&b, "</h1><div class=\"meta\">run ");
  h(&b, crawl__str(run, "runId"));
  crawl__buf_puts(&b, " · status <b id=\"run-status\">");
  h(&b, crawl__str(run, "status"));
  crawl__buf_puts(&b, "</b> · ");
  h(&b, crawl__str(run, "startedAt"));
  if (crawl__str(run, "finishedAt")) { crawl__buf_puts(&b, " → "); h(&b, crawl__str(run, "finishedAt")); }
  double secs = rp_run_seconds(run);
  if (secs > 0) crawl__buf_printf(&b, " (%.0f s)", secs);
  crawl__buf_puts(&b, " · base URL ");
  h(&b, crawl__str(env, "baseUrl"));
  const char *stopped = crawl__str(crawl__get(r->pkg, "coverage"), "stoppedBy");
  if (stopped) { crawl__buf_puts(&b, " · stopped by "); h(&b, stopped); }
  crawl__buf_puts(&b, "</div></header>\n<nav><a href=\"#summary\">Summary</a><a href=\"#routes\">Routes</a><a href=\"#graph\">Graph</a>"
                      "<a href=\"#states\">States</a><a href=\"#review\">Review queue</a><a href=\"#safety\">Safety decisions</a>"
                      "<a href=\"#workflows\">Workflows</a><a href=\"#actions\">Actions</a>");
  if (r->access) crawl__buf_puts(&b, "<a href=\"#access\">Access</a>");
  if (api) crawl__buf_puts(&b, "<a href=\"#api\">API</a>");
  crawl__buf_puts(&b, "</nav>\n<main>\n");
  rp_html_summary(&b, r);
  rp_html_routes(&b, r);
  rp_html_graph(&b, r, svg, how);
  size_t embedded = 0;
  rp_html_states(&b, r, &embedded);
  rp_html_review(&b, r);
  rp_html_safety(&b, r);
  rp_html_workflows(&b, r);
  rp_html_actions(&b, r);
  rp_html_access(&b, r);
  rp_html_api(&b, api);
  cJSON_Delete(api);
  crawl__buf_puts(&b, "</main>\n<footer>Generated by uiap-crawl from package.json (UIAP Discovery Package ");
  h(&b, crawl__str(r->pkg, "modelVersion"));
  crawl__buf_puts(&b, "). Discovery results are proposals: review them before use.</footer>\n<script>");
  crawl__buf_puts(&b, html_js);
  crawl__buf_puts(&b, "</script>\n</body></html>\n");
  return crawl__buf_take(&b);
}
