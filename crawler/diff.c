/* diff.c -- placeholder */
