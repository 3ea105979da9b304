/* SPDX-License-Identifier: MIT */
/*
 * A small vsnprintf. The kernel has no libc; the simulator compiles this same
 * file, so both machines print byte-identical KTAP.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include "kstring.h"
#include "ktap.h"

struct out {
	char *buf;
	size_t size, len; /* len counts every char, even those not stored */
};

static void put(struct out *o, char c)
{
	if (o->len + 1 < o->size)
		o->buf[o->len] = c;
	o->len++;
}

/* n bytes at once: what fits is stored, all of them are counted. */
static void put_bytes(struct out *o, const char *s, size_t n)
{
	size_t room = o->len + 1 < o->size ? o->size - 1 - o->len : 0;

	kmemcpy(o->buf + o->len, s, n < room ? n : room);
	o->len += n;
}

static void put_repeat(struct out *o, char c, int n)
{
	while (n-- > 0)
		put(o, c);
}

struct spec {
	int left, zero, alt, space, plus;
	int width, prec; /* prec < 0: none */
	int length;	 /* 0 int, 1 long, 2 long long / size_t / intmax */
};

static void put_number(struct out *o, const struct spec *s, uint64_t v, int neg, unsigned base,
		       int upper)
{
	const char *digits = upper ? "0123456789ABCDEF" : "0123456789abcdef";
	char tmp[24];
	int n = 0;

	if (v == 0 && s->prec != 0)
		tmp[n++] = '0';
	while (v) {
		tmp[n++] = digits[v % base];
		v /= base;
	}

	const char *prefix = "";
	if (neg)
		prefix = "-";
	else if (s->plus)
		prefix = "+";
	else if (s->space)
		prefix = " ";
	else if (s->alt && base == 16 && n && !(n == 1 && tmp[0] == '0'))
		prefix = upper ? "0X" : "0x";
	else if (s->alt && base == 8 && tmp[n - 1] != '0')
		prefix = "0";

	int plen = 0;
	while (prefix[plen])
		plen++;
	int zeros = s->prec > n ? s->prec - n : 0;
	int pad = s->width - (plen + zeros + n);

	if (s->zero && !s->left && s->prec < 0) {
		zeros += pad > 0 ? pad : 0;
		pad = 0;
	}
	if (!s->left)
		put_repeat(o, ' ', pad);
	for (int i = 0; i < plen; i++)
		put(o, prefix[i]);
	put_repeat(o, '0', zeros);
	while (n)
		put(o, tmp[--n]);
	if (s->left)
		put_repeat(o, ' ', pad);
}

static void put_string(struct out *o, const struct spec *s, const char *str)
{
	if (!str)
		str = "(null)";
	int n = (int)(s->prec < 0 ? kstrlen(str) : kspan_until(str, (size_t)s->prec, '\0'));
	if (!s->left)
		put_repeat(o, ' ', s->width - n);
	put_bytes(o, str, (size_t)n);
	if (s->left)
		put_repeat(o, ' ', s->width - n);
}

static uint64_t get_unsigned(const struct spec *s, va_list *ap)
{
	if (s->length == 2)
		return va_arg(*ap, unsigned long long);
	if (s->length == 1)
		return va_arg(*ap, unsigned long);
	return va_arg(*ap, unsigned int);
}

static int64_t get_signed(const struct spec *s, va_list *ap)
{
	if (s->length == 2)
		return va_arg(*ap, long long);
	if (s->length == 1)
		return va_arg(*ap, long);
	return va_arg(*ap, int);
}

/* Parses flags, width, precision and length; returns the conversion char. */
static char parse_spec(const char **pf, struct spec *s, va_list *ap)
{
	const char *f = *pf;

	*s = (struct spec){.prec = -1};
	for (;; f++) {
		if (*f == '-')
			s->left = 1;
		else if (*f == '0')
			s->zero = 1;
		else if (*f == '#')
			s->alt = 1;
		else if (*f == ' ')
			s->space = 1;
		else if (*f == '+')
			s->plus = 1;
		else
			break;
	}
	if (*f == '*') {
		s->width = va_arg(*ap, int);
		if (s->width < 0) {
			s->left = 1;
			s->width = -s->width;
		}
		f++;
	} else {
		while (*f >= '0' && *f <= '9')
			s->width = s->width * 10 + (*f++ - '0');
	}
	if (*f == '.') {
		f++;
		s->prec = 0;
		if (*f == '*') {
			s->prec = va_arg(*ap, int);
			f++;
		} else {
			while (*f >= '0' && *f <= '9')
				s->prec = s->prec * 10 + (*f++ - '0');
		}
	}
	for (;; f++) {
		if (*f == 'h')
			continue; /* promoted to int anyway */
		if (*f == 'l')
			s->length++;
		else if (*f == 'z' || *f == 'j' || *f == 't')
			s->length = 2;
		else
			break;
	}
	if (s->length > 2)
		s->length = 2;
	*pf = f + (*f != '\0');
	return *f;
}

int kvsnprintf(char *buf, size_t size, const char *fmt, va_list ap_in)
{
	struct out o = {buf, size, 0};
	va_list ap;

	va_copy(ap, ap_in);
	const char *fmt_end = fmt + kstrlen(fmt);
	while (*fmt) {
		if (*fmt != '%') { /* the text up to the next conversion, in one copy */
			size_t k = kspan_until(fmt, (size_t)(fmt_end - fmt), '%');
			put_bytes(&o, fmt, k);
			fmt += k;
			continue;
		}
		fmt++;
		struct spec s;
		char c = parse_spec(&fmt, &s, &ap);
		switch (c) {
		case 'd':
		case 'i': {
			int64_t v = get_signed(&s, &ap);
			put_number(&o, &s, v < 0 ? -(uint64_t)v : (uint64_t)v, v < 0, 10, 0);
			break;
		}
		case 'u':
			put_number(&o, &s, get_unsigned(&s, &ap), 0, 10, 0);
			break;
		case 'x':
		case 'X':
			put_number(&o, &s, get_unsigned(&s, &ap), 0, 16, c == 'X');
			break;
		case 'o':
			put_number(&o, &s, get_unsigned(&s, &ap), 0, 8, 0);
			break;
		case 'p': {
			struct spec ps = s;
			ps.alt = 1;
			put_number(&o, &ps, (uintptr_t)va_arg(ap, void *), 0, 16, 0);
			break;
		}
		case 'c': {
			char ch = (char)va_arg(ap, int);
			struct spec cs = s;
			char str[2] = {ch, 0};
			cs.prec = 1;
			put_string(&o, &cs, str);
			break;
		}
		case 's':
			put_string(&o, &s, va_arg(ap, const char *));
			break;
		case '%':
			put(&o, '%');
			break;
		case '\0':
			break;
		default: /* unknown conversion: print it verbatim */
			put(&o, '%');
			put(&o, c);
			break;
		}
	}
	va_end(ap);
	if (size)
		buf[o.len < size ? o.len : size - 1] = '\0';
	return (int)o.len;
}

size_t kvformat(char *buf, size_t size, const char *fmt, va_list ap)
{
	int n = kvsnprintf(buf, size, fmt, ap);
	return (size_t)n < size ? (size_t)n : size - 1;
}

int ksnprintf(char *buf, size_t size, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	int n = kvsnprintf(buf, size, fmt, ap);
	va_end(ap);
	return n;
}
