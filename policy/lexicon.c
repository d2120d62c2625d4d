/* lexicon.c -- the keyword lexicons (English and German) that map words in
 * an accessible name, nearby text, app action id or URL to a side-effect
 * class, and the normaliser and scanner that match them on word boundaries.
 *
 * How to read and extend the table:
 *  - One row per word or phrase: {phrase, class, language, flags, group}.
 *    Phrases are written naturally (upper/lower case, umlauts, hyphens); they
 *    are normalised the same way as page text before matching, so
 *    "sign-out", "Sign out" and "SIGN  OUT" are one phrase, and "löschen"
 *    also matches "loeschen".
 *  - Matching is on whole words: "delete" does not match "Deleted items" or
 *    "undeletable". Imperative verbs are what buttons say; participles and
 *    nouns ("Deleted", "Archived", "Shared with me") usually name views, so
 *    they are deliberately not listed. Nouns are listed only where the area
 *    itself is sensitive (billing, password, API keys: spec 13 "Credential-,
 *    Secret- und Payment-Bereiche SOLLTEN ... review oder deny sein").
 *  - A hit inside a longer hit is superseded by it. That is how phrases
 *    refine words in both directions: "close account" (destructive) beats
 *    the safe "close"; the safe "remove filter" beats the destructive
 *    "remove". Separate risky hits never cancel: "Undo delete" is
 *    destructive, "Reset filters and delete" is destructive.
 *  - Of several risky hits the worst class wins (pol__rank).
 *  - SAFE rows are never a side effect: they only give the local-UI signal
 *    that classify.c needs for a plain button (rule "signal.safe_word").
 *    WHOLE safe words ("close", "cancel", "hide") count only when the whole
 *    text consists of SAFE/FILLER words, because "Close issue", "Hide post"
 *    or "Cancel booking" are commands, not local UI. DIALOG safe words count
 *    only inside a dialog.
 *  - URL rows are also matched against a link's or form's path, query and
 *    fragment ("/account/sign-out", "?action=delete").
 *  - group gives several spellings one rule id ("logout", "log out",
 *    "sign out" -> "lexicon.en.logout" / "url.logout").
 */
#include <stdio.h>
#include <string.h>

#include "pol_int.h"

#define SE(c) ((unsigned char)POL_SE_##c)
#define EN(p, c, f) {p, SE(c), POL__EN, f, NULL}
#define DE(p, c, f) {p, SE(c), POL__DE, f, NULL}
#define ENG(p, c, f, g) {p, SE(c), POL__EN, f, g}
#define DEG(p, c, f, g) {p, SE(c), POL__DE, f, g}
#define U POL__LX_URL
#define S POL__LX_SAFE
#define W (POL__LX_SAFE | POL__LX_WHOLE)
#define WD (POL__LX_SAFE | POL__LX_WHOLE | POL__LX_DIALOG)
#define F POL__LX_FILLER
#define C POL__LX_CHANNEL

