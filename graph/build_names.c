/* build_names.c -- an element's role, accessible name, description and
 * state (from the AX node, else from the DOM), names that cross shadow and
 * label boundaries (aria-labelledby, <label for>, contents), and the
 * affordances and actions a role implies (discovery-mapper 15.4).
 * Not here: which nodes become elements (build_select.c). */
#include "build_int.h"

/* ---- role, name, state ---------------------------------------------------- */
/* Ignored only because it is hidden (display:none, visibility, aria-hidden)? */
static int ax_hidden_only(const cJSON *ax) {
  const cJSON *it;
  int any = 0;
  cJSON_ArrayForEach(it, get(ax, "ignoredReasons")) {
    const char *r = get_str(it, "name");
    if (!r) continue;
    if (strcmp(r, "notRendered") && strcmp(r, "notVisible") && strcmp(r, "ariaHiddenElement") &&
        strcmp(r, "ariaHiddenSubtree"))
      return 0;
    any = 1;
  }
  return any;
}

/* Step 3 of web profile 6.1: the app's annotation (data-uiap-role) gives
 * the role only where neither the tag nor ARIA did (role generic), the role
 * is one we know, and it does not lie: a widget role (one a user operates)
 * only on an element that can be operated (a click listener, tabindex,
 * contenteditable). Otherwise role stays as it is. */
static const char *annotated_role(ctx *c, const snode *n, const char *role) {
  const char *ur = attr(c, n, "data-uiap-role");
  if (!role || strcmp(role, "generic") || !ur || !*ur) return role;
  char low[32];
  size_t l = strlen(ur);
  if (l >= sizeof low) return role;
  for (size_t k = 0; k <= l; k++) low[k] = (char)(ur[k] >= 'A' && ur[k] <= 'Z' ? ur[k] + 32 : ur[k]);
  const pg__role_info *ri = pg__role_lookup(low);
  if (!ri || (ri->flags & PG__R_TEXT)) return role;
  unsigned widget = PG__R_INTERACTIVE | PG__R_ACTIVATE | PG__R_EDITABLE | PG__R_CHECKABLE | PG__R_CHOOSER |
                    PG__R_OPTION | PG__R_NAVLINK | PG__R_RANGE;
  int operable = n->clickable || attr(c, n, "tabindex") || attr(c, n, "contenteditable");
  if ((ri->flags & widget) && !operable) return role;
  return ri->role; /* the table's string: low is gone when we return */
}

static const char *node_role_(ctx *c, const snode *n, int *from_ax);
const char *pg__node_role(ctx *c, const snode *n, int *from_ax) {
  return annotated_role(c, n, node_role_(c, n, from_ax));
}

static const char *node_role_(ctx *c, const snode *n, int *from_ax) {
  *from_ax = 0;
  if (n->ax && !pg__ax_ignored(n->ax)) {
    const char *r = pg__ax_str(n->ax, "role");
    *from_ax = 1;
    return pg__role_normalize(r);
  }
  /* ignored: not exposed to assistive tech -- unless hidden ones were asked for */
  if (n->ax && !(c->opt->include_hidden && ax_hidden_only(n->ax))) return NULL;
  if (!strcasecmp(n->tag, "IMG")) {
    const char *alt = attr(c, n, "alt");
    const char *r = attr(c, n, "role");
    if (alt && !*alt && (!r || !*r)) return "none"; /* decorative (html-aam) */
  }
  /* without AX data: aria-hidden content is not exposed either */
  if (!n->ax && n->aria_hidden && !c->opt->include_hidden) return NULL;
  const char *explicit_role = attr(c, n, "role");
  if (explicit_role && *explicit_role) {
    static char first[64];
    size_t l = strcspn(explicit_role, " \t\n");
    if (l && l < sizeof first) {
      memcpy(first, explicit_role, l);
      first[l] = 0;
      for (size_t i = 0; i < l; i++) first[i] = (char)(first[i] | 0x20);
      return pg__strdup(c->a, first);
    }
  }
  const char *type = attr(c, n, "type");
  return pg__role_from_tag(n->tag, type, attr(c, n, "href") != NULL);
}

/* Text of a subtree, with both boundaries kept: never descends into closed
 * shadow trees, nor into sensitive elements (a textarea's text, a select's
 * options, whatever a data-uiap-sensitive container holds); nothing at all
 * when i itself is or lies in a sensitive element. */
