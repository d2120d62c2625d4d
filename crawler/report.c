/* report.c -- placeholder */
