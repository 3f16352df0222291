/* Small text helpers shared by the file parsers (config, app lists). */
#ifndef CLRSCOPE_TEXT_H
#define CLRSCOPE_TEXT_H

/* Strips blanks (and a line's \r\n) from both ends, in place. */
char *text_trim(char *s);
/* The value of a hexadecimal digit, or -1. */
int text_hex_digit(int c);

#endif