void pg__light_text(ctx *c, int i, char *buf, size_t cap, size_t *len, int depth) {
  if (depth > 256 || c->n[i].sens_inside) return;
  for (int k = c->n[i].first_child; k >= 0 && *len + 1 < cap; k = c->n[k].next_sibling) {
    const snode *ch = &c->n[k];
    if (ch->closed_inside || ch->sens_self) continue;
    if (ch->type == 3) {
      size_t l = strlen(ch->value);
      if (l > cap - *len - 2) l = cap - *len - 2;
      memcpy(buf + *len, ch->value, l);
      *len += l;
      buf[(*len)++] = ' ';
      buf[*len] = 0;
    } else if (ch->type == 1 && strcasecmp(ch->tag, "SCRIPT") && strcasecmp(ch->tag, "STYLE")) {
      pg__light_text(c, k, buf, cap, len, depth + 1);
    }
  }
}

char *pg__clean(ctx *c, const char *s, size_t max) {
  if (!s) return NULL;
  char *t = pg_text_clean(s, strlen(s), max);
  char *r = *t ? pg__strdup(c->a, t) : NULL;
  free(t);
  return r;
}


/* ---- names across boundaries ----------------------------------------------
 * Chromium computes names and descriptions over the flat tree: closed shadow
 * content and the values of embedded fields (a password shows as bullets)
 * flow into the names of buttons, labels' fields, aria-labelledby users.
 * When what a name was computed from holds closed-shadow or sensitive
 * content, the name is computed again here from what may be published:
 * the light text of the same sources, sensitive fields and closed trees
 * left out. */
typedef enum { NS_UNKNOWN, NS_OWN, NS_LABELLEDBY, NS_NATIVE, NS_CONTENTS } name_src;

/* Which source gave the AX name: the first one with a value that is not
 * superseded (Chromium lists them in precedence order). */
static name_src ax_name_source(const cJSON *ax) {
  const cJSON *it;
  cJSON_ArrayForEach(it, get(get(ax, "name"), "sources")) {
    if (!get(it, "value") || cJSON_IsTrue(get(it, "superseded"))) continue;
    const char *t = get_str(it, "type"), *a = get_str(it, "attribute");
    if (!t) return NS_UNKNOWN;
    if (!strcmp(t, "attribute") || !strcmp(t, "placeholder")) return NS_OWN;
    if (!strcmp(t, "relatedElement")) return a && !strcmp(a, "aria-labelledby") ? NS_LABELLEDBY : NS_NATIVE;
    if (!strcmp(t, "contents")) return NS_CONTENTS;
    return NS_UNKNOWN;
  }
  return NS_UNKNOWN;
}

/* 1: node t, or what is under it, must not be read into a name. */
static int ref_tainted(ctx *c, int t) {
  const snode *n = &c->n[t];
  return n->closed_inside || n->n_closed > 0 || n->n_sens > 0 || n->sens_inside;
}

/* 1: what node t gives a name is (partly) sensitive: a redaction. */
static int ref_sensitive(ctx *c, int t) { return c->n[t].n_sens > 0 || c->n[t].sens_inside; }

/* What a referenced node may contribute: its aria-label, else its text;
 * nothing from a node that is or lies in a sensitive element. */
static void ref_text(ctx *c, int t, char *buf, size_t cap, size_t *len) {
  const snode *n = &c->n[t];
  if (n->closed_inside || n->sens_inside || *len + 2 >= cap) return;
  const char *al = attr(c, n, "aria-label");
  if (al && *al) {
    size_t l = strlen(al);
    if (l > cap - *len - 2) l = cap - *len - 2;
    memcpy(buf + *len, al, l);
    *len += l;
    buf[(*len)++] = ' ';
    buf[*len] = 0;
    return;
  }
  if (n->type == 3) {
    size_t l = strlen(n->value);
    if (l > cap - *len - 2) l = cap - *len - 2;
    memcpy(buf + *len, n->value, l);
    *len += l;
    buf[(*len)++] = ' ';
    buf[*len] = 0;
    return;
  }
  pg__light_text(c, t, buf, cap, len, 0);
}

