/*
 * kobrowser.cdp._cbor: Chrome's DevTools CBOR <-> the JSON kobrowser decodes.
 *
 * Chrome started with --remote-debugging-pipe=cbor writes every message as
 * an "envelope" (tag 24, a byte string with a 4-byte length) holding an
 * indefinite-length map; nested maps and arrays are enveloped the same way.
 * Strings are UTF-8 text, or UTF-16LE byte strings when they do not fit in
 * Latin-1; binary data is tag 22 on a byte string.
 *
 *   to_json(buffer) -> bytes
 *       One whole message (any CBOR data item, enveloped or not) as compact
 *       JSON, keys in their CBOR order, so the msgspec JSON decoders read it.
 *       UTF-16 strings become UTF-8, tag 22 binary becomes a base64 string,
 *       integral doubles print as integers and non-finite ones as null (as
 *       Chrome's own JSON does). Malformed, truncated or oversized input
 *       raises CBORError(message, offset, call_id): offset is the byte where
 *       reading failed, call_id the top-level "id" when it was read before.
 *
 *   to_json(buffer, keeps) -> bytes
 *       The same, but when the message's top-level "id" (read before its
 *       "result") is a key of the dict ``keeps``, that entry is taken out
 *       and its value, a projection made by compile(), says what of the
 *       result is written (see "projections" below).
 *
 *   compile(shape) -> projection
 *       A projection (an opaque capsule) of the normalized shape that
 *       kobrowser/cdp/_keep.py makes of a caller's spec. Compiled once, used
 *       for any number of answers.
 *
 *   encode_call(id, method, params, session_id) -> bytes
 *   encode(value) -> bytes
 *       Chrome's enveloped CBOR: every map and array enveloped, integers in
 *       int32 range (larger ones are sent as doubles, as JSON would), text as
 *       UTF-8, bytes as tag 22 binary. Anything else goes through the
 *       ``default`` hook set with set_default() (kobrowser sets one that
 *       turns msgspec objects into builtins).
 *
 * The codec knows nothing of CDP's domains: a projection is data. The
 * decoder never reads past the buffer, never recurses deeper than
 * MAX_DEPTH, and checks every length against what is left before using it.
 * Module state (the exception class, the default hook) lives in the module
 * object (PEP 489 multi-phase initialisation); nothing is global. It builds
 * against the limited API (Py_LIMITED_API 0x030B0000, abi3) as well.
 */
#include <Python.h>
#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_DEPTH 1000

typedef struct {
    PyObject *cbor_error;   /* the module's CBORError class */
    PyObject *default_hook; /* set_default()'s hook, or NULL */
} State;

static inline State *state_of(PyObject *module) { return (State *)PyModule_GetState(module); }

/* ------------------------------------------------------------------ */
/* output buffer                                                       */
/*
 * A PyMem buffer, copied into its bytes object once at the end. (Growing a
 * bytes object in place needs _PyBytes_Resize, outside the limited API; and
 * measured on a 19 MB AX tree transcoded whole, the copy is cheaper than
 * the resizes: 36 ms instead of 45.)
 */

typedef struct {
    char *data;
    Py_ssize_t len;
    Py_ssize_t cap;
} Out;

static int out_init(Out *o, Py_ssize_t cap) {
    if (cap < 64) cap = 64;
    o->data = PyMem_Malloc((size_t)cap);
    if (o->data == NULL) {
        PyErr_NoMemory();
        return -1;
    }
    o->len = 0;
    o->cap = cap;
    return 0;
}

static int out_grow(Out *o, Py_ssize_t need) {
    Py_ssize_t cap = o->cap;
    while (cap - o->len < need) {
        if (cap > PY_SSIZE_T_MAX / 2) {
            PyErr_NoMemory();
            return -1;
        }
        cap *= 2;
    }
    char *data = PyMem_Realloc(o->data, (size_t)cap);
    if (data == NULL) {
        PyErr_NoMemory();
        return -1;
    }
    o->data = data;
    o->cap = cap;
    return 0;
}

#define RESERVE(o, n) \
    do { if ((o)->cap - (o)->len < (Py_ssize_t)(n) && out_grow((o), (n)) < 0) return -1; } while (0)

static PyObject *out_finish(Out *o) {
    PyObject *bytes = PyBytes_FromStringAndSize(o->data, o->len);
    PyMem_Free(o->data);
    o->data = NULL;
    return bytes;
}

static void out_drop(Out *o) {
    PyMem_Free(o->data);
    o->data = NULL;
}

/* ------------------------------------------------------------------ */
/* decoder state                                                       */

typedef struct Shape Shape;

typedef struct {
    const uint8_t *buf;
    Py_ssize_t size;
    Py_ssize_t pos;
    Out out;
    int depth;
    int have_id;
    long long call_id;
    PyObject *keeps; /* call id -> projection (a dict), or NULL */
    State *st;
} Dec;

static int fail(Dec *d, Py_ssize_t offset, const char *fmt, ...) {
    char text[240];
    va_list args;
    va_start(args, fmt);
    int n = vsnprintf(text, 200, fmt, args);
    va_end(args);
    if (n < 0) n = 0;
    if (n > 199) n = 199;
    snprintf(text + n, sizeof text - n, " at byte offset %zd", offset);
    PyObject *id = d->have_id ? PyLong_FromLongLong(d->call_id) : Py_NewRef(Py_None);
    if (id == NULL) return -1;
    PyObject *exc = PyObject_CallFunction(d->st->cbor_error, "snN", text, offset, id);
    if (exc != NULL) {
        PyErr_SetObject(d->st->cbor_error, exc);
        Py_DECREF(exc);
    }
    return -1;
}

#define TRUNCATED(d, at) fail((d), (at), "truncated CBOR: the message ends inside the item")

/* Read an item head: major type and argument. Returns -1 on error, 1 when
 * the item is of indefinite length (additional info 31), else 0. */
static int read_head(Dec *d, int *major, uint64_t *arg) {
    Py_ssize_t start = d->pos;
    if (d->pos >= d->size) return TRUNCATED(d, start);
    uint8_t b = d->buf[d->pos++];
    *major = b >> 5;
    uint8_t info = b & 0x1f;
    if (info < 24) {
        *arg = info;
        return 0;
    }
    if (info == 31) {
        *arg = 0;
        return 1;
    }
    if (info > 27) return fail(d, start, "malformed CBOR: reserved additional information %d", info);
    Py_ssize_t n = (Py_ssize_t)1 << (info - 24);
    if (d->size - d->pos < n) return TRUNCATED(d, start);
    uint64_t v = 0;
    for (Py_ssize_t i = 0; i < n; i++) v = (v << 8) | d->buf[d->pos + i];
    d->pos += n;
    *arg = v;
    return 0;
}

/* A length argument as a byte count that fits in what is left. */
static int take_length(Dec *d, Py_ssize_t head, uint64_t arg, Py_ssize_t *len) {
    if (arg > (uint64_t)(d->size - d->pos)) {
        if (arg > (uint64_t)PY_SSIZE_T_MAX / 2)
            return fail(d, head, "oversized CBOR: a length of %llu bytes", (unsigned long long)arg);
        return fail(d, head, "truncated CBOR: the item declares %llu bytes, %zd are left",
                    (unsigned long long)arg, d->size - d->pos);
    }
    *len = (Py_ssize_t)arg;
    return 0;
}

/* --- JSON writers ------------------------------------------------- */

static const char HEX[] = "0123456789abcdef";

/* Whether a byte cannot be copied as it is into a JSON string. */
static inline int needs_care(uint32_t c) { return c < 0x20 || c == '"' || c == '\\' || c >= 0x80; }

static inline void put_escape(Out *o, uint32_t c) {
    char *p = o->data + o->len;
    switch (c) {
    case '"': p[0] = '\\'; p[1] = '"'; o->len += 2; return;
    case '\\': p[0] = '\\'; p[1] = '\\'; o->len += 2; return;
    case '\n': p[0] = '\\'; p[1] = 'n'; o->len += 2; return;
    case '\r': p[0] = '\\'; p[1] = 'r'; o->len += 2; return;
    case '\t': p[0] = '\\'; p[1] = 't'; o->len += 2; return;
    default:
        p[0] = '\\'; p[1] = 'u'; p[2] = '0'; p[3] = '0';
        p[4] = HEX[(c >> 4) & 0xf]; p[5] = HEX[c & 0xf];
        o->len += 6;
    }
}

