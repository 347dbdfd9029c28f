// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * libdlb2: a small JSON reader for configuration files.  Builds a tree of
 * struct json with the line and column of each value, so that the schema
 * checks (spec.c) can point at the offending text.  Integers are kept exact
 * (JSON_INT); numbers with a fraction or exponent are JSON_NUM and carry no
 * value, since no setting takes one.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"

#define JSON_MAX_DEPTH	32

struct parser {
	const char *s, *end;
	int line, col;
	int depth;
	char *err;
	size_t errlen;
	bool failed;
	bool oom;		/* failed for want of memory */
};

static void __attribute__((format(printf, 2, 3)))
perr(struct parser *p, const char *fmt, ...)
{
	va_list ap;
	int n;

	if (p->failed)
		return;
	p->failed = true;
	n = snprintf(p->err, p->errlen, "%d:%d: ", p->line, p->col);
	if (n < 0 || (size_t)n >= p->errlen)
		return;
	va_start(ap, fmt);
	vsnprintf(p->err + n, p->errlen - n, fmt, ap);
	va_end(ap);
}

static void oom(struct parser *p)
{
	if (!p->failed)
		p->oom = true;
	perr(p, "out of memory");
}

const char *json_type_name(enum json_type t)
{
	static const char *const names[] = {
		"null", "a boolean", "an integer", "a number", "a string",
		"an array", "an object",
	};

	return names[t];
}

static int peek(struct parser *p)
{
	return p->s < p->end ? (unsigned char)*p->s : -1;
}

static void next(struct parser *p)
{
	if (*p->s == '\n') {
		p->line++;
		p->col = 1;
	} else {
		p->col++;
	}
	p->s++;
}

static void skip_ws(struct parser *p)
{
	/* not strchr(" \t\r\n", c), which finds the string's NUL as well */
	while (p->s < p->end && (*p->s == ' ' || *p->s == '\t' ||
				 *p->s == '\r' || *p->s == '\n'))
		next(p);
}

void json_free(struct json *j)
{
	int i;

	if (!j)
		return;
	if (j->type == JSON_STR)
		free(j->s);
	if (j->type == JSON_ARR || j->type == JSON_OBJ) {
		for (i = 0; i < j->n; i++) {
			json_free(j->v[i]);
			if (j->k)
				free(j->k[i]);
		}
		free(j->v);
		free(j->k);
	}
	free(j);
}

static struct json *new_value(struct parser *p, enum json_type t)
{
	struct json *j = calloc(1, sizeof(*j));

	if (!j) {
		oom(p);
		return NULL;
	}
	j->type = t;
	j->line = p->line;
	j->col = p->col;
	return j;
}

static int hex4(struct parser *p, unsigned int *v)
{
	int i, c;

	*v = 0;
	for (i = 0; i < 4; i++) {
		c = peek(p);
		if (c >= '0' && c <= '9')
			*v = *v * 16 + c - '0';
		else if (c >= 'a' && c <= 'f')
			*v = *v * 16 + c - 'a' + 10;
		else if (c >= 'A' && c <= 'F')
			*v = *v * 16 + c - 'A' + 10;
		else
			return -1;
		next(p);
	}
	return 0;
}

static size_t put_utf8(char *o, unsigned int cp)
{
	if (cp < 0x80) {
		o[0] = (char)cp;
		return 1;
	}
	if (cp < 0x800) {
		o[0] = (char)(0xc0 | cp >> 6);
		o[1] = (char)(0x80 | (cp & 0x3f));
		return 2;
	}
	if (cp < 0x10000) {
		o[0] = (char)(0xe0 | cp >> 12);
		o[1] = (char)(0x80 | ((cp >> 6) & 0x3f));
		o[2] = (char)(0x80 | (cp & 0x3f));
		return 3;
	}
	o[0] = (char)(0xf0 | cp >> 18);
	o[1] = (char)(0x80 | ((cp >> 12) & 0x3f));
	o[2] = (char)(0x80 | ((cp >> 6) & 0x3f));
	o[3] = (char)(0x80 | (cp & 0x3f));
	return 4;
}