/* Nodes named by an idref list attribute of node i (same document), at most max. */
int pg__idrefs(ctx *c, int i, const char *attrname, int *out, int max) {
  const char *v = attr(c, &c->n[i], attrname);
  if (!v || !*v) return 0;
  pg__idmap_build(c);
  char buf[512];
  snprintf(buf, sizeof buf, "%s", v);
  int k = 0;
  for (char *save = NULL, *tok = strtok_r(buf, " \t\n", &save); tok && k < max; tok = strtok_r(NULL, " \t\n", &save)) {
    int t = pg__idmap_get(&c->ids, c->n[i].doc, tok);
    if (t >= 0) out[k++] = t;
  }
  return k;
}

/* Labels of a field: label[for=id] and the label around it; for groups and
 * tables their legend / caption. */
int pg__native_labels(ctx *c, int i, int *out, int max) {
  int k = 0;
  const snode *n = &c->n[i];
  const char *id = attr(c, n, "id");
  if (id && *id) {
    pg__idmap_build(c);
    int l = pg__idmap_get(&c->fors, n->doc, id);
    if (l >= 0 && k < max) out[k++] = l;
  }
  for (int p = n->parent, steps = 0; p >= 0 && steps < 64 && k < max; p = c->n[p].parent, steps++)
    if (c->n[p].type == 1 && !strcasecmp(c->n[p].tag, "LABEL")) {
      if (!k || out[k - 1] != p) out[k++] = p;
      break;
    }
  if (!k)
    for (int ch = n->first_child; ch >= 0 && k < max; ch = c->n[ch].next_sibling)
      if (c->n[ch].type == 1 && (!strcasecmp(c->n[ch].tag, "LEGEND") || !strcasecmp(c->n[ch].tag, "CAPTION") ||
                                 !strcasecmp(c->n[ch].tag, "FIGCAPTION"))) {
        out[k++] = ch;
        break;
      }
  return k;
}

static char *refs_text(ctx *c, const int *refs, int nrefs) {
  char buf[2048];
  size_t len = 0;
  buf[0] = 0;
  for (int r = 0; r < nrefs; r++) ref_text(c, refs[r], buf, sizeof buf, &len);
  return pg__clean(c, buf, NAME_MAX_BYTES);
}

static int any_tainted(ctx *c, const int *refs, int nrefs) {
  for (int r = 0; r < nrefs; r++)
    if (ref_tainted(c, refs[r])) return 1;
  return 0;
}

/* 1: node i hosts a closed shadow root. */
int pg__closed_host(ctx *c, int i) {
  for (int k = c->n[i].first_child; k >= 0; k = c->n[k].next_sibling)
    if (c->n[k].shadow == 2 && c->n[k].shadow_host == i) return 1;
  return 0;
}

/* The accessible name, with the closed-shadow and redaction boundaries
 * enforced. */
