/* crawl_secrets.h -- the run's secret list: every value the graph redacted
 * (passwords, card numbers, one-time codes, the other sensitive fields'
 * values: pg_graph.secrets, collected by the tab at each capture), and the
 * one filter that keeps them out of what the crawler writes beside the
 * graph: the journal (crawl__journal_secrets: every line, so also the
 * package, reports, SARIF and JUnit derived from it), the state files, and
 * the log (crawl__log_secrets). A blocked request's URL that carries a
 * password in its query is how a secret gets there. Internal to crawler/.
 *
 * Matching: a secret matches in each of its spellings -- as written, its
 * ASCII upper- and lower-case forms, its hex (either case of digits), its
 * base64 (standard and URL-safe alphabets; the whole encoding, padded or
 * not, and, for a secret inside a longer encoded value, the characters
 * made of its own bits at each of the three alignments) -- and each
 * spelling also percent-encoded (any byte as %XX, either case of hex
 * digits, mixed with plain bytes) and with '+' for a space (form
 * encoding); each match becomes "[redacted]", the longest first. Other
 * mixes of case are not matched (a password's case matters).
 * Values shorter than CRAWL__SECRET_MIN_CHARS characters (not counting
 * white space) are not secrets: "1", "on", "abc" would wipe out ordinary
 * words and numbers everywhere. The spellings are indexed by their first
 * byte, so a text is scanned once whatever the number of secrets.
 *
 *   crawl__secrets *s = crawl__secrets_new();
 *   crawl__secrets_add(s, "hunter2-pw");
 *   char *t = crawl__secrets_scrub(s, "POST /x?pw=hunter2-pw");  // "POST /x?pw=[redacted]"
 *   free(t);
 *   crawl__secrets_free(s);
 */
#ifndef UIAP_CRAWL_SECRETS_H
#define UIAP_CRAWL_SECRETS_H

#include <stddef.h>
#include <cjson/cJSON.h>

#define CRAWL__SECRET_MIN_CHARS 4
#define CRAWL__SECRET_MAX_BYTES 4096 /* a longer value is kept as its first bytes */
#define CRAWL__SECRETS_MAX 4096      /* values kept; later ones are dropped (and counted) */
#define CRAWL__REDACTED "[redacted]" /* PG_REDACTED, which common/ cannot include */

typedef struct crawl__secrets crawl__secrets;

/* An empty list; free with crawl__secrets_free (NULL is a no-op). */
crawl__secrets *crawl__secrets_new(void);
void crawl__secrets_free(crawl__secrets *s);
/* Remember value (copied) and its spellings. 1 when it is new, 0 when it
 * was known, too short, NULL, or the list is full (crawl__secrets_dropped
 * counts those). crawl__secrets_count counts values, not spellings. */
int crawl__secrets_add(crawl__secrets *s, const char *value);
size_t crawl__secrets_count(const crawl__secrets *s);
long crawl__secrets_dropped(const crawl__secrets *s);
/* text with every match of a secret replaced by "[redacted]", longest
 * secrets first: a new string (caller frees), also when nothing matched;
 * NULL for NULL. s NULL or empty: a copy. *n (may be NULL): matches
 * replaced. */
char *crawl__secrets_scrub(const crawl__secrets *s, const char *text, int *n);
/* Every string value in the tree at item (object keys are the crawler's
 * own and left alone), in place. Returns the matches replaced. */
int crawl__secrets_scrub_json(const crawl__secrets *s, cJSON *item);

/* The credentials of url, a URL the user gave (docs/safety.md): the
 * password of its userinfo (or the whole userinfo when it has no ':', a
 * token as user name), the values of its query and fragment parameters
 * whose key names a credential (token, secret, password, key, sig, ...),
 * and, when every_query is set, every query value (the --connect and
 * --frontier URLs: a pool's or a server's parameters). Values are added
 * percent-decoded. Returns the values added. Not a URL: 0. */
int crawl__secrets_add_url(crawl__secrets *s, const char *url, int every_query);
/* Every value of from into s, each with its mask. Returns the values added. */
int crawl__secrets_add_all(crawl__secrets *s, const crawl__secrets *from);

/* Remember value as crawl__secrets_add does, replaced by mask (a static
 * string such as "[name]") instead of "[redacted]": --redact pii's values
 * (a name typed into a name field), which may then be found anywhere. */
int crawl__secrets_add_masked(crawl__secrets *s, const char *value, const char *mask);
/* A filter that runs after the list on everything the list filters
 * (--redact pii: e-mail addresses and phone numbers, pg_pii_mask): fn
 * returns a new string (caller frees) and the count in *hits, or NULL when
 * it changed nothing. NULL: none. */
typedef char *(*crawl__text_filter)(const char *text, int *hits);
void crawl__secrets_filter(crawl__secrets *s, crawl__text_filter fn);
/* 1 when a filter is set (then an empty list still filters). */
int crawl__secrets_filtered(const crawl__secrets *s);

/* The log's filter (log.c): while set, every line crawl_log formats passes
 * through s before it reaches the sink. Process-wide, like the sink; the
 * run sets it while it runs and clears it (NULL) before it frees s. */
void crawl__log_secrets(const crawl__secrets *s);

#endif