/* A string at p->s (the opening quote); a malloc'ed copy, unescaped. */
static char *parse_string(struct parser *p)
{
	const char *start = p->s;
	unsigned int cp, lo;
	char *out, *o;
	int c;

	next(p);
	/* the unescaped text is never longer than the escaped one */
	out = malloc(p->end - start);
	o = out;
	if (!out) {
		oom(p);
		return NULL;
	}
	for (;;) {
		c = peek(p);
		if (c < 0) {
			perr(p, "unterminated string");
			goto fail;
		}
		if (c < 0x20) {
			perr(p, "control character in string");
			goto fail;
		}
		next(p);
		if (c == '"')
			break;
		if (c != '\\') {
			*o++ = (char)c;
			continue;
		}
		c = peek(p);
		if (c >= 0)
			next(p);
		switch (c) {
		case '"': case '\\': case '/':
			*o++ = (char)c;
			break;
		case 'b':
			*o++ = '\b';
			break;
		case 'f':
			*o++ = '\f';
			break;
		case 'n':
			*o++ = '\n';
			break;
		case 'r':
			*o++ = '\r';
			break;
		case 't':
			*o++ = '\t';
			break;
		case 'u':
			if (hex4(p, &cp))
				goto bad_u;
			if (cp >= 0xd800 && cp < 0xdc00) {
				/* a surrogate pair: \uD8xx\uDCxx */
				if (peek(p) != '\\')
					goto bad_u;
				next(p);
				if (peek(p) != 'u')
					goto bad_u;
				next(p);
				if (hex4(p, &lo) || lo < 0xdc00 || lo > 0xdfff)
					goto bad_u;
				cp = 0x10000 + ((cp - 0xd800) << 10) + (lo - 0xdc00);
			} else if (cp >= 0xdc00 && cp < 0xe000) {
				goto bad_u;
			}
			if (!cp) {
				perr(p, "\\u0000 in string");
				goto fail;
			}
			o += put_utf8(o, cp);
			break;
		default:
			perr(p, "bad escape in string");
			goto fail;
		}
	}
	*o = '\0';
	return out;
bad_u:
	perr(p, "bad \\u escape in string");
fail:
	free(out);
	return NULL;
}

static struct json *parse_value(struct parser *p);

static bool push(struct parser *p, struct json *j, char *key, struct json *v)
{
	struct json **nv;
	char **nk = NULL;

	nv = realloc(j->v, (j->n + 1) * sizeof(*nv));
	if (nv)
		j->v = nv;
	if (nv && j->type == JSON_OBJ) {
		nk = realloc(j->k, (j->n + 1) * sizeof(*nk));
		if (nk)
			j->k = nk;
	}
	if (!nv || (j->type == JSON_OBJ && !nk)) {
		oom(p);
		return false;
	}
	j->v[j->n] = v;
	if (j->type == JSON_OBJ)
		j->k[j->n] = key;
	j->n++;
	return true;
}

/* An array or an object; @close is ']' or '}'. */
static struct json *parse_container(struct parser *p, enum json_type t,
				    int close)
{
	struct json *j, *v;
	char *key = NULL;
	int i;

	j = new_value(p, t);
	if (!j)
		return NULL;
	if (++p->depth > JSON_MAX_DEPTH) {
		perr(p, "nested too deep");
		goto fail;
	}
	next(p);
	skip_ws(p);
	if (peek(p) == close) {
		next(p);
		p->depth--;
		return j;
	}
	for (;;) {
		skip_ws(p);
		if (t == JSON_OBJ) {
			if (peek(p) != '"') {
				perr(p, "expected a key in quotes");
				goto fail;
			}
			key = parse_string(p);
			if (!key)
				goto fail;
			for (i = 0; i < j->n; i++)
				if (!strcmp(j->k[i], key)) {
					perr(p, "duplicate key \"%s\"", key);
					goto fail;
				}
			skip_ws(p);
			if (peek(p) != ':') {
				perr(p, "expected ':' after key");
				goto fail;
			}
			next(p);
		}
		v = parse_value(p);
		if (!v || !push(p, j, key, v)) {
			json_free(v);
			goto fail;
		}
		key = NULL;
		skip_ws(p);
		if (peek(p) == close)
			break;
		if (peek(p) != ',') {
			perr(p, "expected ',' or '%c'", close);
			goto fail;
		}
		next(p);
	}
	next(p);
	p->depth--;
	return j;
fail:
	free(key);
	json_free(j);
	return NULL;
}