/* Length of a valid UTF-8 sequence starting at s (at most n bytes), or 0. */
static inline int utf8_seq(const uint8_t *s, Py_ssize_t n) {
    uint8_t c = s[0];
    if (c < 0xc2) return 0;
    if (c < 0xe0) return (n >= 2 && (s[1] & 0xc0) == 0x80) ? 2 : 0;
    if (c < 0xf0) {
        if (n < 3 || (s[1] & 0xc0) != 0x80 || (s[2] & 0xc0) != 0x80) return 0;
        if (c == 0xe0 && s[1] < 0xa0) return 0;  /* overlong */
        if (c == 0xed && s[1] >= 0xa0) return 0; /* surrogate */
        return 3;
    }
    if (c < 0xf5) {
        if (n < 4 || (s[1] & 0xc0) != 0x80 || (s[2] & 0xc0) != 0x80 || (s[3] & 0xc0) != 0x80) return 0;
        if (c == 0xf0 && s[1] < 0x90) return 0; /* overlong */
        if (c == 0xf4 && s[1] >= 0x90) return 0; /* > U+10FFFF */
        return 4;
    }
    return 0;
}

/* A UTF-8 text string as a JSON string (validated). */
static int put_text(Dec *d, Py_ssize_t at, const uint8_t *s, Py_ssize_t n) {
    Out *o = &d->out;
    RESERVE(o, 6 * n + 2);
    char *p = o->data + o->len;
    *p++ = '"';
    Py_ssize_t i = 0;
    while (i < n) {
        /* copy 8 plain ASCII bytes at a time */
        while (n - i >= 8) {
            uint64_t w;
            memcpy(&w, s + i, 8);
            uint64_t high = w & 0x8080808080808080ULL;
            uint64_t ctl = (w - 0x2020202020202020ULL) & ~w & 0x8080808080808080ULL;
            uint64_t q = w ^ 0x2222222222222222ULL;
            uint64_t quote = (q - 0x0101010101010101ULL) & ~q & 0x8080808080808080ULL;
            uint64_t b = w ^ 0x5c5c5c5c5c5c5c5cULL;
            uint64_t bslash = (b - 0x0101010101010101ULL) & ~b & 0x8080808080808080ULL;
            if (high | ctl | quote | bslash) break;
            memcpy(p, s + i, 8);
            p += 8;
            i += 8;
        }
        if (i >= n) break;
        uint8_t c = s[i];
        if (!needs_care(c)) {
            *p++ = (char)c;
            i++;
        } else if (c < 0x80) {
            o->len = p - o->data;
            put_escape(o, c);
            p = o->data + o->len;
            i++;
        } else {
            int k = utf8_seq(s + i, n - i);
            if (k == 0)
                return fail(d, at, "malformed CBOR: invalid UTF-8 in the text string");
            memcpy(p, s + i, k);
            p += k;
            i += k;
        }
    }
    *p++ = '"';
    o->len = p - o->data;
    return 0;
}

/* A UTF-16LE byte string as a JSON string (UTF-8); lone surrogates become U+FFFD. */
static int put_utf16(Dec *d, Py_ssize_t at, const uint8_t *s, Py_ssize_t n) {
    if (n & 1) return fail(d, at, "malformed CBOR: a UTF-16 string of odd length %zd", n);
    Out *o = &d->out;
    Py_ssize_t units = n / 2;
    RESERVE(o, 6 * units + 2);
    char *p = o->data + o->len;
    *p++ = '"';
    for (Py_ssize_t i = 0; i < units; i++) {
        uint32_t c = (uint32_t)s[2 * i] | ((uint32_t)s[2 * i + 1] << 8);
        if (c < 0x80) {
            if (needs_care(c)) {
                o->len = p - o->data;
                put_escape(o, c);
                p = o->data + o->len;
            } else {
                *p++ = (char)c;
            }
            continue;
        }
        if (c >= 0xd800 && c <= 0xdfff) {
            uint32_t lo = 0;
            if (c <= 0xdbff && i + 1 < units) lo = (uint32_t)s[2 * i + 2] | ((uint32_t)s[2 * i + 3] << 8);
            if (lo >= 0xdc00 && lo <= 0xdfff) {
                c = 0x10000 + ((c - 0xd800) << 10) + (lo - 0xdc00);
                i++;
            } else {
                c = 0xfffd;
            }
        }
        if (c < 0x800) {
            *p++ = (char)(0xc0 | (c >> 6));
            *p++ = (char)(0x80 | (c & 0x3f));
        } else if (c < 0x10000) {
            *p++ = (char)(0xe0 | (c >> 12));
            *p++ = (char)(0x80 | ((c >> 6) & 0x3f));
            *p++ = (char)(0x80 | (c & 0x3f));
        } else {
            *p++ = (char)(0xf0 | (c >> 18));
            *p++ = (char)(0x80 | ((c >> 12) & 0x3f));
            *p++ = (char)(0x80 | ((c >> 6) & 0x3f));
            *p++ = (char)(0x80 | (c & 0x3f));
        }
    }
    *p++ = '"';
    o->len = p - o->data;
    return 0;
}

