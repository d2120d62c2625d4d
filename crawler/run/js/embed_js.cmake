# embed_js.cmake -- one page script (crawler/run/js/NAME.js) into a C array,
# by crawler/embed.cmake, without the file's final newline: the array holds
# byte for byte what the page is sent.
#   cmake -DIN=js/page_facts.js -DOUT=page_facts.c -DNAME=crawl__js_page_facts -P embed_js.cmake
file(READ "${IN}" text)
string(REGEX REPLACE "\n$" "" text "${text}")
set(IN "${OUT}.js")
file(WRITE "${IN}" "${text}")
include(${CMAKE_CURRENT_LIST_DIR}/../../embed.cmake)
file(REMOVE "${IN}")