char *pg__node_name(ctx *c, int i) {
  const snode *n = &c->n[i];
  const char *label = attr(c, n, "aria-label");
  enum { MAXREF = 16 };
  int refs[MAXREF], nrefs;
  if (pg__closed_host(c, i)) {
    /* Only what the host itself says: aria-labelledby (light DOM),
     * aria-label, title. */
    if ((nrefs = pg__idrefs(c, i, "aria-labelledby", refs, MAXREF)) > 0) {
      char *t = refs_text(c, refs, nrefs);
      if (t) return t;
    }
    if (label && *label) return pg__clean(c, label, NAME_MAX_BYTES);
    return pg__clean(c, attr(c, n, "title"), NAME_MAX_BYTES);
  }
  if (!n->ax) {
    /* no AX data (huge page fallback): attribute names, then contents */
    if ((nrefs = pg__idrefs(c, i, "aria-labelledby", refs, MAXREF)) > 0) {
      char *t = refs_text(c, refs, nrefs);
      if (t) return t;
    }
    if (label && *label) return pg__clean(c, label, NAME_MAX_BYTES);
    if (!strcasecmp(n->tag, "INPUT") || !strcasecmp(n->tag, "SELECT") || !strcasecmp(n->tag, "TEXTAREA")) {
      /* host-language label: label[for] or a wrapping <label> */
      if ((nrefs = pg__native_labels(c, i, refs, 4)) > 0 && !any_tainted(c, refs, nrefs)) {
        char *t = refs_text(c, refs, nrefs);
        if (t) return t;
      }
      const char *type = attr(c, n, "type");
      if (type && (!strcasecmp(type, "submit") || !strcasecmp(type, "button") || !strcasecmp(type, "reset"))) {
        const char *v = attr(c, n, "value");
        if (v && *v) return pg__clean(c, v, NAME_MAX_BYTES);
      }
    }
    const char *alt = attr(c, n, "alt");
    if (alt && *alt) return pg__clean(c, alt, NAME_MAX_BYTES);
    char buf[2048];
    size_t len = 0;
    buf[0] = 0;
    /* hidden content names nothing (accname 2A) */
    int rendered = n->layout >= 0 && !(n->vis_hidden & 1) &&
                   strcmp(c->d[n->doc].styles[n->layout][1], "hidden") &&
                   strcmp(c->d[n->doc].styles[n->layout][1], "collapse");
    if (rendered) pg__light_text(c, i, buf, sizeof buf, &len, 0);
    if (len) return pg__clean(c, buf, NAME_MAX_BYTES);
    const char *t = attr(c, n, "title");
    if (!t || !*t) t = attr(c, n, "placeholder");
    return pg__clean(c, t, NAME_MAX_BYTES);
  }
  const char *name = pg__ax_str(n->ax, "name");
  if (!name || !*name) return NULL;
  name_src src = ax_name_source(n->ax);
  if (src == NS_OWN) return pg__clean(c, name, NAME_MAX_BYTES);
  /* an element that is or lies in a sensitive one, and is not a field (whose
   * value, not its content, is the secret): its content is the secret */
  int own_secret = n->sens_inside && !pg__is_field(n);
  int contents_tainted = n->n_closed > 0 || n->n_sens - n->sens_self > 0 || own_secret;
  int lb[MAXREF], nlb = pg__idrefs(c, i, "aria-labelledby", lb, MAXREF);
  int nl[4], nnl = pg__native_labels(c, i, nl, 4);
  if (src == NS_UNKNOWN) {
    /* which source won is not known: the first that applies */
    src = nlb ? NS_LABELLEDBY : (label && *label) ? NS_OWN : nnl ? NS_NATIVE : NS_CONTENTS;
    if (src == NS_OWN)
      return pg__clean(c, contents_tainted || any_tainted(c, nl, nnl) ? label : name, NAME_MAX_BYTES);
  }
  char *safe = NULL;
  int tainted = 0, sens = 0;
  switch (src) {
  case NS_LABELLEDBY:
    tainted = any_tainted(c, lb, nlb);
    if (tainted) safe = refs_text(c, lb, nlb);
    for (int r = 0; tainted && r < nlb; r++) sens |= ref_sensitive(c, lb[r]);
    break;
  case NS_NATIVE:
    tainted = any_tainted(c, nl, nnl) || contents_tainted;
    if (tainted) safe = refs_text(c, nl, nnl);
    for (int r = 0; tainted && r < nnl; r++) sens |= ref_sensitive(c, nl[r]);
    sens |= own_secret;
    break;
  default: {
    tainted = contents_tainted;
    sens = n->n_sens - n->sens_self > 0 || own_secret;
    if (tainted) {
      char buf[2048];
      size_t len = 0;
      buf[0] = 0;
      pg__light_text(c, i, buf, sizeof buf, &len, 0);
      safe = pg__clean(c, buf, NAME_MAX_BYTES);
    }
  }
  }
  if (!tainted) return pg__clean(c, name, NAME_MAX_BYTES);
  char *ax_clean = pg__clean(c, name, NAME_MAX_BYTES);
  if (sens && (!safe || !ax_clean || strcmp(safe, ax_clean))) c->g->redactions++;
  return safe;
}

/* The accessible description, the same way: a description Chromium read
 * from closed-shadow or sensitive content is computed again from the light
 * text of aria-describedby's targets. */
char *pg__node_description(ctx *c, int i) {
  const snode *n = &c->n[i];
  const char *d = n->ax ? pg__ax_str(n->ax, "description") : NULL;
  if (!d || !*d) return NULL;
  enum { MAXREF = 16 };
  int refs[MAXREF], nrefs = pg__idrefs(c, i, "aria-describedby", refs, MAXREF);
  if (nrefs && any_tainted(c, refs, nrefs)) return refs_text(c, refs, nrefs);
  if (!nrefs && pg__closed_host(c, i)) return pg__clean(c, attr(c, n, "title"), NAME_MAX_BYTES);
  return pg__clean(c, d, NAME_MAX_BYTES);
}

static int tristate(const cJSON *v, int *mixed) {
  *mixed = 0;
  if (cJSON_IsString(v)) {
    if (!strcmp(v->valuestring, "mixed")) { *mixed = 1; return 1; }
    return !strcmp(v->valuestring, "true");
  }
  return cJSON_IsTrue(v);
}


