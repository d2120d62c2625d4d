/* fuzz_baseline.c -- libFuzzer target for the baseline reader
 * (crawler/run/baseline_read.c, crawl__baseline_read: `crawl --baseline
 * PREV_DIR` reads last night's directory, an artifact anyone may hand
 * over). The input is the directory's journal.jsonl; the directory also
 * holds one valid state file, states/s.json, which a state record may name.
 * Besides "no crash, no leak, no undefined behaviour, no hang" it checks
 * the reader's promise: either a baseline, or one line of error. */
#include "baseline.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define CHECK(x) do { if (!(x)) abort(); } while (0)

static char dir[64];

static void write_file(const char *name, const uint8_t *data, size_t size) {
  char path[128];
  snprintf(path, sizeof path, "%s/%s", dir, name);
  FILE *f = fopen(path, "wb");
  CHECK(f);
  if (size) CHECK(fwrite(data, 1, size, f) == size);
  fclose(f);
}

static void cleanup(void) {
  char path[128];
  snprintf(path, sizeof path, "%s/journal.jsonl", dir);
  unlink(path);
  snprintf(path, sizeof path, "%s/states/s.json", dir);
  unlink(path);
  snprintf(path, sizeof path, "%s/states", dir);
  rmdir(path);
  rmdir(dir);
}

static void setup(void) {
  if (dir[0]) return;
  snprintf(dir, sizeof dir, "/tmp/fuzz-baseline-XXXXXX");
  CHECK(mkdtemp(dir));
  char states[96];
  snprintf(states, sizeof states, "%s/states", dir);
  CHECK(mkdir(states, 0700) == 0);
  static const char graph[] =
    "{\"elements\":[{\"role\":\"button\",\"name\":\"Items\",\"supportedActions\":[\"ui.activate\"]}]}";
  write_file("states/s.json", (const uint8_t *)graph, sizeof graph - 1);
  atexit(cleanup);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  setup();
  write_file("journal.jsonl", data, size);
  crawl__baseline *b = NULL;
  char err[512] = "";
  crawl_code rc = crawl__baseline_read(dir, 10, &b, err, sizeof err);
  if (rc == CRAWL_OK) {
    CHECK(b);
    crawl__baseline_free(b);
  } else {
    CHECK(!b && err[0] && !strchr(err, '\n'));
  }
  return 0;
}
