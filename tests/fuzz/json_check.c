#include "json_check.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "utf8_check.h"
#include "common/wire.h"

/* Deep enough for any report; bounded so that hostile text cannot
 * exhaust the stack. */
#define MAX_DEPTH 256

struct parser {
	const char *s;
	size_t n, at;
	const char *error;
	int depth;
};

static bool fail(struct parser *p, const char *error)
{
	if (!p->error)
		p->error = error;
	return false;
}

static void skip_ws(struct parser *p)
{
	while (p->at < p->n && (p->s[p->at] == ' ' || p->s[p->at] == '\t' || p->s[p->at] == '\n' ||
				p->s[p->at] == '\r'))
		p->at++;
}


/* The four hex digits of a \u escape at s (n bytes there), or -1. */
static long hex4(const char *s, size_t n)
{
	if (n < 4)
		return -1;
	long v = 0;
	for (int i = 0; i < 4; i++) {
		int d = cs_hex_digit((unsigned char)s[i]);
		if (d < 0)
			return -1;
		v = v << 4 | d;
	}
	return v;
}

static size_t put_utf8(uint32_t cp, char *out)
{
	if (cp < 0x80) {
		out[0] = (char)cp;
		return 1;
	}
	if (cp < 0x800) {
		out[0] = (char)(0xC0 | cp >> 6);
		out[1] = (char)(0x80 | (cp & 0x3F));
		return 2;
	}
	if (cp < 0x10000) {
		out[0] = (char)(0xE0 | cp >> 12);
		out[1] = (char)(0x80 | (cp >> 6 & 0x3F));
		out[2] = (char)(0x80 | (cp & 0x3F));
		return 3;
	}
	out[0] = (char)(0xF0 | cp >> 18);
	out[1] = (char)(0x80 | (cp >> 12 & 0x3F));
	out[2] = (char)(0x80 | (cp >> 6 & 0x3F));
	out[3] = (char)(0x80 | (cp & 0x3F));
	return 4;
}

/* A \u escape at s[0] == '\\' (n bytes there): the code point, and the
 * bytes it took in *used; -1 with *error when malformed or half a pair. */
static long unicode_escape(const char *s, size_t n, size_t *used, const char **error)
{
	long hi = hex4(s + 2, n - 2);
	if (hi < 0) {
		*error = "\\u without four hex digits";
		return -1;
	}
	*used = 6;
	if (hi >= 0xDC00 && hi <= 0xDFFF) {
		*error = "\\u escape of a lone low surrogate";
		return -1;
	}
	if (hi < 0xD800 || hi > 0xDBFF)
		return hi;
	long lo = n >= 12 && s[6] == '\\' && s[7] == 'u' ? hex4(s + 8, n - 8) : -1;
	if (lo < 0xDC00 || lo > 0xDFFF) {
		*error = "\\u escape of a high surrogate without its low half";
		return -1;
	}
	*used = 12;
	return 0x10000 + ((hi - 0xD800) << 10) + (lo - 0xDC00);
}

size_t json_decode_string(const char *text, size_t len, char *out, size_t *outlen, const char **error)
{
	size_t o = 0;
	if (!len || text[0] != '"') {
		*error = "a string does not start with '\"'";
		return 0;
	}
	for (size_t i = 1; i < len;) {
		unsigned char c = (unsigned char)text[i];
		if (c == '"') {
			*outlen = o;
			return i + 1;
		}
		if (c < 0x20) {
			*error = "an unescaped control character in a string";
			return 0;
		}
		if (c != '\\') {
			size_t l = utf8_char_len((const unsigned char *)text + i, len - i);
			if (!l) {
				*error = "a string is not UTF-8";
				return 0;
			}
			if (out)
				memcpy(out + o, text + i, l);
			o += l;
			i += l;
			continue;
		}
		if (i + 1 >= len)
			break;
		static const char simple[] = "\"\\/bfnrt", value[] = "\"\\/\b\f\n\r\t";
		const char *k = memchr(simple, text[i + 1], sizeof simple - 1);
		if (k) {
			if (out)
				out[o] = value[k - simple];
			o++;
			i += 2;
			continue;
		}
		if (text[i + 1] != 'u') {
			*error = "an unknown escape in a string";
			return 0;
		}
		size_t used;
		long cp = unicode_escape(text + i, len - i, &used, error);
		if (cp < 0)
			return 0;
		char utf8[4];
		size_t l = put_utf8((uint32_t)cp, utf8);
		if (out)
			memcpy(out + o, utf8, l);
		o += l;
		i += used;
	}
	*error = "a string without its closing '\"'";
	return 0;
}

static bool parse_value(struct parser *p);

static bool parse_string(struct parser *p, char *out, size_t *outlen)
{
	size_t dummy;
	size_t used = json_decode_string(p->s + p->at, p->n - p->at, out, outlen ? outlen : &dummy, &p->error);
	if (!used)
		return false;
	p->at += used;
	return true;
}

static bool digits(struct parser *p)
{
	size_t start = p->at;
	while (p->at < p->n && p->s[p->at] >= '0' && p->s[p->at] <= '9')
		p->at++;
	return p->at > start;
}