const pol__lex_entry pol__lexicon[] = {
  /* --- IRREVERSIBLE: the text says the effect cannot be taken back, or the
   * actor gives something away for good (money, ownership, a signature). */
  EN("permanently", IRREVERSIBLE, 0), EN("permanent", IRREVERSIBLE, 0),
  EN("forever", IRREVERSIBLE, 0), EN("irreversible", IRREVERSIBLE, 0),
  EN("irreversibly", IRREVERSIBLE, 0), EN("cannot be undone", IRREVERSIBLE, 0),
  EN("transfer", IRREVERSIBLE, 0), EN("sign contract", IRREVERSIBLE, 0),
  DE("endgültig", IRREVERSIBLE, 0), DE("unwiderruflich", IRREVERSIBLE, 0),
  DE("dauerhaft", IRREVERSIBLE, 0), DE("übertragen", IRREVERSIBLE, 0),
  DE("übertrage", IRREVERSIBLE, 0), DE("unterschreiben", IRREVERSIBLE, 0),
  DE("unterzeichnen", IRREVERSIBLE, 0),

  /* --- DESTRUCTIVE: data or resources are removed, reset or made unusable.
   * "archive" counts: it hides data from everyone else and unarchiving is
   * not guaranteed. "restore" alone is a write, but restoring a backup or
   * defaults overwrites current data. */
  EN("delete", DESTRUCTIVE, U), EN("remove", DESTRUCTIVE, U),
  EN("destroy", DESTRUCTIVE, U), EN("drop", DESTRUCTIVE, 0),
  EN("purge", DESTRUCTIVE, U), EN("erase", DESTRUCTIVE, U),
  EN("wipe", DESTRUCTIVE, U), EN("reset", DESTRUCTIVE, 0),
  EN("clear", DESTRUCTIVE, 0), EN("truncate", DESTRUCTIVE, 0),
  EN("discard", DESTRUCTIVE, 0), EN("trash", DESTRUCTIVE, 0),
  EN("empty trash", DESTRUCTIVE, 0), EN("archive", DESTRUCTIVE, 0),
  EN("deactivate", DESTRUCTIVE, U), EN("disable account", DESTRUCTIVE, 0),
  EN("close account", DESTRUCTIVE, 0), EN("delete account", DESTRUCTIVE, 0),
  EN("terminate", DESTRUCTIVE, U), EN("kill", DESTRUCTIVE, 0),
  EN("uninstall", DESTRUCTIVE, U), EN("suspend", DESTRUCTIVE, 0),
  EN("overwrite", DESTRUCTIVE, 0), EN("replace all", DESTRUCTIVE, 0),
  EN("revert", DESTRUCTIVE, 0), EN("rollback", DESTRUCTIVE, 0),
  EN("roll back", DESTRUCTIVE, 0), EN("restore defaults", DESTRUCTIVE, 0),
  EN("restore backup", DESTRUCTIVE, 0), EN("factory reset", DESTRUCTIVE, 0),
  EN("leave team", DESTRUCTIVE, 0), EN("leave organization", DESTRUCTIVE, 0),
  EN("leave workspace", DESTRUCTIVE, 0), EN("leave group", DESTRUCTIVE, 0),
  EN("danger zone", DESTRUCTIVE, 0),
  DE("löschen", DESTRUCTIVE, U), DE("lösche", DESTRUCTIVE, 0),
  DE("entfernen", DESTRUCTIVE, U), DE("entferne", DESTRUCTIVE, 0),
  DE("vernichten", DESTRUCTIVE, 0), DE("zerstören", DESTRUCTIVE, 0),
  DE("leeren", DESTRUCTIVE, 0), DE("zurücksetzen", DESTRUCTIVE, 0),
  DE("verwerfen", DESTRUCTIVE, 0), DE("archivieren", DESTRUCTIVE, 0),
  DE("deaktivieren", DESTRUCTIVE, 0), DE("deinstallieren", DESTRUCTIVE, 0),
  DE("konto schließen", DESTRUCTIVE, 0), DE("überschreiben", DESTRUCTIVE, 0),
  DE("papierkorb", DESTRUCTIVE, 0), DE("gefahrenbereich", DESTRUCTIVE, 0),
  DE("gefahrenzone", DESTRUCTIVE, 0), DE("sperren", DESTRUCTIVE, 0),

  /* --- BILLING_CHANGE: money moves or a contract changes, and the areas
   * where that happens (billing, cart, invoices). "order" is a billing word;
   * "sort order" / "order by" are listed as safe phrases below. */
  EN("pay", BILLING_CHANGE, U), EN("pay now", BILLING_CHANGE, 0),
  EN("buy", BILLING_CHANGE, 0), EN("buy now", BILLING_CHANGE, 0),
  EN("purchase", BILLING_CHANGE, 0), EN("checkout", BILLING_CHANGE, U),
  EN("check out", BILLING_CHANGE, 0), EN("order", BILLING_CHANGE, 0),
  EN("place order", BILLING_CHANGE, 0), EN("subscribe", BILLING_CHANGE, 0),
  EN("unsubscribe", BILLING_CHANGE, U), EN("upgrade", BILLING_CHANGE, 0),
  EN("upgrade plan", BILLING_CHANGE, 0), EN("downgrade", BILLING_CHANGE, 0),
  EN("billing", BILLING_CHANGE, 0), EN("payment", BILLING_CHANGE, 0),
  EN("refund", BILLING_CHANGE, 0), EN("charge", BILLING_CHANGE, 0),
  EN("invoice", BILLING_CHANGE, 0), EN("donate", BILLING_CHANGE, 0),
  EN("add to cart", BILLING_CHANGE, 0), EN("cart", BILLING_CHANGE, 0),
  EN("credit card", BILLING_CHANGE, 0), EN("start trial", BILLING_CHANGE, 0),
  EN("free trial", BILLING_CHANGE, 0), EN("renew", BILLING_CHANGE, 0),
  EN("book now", BILLING_CHANGE, 0), EN("reserve", BILLING_CHANGE, 0),
  EN("cancel subscription", BILLING_CHANGE, U),
  EN("cancel order", BILLING_CHANGE, U), EN("cancel plan", BILLING_CHANGE, U),
  DE("bezahlen", BILLING_CHANGE, 0), DE("zahlen", BILLING_CHANGE, 0),
  DE("jetzt bezahlen", BILLING_CHANGE, 0), DE("kaufen", BILLING_CHANGE, 0),
  DE("jetzt kaufen", BILLING_CHANGE, 0), DE("kasse", BILLING_CHANGE, 0),
  DE("zur kasse", BILLING_CHANGE, 0), DE("bestellen", BILLING_CHANGE, 0),
  DE("kostenpflichtig bestellen", BILLING_CHANGE, 0),
  DE("abonnieren", BILLING_CHANGE, 0), DE("abo kündigen", BILLING_CHANGE, 0),
  DE("kündigen", BILLING_CHANGE, U), DE("kündigung", BILLING_CHANGE, 0),
  DE("abbestellen", BILLING_CHANGE, U), DE("abrechnung", BILLING_CHANGE, 0),
  DE("zahlung", BILLING_CHANGE, 0), DE("zahlungspflichtig", BILLING_CHANGE, 0),
  DE("kostenpflichtig", BILLING_CHANGE, 0), DE("rechnung", BILLING_CHANGE, 0),
  DE("warenkorb", BILLING_CHANGE, 0), DE("in den warenkorb", BILLING_CHANGE, 0),
  DE("erstatten", BILLING_CHANGE, 0), DE("buchen", BILLING_CHANGE, 0),
  DE("verlängern", BILLING_CHANGE, 0), DE("upgraden", BILLING_CHANGE, 0),
  DE("spenden", BILLING_CHANGE, 0), DE("kreditkarte", BILLING_CHANGE, 0),

  /* --- SECURITY_CHANGE: the session, credentials, keys or access rights
   * change (log out/in, passwords, 2FA, API keys, roles). Logging out ends
   * the crawl's own session, so it is never "just navigation". */
  ENG("logout", SECURITY_CHANGE, U, "logout"),
  ENG("log out", SECURITY_CHANGE, U, "logout"),
  ENG("logoff", SECURITY_CHANGE, U, "logout"),
  ENG("log off", SECURITY_CHANGE, U, "logout"),
  ENG("signout", SECURITY_CHANGE, U, "logout"),
  ENG("sign out", SECURITY_CHANGE, U, "logout"),
  ENG("sign off", SECURITY_CHANGE, U, "logout"),
  DEG("abmelden", SECURITY_CHANGE, U, "logout"),
  DEG("ausloggen", SECURITY_CHANGE, U, "logout"),
  DEG("sitzung beenden", SECURITY_CHANGE, 0, "logout"),
  ENG("login", SECURITY_CHANGE, 0, "login"),
  ENG("log in", SECURITY_CHANGE, 0, "login"),
  ENG("sign in", SECURITY_CHANGE, 0, "login"),
  ENG("signin", SECURITY_CHANGE, 0, "login"),
  ENG("sign up", SECURITY_CHANGE, 0, "signup"),
  ENG("register", SECURITY_CHANGE, 0, "signup"),
  DEG("anmelden", SECURITY_CHANGE, 0, "login"),
  DEG("einloggen", SECURITY_CHANGE, 0, "login"),
  DEG("registrieren", SECURITY_CHANGE, 0, "signup"),
  EN("password", SECURITY_CHANGE, 0), EN("change password", SECURITY_CHANGE, 0),
  EN("reset password", SECURITY_CHANGE, 0),
  EN("forgot password", SECURITY_CHANGE, 0),
  EN("show password", SECURITY_CHANGE, 0),
  EN("revoke", SECURITY_CHANGE, U), EN("regenerate", SECURITY_CHANGE, 0),
  EN("rotate key", SECURITY_CHANGE, 0), EN("rotate keys", SECURITY_CHANGE, 0),
  EN("rotate secret", SECURITY_CHANGE, 0), EN("rotate token", SECURITY_CHANGE, 0),
  EN("api key", SECURITY_CHANGE, 0), EN("api keys", SECURITY_CHANGE, 0),
  EN("token", SECURITY_CHANGE, 0), EN("secret", SECURITY_CHANGE, 0),
  EN("2fa", SECURITY_CHANGE, 0), EN("mfa", SECURITY_CHANGE, 0),
  EN("two factor", SECURITY_CHANGE, 0), EN("grant", SECURITY_CHANGE, 0),
  EN("grant access", SECURITY_CHANGE, 0), EN("make admin", SECURITY_CHANGE, 0),
  EN("make owner", SECURITY_CHANGE, 0), EN("change role", SECURITY_CHANGE, 0),
  EN("impersonate", SECURITY_CHANGE, 0), EN("ban", SECURITY_CHANGE, 0),
  EN("lock", SECURITY_CHANGE, 0), EN("unlock", SECURITY_CHANGE, 0),
  DE("passwort", SECURITY_CHANGE, 0), DE("passwort ändern", SECURITY_CHANGE, 0),
  DE("passwort vergessen", SECURITY_CHANGE, 0),
  DE("passwort anzeigen", SECURITY_CHANGE, 0),
  DE("widerrufen", SECURITY_CHANGE, 0), DE("neu generieren", SECURITY_CHANGE, 0),
  DE("api schlüssel", SECURITY_CHANGE, 0), DE("rolle ändern", SECURITY_CHANGE, 0),
  DE("berechtigung", SECURITY_CHANGE, 0), DE("entsperren", SECURITY_CHANGE, 0),

  /* --- EXTERNAL_EFFECT: something leaves the app: a message, an
   * invitation, a publication, a file (download, export, print), a sync or
   * deployment to another system, a decision other people are told about. */
  EN("send", EXTERNAL_EFFECT, 0), EN("publish", EXTERNAL_EFFECT, 0),
  EN("unpublish", EXTERNAL_EFFECT, 0), EN("invite", EXTERNAL_EFFECT, 0),
  EN("share", EXTERNAL_EFFECT, 0), EN("post", EXTERNAL_EFFECT, 0),
  EN("email", EXTERNAL_EFFECT, 0), EN("e-mail", EXTERNAL_EFFECT, 0),
  EN("notify", EXTERNAL_EFFECT, 0), EN("reply", EXTERNAL_EFFECT, 0),
  EN("forward", EXTERNAL_EFFECT, 0), EN("export", EXTERNAL_EFFECT, 0),
  EN("download", EXTERNAL_EFFECT, 0), EN("print", EXTERNAL_EFFECT, 0),
  EN("sync", EXTERNAL_EFFECT, 0), EN("deploy", EXTERNAL_EFFECT, 0),
  EN("connect", EXTERNAL_EFFECT, 0), EN("disconnect", EXTERNAL_EFFECT, 0),
  EN("approve", EXTERNAL_EFFECT, 0), EN("reject", EXTERNAL_EFFECT, 0),
  EN("decline", EXTERNAL_EFFECT, 0), EN("accept", EXTERNAL_EFFECT, 0),
  EN("report abuse", EXTERNAL_EFFECT, 0), EN("report spam", EXTERNAL_EFFECT, 0),
  EN("call", EXTERNAL_EFFECT, C), EN("tweet", EXTERNAL_EFFECT, 0),
  DE("senden", EXTERNAL_EFFECT, 0), DE("versenden", EXTERNAL_EFFECT, 0),
  DE("sende", EXTERNAL_EFFECT, 0), DE("veröffentlichen", EXTERNAL_EFFECT, 0),
  DE("einladen", EXTERNAL_EFFECT, 0), DE("teilen", EXTERNAL_EFFECT, 0),
  DE("freigeben", EXTERNAL_EFFECT, 0), DE("benachrichtigen", EXTERNAL_EFFECT, 0),
  DE("antworten", EXTERNAL_EFFECT, 0), DE("weiterleiten", EXTERNAL_EFFECT, 0),
  DE("exportieren", EXTERNAL_EFFECT, 0), DE("herunterladen", EXTERNAL_EFFECT, 0),
  DE("drucken", EXTERNAL_EFFECT, 0), DE("synchronisieren", EXTERNAL_EFFECT, 0),
  DE("verbinden", EXTERNAL_EFFECT, 0), DE("trennen", EXTERNAL_EFFECT, 0),
  DE("genehmigen", EXTERNAL_EFFECT, 0), DE("ablehnen", EXTERNAL_EFFECT, 0),
  DE("annehmen", EXTERNAL_EFFECT, 0), DE("akzeptieren", EXTERNAL_EFFECT, 0),
  DE("melden", EXTERNAL_EFFECT, 0), DE("anrufen", EXTERNAL_EFFECT, C),

  /* --- WRITE: app data changes inside the app. */
  EN("save", WRITE, 0), EN("create", WRITE, 0), EN("add", WRITE, 0),
  EN("submit", WRITE, 0), EN("confirm", WRITE, 0), EN("apply", WRITE, 0),
  EN("update", WRITE, 0), EN("import", WRITE, 0), EN("upload", WRITE, 0),
  EN("restore", WRITE, 0), EN("merge", WRITE, 0), EN("move", WRITE, 0),
  EN("rename", WRITE, 0), EN("duplicate", WRITE, 0), EN("clone", WRITE, 0),
  EN("assign", WRITE, 0), EN("unassign", WRITE, 0), EN("enable", WRITE, 0),
  EN("disable", WRITE, 0), EN("activate", WRITE, 0), EN("install", WRITE, 0),
  EN("generate", WRITE, 0), EN("run", WRITE, 0), EN("execute", WRITE, 0),
  EN("trigger", WRITE, 0), EN("undo", WRITE, 0), EN("redo", WRITE, 0),
  EN("comment", WRITE, 0), EN("follow", WRITE, 0), EN("unfollow", WRITE, 0),
  EN("vote", WRITE, 0), EN("mark as", WRITE, 0), EN("pin", WRITE, 0),
  EN("unpin", WRITE, 0), EN("star", WRITE, 0), EN("approve all", WRITE, 0),
  DE("speichern", WRITE, 0), DE("erstellen", WRITE, 0), DE("anlegen", WRITE, 0),
  DE("hinzufügen", WRITE, 0), DE("absenden", WRITE, 0), DE("abschicken", WRITE, 0),
  DE("bestätigen", WRITE, 0), DE("übernehmen", WRITE, 0), DE("anwenden", WRITE, 0),
  DE("aktualisieren", WRITE, 0), DE("importieren", WRITE, 0),
  DE("hochladen", WRITE, 0), DE("wiederherstellen", WRITE, 0),
  DE("zusammenführen", WRITE, 0), DE("verschieben", WRITE, 0),
  DE("umbenennen", WRITE, 0), DE("duplizieren", WRITE, 0), DE("kopieren", WRITE, 0),
  DE("zuweisen", WRITE, 0), DE("aktivieren", WRITE, 0), DE("installieren", WRITE, 0),
  DE("generieren", WRITE, 0), DE("ausführen", WRITE, 0), DE("rückgängig", WRITE, 0),
  DE("kommentieren", WRITE, 0), DE("ändern", WRITE, 0),

  /* --- DRAFT: kept as a draft, nothing final. */
  EN("save as draft", DRAFT, 0), EN("save draft", DRAFT, 0),
  DE("als entwurf speichern", DRAFT, 0), DE("entwurf speichern", DRAFT, 0),

  /* --- SAFE (local UI signal only; never makes anything safe by itself).
   * Anywhere in the text: */
  EN("open", LOCAL_UI, S), EN("show", LOCAL_UI, S), EN("view", LOCAL_UI, S),
  EN("display", LOCAL_UI, S), EN("expand", LOCAL_UI, S),
  EN("collapse", LOCAL_UI, S), EN("details", LOCAL_UI, S),
  EN("detail", LOCAL_UI, S), EN("more", LOCAL_UI, S), EN("less", LOCAL_UI, S),
  EN("next", LOCAL_UI, S), EN("previous", LOCAL_UI, S), EN("prev", LOCAL_UI, S),
  EN("back", LOCAL_UI, S), EN("filter", LOCAL_UI, S), EN("filters", LOCAL_UI, S),
  EN("sort", LOCAL_UI, S), EN("search", LOCAL_UI, S), EN("find", LOCAL_UI, S),
  EN("refresh", LOCAL_UI, S), EN("reload", LOCAL_UI, S),
  EN("preview", LOCAL_UI, S), EN("zoom in", LOCAL_UI, S),
  EN("zoom out", LOCAL_UI, S), EN("help", LOCAL_UI, S), EN("toggle", LOCAL_UI, S),
  EN("select", LOCAL_UI, S), EN("select all", LOCAL_UI, S),
  /* ... safe refinements of risky words: */
  EN("remove filter", LOCAL_UI, S), EN("remove filters", LOCAL_UI, S),
  EN("clear filter", LOCAL_UI, S), EN("clear filters", LOCAL_UI, S),
  EN("reset filter", LOCAL_UI, S), EN("reset filters", LOCAL_UI, S),
  EN("clear search", LOCAL_UI, S), EN("clear selection", LOCAL_UI, S),
  EN("reset zoom", LOCAL_UI, S), EN("reset view", LOCAL_UI, S),
  EN("sort order", LOCAL_UI, S), EN("order by", LOCAL_UI, S),
  EN("show more", LOCAL_UI, S), EN("show less", LOCAL_UI, S),
  DE("öffnen", LOCAL_UI, S), DE("anzeigen", LOCAL_UI, S), DE("zeigen", LOCAL_UI, S),
  DE("ansehen", LOCAL_UI, S), DE("mehr", LOCAL_UI, S), DE("weniger", LOCAL_UI, S),
  DE("weiter", LOCAL_UI, S), DE("zurück", LOCAL_UI, S), DE("filtern", LOCAL_UI, S),
  DE("sortieren", LOCAL_UI, S), DE("suchen", LOCAL_UI, S), DE("suche", LOCAL_UI, S),
  DE("vorschau", LOCAL_UI, S), DE("ausklappen", LOCAL_UI, S),
  DE("einklappen", LOCAL_UI, S), DE("aufklappen", LOCAL_UI, S),
  DE("zuklappen", LOCAL_UI, S), DE("hilfe", LOCAL_UI, S),
  DE("filter zurücksetzen", LOCAL_UI, S), DE("filter entfernen", LOCAL_UI, S),
  DE("filter löschen", LOCAL_UI, S), DE("suche löschen", LOCAL_UI, S),
  DE("auswahl aufheben", LOCAL_UI, S), DE("auswählen", LOCAL_UI, S),
  /* Only as the whole text ("Close", "Close dialog", "Hide"): */
  EN("close", LOCAL_UI, W), EN("dismiss", LOCAL_UI, W), EN("hide", LOCAL_UI, W),
  EN("menu", LOCAL_UI, W), EN("skip", LOCAL_UI, W), EN("not now", LOCAL_UI, W),
  EN("later", LOCAL_UI, W), EN("got it", LOCAL_UI, W), EN("no", LOCAL_UI, W),
  DE("schließen", LOCAL_UI, W), DE("ausblenden", LOCAL_UI, W),
  DE("verbergen", LOCAL_UI, W), DE("menü", LOCAL_UI, W),
  DE("überspringen", LOCAL_UI, W), DE("später", LOCAL_UI, W),
  DE("nein", LOCAL_UI, W), DE("verstanden", LOCAL_UI, W),
  /* Only as the whole text and inside a dialog: outside one, "Cancel" may
   * cancel a booking. */
  EN("cancel", LOCAL_UI, WD), DE("abbrechen", LOCAL_UI, WD),
  /* Fillers that may accompany a whole-text safe word. */
  EN("the", NONE, F), EN("a", NONE, F), EN("an", NONE, F), EN("this", NONE, F),
  EN("all", NONE, F), EN("dialog", NONE, F), EN("panel", NONE, F),
  EN("window", NONE, F), EN("popup", NONE, F), EN("sidebar", NONE, F),
  EN("drawer", NONE, F), EN("banner", NONE, F), EN("message", NONE, F),
  EN("notification", NONE, F), EN("tour", NONE, F), EN("for now", NONE, F),
  /* Close glyphs next to words ("Close ×"). Alone they are icons, and what
   * they do depends on where they are (icons.c), so they are no safe word. */
  EN("x", NONE, F), EN("×", NONE, F), EN("✕", NONE, F), EN("✖", NONE, F),
  EN("✗", NONE, F),
  DE("alle", NONE, F), DE("den", NONE, F), DE("die", NONE, F), DE("das", NONE, F),
  DE("dieses", NONE, F), DE("fenster", NONE, F), DE("hinweis", NONE, F),
  DE("meldung", NONE, F),
};