static const char B64[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

static int put_base64(Out *o, const uint8_t *s, Py_ssize_t n) {
    RESERVE(o, (n + 2) / 3 * 4 + 2);
    char *p = o->data + o->len;
    *p++ = '"';
    Py_ssize_t i = 0;
    for (; n - i >= 3; i += 3) {
        uint32_t v = ((uint32_t)s[i] << 16) | ((uint32_t)s[i + 1] << 8) | s[i + 2];
        *p++ = B64[v >> 18];
        *p++ = B64[(v >> 12) & 63];
        *p++ = B64[(v >> 6) & 63];
        *p++ = B64[v & 63];
    }
    if (n - i == 1) {
        uint32_t v = (uint32_t)s[i] << 16;
        *p++ = B64[v >> 18];
        *p++ = B64[(v >> 12) & 63];
        *p++ = '=';
        *p++ = '=';
    } else if (n - i == 2) {
        uint32_t v = ((uint32_t)s[i] << 16) | ((uint32_t)s[i + 1] << 8);
        *p++ = B64[v >> 18];
        *p++ = B64[(v >> 12) & 63];
        *p++ = B64[(v >> 6) & 63];
        *p++ = '=';
    }
    *p++ = '"';
    o->len = p - o->data;
    return 0;
}

static int put_uint(Out *o, uint64_t v, int negative) {
    char tmp[24];
    int k = 0;
    do {
        tmp[k++] = (char)('0' + v % 10);
        v /= 10;
    } while (v);
    RESERVE(o, k + 1);
    char *p = o->data + o->len;
    if (negative) *p++ = '-';
    while (k) *p++ = tmp[--k];
    o->len = p - o->data;
    return 0;
}

static int put_raw(Out *o, const char *s, Py_ssize_t n) {
    RESERVE(o, n);
    memcpy(o->data + o->len, s, n);
    o->len += n;
    return 0;
}

static int put_double(Out *o, double v) {
    if (!isfinite(v)) return put_raw(o, "null", 4);
    if (v == floor(v) && fabs(v) < 9007199254740992.0) {
        if (v == 0) return signbit(v) ? put_raw(o, "-0", 2) : put_raw(o, "0", 1);
        return put_uint(o, (uint64_t)fabs(v), v < 0);
    }
    char tmp[40];
    int k = 0;
    for (int prec = 15; prec <= 17; prec++) {
        k = snprintf(tmp, sizeof tmp, "%.*g", prec, v);
        if (prec == 17 || strtod(tmp, NULL) == v) break;
    }
    return put_raw(o, tmp, k);
}

static double half_to_double(uint16_t h) {
    int exp = (h >> 10) & 0x1f;
    int mant = h & 0x3ff;
    double val;
    if (exp == 0) val = ldexp(mant, -24);
    else if (exp != 31) val = ldexp(mant + 1024, exp - 25);
    else val = mant == 0 ? INFINITY : NAN;
    return (h & 0x8000) ? -val : val;
}

/* --- reading items ------------------------------------------------ */

static int item(Dec *d);

/* A string item, stepped over: UTF-8 text (major 3) or a UTF-16 byte string
 * (major 2), its bytes at *s; anything else fails with `what`. */
static int string_item(Dec *d, const char *what, int *major, const uint8_t **s, Py_ssize_t *len) {
    Py_ssize_t head = d->pos;
    uint64_t arg;
    int r = read_head(d, major, &arg);
    if (r < 0) return -1;
    if (r == 1 || (*major != 3 && *major != 2)) return fail(d, head, "%s", what);
    if (take_length(d, head, arg, len) < 0) return -1;
    *s = d->buf + d->pos;
    d->pos += *len;
    return 0;
}

#define NOT_A_KEY "malformed CBOR: a map key that is not a string"

/* A map key, written: a text string or a UTF-16 byte string. *text is its
 * UTF-8 bytes (NULL when it was UTF-16). */
static int key(Dec *d, const uint8_t **text, Py_ssize_t *text_len) {
    Py_ssize_t head = d->pos;
    int major;
    const uint8_t *s;
    if (string_item(d, NOT_A_KEY, &major, &s, text_len) < 0) return -1;
    *text = major == 3 ? s : NULL;
    return major == 3 ? put_text(d, head, s, *text_len) : put_utf16(d, head, s, *text_len);
}

/* Enter an envelope (tag 24 on a byte string): returns 1 with the reading
 * position at its content and *end where it ends, 0 when the item is not
 * enveloped (nothing read), -1 on error. */
static int enter_envelope(Dec *d, Py_ssize_t *end) {
    if (d->size - d->pos < 2 || d->buf[d->pos] != 0xd8 || d->buf[d->pos + 1] != 0x18) return 0;
    d->pos += 2;
    Py_ssize_t inner = d->pos;
    int major;
    uint64_t arg;
    int r = read_head(d, &major, &arg);
    if (r < 0) return -1;
    if (r == 1 || major != 2)
        return fail(d, inner, "malformed CBOR: an envelope (tag 24) not on a byte string");
    Py_ssize_t len = 0;
    if (take_length(d, inner, arg, &len) < 0) return -1;
    *end = d->pos + len;
    return 1;
}

/* The checks of a map or array head just read (its `count` items, unless
 * indefinite): one level deeper, at most MAX_DEPTH, and no more items
 * declared than bytes left. The caller's close undoes the depth. */
static int enter_container(Dec *d, Py_ssize_t head, int is_map, int indefinite, uint64_t count) {
    if (++d->depth > MAX_DEPTH) return fail(d, head, "malformed CBOR: nested deeper than %d", MAX_DEPTH);
    if (!indefinite && count > (uint64_t)(d->size - d->pos))
        return fail(d, head, "truncated CBOR: the %s declares %llu items, %zd bytes are left",
                    is_map ? "map" : "array", (unsigned long long)count, d->size - d->pos);
    return 0;
}

/* A map or an array being read: its envelope (if any) bounds what is read. */
typedef struct {
    Py_ssize_t outer_size, end;
    int enveloped, indefinite;
    uint64_t count, n;
} Scope;

/* Open a map (major 5) or an array (4), the value at `path` of a projection. */
static int open_scope(Dec *d, Scope *s, int major_wanted, const char *path) {
    s->enveloped = enter_envelope(d, &s->end);
    if (s->enveloped < 0) return -1;
    if (s->enveloped) { /* the item may not read past its envelope */
        s->outer_size = d->size;
        d->size = s->end;
    }
    Py_ssize_t head = d->pos;
    int major;
    uint64_t arg;
    int r = read_head(d, &major, &arg);
    if (r < 0) return -1;
    if (major != major_wanted)
        return fail(d, head, "unexpected answer: %s is not a%s", path,
                    major_wanted == 5 ? " map" : "n array");
    if (enter_container(d, head, major == 5, r == 1, arg) < 0) return -1;
    s->indefinite = r == 1;
    s->count = arg;
    s->n = 0;
    return 0;
}

/* 1: another entry follows, 0: the end (consumed), -1: error. */
static int scope_next(Dec *d, Scope *s) {
    if (s->indefinite) {
        if (d->pos >= d->size) return TRUNCATED(d, d->pos);
        if (d->buf[d->pos] == 0xff) {
            d->pos++;
            return 0;
        }
        return 1;
    }
    if (s->n == s->count) return 0;
    s->n++;
    return 1;
}

static int close_scope(Dec *d, Scope *s) {
    d->depth--;
    if (s->enveloped) {
        if (d->pos != s->end)
            return fail(d, d->pos, "malformed CBOR: %zd bytes after the item of an envelope",
                        s->end - d->pos);
        d->size = s->outer_size;
    }
    return 0;
}

/* Step over one item of any kind, unwritten: its lengths, nesting and tags
 * are checked as the transcoder checks them, its text is not decoded, and
 * one held in an envelope goes unread (its length is still checked). */
static int skip_item(Dec *d) {
    Py_ssize_t end = 0;
    int enveloped = enter_envelope(d, &end);
    if (enveloped < 0) return -1;
    if (enveloped) {
        d->pos = end;
        return 0;
    }
    Py_ssize_t head = d->pos;
    int major;
    uint64_t arg;
    int indefinite = read_head(d, &major, &arg);
    if (indefinite < 0) return -1;
    Py_ssize_t len = 0;
    switch (major) {
    case 0:
    case 1:
        if (indefinite) break;
        return 0;
    case 2:
    case 3:
        if (indefinite) return fail(d, head, "unsupported CBOR: an indefinite-length string");
        if (take_length(d, head, arg, &len) < 0) return -1;
        d->pos += len;
        return 0;
    case 4:
    case 5: {
        if (enter_container(d, head, major == 5, indefinite, arg) < 0) return -1;
        Scope s = {.indefinite = indefinite, .count = arg, .n = 0};
        for (;;) {
            int more = scope_next(d, &s);
            if (more < 0) return -1;
            if (!more) break;
            if (major == 5 && skip_item(d) < 0) return -1; /* the key */
            if (skip_item(d) < 0) return -1;
        }
        d->depth--;
        return 0;
    }
    case 6:
        if (indefinite) break;
        if (arg != 22) return fail(d, head, "unsupported CBOR: tag %llu", (unsigned long long)arg);
        return skip_item(d);
    case 7:
        if (indefinite) return fail(d, head, "malformed CBOR: an unexpected break (0xff)");
        return 0;
    }
    return fail(d, head, "malformed CBOR: indefinite length on major type %d", major);
}

/* Step over the rest of a map's (or an array's) entries: 0 at its end, -1 on error. */
static int skip_entries(Dec *d, Scope *s, int is_map) {
    int more;
    while ((more = scope_next(d, s)) > 0) {
        int major;
        const uint8_t *name;
        Py_ssize_t len;
        if (is_map && string_item(d, NOT_A_KEY, &major, &name, &len) < 0) return -1;
        if (skip_item(d) < 0) return -1;
    }
    return more;
}

/* ------------------------------------------------------------------ */
/* projections                                                         */
/*
 * A projection says what of an answer's "result" is written. It is
 * compiled by compile() from the normalized shape kobrowser/cdp/_keep.py
 * makes of a caller's spec (see there for what a caller writes):
 *
 *   shape  := None                                  the value as it is
 *           | ("map", path, members)                a map: only these members
 *           | ("pick", path, members)               a map: the array of these members' values
 *           | ("unwrap", path, (member,))           a map: its member's value (null without)
 *           | ("each", path, shape, cases, only)    an array: each item by shape
 *   member := (name, key, shape)    an ASCII name; key: the JSON written for it, with its colon
 *   cases  := ((conds, drop, start, omit), ...)     conds: ((member index, JSON), ...)
 *   only   := None | (member index, (JSON, ...))
 *
 * null stays null whatever the shape. A map's members are matched by name
 * (a key sent as UTF-16 too); other keys, and a member left out, are
 * stepped over unwritten (skip_item). A "pick" map must have every member;
 * its members are written in the pick's order, each the last one sent.
 *
 * An "each" array's items are maps ("map", or "pick" for only). A case
 * matches an item when its members, as written, equal the conds' JSON in
 * the conds' order: cond k is looked at only once the ones before it
 * matched, and a member that differs ends the case for that item. Once a
 * case matches, a drop case leaves the item out when its index is at least
 * `start` (the rest of the item goes unread), and another case leaves out
 * the members in its `omit` mask that come after. With `only`, an item is
 * written only when its member (which it must have, as a string) is one of
 * the JSON strings. A value of another kind than the shape says (an array
 * for a map ...) fails the call: "unexpected answer: <path> is not a map".
 */

#define CAPSULE "kobrowser.cdp._cbor.projection"
#define MAX_MEMBERS 64
#define MAX_CASES 16
#define MAX_SHAPE_DEPTH 64

enum { K_MAP = 1, K_PICK, K_UNWRAP, K_EACH };

typedef struct {
    const char *name; /* ASCII */
    Py_ssize_t name_len;
    const char *key; /* JSON of the key as written, then ':' */
    Py_ssize_t key_len;
    const Shape *shape; /* NULL: as it is */
} Member;

typedef struct {
    Py_ssize_t member;
    const char *json;
    Py_ssize_t len;
} Cond;

typedef struct {
    const Cond *conds;
    Py_ssize_t n_conds;
    int drop;
    Py_ssize_t start;
    uint64_t omit;
} Case;

struct Shape {
    int kind;
    const char *path;
    const Member *members; /* map, pick, unwrap */
    Py_ssize_t n_members;
    const Shape *item; /* each */
    const Case *cases;
    Py_ssize_t n_cases;
    Py_ssize_t only; /* member index of the items, -1: none */
    const char **only_json;
    Py_ssize_t *only_len;
    Py_ssize_t n_only;
};

/* Everything a compiled projection holds, freed with its capsule. */
typedef struct {
    void **blocks;
    Py_ssize_t n, cap;
    const Shape *root;
} Projection;

static void *grab(Projection *p, size_t size) {
    if (p->n == p->cap) {
        Py_ssize_t cap = p->cap ? p->cap * 2 : 16;
        void **blocks = PyMem_Realloc(p->blocks, (size_t)cap * sizeof *blocks);
        if (blocks == NULL) {
            PyErr_NoMemory();
            return NULL;
        }
        p->blocks = blocks;
        p->cap = cap;
    }
    void *block = PyMem_Calloc(1, size ? size : 1);
    if (block == NULL) {
        PyErr_NoMemory();
        return NULL;
    }
    p->blocks[p->n++] = block;
    return block;
}

static void projection_free(Projection *p) {
    for (Py_ssize_t i = 0; i < p->n; i++) PyMem_Free(p->blocks[i]);
    PyMem_Free(p->blocks);
    PyMem_Free(p);
}

static void projection_destructor(PyObject *capsule) {
    Projection *p = PyCapsule_GetPointer(capsule, CAPSULE);
    if (p != NULL) projection_free(p);
}

static int bad_shape(const char *what) {
    PyErr_Format(PyExc_ValueError, "compile: %s", what);
    return -1;
}

/* A copy of a str's UTF-8 (or of a bytes object) that lives as long as the projection. */
static int copy_text(Projection *p, PyObject *obj, const char **out, Py_ssize_t *len) {
    const char *s;
    Py_ssize_t n;
    if (PyUnicode_Check(obj)) {
        s = PyUnicode_AsUTF8AndSize(obj, &n);
        if (s == NULL) return -1;
    } else if (PyBytes_Check(obj)) {
        char *b;
        if (PyBytes_AsStringAndSize(obj, &b, &n) < 0) return -1;
        s = b;
    } else {
        return bad_shape("a name, key or JSON value that is neither str nor bytes");
    }
    char *copy = grab(p, (size_t)n + 1);
    if (copy == NULL) return -1;
    memcpy(copy, s, (size_t)n);
    *out = copy;
    *len = n;
    return 0;
}

static PyObject *tuple_of(PyObject *obj, Py_ssize_t size, const char *what) {
    if (!PyTuple_Check(obj) || (size >= 0 && PyTuple_Size(obj) != size)) {
        bad_shape(what);
        return NULL;
    }
    return obj;
}

static Py_ssize_t index_of(PyObject *obj, Py_ssize_t limit) {
    if (!PyLong_Check(obj)) return bad_shape("an index that is not an int");
    Py_ssize_t i = PyLong_AsSsize_t(obj);
    if (i == -1 && PyErr_Occurred()) return -1;
    if (i < 0 || i >= limit) return bad_shape("a member index out of range");
    return i;
}

static int compile_shape(Projection *p, PyObject *obj, int depth, const Shape **out);

static int compile_members(Projection *p, PyObject *list, int depth, Shape *s) {
    if (tuple_of(list, -1, "members that are not a tuple") == NULL) return -1;
    Py_ssize_t n = PyTuple_Size(list);
    if (n < 1 || n > MAX_MEMBERS) return bad_shape("a map shape needs 1 to 64 members");
    Member *members = grab(p, (size_t)n * sizeof *members);
    if (members == NULL) return -1;
    for (Py_ssize_t i = 0; i < n; i++) {
        PyObject *m = tuple_of(PyTuple_GetItem(list, i), 3, "a member that is not (name, key, shape)");
        if (m == NULL) return -1;
        if (!PyUnicode_Check(PyTuple_GetItem(m, 0))) return bad_shape("a member name that is not a str");
        if (copy_text(p, PyTuple_GetItem(m, 0), &members[i].name, &members[i].name_len) < 0 ||
            copy_text(p, PyTuple_GetItem(m, 1), &members[i].key, &members[i].key_len) < 0 ||
            compile_shape(p, PyTuple_GetItem(m, 2), depth + 1, &members[i].shape) < 0)
            return -1;
        for (Py_ssize_t k = 0; k < members[i].name_len; k++)
            if ((uint8_t)members[i].name[k] >= 0x80) return bad_shape("a member name that is not ASCII");
    }
    s->members = members;
    s->n_members = n;
    return 0;
}

static int compile_cases(Projection *p, PyObject *list, Shape *s) {
    if (tuple_of(list, -1, "cases that are not a tuple") == NULL) return -1;
    Py_ssize_t n = PyTuple_Size(list);
    if (n > MAX_CASES) return bad_shape("more than 16 cases");
    if (n && (s->item == NULL || s->item->kind != K_MAP)) return bad_shape("cases need map items");
    Case *cases = grab(p, (size_t)n * sizeof *cases);
    if (cases == NULL) return -1;
    Py_ssize_t limit = n ? s->item->n_members : 0;
    for (Py_ssize_t i = 0; i < n; i++) {
        PyObject *c = tuple_of(PyTuple_GetItem(list, i), 4, "a case that is not (conds, drop, start, omit)");
        if (c == NULL) return -1;
        PyObject *conds = tuple_of(PyTuple_GetItem(c, 0), -1, "conds that are not a tuple");
        if (conds == NULL) return -1;
        Py_ssize_t k = PyTuple_Size(conds);
        if (k < 1) return bad_shape("a case without conditions");
        Cond *cs = grab(p, (size_t)k * sizeof *cs);
        if (cs == NULL) return -1;
        for (Py_ssize_t j = 0; j < k; j++) {
            PyObject *cond = tuple_of(PyTuple_GetItem(conds, j), 2, "a cond that is not (index, JSON)");
            if (cond == NULL || (cs[j].member = index_of(PyTuple_GetItem(cond, 0), limit)) < 0 ||
                copy_text(p, PyTuple_GetItem(cond, 1), &cs[j].json, &cs[j].len) < 0)
                return -1;
        }
        cases[i].conds = cs;
        cases[i].n_conds = k;
        int drop = PyObject_IsTrue(PyTuple_GetItem(c, 1));
        if (drop < 0) return -1;
        cases[i].drop = drop;
        PyObject *start = PyTuple_GetItem(c, 2);
        if (!PyLong_Check(start)) return bad_shape("a start that is not an int");
        cases[i].start = PyLong_AsSsize_t(start);
        if (cases[i].start == -1 && PyErr_Occurred()) return -1;
        PyObject *omit = tuple_of(PyTuple_GetItem(c, 3), -1, "an omit that is not a tuple");
        if (omit == NULL) return -1;
        for (Py_ssize_t j = 0; j < PyTuple_Size(omit); j++) {
            Py_ssize_t m = index_of(PyTuple_GetItem(omit, j), limit);
            if (m < 0) return -1;
            cases[i].omit |= (uint64_t)1 << m;
        }
    }
    s->cases = cases;
    s->n_cases = n;
    return 0;
}

static int compile_only(Projection *p, PyObject *only, Shape *s) {
    s->only = -1;
    if (only == Py_None) return 0;
    if (tuple_of(only, 2, "an only that is not (index, values)") == NULL) return -1;
    if (s->item == NULL || (s->item->kind != K_MAP && s->item->kind != K_PICK))
        return bad_shape("only needs map items");
    Py_ssize_t m = index_of(PyTuple_GetItem(only, 0), s->item->n_members);
    if (m < 0) return -1;
    PyObject *values = tuple_of(PyTuple_GetItem(only, 1), -1, "only values that are not a tuple");
    if (values == NULL) return -1;
    Py_ssize_t n = PyTuple_Size(values);
    s->only_json = grab(p, (size_t)n * sizeof *s->only_json);
    s->only_len = grab(p, (size_t)n * sizeof *s->only_len);
    if (s->only_json == NULL || s->only_len == NULL) return -1;
    for (Py_ssize_t i = 0; i < n; i++)
        if (copy_text(p, PyTuple_GetItem(values, i), &s->only_json[i], &s->only_len[i]) < 0) return -1;
    s->n_only = n;
    s->only = m;
    return 0;
}

static int compile_shape(Projection *p, PyObject *obj, int depth, const Shape **out) {
    *out = NULL;
    if (obj == Py_None) return 0;
    if (depth > MAX_SHAPE_DEPTH) return bad_shape("shapes nested deeper than 64");
    if (!PyTuple_Check(obj) || PyTuple_Size(obj) < 3) return bad_shape("a shape that is not a tuple");
    PyObject *kind = PyTuple_GetItem(obj, 0);
    if (!PyUnicode_Check(kind)) return bad_shape("a shape kind that is not a str");
    Shape *s = grab(p, sizeof *s);
    if (s == NULL) return -1;
    Py_ssize_t path_len;
    if (!PyUnicode_Check(PyTuple_GetItem(obj, 1))) return bad_shape("a path that is not a str");
    if (copy_text(p, PyTuple_GetItem(obj, 1), &s->path, &path_len) < 0) return -1;
    s->only = -1;
    Py_ssize_t size = PyTuple_Size(obj);
    if (PyUnicode_CompareWithASCIIString(kind, "map") == 0 && size == 3) {
        s->kind = K_MAP;
        if (compile_members(p, PyTuple_GetItem(obj, 2), depth, s) < 0) return -1;
    } else if (PyUnicode_CompareWithASCIIString(kind, "pick") == 0 && size == 3) {
        s->kind = K_PICK;
        if (compile_members(p, PyTuple_GetItem(obj, 2), depth, s) < 0) return -1;
    } else if (PyUnicode_CompareWithASCIIString(kind, "unwrap") == 0 && size == 3) {
        s->kind = K_UNWRAP;
        if (compile_members(p, PyTuple_GetItem(obj, 2), depth, s) < 0) return -1;
        if (s->n_members != 1) return bad_shape("an unwrap shape needs one member");
    } else if (PyUnicode_CompareWithASCIIString(kind, "each") == 0 && size == 5) {
        s->kind = K_EACH;
        if (compile_shape(p, PyTuple_GetItem(obj, 2), depth + 1, &s->item) < 0 ||
            compile_cases(p, PyTuple_GetItem(obj, 3), s) < 0 ||
            compile_only(p, PyTuple_GetItem(obj, 4), s) < 0)
            return -1;
    } else {
        return bad_shape("an unknown shape kind, or the wrong number of fields");
    }
    *out = s;
    return 0;
}

static PyObject *compile(PyObject *self, PyObject *shape) {
    (void)self;
    Projection *p = PyMem_Calloc(1, sizeof *p);
    if (p == NULL) return PyErr_NoMemory();
    const Shape *root;
    if (compile_shape(p, shape, 0, &root) < 0) {
        projection_free(p);
        return NULL;
    }
    p->root = root;
    PyObject *capsule = PyCapsule_New(p, CAPSULE, projection_destructor);
    if (capsule == NULL) projection_free(p);
    return capsule;
}

/* --- applying a projection ----------------------------------------- */

static int put_value(Dec *d, const Shape *s);

static inline int at_null(const Dec *d) {
    return d->pos < d->size && (d->buf[d->pos] == 0xf6 || d->buf[d->pos] == 0xf7);
}

/* Whether a key (UTF-8 text, or UTF-16LE bytes when `major` is 2) is the member's ASCII name. */
static inline int is_member(int major, const uint8_t *s, Py_ssize_t n, const Member *m) {
    if (major == 3) return n == m->name_len && memcmp(s, m->name, (size_t)n) == 0;
    if (n != 2 * m->name_len) return 0;
    for (Py_ssize_t i = 0; i < m->name_len; i++)
        if (s[2 * i] != (uint8_t)m->name[i] || s[2 * i + 1] != 0) return 0;
    return 1;
}

/* The index of the member a key names, or -1. The search starts after the
 * member found last (*hint): Chrome sends a map's keys in one order. */
static Py_ssize_t find_member(const Shape *s, int major, const uint8_t *name, Py_ssize_t len,
                              Py_ssize_t *hint) {
    Py_ssize_t n = s->n_members, m = *hint;
    for (Py_ssize_t k = 0; k < n; k++, m++) {
        if (m == n) m = 0;
        if (is_member(major, name, len, &s->members[m])) {
            *hint = m + 1;
            return m;
        }
    }
    return -1;
}

/* Whether the JSON written since `at` for the `only` member of an item
 * (`each->only`) is one of its strings: 1 yes, 0 no, -1 error (not a string). */
static int only_keeps(Dec *d, const Shape *each, const Shape *item, Py_ssize_t at, Py_ssize_t head) {
    const char *json = d->out.data + at;
    Py_ssize_t len = d->out.len - at;
    if (len == 0 || json[0] != '"')
        return fail(d, head, "unexpected answer: %s.%s is not a string", item->path,
                    item->members[each->only].name);
    for (Py_ssize_t k = 0; k < each->n_only; k++)
        if (len == each->only_len[k] && memcmp(json, each->only_json[k], (size_t)len) == 0) return 1;
    return 0;
}

/* A "map" shape's value; as an item of `each` (else NULL) at `index`, its
 * cases and only apply, and *dropped says whether it was left out. */
static int put_map(Dec *d, const Shape *s, const Shape *each, Py_ssize_t index, int *dropped) {
    Out *o = &d->out;
    Py_ssize_t head = d->pos;
    Scope sc;
    if (open_scope(d, &sc, 5, s->path) < 0) return -1;
    if (put_raw(o, "{", 1) < 0) return -1;
    Py_ssize_t n_cases = each != NULL ? each->n_cases : 0;
    Py_ssize_t only = each != NULL ? each->only : -1;
    Py_ssize_t progress[MAX_CASES];
    for (Py_ssize_t k = 0; k < n_cases; k++) progress[k] = 0;
    uint64_t omit = 0;
    int kept = -1; /* the only member: -1 not seen yet, else only_keeps */
    Py_ssize_t hint = 0;
    int written = 0, more;
    while ((more = scope_next(d, &sc)) > 0) {
        int major;
        const uint8_t *name;
        Py_ssize_t len;
        if (string_item(d, NOT_A_KEY, &major, &name, &len) < 0) return -1;
        Py_ssize_t m = find_member(s, major, name, len, &hint);
        if (m < 0 || (omit >> m) & 1) {
            if (skip_item(d) < 0) return -1;
            continue;
        }
        const Member *member = &s->members[m];
        if (written && put_raw(o, ",", 1) < 0) return -1;
        if (put_raw(o, member->key, member->key_len) < 0) return -1;
        Py_ssize_t at = o->len, value_head = d->pos;
        if (put_value(d, member->shape) < 0) return -1;
        written = 1;
        if (m == only && (kept = only_keeps(d, each, s, at, value_head)) < 0) return -1;
        for (Py_ssize_t k = 0; k < n_cases; k++) {
            const Case *c = &each->cases[k];
            Py_ssize_t p = progress[k];
            if (p < 0 || p >= c->n_conds || c->conds[p].member != m) continue;
            const Cond *cond = &c->conds[p];
            int same = o->len - at == cond->len && memcmp(o->data + at, cond->json, (size_t)cond->len) == 0;
            progress[k] = p = same ? p + 1 : -1;
            if (p < c->n_conds) continue;
            if (!c->drop) {
                omit |= c->omit;
            } else if (index >= c->start) { /* left out: the rest of it goes unread */
                if (skip_entries(d, &sc, 1) < 0 || close_scope(d, &sc) < 0) return -1;
                *dropped = 1;
                return 0;
            }
        }
    }
    if (more < 0 || close_scope(d, &sc) < 0) return -1;
    if (only >= 0) {
        if (kept < 0)
            return fail(d, head, "unexpected answer: %s has no %s", s->path, s->members[only].name);
        if (kept == 0) *dropped = 1;
    }
    return put_raw(o, "}", 1);
}

/* A "pick" shape's value: [member, ...]; as an item of `each` (else NULL),
 * its only applies, and *dropped says whether it was left out. */
static int put_pick(Dec *d, const Shape *s, const Shape *each, int *dropped) {
    Out *o = &d->out;
    Py_ssize_t head = d->pos;
    Scope sc;
    if (open_scope(d, &sc, 5, s->path) < 0) return -1;
    Py_ssize_t at[MAX_MEMBERS];
    for (Py_ssize_t k = 0; k < s->n_members; k++) at[k] = -1;
    Py_ssize_t hint = 0;
    int more;
    while ((more = scope_next(d, &sc)) > 0) {
        int major;
        const uint8_t *name;
        Py_ssize_t len;
        if (string_item(d, NOT_A_KEY, &major, &name, &len) < 0) return -1;
        Py_ssize_t m = find_member(s, major, name, len, &hint);
        if (m >= 0) at[m] = d->pos; /* a member sent twice: the last counts */
        if (skip_item(d) < 0) return -1;
    }
    if (more < 0) return -1;
    for (Py_ssize_t k = 0; k < s->n_members; k++)
        if (at[k] < 0)
            return fail(d, head, "unexpected answer: %s has no %s", s->path, s->members[k].name);
    Py_ssize_t end = d->pos;
    Py_ssize_t only = each != NULL ? each->only : -1;
    if (only >= 0) {
        Py_ssize_t mark = o->len;
        d->pos = at[only];
        if (put_value(d, s->members[only].shape) < 0) return -1;
        int kept = only_keeps(d, each, s, mark, at[only]);
        o->len = mark;
        if (kept < 0) return -1;
        if (kept == 0) { /* left out: its other members go unread */
            d->pos = end;
            *dropped = 1;
            return close_scope(d, &sc);
        }
    }
    if (put_raw(o, "[", 1) < 0) return -1;
    for (Py_ssize_t k = 0; k < s->n_members; k++) {
        if (k && put_raw(o, ",", 1) < 0) return -1;
        d->pos = at[k];
        if (put_value(d, s->members[k].shape) < 0) return -1;
    }
    d->pos = end;
    if (close_scope(d, &sc) < 0) return -1;
    return put_raw(o, "]", 1);
}

/* An "unwrap" shape's value: its member's value (the last one sent), null without. */
static int put_unwrap(Dec *d, const Shape *s) {
    Out *o = &d->out;
    Scope sc;
    if (open_scope(d, &sc, 5, s->path) < 0) return -1;
    Py_ssize_t mark = o->len, hint = 0;
    int have = 0, more;
    while ((more = scope_next(d, &sc)) > 0) {
        int major;
        const uint8_t *name;
        Py_ssize_t len;
        if (string_item(d, NOT_A_KEY, &major, &name, &len) < 0) return -1;
        if (find_member(s, major, name, len, &hint) == 0) {
            o->len = mark;
            if (put_value(d, s->members[0].shape) < 0) return -1;
            have = 1;
        } else if (skip_item(d) < 0) {
            return -1;
        }
    }
    if (more < 0 || close_scope(d, &sc) < 0) return -1;
    return have ? 0 : put_raw(o, "null", 4);
}

/* An "each" shape's value: its items, less those its cases or only leave out. */
static int put_each(Dec *d, const Shape *s) {
    Out *o = &d->out;
    Scope sc;
    if (open_scope(d, &sc, 4, s->path) < 0) return -1;
    if (put_raw(o, "[", 1) < 0) return -1;
    int filtered = s->n_cases > 0 || s->only >= 0;
    Py_ssize_t written = 0, index = 0;
    int more;
    while ((more = scope_next(d, &sc)) > 0) {
        Py_ssize_t mark = o->len;
        if (written && put_raw(o, ",", 1) < 0) return -1;
        int dropped = 0, rc;
        if (!filtered || at_null(d)) rc = put_value(d, s->item);
        else if (s->item->kind == K_MAP) rc = put_map(d, s->item, s, index, &dropped);
        else rc = put_pick(d, s->item, s, &dropped);
        if (rc < 0) return -1;
        if (dropped) o->len = mark;
        else written++;
        index++;
    }
    if (more < 0 || close_scope(d, &sc) < 0) return -1;
    return put_raw(o, "]", 1);
}

/* A value as the shape says (NULL: as it is). */
static int put_value(Dec *d, const Shape *s) {
    if (s == NULL) return item(d);
    if (at_null(d)) {
        d->pos++;
        return put_raw(&d->out, "null", 4);
    }
    switch (s->kind) {
    case K_MAP: return put_map(d, s, NULL, 0, NULL);
    case K_PICK: return put_pick(d, s, NULL, NULL);
    case K_UNWRAP: return put_unwrap(d, s);
    default: return put_each(d, s);
    }
}

/* The projection for the answer's call id, taken out of `keeps` (a new
 * reference in *keep): 1 found, 0 none, -1 error. */
static int take_projection(Dec *d, PyObject **keep) {
    Py_ssize_t left = PyDict_Size(d->keeps);
    if (left <= 0) return left < 0 ? -1 : 0;
    PyObject *id = PyLong_FromLongLong(d->call_id);
    if (id == NULL) return -1;
    PyObject *found = PyDict_GetItemWithError(d->keeps, id); /* borrowed */
    if (found == NULL) {
        Py_DECREF(id);
        return PyErr_Occurred() ? -1 : 0;
    }
    Py_INCREF(found);
    int rc = PyDict_DelItem(d->keeps, id);
    Py_DECREF(id);
    if (rc < 0) {
        Py_DECREF(found);
        return -1;
    }
    *keep = found;
    return 1;
}

/* ------------------------------------------------------------------ */
/* the transcoder                                                      */

static int container(Dec *d, Py_ssize_t head, int is_map, int indefinite, uint64_t count) {
    Out *o = &d->out;
    if (enter_container(d, head, is_map, indefinite, count) < 0) return -1;
    RESERVE(o, 1);
    o->data[o->len++] = is_map ? '{' : '[';
    int top = is_map && d->depth == 1;
    for (uint64_t n = 0;; n++) {
        if (indefinite) {
            if (d->pos >= d->size) return TRUNCATED(d, head);
            if (d->buf[d->pos] == 0xff) {
                d->pos++;
                break;
            }
        } else if (n == count) {
            break;
        }
        if (n) {
            RESERVE(o, 1);
            o->data[o->len++] = ',';
        }
        if (is_map) {
            const uint8_t *name = NULL;
            Py_ssize_t name_len = 0;
            if (key(d, &name, &name_len) < 0) return -1;
            RESERVE(o, 1);
            o->data[o->len++] = ':';
            if (top && name != NULL && name_len == 6 && memcmp(name, "result", 6) == 0 &&
                d->have_id && d->keeps != NULL) {
                PyObject *keep = NULL;
                int found = take_projection(d, &keep);
                if (found < 0) return -1;
                if (found) {
                    const Projection *p = PyCapsule_GetPointer(keep, CAPSULE);
                    int rc = p == NULL ? -1 : put_value(d, p->root);
                    Py_DECREF(keep);
                    if (rc < 0) return -1;
                    continue;
                }
            }
            if (top && name != NULL && name_len == 2 && name[0] == 'i' && name[1] == 'd' && d->pos < d->size) {
                /* remember the call id, to fail that call if the rest is bad */
                uint8_t b = d->buf[d->pos];
                Py_ssize_t save = d->pos;
                int major;
                uint64_t arg;
                if ((b >> 5) <= 1 && read_head(d, &major, &arg) == 0 && arg <= 0x7fffffffULL) {
                    d->have_id = 1;
                    d->call_id = major == 0 ? (long long)arg : -1 - (long long)arg;
                } else {
                    PyErr_Clear();
                }
                d->pos = save;
            }
        }
        if (item(d) < 0) return -1;
    }
    RESERVE(o, 1);
    o->data[o->len++] = is_map ? '}' : ']';
    d->depth--;
    return 0;
}

static int item(Dec *d) {
    Out *o = &d->out;
    Py_ssize_t head = d->pos;
    int major;
    uint64_t arg;
    int indefinite = read_head(d, &major, &arg);
    if (indefinite < 0) return -1;
    Py_ssize_t len = 0;
    switch (major) {
    case 0:
        if (indefinite) break;
        return put_uint(o, arg, 0);
    case 1:
        if (indefinite) break;
        if (arg == UINT64_MAX) return put_raw(o, "-18446744073709551616", 21);
        return put_uint(o, arg + 1, 1);
    case 2:
        if (indefinite) return fail(d, head, "unsupported CBOR: an indefinite-length byte string");
        if (take_length(d, head, arg, &len) < 0) return -1;
        d->pos += len;
        return put_utf16(d, head, d->buf + d->pos - len, len);
    case 3:
        if (indefinite) return fail(d, head, "unsupported CBOR: an indefinite-length text string");
        if (take_length(d, head, arg, &len) < 0) return -1;
        d->pos += len;
        return put_text(d, head, d->buf + d->pos - len, len);
    case 4:
    case 5:
        return container(d, head, major == 5, indefinite, arg);
    case 6: {
        if (indefinite) break;
        if (arg == 24) { /* envelope: a byte string holding exactly one item */
            Py_ssize_t inner = d->pos;
            int m;
            uint64_t a;
            int r = read_head(d, &m, &a);
            if (r < 0) return -1;
            if (r == 1 || m != 2)
                return fail(d, inner, "malformed CBOR: an envelope (tag 24) not on a byte string");
            if (take_length(d, inner, a, &len) < 0) return -1;
            Py_ssize_t end = d->pos + len;
            Py_ssize_t outer = d->size;
            d->size = end; /* the item may not read past its envelope */
            int rc = item(d);
            d->size = outer;
            if (rc < 0) return -1;
            if (d->pos != end)
                return fail(d, d->pos, "malformed CBOR: %zd bytes after the item of the envelope at %zd",
                            end - d->pos, head);
            return 0;
        }
        if (arg == 22) { /* binary, sent as base64 as in JSON */
            Py_ssize_t inner = d->pos;
            int m;
            uint64_t a;
            int r = read_head(d, &m, &a);
            if (r < 0) return -1;
            if (r == 1 || m != 2)
                return fail(d, inner, "malformed CBOR: binary (tag 22) not on a byte string");
            if (take_length(d, inner, a, &len) < 0) return -1;
            d->pos += len;
            return put_base64(o, d->buf + d->pos - len, len);
        }
        return fail(d, head, "unsupported CBOR: tag %llu", (unsigned long long)arg);
    }
    case 7: {
        uint8_t info = d->buf[head] & 0x1f;
        if (indefinite) return fail(d, head, "malformed CBOR: an unexpected break (0xff)");
        switch (info) {
        case 20: return put_raw(o, "false", 5);
        case 21: return put_raw(o, "true", 4);
        case 22:
        case 23: return put_raw(o, "null", 4);
        case 25: return put_double(o, half_to_double((uint16_t)arg));
        case 26: {
            uint32_t bits = (uint32_t)arg;
            float f;
            memcpy(&f, &bits, 4);
            return put_double(o, (double)f);
        }
        case 27: {
            double v;
            memcpy(&v, &arg, 8);
            return put_double(o, v);
        }
        default:
            return fail(d, head, "unsupported CBOR: simple value %llu", (unsigned long long)arg);
        }
    }
    }
    return fail(d, head, "malformed CBOR: indefinite length on major type %d", major);
}


static PyObject *to_json(PyObject *self, PyObject *const *args, Py_ssize_t nargs) {
    if (nargs < 1 || nargs > 2) {
        PyErr_SetString(PyExc_TypeError, "to_json(data, keeps=None) takes 1 or 2 arguments");
        return NULL;
    }
    PyObject *keeps = nargs == 2 && args[1] != Py_None ? args[1] : NULL;
    if (keeps != NULL && !PyDict_Check(keeps)) {
        PyErr_SetString(PyExc_TypeError, "to_json: keeps must be a dict of call id -> projection, or None");
        return NULL;
    }
    Py_buffer view;
    if (PyObject_GetBuffer(args[0], &view, PyBUF_SIMPLE) < 0) return NULL;
    Dec d = {.buf = view.buf, .size = view.len, .pos = 0, .depth = 0, .have_id = 0, .call_id = 0,
             .keeps = keeps, .st = state_of(self)};
    PyObject *result = NULL;
    if (out_init(&d.out, view.len + view.len / 8 + 64) == 0) {
        if (view.len == 0) {
            fail(&d, 0, "truncated CBOR: an empty message");
        } else if (item(&d) == 0) {
            if (d.pos != d.size)
                fail(&d, d.pos, "malformed CBOR: %zd bytes after the message's end", d.size - d.pos);
            else
                result = out_finish(&d.out);
        }
        if (result == NULL) out_drop(&d.out);
    }
    PyBuffer_Release(&view);
    return result;
}

/* ------------------------------------------------------------------ */
/* encoder                                                             */

static int enc_head(Out *o, int major, uint64_t v) {
    RESERVE(o, 9);
    uint8_t *p = (uint8_t *)o->data + o->len;
    uint8_t m = (uint8_t)(major << 5);
    if (v < 24) {
        p[0] = m | (uint8_t)v;
        o->len += 1;
    } else if (v <= 0xff) {
        p[0] = m | 24;
        p[1] = (uint8_t)v;
        o->len += 2;
    } else if (v <= 0xffff) {
        p[0] = m | 25;
        p[1] = (uint8_t)(v >> 8);
        p[2] = (uint8_t)v;
        o->len += 3;
    } else if (v <= 0xffffffffULL) {
        p[0] = m | 26;
        for (int i = 0; i < 4; i++) p[1 + i] = (uint8_t)(v >> (24 - 8 * i));
        o->len += 5;
    } else {
        p[0] = m | 27;
        for (int i = 0; i < 8; i++) p[1 + i] = (uint8_t)(v >> (56 - 8 * i));
        o->len += 9;
    }
    return 0;
}

static int enc_double(Out *o, double v) {
    uint64_t bits;
    memcpy(&bits, &v, 8);
    RESERVE(o, 9);
    uint8_t *p = (uint8_t *)o->data + o->len;
    p[0] = 0xfb;
    for (int i = 0; i < 8; i++) p[1 + i] = (uint8_t)(bits >> (56 - 8 * i));
    o->len += 9;
    return 0;
}

/* Envelope start: tag 24, byte string with a 4-byte length patched at the end. */
static Py_ssize_t env_start(Out *o, uint8_t opener) {
    if (o->cap - o->len < 8 && out_grow(o, 8) < 0) return -1;
    uint8_t *p = (uint8_t *)o->data + o->len;
    p[0] = 0xd8;
    p[1] = 0x18;
    p[2] = 0x5a;
    p[7] = opener;
    o->len += 8;
    return o->len - 1; /* where the content starts */
}

static int env_end(Out *o, Py_ssize_t start) {
    RESERVE(o, 1);
    o->data[o->len++] = (char)0xff;
    Py_ssize_t size = o->len - start;
    if ((uint64_t)size > 0xffffffffULL) {
        PyErr_SetString(PyExc_ValueError, "a CDP message is larger than 4 GiB");
        return -1;
    }
    uint8_t *p = (uint8_t *)o->data + start - 4;
    p[0] = (uint8_t)(size >> 24);
    p[1] = (uint8_t)(size >> 16);
    p[2] = (uint8_t)(size >> 8);
    p[3] = (uint8_t)size;
    return 0;
}

static int enc_str(Out *o, PyObject *s) {
    Py_ssize_t n;
    const char *u = PyUnicode_AsUTF8AndSize(s, &n);
    if (u == NULL) return -1;
    if (enc_head(o, 3, (uint64_t)n) < 0) return -1;
    return put_raw(o, u, n);
}

/* TypeError "<before><type name of v><after>". */
static int type_error(const char *before, PyObject *v, const char *after) {
    PyObject *name = PyType_GetName(Py_TYPE(v));
    if (name == NULL) return -1;
    PyErr_Format(PyExc_TypeError, "%s%U%s", before, name, after);
    Py_DECREF(name);
    return -1;
}

static int enc(Out *o, PyObject *v, int depth, PyObject *hook);

static int enc_dict(Out *o, PyObject *v, int depth, PyObject *hook) {
    Py_ssize_t start = env_start(o, 0xbf);
    if (start < 0) return -1;
    PyObject *k, *val;
    Py_ssize_t pos = 0;
    while (PyDict_Next(v, &pos, &k, &val)) {
        if (!PyUnicode_Check(k)) return type_error("CDP map keys must be str, not ", k, "");
        Py_INCREF(val);
        int rc = enc_str(o, k) < 0 || enc(o, val, depth + 1, hook) < 0 ? -1 : 0;
        Py_DECREF(val);
        if (rc < 0) return -1;
    }
    return env_end(o, start);
}

static int enc_sequence(Out *o, PyObject *v, int depth, PyObject *hook) {
    Py_ssize_t start = env_start(o, 0x9f);
    if (start < 0) return -1;
    int is_list = PyList_Check(v);
    for (Py_ssize_t i = 0; i < (is_list ? PyList_Size(v) : PyTuple_Size(v)); i++) {
        PyObject *element = is_list ? PyList_GetItem(v, i) : PyTuple_GetItem(v, i);
        if (element == NULL) return -1;
        Py_INCREF(element);
        int rc = enc(o, element, depth + 1, hook);
        Py_DECREF(element);
        if (rc < 0) return -1;
    }
    return env_end(o, start);
}

static int enc(Out *o, PyObject *v, int depth, PyObject *hook) {
    if (depth > MAX_DEPTH) {
        PyErr_SetString(PyExc_ValueError, "a CDP value nested too deeply to encode");
        return -1;
    }
    if (PyUnicode_Check(v)) return enc_str(o, v);
    if (v == Py_None) return put_raw(o, "\xf6", 1);
    if (v == Py_True) return put_raw(o, "\xf5", 1);
    if (v == Py_False) return put_raw(o, "\xf4", 1);
    if (PyLong_Check(v)) {
        int overflow;
        long long x = PyLong_AsLongLongAndOverflow(v, &overflow);
        if (x == -1 && PyErr_Occurred()) return -1;
        if (!overflow && x >= INT32_MIN && x <= INT32_MAX)
            return x >= 0 ? enc_head(o, 0, (uint64_t)x) : enc_head(o, 1, (uint64_t)(-1 - x));
        double f = PyLong_AsDouble(v);
        if (f == -1.0 && PyErr_Occurred()) return -1;
        return enc_double(o, f);
    }
    if (PyFloat_Check(v)) {
        double f = PyFloat_AsDouble(v);
        if (f == -1.0 && PyErr_Occurred()) return -1;
        return enc_double(o, f);
    }
    if (PyDict_Check(v)) return enc_dict(o, v, depth, hook);
    if (PyList_Check(v) || PyTuple_Check(v)) return enc_sequence(o, v, depth, hook);
    if (PyBytes_Check(v) || PyByteArray_Check(v)) {
        Py_buffer view;
        if (PyObject_GetBuffer(v, &view, PyBUF_SIMPLE) < 0) return -1;
        int rc = put_raw(o, "\xd6", 1);
        if (rc == 0) rc = enc_head(o, 2, (uint64_t)view.len);
        if (rc == 0) rc = put_raw(o, view.buf, view.len);
        PyBuffer_Release(&view);
        return rc;
    }
    if (hook != NULL) {
        PyObject *plain = PyObject_CallFunctionObjArgs(hook, v, NULL);
        if (plain == NULL) return -1;
        if (plain == v) {
            Py_DECREF(plain);
            return type_error("cannot encode ", v, " as CDP CBOR");
        }
        int rc = enc(o, plain, depth + 1, hook);
        Py_DECREF(plain);
        return rc;
    }
    return type_error("cannot encode ", v, " as CDP CBOR");
}

static PyObject *encode(PyObject *self, PyObject *v) {
    Out o;
    if (out_init(&o, 256) < 0) return NULL;
    if (enc(&o, v, 0, state_of(self)->default_hook) < 0) {
        out_drop(&o);
        return NULL;
    }
    return out_finish(&o);
}

static int enc_key(Out *o, const char *name) {
    Py_ssize_t n = (Py_ssize_t)strlen(name);
    if (enc_head(o, 3, (uint64_t)n) < 0) return -1;
    return put_raw(o, name, n);
}

static PyObject *encode_call(PyObject *self, PyObject *const *args, Py_ssize_t nargs) {
    if (nargs != 4) {
        PyErr_SetString(PyExc_TypeError, "encode_call(call_id, method, params, session_id)");
        return NULL;
    }
    PyObject *call_id = args[0], *method = args[1], *params = args[2], *session = args[3];
    if (!PyLong_Check(call_id) || !PyUnicode_Check(method)) {
        PyErr_SetString(PyExc_TypeError, "encode_call: call_id must be int and method str");
        return NULL;
    }
    PyObject *hook = state_of(self)->default_hook;
    Out o;
    if (out_init(&o, 256) < 0) return NULL;
    Py_ssize_t start = env_start(&o, 0xbf);
    int ok = start >= 0 && enc_key(&o, "id") == 0 && enc(&o, call_id, 1, hook) == 0 &&
             enc_key(&o, "method") == 0 && enc_str(&o, method) == 0;
    if (ok && params != Py_None) {
        int truth = PyObject_IsTrue(params);
        ok = truth >= 0 && (!truth || (enc_key(&o, "params") == 0 && enc(&o, params, 1, hook) == 0));
    }
    if (ok && session != Py_None) {
        if (!PyUnicode_Check(session)) {
            PyErr_SetString(PyExc_TypeError, "encode_call: session_id must be str or None");
            ok = 0;
        } else {
            ok = enc_key(&o, "sessionId") == 0 && enc_str(&o, session) == 0;
        }
    }
    if (ok) ok = env_end(&o, start) == 0;
    if (!ok || PyErr_Occurred()) {
        out_drop(&o);
        return NULL;
    }
    return out_finish(&o);
}

static PyObject *set_default(PyObject *self, PyObject *hook) {
    State *st = state_of(self);
    PyObject *old = st->default_hook;
    st->default_hook = hook == Py_None ? NULL : Py_NewRef(hook);
    Py_XDECREF(old);
    Py_RETURN_NONE;
}

/* ------------------------------------------------------------------ */
/* module                                                              */

static PyMethodDef methods[] = {
    {"to_json", (PyCFunction)(void (*)(void))to_json, METH_FASTCALL,
     "to_json(data, keeps=None) -> one CBOR message as compact JSON bytes; keeps: call id -> "
     "projection of its result."},
    {"compile", compile, METH_O, "compile(shape) -> a projection for to_json's keeps."},
    {"encode_call", (PyCFunction)(void (*)(void))encode_call, METH_FASTCALL,
     "encode_call(call_id, method, params, session_id) -> Chrome's enveloped CBOR of a call."},
    {"encode", encode, METH_O, "Encode a value as Chrome's enveloped CBOR."},
    {"set_default", set_default, METH_O, "Set the hook that turns unknown objects into builtins."},
    {NULL, NULL, 0, NULL},
};

/* Version of what kobrowser/cdp/_codec.py relies on (functions, arguments,
 * behaviour). Bump it together with _codec.py's CODEC_ABI on every such
 * change: a build left over from an older _cbor.c (an editable install not
 * rebuilt) is then refused at import and the JSON pipe used, instead of
 * failing every launch. 2-6: answers shaped for kobrowser's own calls.
 * 7: to_json(data, keeps) with projections from compile(); per-module state. */
#define CODEC_ABI 7

static const char CBOR_ERROR[] =
    "class CBORError(ValueError):\n"
    "    '''Malformed, truncated or oversized CBOR; ``offset`` is where reading failed.'''\n"
    "    def __init__(self, message, offset, call_id=None):\n"
    "        super().__init__(message)\n"
    "        self.offset = offset\n"
    "        self.call_id = call_id\n";

static int exec_module(PyObject *module) {
    State *st = state_of(module);
    PyObject *code = Py_CompileString(CBOR_ERROR, "<kobrowser.cdp._cbor>", Py_file_input);
    if (code == NULL) return -1;
    PyObject *ns = PyDict_New();
    PyObject *name = PyModule_GetNameObject(module);
    int rc = -1;
    if (ns != NULL && name != NULL && PyDict_SetItemString(ns, "__builtins__", PyEval_GetBuiltins()) == 0 &&
        PyDict_SetItemString(ns, "__name__", name) == 0) {
        PyObject *res = PyEval_EvalCode(code, ns, ns);
        if (res != NULL) {
            Py_DECREF(res);
            PyObject *cls = PyDict_GetItemString(ns, "CBORError"); /* borrowed */
            if (cls != NULL) {
                st->cbor_error = Py_NewRef(cls);
                rc = 0;
            }
        }
    }
    Py_DECREF(code);
    Py_XDECREF(ns);
    Py_XDECREF(name);
    if (rc < 0) return -1;
    if (PyModule_AddObjectRef(module, "CBORError", st->cbor_error) < 0) return -1;
    return PyModule_AddIntConstant(module, "ABI", CODEC_ABI);
}

static int traverse_module(PyObject *module, visitproc visit, void *arg) {
    State *st = state_of(module);
    Py_VISIT(st->cbor_error);
    Py_VISIT(st->default_hook);
    return 0;
}

static int clear_module(PyObject *module) {
    State *st = state_of(module);
    Py_CLEAR(st->cbor_error);
    Py_CLEAR(st->default_hook);
    return 0;
}

static void free_module(void *module) { clear_module((PyObject *)module); }

static PyModuleDef_Slot slots[] = {
    {Py_mod_exec, exec_module},
#ifdef Py_mod_multiple_interpreters
    {Py_mod_multiple_interpreters, Py_MOD_PER_INTERPRETER_GIL_SUPPORTED},
#endif
    {0, NULL},
};

static struct PyModuleDef moduledef = {
    PyModuleDef_HEAD_INIT,
    .m_name = "kobrowser.cdp._cbor",
    .m_doc = "Chrome DevTools CBOR <-> JSON, with projections of answers.",
    .m_size = sizeof(State),
    .m_methods = methods,
    .m_slots = slots,
    .m_traverse = traverse_module,
    .m_clear = clear_module,
    .m_free = free_module,
};

PyMODINIT_FUNC PyInit__cbor(void) { return PyModuleDef_Init(&moduledef); }