void pg__node_state(ctx *c, const snode *n, const pg__role_info *ri, pg_state *s, int visible) {
  pg_state_set(s, PG_ST_VISIBLE, visible);
  const char *dis = attr(c, n, "disabled");
  const char *adis = attr(c, n, "aria-disabled");
  int disabled = (dis != NULL) || (adis && !strcmp(adis, "true"));
  if (n->ax) {
    const cJSON *d = pg__ax_prop(n->ax, "disabled");
    if (d) disabled = cJSON_IsTrue(d);
    for (size_t i = 0; i < sizeof ax_bool_states / sizeof *ax_bool_states; i++) {
      const cJSON *v = pg__ax_prop(n->ax, ax_bool_states[i].prop);
      if (v) pg_state_set(s, ax_bool_states[i].key, cJSON_IsTrue(v));
    }
    const cJSON *ed = pg__ax_prop(n->ax, "editable");
    if (ed) pg_state_set(s, PG_ST_EDITABLE, 1);
    const cJSON *inv = pg__ax_prop(n->ax, "invalid");
    if (inv) pg_state_set(s, PG_ST_INVALID, cJSON_IsString(inv) && strcmp(inv->valuestring, "false"));
    int mixed;
    const cJSON *ch = pg__ax_prop(n->ax, "checked");
    if (ch) {
      pg_state_set(s, PG_ST_CHECKED, tristate(ch, &mixed));
      if (mixed) s->mixed |= 1u << PG_ST_CHECKED;
    }
    const cJSON *pr = pg__ax_prop(n->ax, "pressed");
    if (pr) {
      pg_state_set(s, PG_ST_PRESSED, tristate(pr, &mixed));
      if (mixed) s->mixed |= 1u << PG_ST_PRESSED;
    }
    const cJSON *v;
    if ((v = pg__ax_prop(n->ax, "valuemin")) && cJSON_IsNumber(v)) { s->value_min = v->valuedouble; s->has_min = 1; }
    if ((v = pg__ax_prop(n->ax, "valuemax")) && cJSON_IsNumber(v)) { s->value_max = v->valuedouble; s->has_max = 1; }
    if (ri && (ri->flags & PG__R_RANGE)) {
      const cJSON *val = get(get(n->ax, "value"), "value");
      if (cJSON_IsNumber(val)) { s->value_now = val->valuedouble; s->has_now = 1; }
    }
  } else {
    /* attribute fallback */
    if (ri && (ri->flags & PG__R_CHECKABLE)) {
      const char *ac = attr(c, n, "aria-checked");
      if (n->checked == 1 || (ac && !strcmp(ac, "true"))) pg_state_set(s, PG_ST_CHECKED, 1);
      else pg_state_set(s, PG_ST_CHECKED, 0);
      if (ac && !strcmp(ac, "mixed")) s->mixed |= 1u << PG_ST_CHECKED;
    }
    const char *ex = attr(c, n, "aria-expanded");
    if (ex) pg_state_set(s, PG_ST_EXPANDED, !strcmp(ex, "true"));
    const char *pr = attr(c, n, "aria-pressed");
    if (pr) pg_state_set(s, PG_ST_PRESSED, !strcmp(pr, "true"));
    const char *se = attr(c, n, "aria-selected");
    if (se) pg_state_set(s, PG_ST_SELECTED, !strcmp(se, "true"));
    if (attr(c, n, "required") || (attr(c, n, "aria-required") && !strcmp(attr(c, n, "aria-required"), "true")))
      pg_state_set(s, PG_ST_REQUIRED, 1);
    const char *iv = attr(c, n, "aria-invalid");
    if (iv && strcmp(iv, "false")) pg_state_set(s, PG_ST_INVALID, 1);
    if (attr(c, n, "readonly")) pg_state_set(s, PG_ST_READONLY, 1);
    if (ri && (ri->flags & PG__R_EDITABLE)) pg_state_set(s, PG_ST_EDITABLE, 1);
  }
  pg_state_set(s, PG_ST_ENABLED, !disabled);
  if (pg_state_is(s, PG_ST_READONLY) && pg_state_has(s, PG_ST_EDITABLE)) pg_state_set(s, PG_ST_EDITABLE, 0);
}