/* Skip decimal digits; how many. */
static int digits(struct parser *p)
{
	int n = 0;

	while (peek(p) >= '0' && peek(p) <= '9') {
		next(p);
		n++;
	}
	return n;
}

static struct json *parse_number(struct parser *p)
{
	struct json *j = new_value(p, JSON_INT);
	const char *start = p->s;
	bool neg = false;
	unsigned long long v = 0;
	int c;

	if (!j)
		return NULL;
	if (peek(p) == '-') {
		neg = true;
		next(p);
	}
	c = peek(p);
	if (c < '0' || c > '9')
		goto bad;
	if (c == '0') {
		next(p);
	} else {
		while ((c = peek(p)) >= '0' && c <= '9') {
			if (v > (unsigned long long)LLONG_MAX / 10)
				goto range;
			v = v * 10 + (c - '0');
			if (v > (unsigned long long)LLONG_MAX + neg)
				goto range;
			next(p);
		}
	}
	if (peek(p) == '.') {
		j->type = JSON_NUM;
		next(p);
		if (!digits(p))
			goto bad;
	}
	if (peek(p) == 'e' || peek(p) == 'E') {
		j->type = JSON_NUM;
		next(p);
		if (peek(p) == '+' || peek(p) == '-')
			next(p);
		if (!digits(p))
			goto bad;
	}
	j->i = neg ? (long long)(0 - v) : (long long)v;
	return j;
range:
	p->col -= (int)(p->s - start);	/* point at the number */
	perr(p, "integer out of range");
	json_free(j);
	return NULL;
bad:
	perr(p, "bad number");
	json_free(j);
	return NULL;
}

static bool literal(struct parser *p, const char *word)
{
	size_t n = strlen(word);

	if ((size_t)(p->end - p->s) < n || memcmp(p->s, word, n))
		return false;
	while (n--)
		next(p);
	return true;
}

static struct json *parse_value(struct parser *p)
{
	struct json *j;
	int c;

	skip_ws(p);
	c = peek(p);
	switch (c) {
	case '{':
		return parse_container(p, JSON_OBJ, '}');
	case '[':
		return parse_container(p, JSON_ARR, ']');
	case '"':
		j = new_value(p, JSON_STR);
		if (j)
			j->s = parse_string(p);
		if (j && !j->s) {
			j->type = JSON_NULL;
			json_free(j);
			return NULL;
		}
		return j;
	case '-': case '0': case '1': case '2': case '3': case '4':
	case '5': case '6': case '7': case '8': case '9':
		return parse_number(p);
	}
	j = new_value(p, JSON_NULL);
	if (!j)
		return NULL;
	if (literal(p, "true")) {
		j->type = JSON_BOOL;
		j->b = true;
	} else if (literal(p, "false")) {
		j->type = JSON_BOOL;
	} else if (!literal(p, "null")) {
		if (c < 0)
			perr(p, "unexpected end of input");
		else if (c < 0x20 || c > 0x7e)
			perr(p, "unexpected byte 0x%02x", c);
		else
			perr(p, "unexpected character '%c'", c);
		json_free(j);
		return NULL;
	}
	return j;
}

/*
 * Parse @len bytes of @text.  On error returns NULL with "line:col: what"
 * in @err and errno EINVAL, or ENOMEM when memory ran out.
 */
struct json *json_parse(const char *text, size_t len, char *err, size_t errlen)
{
	struct parser p = {
		.s = text, .end = text + len, .line = 1, .col = 1,
		.err = err, .errlen = errlen,
	};
	struct json *j;

	if (errlen)
		err[0] = '\0';
	j = parse_value(&p);
	if (j) {
		skip_ws(&p);
		if (p.s == p.end)
			return j;
		perr(&p, "trailing characters after the value");
		json_free(j);
	}
	errno = p.oom ? ENOMEM : EINVAL;
	return NULL;
}