const size_t pol__lexicon_len = sizeof pol__lexicon / sizeof pol__lexicon[0];

/* Severity order for combining evidence (higher = worse). unknown sits
 * above write: "no idea" must not look better than a known write; the deny
 * classes sit above both. Among them the more specific reason comes out on
 * top only through the table order here. */
static const unsigned char rank_of[POL__SE_COUNT] = {
  [POL_SE_NONE] = 0,             [POL_SE_READ] = 1,
  [POL_SE_NAVIGATION] = 2,       [POL_SE_LOCAL_UI] = 3,
  [POL_SE_DRAFT] = 4,            [POL_SE_REVERSIBLE_WRITE] = 5,
  [POL_SE_WRITE] = 6,            [POL_SE_UNKNOWN] = 7,
  [POL_SE_EXTERNAL_EFFECT] = 8,  [POL_SE_SECURITY_CHANGE] = 9,
  [POL_SE_BILLING_CHANGE] = 10,  [POL_SE_DESTRUCTIVE] = 11,
  [POL_SE_IRREVERSIBLE] = 12,
};

int pol__rank(pol_side_effect se)
{
  return (unsigned)se < POL__SE_COUNT ? rank_of[se] : rank_of[POL_SE_UNKNOWN];
}

/* ---- normalisation ------------------------------------------------------ */