/* -? (0 | [1-9][0-9]*) (. [0-9]+)? ([eE] [+-]? [0-9]+)? */
static bool parse_number(struct parser *p)
{
	if (p->s[p->at] == '-')
		p->at++;
	if (p->at < p->n && p->s[p->at] == '0')
		p->at++;
	else if (!digits(p))
		return fail(p, "a number without digits");
	if (p->at < p->n && p->s[p->at] == '.') {
		p->at++;
		if (!digits(p))
			return fail(p, "a number without digits after '.'");
	}
	if (p->at < p->n && (p->s[p->at] == 'e' || p->s[p->at] == 'E')) {
		p->at++;
		if (p->at < p->n && (p->s[p->at] == '+' || p->s[p->at] == '-'))
			p->at++;
		if (!digits(p))
			return fail(p, "a number without digits in its exponent");
	}
	return true;
}

static bool parse_literal(struct parser *p, const char *word)
{
	size_t l = strlen(word);
	if (p->n - p->at < l || memcmp(p->s + p->at, word, l) != 0)
		return fail(p, "not a JSON value");
	p->at += l;
	return true;
}

struct names {
	char **name;
	size_t *len;
	size_t n;
};

static void names_free(struct names *k)
{
	for (size_t i = 0; i < k->n; i++)
		free(k->name[i]);
	free(k->name);
	free(k->len);
}

/* Adds name unless the object has it already. */
static bool names_add(struct names *k, char *name, size_t len)
{
	for (size_t i = 0; i < k->n; i++)
		if (k->len[i] == len && memcmp(k->name[i], name, len) == 0)
			return false;
	k->name = realloc(k->name, (k->n + 1) * sizeof *k->name);
	k->len = realloc(k->len, (k->n + 1) * sizeof *k->len);
	if (!k->name || !k->len)
		abort();
	k->name[k->n] = name;
	k->len[k->n++] = len;
	return true;
}

static bool parse_members(struct parser *p, struct names *names)
{
	skip_ws(p);
	if (p->at < p->n && p->s[p->at] == '}')
		return true;
	for (;;) {
		skip_ws(p);
		if (p->at >= p->n || p->s[p->at] != '"')
			return fail(p, "an object member without a string name");
		size_t start = p->at, len;
		if (!parse_string(p, NULL, NULL))
			return false;
		char *name = malloc(p->at - start); /* decoded, never longer than the token */
		if (!name)
			abort();
		json_decode_string(p->s + start, p->at - start, name, &len, &p->error);
		if (!names_add(names, name, len)) {
			free(name);
			p->at = start;
			return fail(p, "a name that the object has already");
		}
		skip_ws(p);
		if (p->at >= p->n || p->s[p->at] != ':')
			return fail(p, "no ':' after an object member's name");
		p->at++;
		if (!parse_value(p))
			return false;
		skip_ws(p);
		if (p->at < p->n && p->s[p->at] == ',') {
			p->at++;
			continue;
		}
		return true;
	}
}

static bool parse_object(struct parser *p)
{
	p->at++; /* '{' */
	struct names names = {0};
	bool ok = parse_members(p, &names);
	names_free(&names);
	if (!ok)
		return false;
	if (p->at >= p->n || p->s[p->at] != '}')
		return fail(p, "an object without its closing '}'");
	p->at++;
	return true;
}

static bool parse_array(struct parser *p)
{
	p->at++; /* '[' */
	skip_ws(p);
	if (p->at < p->n && p->s[p->at] == ']') {
		p->at++;
		return true;
	}
	for (;;) {
		if (!parse_value(p))
			return false;
		skip_ws(p);
		if (p->at < p->n && p->s[p->at] == ',') {
			p->at++;
			continue;
		}
		if (p->at < p->n && p->s[p->at] == ']') {
			p->at++;
			return true;
		}
		return fail(p, "an array without ',' or its closing ']'");
	}
}

static bool parse_value(struct parser *p)
{
	skip_ws(p);
	if (p->at >= p->n)
		return fail(p, "a value is missing");
	if (++p->depth > MAX_DEPTH)
		return fail(p, "nested too deep");
	bool ok;
	char c = p->s[p->at];
	if (c == '{')
		ok = parse_object(p);
	else if (c == '[')
		ok = parse_array(p);
	else if (c == '"')
		ok = parse_string(p, NULL, NULL);
	else if (c == '-' || (c >= '0' && c <= '9'))
		ok = parse_number(p);
	else if (c == 't')
		ok = parse_literal(p, "true");
	else if (c == 'f')
		ok = parse_literal(p, "false");
	else
		ok = parse_literal(p, "null");
	p->depth--;
	return ok;
}

bool json_check(const char *text, size_t len, size_t *offset, const char **error)
{
	struct parser p = {text, len, 0, NULL, 0};
	bool ok = parse_value(&p);
	if (ok) {
		skip_ws(&p);
		if (p.at != p.n)
			ok = fail(&p, "more text after the value");
	}
	if (!ok) {
		*offset = p.at;
		*error = p.error;
	}
	return ok;
}
