/* crawl_strmap.h -- the string map moved to the base layer (crawl__strmap
 * in crawler/base/crawl_base.h); this name stays so that crawler code that
 * includes it needs no change. */
#ifndef UIAP_CRAWL_STRMAP_H
#define UIAP_CRAWL_STRMAP_H

#include "crawl_base.h"

#endif