typedef struct { char *buf; size_t cap, len; int space; } outbuf;

static int put(outbuf *o, const char *s, size_t n)
{
  if (o->len + n + 2 > o->cap) /* keep room for the final space and NUL */
    return -1;
  memcpy(o->buf + o->len, s, n);
  o->len += n;
  o->space = 0;
  return 0;
}

static void sep(outbuf *o)
{
  if (!o->space && o->len + 2 <= o->cap) {
    o->buf[o->len++] = ' ';
    o->space = 1;
  }
}

/* Length of the UTF-8 sequence at p (1 for an invalid byte). */
static size_t u8len(const unsigned char *p)
{
  size_t n = p[0] < 0x80 ? 1 : p[0] >= 0xF0 && p[0] < 0xF8 ? 4
           : p[0] >= 0xE0 ? 3 : p[0] >= 0xC2 ? 2 : 0;
  if (n == 0)
    return 0;
  for (size_t i = 1; i < n; i++)
    if ((p[i] & 0xC0) != 0x80)
      return 0;
  return n;
}

size_t pol__normalize(const char *in, int split_camel, char *buf, size_t cap)
{
  outbuf o = {buf, cap, 0, 0};
  if (cap < 3) {
    if (cap)
      buf[0] = 0;
    return 0;
  }
  sep(&o);
  const unsigned char *p = (const unsigned char *)(in ? in : "");
  size_t seen = 0;
  int prev_lower = 0;
  while (*p && seen < POL__TEXT_MAX) {
    unsigned char c = p[0];
    if (c < 0x80) {
      int alnum = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
                  (c >= '0' && c <= '9');
      if (!alnum) {
        sep(&o);
        prev_lower = 0;
      } else {
        int upper = c >= 'A' && c <= 'Z';
        if (split_camel && upper && prev_lower)
          sep(&o);
        char lc = (char)(upper ? c + 32 : c);
        if (put(&o, &lc, 1))
          break;
        prev_lower = !upper;
      }
      p++, seen++;
      continue;
    }
    size_t n = u8len(p);
    if (n == 0) { /* invalid byte: a separator */
      sep(&o);
      p++, seen++;
      continue;
    }
    prev_lower = 1;
    const char *emit = (const char *)p;
    size_t elen = n;
    char two[2];
    if (n == 2 && c == 0xC2) { /* U+0080-U+00BF: controls, NBSP, punctuation */
      sep(&o);
      p += n, seen += n;
      continue;
    }
    if (n == 2 && c == 0xC3) {
      unsigned char d = p[1];
      if (d == 0xB7) { /* ÷ */
        sep(&o);
        p += n, seen += n;
        continue;
      }
      if (d >= 0x80 && d <= 0x9E && d != 0x97 && d != 0x9F)
        d = (unsigned char)(d + 0x20); /* Latin-1 capital -> small */
      if (d == 0xA4) emit = "ae", elen = 2;
      else if (d == 0xB6) emit = "oe", elen = 2;
      else if (d == 0xBC) emit = "ue", elen = 2;
      else if (d == 0x9F) emit = "ss", elen = 2;
      else {
        two[0] = (char)c, two[1] = (char)d;
        emit = two, elen = 2;
      }
    } else if (n == 3 && c == 0xE1 && p[1] == 0xBA && p[2] == 0x9E) {
      emit = "ss", elen = 2; /* ẞ */
    } else if ((n == 3 && c == 0xE2 && (p[1] == 0x80 || (p[1] == 0x81 && p[2] <= 0xAF))) ||
               (n == 3 && (c == 0xEE || (c == 0xEF && p[1] <= 0xA3))) ||
               (n == 3 && c == 0xEF && p[1] == 0xB8 && p[2] <= 0x8F) ||
               (n == 4 && (c == 0xF4 || (c == 0xF3 && p[1] >= 0xB0)))) {
      /* U+2000-U+206F: spaces, dashes, quotes, bullets, ellipsis; icon-font
       * code points (private use: U+E000-U+F8FF, planes 15 and 16) and
       * variation selectors (U+FE00-U+FE0F) are no letters either */
      sep(&o);
      p += n, seen += n;
      continue;
    }
    if (put(&o, emit, elen))
      break;
    p += n, seen += n;
  }
  sep(&o);
  buf[o.len] = 0;
  return o.len;
}