/* ---- affordances and actions (discovery-mapper 15.4) -------------------- */
/* Tags that take focus natively (html "focusable area"), with what they need. */
static const struct { const char *tag; int needs_href; } focus_tags[] = {
  {"BUTTON", 0}, {"INPUT", 0}, {"SELECT", 0}, {"TEXTAREA", 0}, {"SUMMARY", 0},
  {"IFRAME", 0}, {"A", 1}, {"AREA", 1},
};

/* 1: e can take focus (web 5.7: ui.focus only where it works). The
 * accessibility tree says so when the node has one; without it, a native
 * focusable tag, a tabindex or contenteditable. A role alone (a div with
 * role=button and no tabindex) does not make an element focusable. */
static int takes_focus(ctx *c, const snode *n, const pg_element *e) {
  if (n->ax) return pg_state_is(&e->state, PG_ST_FOCUSABLE);
  const char *ti = attr(c, n, "tabindex"), *ce = attr(c, n, "contenteditable");
  if (ti && *ti) return 1;
  if (ce && strcasecmp(ce, "false")) return 1;
  const char *type = attr(c, n, "type");
  if (!strcasecmp(n->tag, "INPUT") && type && !strcasecmp(type, "hidden")) return 0;
  for (size_t k = 0; k < sizeof focus_tags / sizeof *focus_tags; k++)
    if (!strcasecmp(n->tag, focus_tags[k].tag)) return !focus_tags[k].needs_href || attr(c, n, "href");
  return 0;
}

#define AF(x) (1u << PG_AF_##x)
#define AC(x) (1u << PG_AC_##x)
void pg__derive_actions(ctx *c, const snode *n, pg_element *e, const pg__role_info *ri) {
  uint32_t af = AF(READ), ac = 0;
  int enabled = pg_state_is(&e->state, PG_ST_ENABLED);
  unsigned f = ri ? ri->flags : 0;
  if (takes_focus(c, n, e)) { af |= AF(FOCUS); ac |= AC(FOCUS); }
  if (f & PG__R_ACTIVATE) { af |= AF(ACTIVATE); ac |= AC(ACTIVATE); }
  if (f & PG__R_NAVLINK) { af |= AF(NAVIGATE); ac |= AC(NAVIGATE); }
  if (f & PG__R_CHECKABLE) {
    af |= AF(TOGGLE); ac |= AC(TOGGLE);
    if (!strcmp(e->role, "radio") || !strcmp(e->role, "menuitemradio")) { af |= AF(CHOOSE); ac |= AC(CHOOSE); }
  }
  if (f & PG__R_CHOOSER) { af |= AF(CHOOSE) | AF(EXPAND); ac |= AC(CHOOSE) | AC(EXPAND); }
  if (f & PG__R_OPTION) { af |= AF(SELECT); ac |= AC(CHOOSE); }
  if ((f & PG__R_EDITABLE) && !pg_state_is(&e->state, PG_ST_READONLY) && strcmp(e->role, "combobox") != 0) {
    af |= AF(EDIT); ac |= AC(ENTER_TEXT) | AC(CLEAR_TEXT);
  } else if (!strcmp(e->role, "combobox") && pg_state_is(&e->state, PG_ST_EDITABLE)) {
    af |= AF(EDIT); ac |= AC(ENTER_TEXT) | AC(CLEAR_TEXT);
  }
  if ((f & PG__R_RANGE) && (f & PG__R_INTERACTIVE)) { af |= AF(EDIT); ac |= AC(ENTER_TEXT); }
  if (pg_state_has(&e->state, PG_ST_EXPANDED) && (f & PG__R_ACTIVATE)) {
    if (pg_state_is(&e->state, PG_ST_EXPANDED)) { af |= AF(COLLAPSE); ac |= AC(COLLAPSE); }
    else { af |= AF(EXPAND); ac |= AC(EXPAND); }
  }
  if (pg_state_has(&e->state, PG_ST_PRESSED)) { af |= AF(TOGGLE); ac |= AC(TOGGLE); }
  if (e->is_submit) { af |= AF(SUBMIT); ac |= AC(SUBMIT); }
  if (e->app_action) af |= AF(INVOKE);
  if ((!strcmp(e->role, "generic") && n->clickable && !n->control_below) || n->inferred) { af |= AF(ACTIVATE); ac |= AC(ACTIVATE); }
  if (!enabled) {
    /* a disabled control reads, nothing else */
    af &= AF(READ);
    ac = 0;
  }
  e->affordances = af;
  e->actions = ac;
}
#undef AF
#undef AC