/* ---- scanning ----------------------------------------------------------- */

#define MAX_HITS 64

typedef struct { size_t start, end; const pol__lex_entry *e; int dropped; } hit;

static int counts_as_safe(const pol__lex_entry *e, int in_dialog)
{
  if (!(e->flags & POL__LX_SAFE))
    return 0;
  return !(e->flags & POL__LX_DIALOG) || in_dialog;
}

void pol__lexicon_scan(const char *text, int flags, pol__scan *out)
{
  int url = !!(flags & POL__SCAN_URL);
  int in_dialog = !!(flags & POL__SCAN_DIALOG);
  char buf[POL__TEXT_MAX + 8];
  char pat[POL__TEXT_MAX + 8];
  hit hits[MAX_HITS];
  size_t nh = 0;

  memset(out, 0, sizeof *out);
  size_t len = pol__normalize(text, flags & (POL__SCAN_URL | POL__SCAN_CAMEL),
                              buf, sizeof buf);
  if (len <= 1)
    return;

  for (size_t i = 0; i < pol__lexicon_len && nh < MAX_HITS; i++) {
    const pol__lex_entry *e = &pol__lexicon[i];
    if (url && !(e->flags & POL__LX_URL))
      continue;
    if ((flags & POL__SCAN_LINK) && (e->flags & POL__LX_CHANNEL))
      continue;
    size_t plen = pol__normalize(e->phrase, 0, pat, sizeof pat);
    if (plen <= 2)
      continue;
    for (const char *at = strstr(buf, pat); at && nh < MAX_HITS;
         at = strstr(at + 1, pat)) {
      size_t s = (size_t)(at - buf) + 1;
      hits[nh++] = (hit){s, s + plen - 2, e, 0};
    }
  }

  /* A hit strictly inside a longer one is superseded by it. */
  for (size_t i = 0; i < nh; i++)
    for (size_t j = 0; j < nh; j++)
      if (i != j && hits[j].start <= hits[i].start && hits[i].end <= hits[j].end &&
          hits[j].end - hits[j].start > hits[i].end - hits[i].start) {
        hits[i].dropped = 1;
        break;
      }

  /* Coverage by safe and filler words (for WHOLE safe words). */
  unsigned char covered[POL__TEXT_MAX + 8] = {0};
  const pol__lex_entry *safe_any = NULL, *safe_whole = NULL;
  const hit *best = NULL;
  for (size_t i = 0; i < nh; i++) {
    const hit *h = &hits[i];
    const pol__lex_entry *e = h->e;
    if (e->flags & (POL__LX_SAFE | POL__LX_FILLER)) {
      if ((e->flags & POL__LX_FILLER) || counts_as_safe(e, in_dialog))
        memset(covered + h->start, 1, h->end - h->start);
      if (h->dropped || !counts_as_safe(e, in_dialog))
        continue;
      if (e->flags & POL__LX_WHOLE) {
        if (!safe_whole)
          safe_whole = e;
      } else if (!safe_any) {
        safe_any = e;
      }
      continue;
    }
    if (h->dropped)
      continue;
    if (!best) {
      best = h;
      continue;
    }
    int rb = pol__rank(best->e->cls), rh = pol__rank(e->cls);
    size_t lb = best->end - best->start, lh = h->end - h->start;
    if (rh > rb || (rh == rb && (lh > lb || (lh == lb && h->start < best->start))))
      best = h;
  }
  if (best) {
    out->risky = best->e;
    return;
  }
  int whole = 1;
  for (size_t i = 0; i < len; i++)
    if (buf[i] != ' ' && !covered[i]) {
      whole = 0;
      break;
    }
  if (safe_any) {
    out->safe = safe_any;
    out->safe_signal = 1;
  } else if (safe_whole && whole) {
    out->safe = safe_whole;
    out->safe_signal = 1;
  }
}

void pol__lexicon_rule(const pol__lex_entry *e, const char *prefix, int with_lang,
                       char *buf, size_t cap)
{
  char tmp[128];
  const char *stem = e->group;
  if (!stem) {
    size_t n = pol__normalize(e->phrase, 0, tmp, sizeof tmp);
    /* " sign out " -> "sign_out"; non-ASCII bytes -> '_' */
    size_t w = 0;
    for (size_t i = 1; i + 1 < n; i++) {
      unsigned char c = (unsigned char)tmp[i];
      tmp[w++] = (char)(c == ' ' || c >= 0x80 ? '_' : c);
    }
    tmp[w] = 0;
    stem = tmp;
  }
  if (!cap)
    return;
  if (with_lang)
    snprintf(buf, cap, "%s.%s.%s", prefix, e->lang == POL__DE ? "de" : "en", stem);
  else
    snprintf(buf, cap, "%s.%s", prefix, stem);
}

int pol__attr_eq(const char *value, const char *word)
{
  if (!value)
    return 0;
  while (*value == ' ' || *value == '\t' || *value == '\n' || *value == '\r')
    value++;
  size_t n = strlen(value);
  while (n && (value[n - 1] == ' ' || value[n - 1] == '\t' ||
               value[n - 1] == '\n' || value[n - 1] == '\r'))
    n--;
  if (n != strlen(word))
    return 0;
  for (size_t i = 0; i < n; i++) {
    unsigned char a = (unsigned char)value[i], b = (unsigned char)word[i];
    if (a >= 'A' && a <= 'Z') a = (unsigned char)(a + 32);
    if (b >= 'A' && b <= 'Z') b = (unsigned char)(b + 32);
    if (a != b)
      return 0;
  }
  return 1;
}
