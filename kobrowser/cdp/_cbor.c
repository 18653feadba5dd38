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
 *   to_json(buffer, lean) -> bytes
 *       The same, but when the message's top-level "id" (read before its
 *       "result") is in the set ``lean``, the id is taken out of the set and
 *       the result is transcoded as a lean Accessibility.getFullAXTree
 *       answer for the snapshot walk (kobrowser/snapshot/_ax.py,
 *       FlatAXNode): its "nodes" are written as "flatNodes", and in each node
 *       map the keys the walk never reads (LEAN_NODE_DROP) are left out; its
 *       role, name and value (AXValue maps) are written flat, as their
 *       "value" alone (null when none); its properties as [name, value]
 *       pairs (the value flat), only those named in LEAN_PROPERTIES (a
 *       module attribute: the properties the walk reads). A dropped value
 *       is stepped over, not written: its lengths, nesting and tags are
 *       checked as the transcoder checks them, its text is not decoded, and
 *       one held in an envelope goes unread (its length is still checked).
 *       Also left out: every node after the first (the
 *       root) that says "ignored": false and then has the role InlineTextBox
 *       (the snapshot never prints such a node nor anything below it; the
 *       rest of the node after its role is stepped over the same way), and
 *       the "childIds" of a node that says "ignored": false and then has the
 *       role StaticText (the walk never reads a text piece's children). A
 *       role, name or value that is neither a map nor null, properties that
 *       are not an array of maps each with a string "name" and a "value"
 *       (and, for a property kept, a map or null) fail the call (CBORError
 *       naming the offset), as the decoder would refuse them.
 *
 *   to_json(buffer, lean, lean_clickable) -> bytes
 *       Also: when the top-level "id" is in the set ``lean_clickable``, it
 *       is taken out and the result is transcoded as a lean
 *       DOMSnapshot.captureSnapshot answer for the clickable map: each
 *       document map (result.documents[i]) keeps only CLICKABLE_DOCUMENT_KEYS
 *       and the maps inside it (its nodes, layout ...) only
 *       CLICKABLE_SECTION_KEYS. The rest (text boxes, bounds as doubles,
 *       attributes, node values) is stepped over, as above. Both tuples are
 *       module attributes, so a test can hold them against the decoder's
 *       structs (kobrowser/_tab/_clickable.py).
 *
 *   to_json(buffer, lean, lean_clickable, clickable_map) -> bytes
 *       Also: when the top-level "id" is in the set ``clickable_map``, it is
 *       taken out and the result is not transcoded but read as a
 *       DOMSnapshot.captureSnapshot answer, and written as the clickable map
 *       it gives: {"clickableMap":[backend, target, ...]} (see "the
 *       clickable map of a captureSnapshot answer" below).
 *
 *   encode_call(id, method, params, session_id) -> bytes
 *   encode(value) -> bytes
 *       Chrome's enveloped CBOR: every map and array enveloped, integers in
 *       int32 range (larger ones are sent as doubles, as JSON would), text as
 *       UTF-8, bytes as tag 22 binary. Anything else goes through the
 *       ``default`` hook set with set_default() (kobrowser sets one that
 *       turns msgspec objects into builtins).
 *
 * The decoder never reads past the buffer, never recurses deeper than
 * MAX_DEPTH, and checks every length against what is left before using it.
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_DEPTH 1000

static PyObject *CBORError;
static PyObject *default_hook;

/* ------------------------------------------------------------------ */
/* output buffer: a bytes object grown in place                        */

typedef struct {
    PyObject *bytes; /* the result being written */
    char *data;      /* PyBytes_AS_STRING(bytes) */
    Py_ssize_t len;
    Py_ssize_t cap;
} Out;

static int out_init(Out *o, Py_ssize_t cap) {
    if (cap < 64) cap = 64;
    o->bytes = PyBytes_FromStringAndSize(NULL, cap);
    if (o->bytes == NULL) return -1;
    o->data = PyBytes_AS_STRING(o->bytes);
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
    if (_PyBytes_Resize(&o->bytes, cap) < 0) return -1;
    o->data = PyBytes_AS_STRING(o->bytes);
    o->cap = cap;
    return 0;
}

#define RESERVE(o, n) \
    do { if ((o)->cap - (o)->len < (Py_ssize_t)(n) && out_grow((o), (n)) < 0) return -1; } while (0)

static PyObject *out_finish(Out *o) {
    if (_PyBytes_Resize(&o->bytes, o->len) < 0) return NULL;
    return o->bytes;
}

static void out_drop(Out *o) { Py_CLEAR(o->bytes); }

/* ------------------------------------------------------------------ */
/* decoder state                                                       */

typedef struct {
    const uint8_t *buf;
    Py_ssize_t size;
    Py_ssize_t pos;
    Out out;
    int depth;
    int have_id;
    long long call_id;
    PyObject *lean;       /* set of call ids answered lean (AX trees), or NULL */
    PyObject *lean_click; /* set of call ids answered lean (clickable maps), or NULL */
    PyObject *click_map;  /* set of call ids answered with the clickable map itself, or NULL */
    int lean_depth;       /* depth of the lean result map; 0: not lean */
    int lean_kind;        /* 1: a lean AX tree, 2: a lean clickable map */
    int node_shown;       /* the lean AX node being read said "ignored": false */
    int drop_node;        /* ... and then its role was InlineTextBox: leave it out */
    int text_node;        /* ... or StaticText: its "childIds" are left out */
    int may_drop;         /* the node being read is not the first of "nodes" */
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
    PyObject *exc = PyObject_CallFunction(CBORError, "snN", text, offset, id);
    if (exc != NULL) {
        PyErr_SetObject(CBORError, exc);
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

/* 1 for bytes that cannot be copied as they are into a JSON string. */
static uint8_t NEEDS_CARE[256];

static void init_tables(void) {
    for (int i = 0; i < 256; i++) NEEDS_CARE[i] = (i < 0x20 || i == '"' || i == '\\' || i >= 0x80);
}

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
        if (!NEEDS_CARE[c]) {
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
            if (NEEDS_CARE[c]) {
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

/* --- the transcoder ----------------------------------------------- */

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

/* A map key: a text string or a UTF-16 byte string. */
static int key(Dec *d, const uint8_t **text, Py_ssize_t *text_len) {
    Py_ssize_t head = d->pos;
    int major;
    const uint8_t *s;
    if (string_item(d, NOT_A_KEY, &major, &s, text_len) < 0) return -1;
    *text = major == 3 ? s : NULL;
    return major == 3 ? put_text(d, head, s, *text_len) : put_utf16(d, head, s, *text_len);
}

/* The properties a lean getFullAXTree answer keeps: the ones the snapshot
 * walk reads (kobrowser/snapshot/_states.py, read_props). */
static const char *const LEAN_PROPERTIES[] = {"focused", "disabled", "checked", "pressed", "expanded",
    "selected", "required", "readonly", "multiline", "editable", "focusable", NULL};

/* Keys of a node map of a lean getFullAXTree answer that no decoder reads. */
static const char *const LEAN_NODE_DROP[] = {"sources", "chromeRole", "parentId", "ignoredReasons",
                                             "frameId", "description", NULL};

/* Keys a lean clickable map keeps: in a document, and in a map inside one
 * (the fields of _Document, _Nodes and _Layout in kobrowser/_tab/_clickable.py). */
static const char *const CLICKABLE_DOCUMENT_KEYS[] = {"nodes", "layout", NULL};
static const char *const CLICKABLE_SECTION_KEYS[] = {"parentIndex", "nodeType", "nodeName",
    "backendNodeId", "isClickable", "shadowRootType", "nodeIndex", "styles", NULL};

/* Whether a UTF-8 key (NULL: a UTF-16 one) is the ASCII `want`. Inline, so
 * that the length of a literal `want` is known when compiling (the key
 * comparisons are a large part of a lean answer's time). */
static inline int is_key(const uint8_t *name, Py_ssize_t len, const char *want) {
    return name != NULL && (Py_ssize_t)strlen(want) == len && memcmp(name, want, (size_t)len) == 0;
}

static int listed(const char *const *keys, const uint8_t *name, Py_ssize_t len) {
    if (name == NULL || len == 0) return 0;
    for (const char *const *k = keys; *k != NULL; k++) /* the first byte before the length */
        if ((uint8_t)(*k)[0] == name[0] && is_key(name, len, *k)) return 1;
    return 0;
}

/* Whether a lean answer drops key ``name``: lean 1 in an AX node (whose
 * role, name and value maps put_flat_value reads), 2 in a captureSnapshot
 * document, 3 in a map inside one. */
static int lean_drops(int lean, const uint8_t *name, Py_ssize_t len) {
    switch (lean) {
    case 1: return listed(LEAN_NODE_DROP, name, len);
    case 2: return !listed(CLICKABLE_DOCUMENT_KEYS, name, len);
    default: return !listed(CLICKABLE_SECTION_KEYS, name, len);
    }
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

/* Step over an enveloped item without reading inside it. Returns 1 when
 * stepped over, 0 when the item is not enveloped (nothing read), -1 on error. */
static int skip_enveloped(Dec *d) {
    Py_ssize_t end = 0;
    int r = enter_envelope(d, &end);
    if (r == 1) d->pos = end;
    return r;
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

/* Whether the answer's call id is in a lean set (taking it out): 1 for the
 * AX trees' set, 2 for the lean clickable answers', 3 for the clickable
 * maps', 0 for none, -1 on error. */
static int lean_kind_of(Dec *d) {
    PyObject *sets[3] = {d->lean, d->lean_click, d->click_map};
    for (int k = 0; k < 3; k++) {
        if (sets[k] == NULL || PySet_GET_SIZE(sets[k]) == 0) continue;
        PyObject *id = PyLong_FromLongLong(d->call_id);
        if (id == NULL) return -1;
        int found = PySet_Discard(sets[k], id);
        Py_DECREF(id);
        if (found != 0) return found < 0 ? -1 : k + 1;
    }
    return 0;
}

/* What the JSON just written for a lean AX node's key ``name`` tells: once
 * "ignored" is false (node_shown), a role (flat: the JSON string) that names
 * an InlineTextBox leaves the node out whole (after the root): the snapshot
 * never prints it, nor anything below it; a role StaticText leaves out its
 * "childIds": the walk never reads a text piece's children
 * (kobrowser/snapshot/_roles.py and _tree.py). An ignored node's children are
 * walked, so it stays whole, whatever its role. */
static void note_node_key(Dec *d, const uint8_t *name, Py_ssize_t name_len, const char *json,
                          Py_ssize_t len) {
    if (is_key(name, name_len, "ignored")) {
        d->node_shown = len == 5 && memcmp(json, "false", 5) == 0;
    } else if (is_key(name, name_len, "role") && d->node_shown) {
        if (d->may_drop && len == 15 && memcmp(json, "\"InlineTextBox\"", 15) == 0) d->drop_node = 1;
        else if (len == 12 && memcmp(json, "\"StaticText\"", 12) == 0) d->text_node = 1;
    }
}

/* ------------------------------------------------------------------ */
/* the clickable map of a captureSnapshot answer, computed here        */
/*
 * A result whose call id is in the set ``clickable_map`` is not transcoded:
 * it is read as a DOMSnapshot.captureSnapshot answer taken with the cursor
 * as its only computed style (kobrowser/_tab/_clickable.py, PARAMS), and written
 * as {"clickableMap":[backend, target, backend, target, ...]}: the pairs of
 * the clickable map, in the order kobrowser/_tab/_clickable.py's _document
 * inserts them (every document in turn: its clickable elements in node
 * order, then the text nodes of each element in the order the elements
 * first own one). Only nodes.parentIndex, nodeType, nodeName,
 * backendNodeId, isClickable.index, layout.nodeIndex, layout.styles and the
 * strings are read; the rest is stepped over. An answer of another shape
 * fails the call (CBORError naming the offset), as the decoder would.
 */

/* kobrowser/_tab/_clickable.py's MAX_TEXT_NODES (a module attribute, held equal by the tests). */
#define CLICKABLE_MAX_TEXT_NODES 32

typedef struct {
    int64_t *v;
    Py_ssize_t n, cap;
} Ints;

static void ints_free(Ints *a) {
    PyMem_Free(a->v);
    a->v = NULL;
    a->n = a->cap = 0;
}

static int ints_push(Ints *a, int64_t x) {
    if (a->n == a->cap) {
        Py_ssize_t cap = a->cap ? a->cap * 2 : 64;
        int64_t *v = PyMem_Realloc(a->v, (size_t)cap * sizeof *v);
        if (v == NULL) {
            PyErr_NoMemory();
            return -1;
        }
        a->v = v;
        a->cap = cap;
    }
    a->v[a->n++] = x;
    return 0;
}

enum { F_PARENT, F_TYPE, F_NAME, F_BACKEND, F_LISTENER, F_AT, F_CURSOR, F_COUNT };

typedef struct {
    Ints f[F_COUNT];
} MapDoc;

/* A map or an array being read: its envelope (if any) bounds what is read. */
typedef struct {
    Py_ssize_t outer_size, end;
    int enveloped, indefinite;
    uint64_t count, n;
} Scope;

/* Open a map (major 5) or an array (4) of the `answer`'s `what`. */
static int open_scope_of(Dec *d, Scope *s, int major_wanted, const char *answer, const char *what) {
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
        return fail(d, head, "unexpected %s answer: %s is not a%s", answer, what,
                    major_wanted == 5 ? " map" : "n array");
    if (enter_container(d, head, major == 5, r == 1, arg) < 0) return -1;
    s->indefinite = r == 1;
    s->count = arg;
    s->n = 0;
    return 0;
}

static int open_scope(Dec *d, Scope *s, int major_wanted, const char *what) {
    return open_scope_of(d, s, major_wanted, "captureSnapshot", what);
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

/* Step over one item of any kind (checked as the transcoder checks it). */
static int skip_item(Dec *d) {
    int skipped = skip_enveloped(d);
    if (skipped != 0) return skipped < 0 ? -1 : 0;
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

/* A map key: its text (NULL when a UTF-16 string, which no key read here is). */
static int skim_key(Dec *d, const uint8_t **name, Py_ssize_t *len) {
    int major;
    const uint8_t *s;
    if (string_item(d, NOT_A_KEY, &major, &s, len) < 0) return -1;
    *name = major == 3 ? s : NULL;
    return 0;
}

/* The next entry of a map being read: 1 with its key read (see skim_key),
 * 0 at the end, -1 on error. */
static int next_key(Dec *d, Scope *s, const uint8_t **name, Py_ssize_t *len) {
    int more = scope_next(d, s);
    if (more <= 0) return more;
    return skim_key(d, name, len) < 0 ? -1 : 1;
}

static int read_int(Dec *d, int64_t *x) {
    Py_ssize_t head = d->pos;
    int major;
    uint64_t arg;
    int r = read_head(d, &major, &arg);
    if (r < 0) return -1;
    if (r == 1 || major > 1 || arg > (uint64_t)INT64_MAX)
        return fail(d, head, "unexpected captureSnapshot answer: an entry that is not an integer");
    *x = major == 0 ? (int64_t)arg : -1 - (int64_t)arg;
    return 0;
}

static int read_ints(Dec *d, Ints *out, const char *what) {
    Scope s;
    if (open_scope(d, &s, 4, what) < 0) return -1;
    out->n = 0; /* a key given twice: the last one counts, as in the decoder */
    int more;
    while ((more = scope_next(d, &s)) > 0) {
        int64_t x;
        if (read_int(d, &x) < 0 || ints_push(out, x) < 0) return -1;
    }
    return more < 0 ? -1 : close_scope(d, &s);
}

/* isClickable: {"index": [...], ...}. */
static int read_rare(Dec *d, Ints *out) {
    if (d->pos < d->size && d->buf[d->pos] == 0xf6) { /* null: none */
        d->pos++;
        out->n = 0;
        return 0;
    }
    Scope s;
    if (open_scope(d, &s, 5, "nodes.isClickable") < 0) return -1;
    out->n = 0;
    const uint8_t *name;
    Py_ssize_t len;
    int more;
    while ((more = next_key(d, &s, &name, &len)) > 0)
        if (is_key(name, len, "index") ? read_ints(d, out, "isClickable.index") < 0 : skip_item(d) < 0)
            return -1;
    return more < 0 ? -1 : close_scope(d, &s);
}

/* layout.styles: one array per layout node; its first entry is the cursor. */
static int read_styles(Dec *d, Ints *out) {
    Scope s;
    if (open_scope(d, &s, 4, "layout.styles") < 0) return -1;
    out->n = 0;
    int more;
    while ((more = scope_next(d, &s)) > 0) {
        Scope inner;
        if (open_scope(d, &inner, 4, "an entry of layout.styles") < 0) return -1;
        int64_t first = INT64_MIN; /* none: no styles */
        int again;
        while ((again = scope_next(d, &inner)) > 0) {
            int64_t x;
            if (read_int(d, &x) < 0) return -1;
            if (first == INT64_MIN) first = x;
        }
        if (again < 0 || close_scope(d, &inner) < 0 || ints_push(out, first) < 0) return -1;
    }
    return more < 0 ? -1 : close_scope(d, &s);
}

static int read_section(Dec *d, MapDoc *doc, int layout) {
    Scope s;
    if (open_scope(d, &s, 5, layout ? "a document's layout" : "a document's nodes") < 0) return -1;
    const uint8_t *name;
    Py_ssize_t len;
    int more;
    while ((more = next_key(d, &s, &name, &len)) > 0) {
        int rc;
        if (layout && is_key(name, len, "nodeIndex")) rc = read_ints(d, &doc->f[F_AT], "layout.nodeIndex");
        else if (layout && is_key(name, len, "styles")) rc = read_styles(d, &doc->f[F_CURSOR]);
        else if (!layout && is_key(name, len, "parentIndex")) rc = read_ints(d, &doc->f[F_PARENT], "nodes.parentIndex");
        else if (!layout && is_key(name, len, "nodeType")) rc = read_ints(d, &doc->f[F_TYPE], "nodes.nodeType");
        else if (!layout && is_key(name, len, "nodeName")) rc = read_ints(d, &doc->f[F_NAME], "nodes.nodeName");
        else if (!layout && is_key(name, len, "backendNodeId")) rc = read_ints(d, &doc->f[F_BACKEND], "nodes.backendNodeId");
        else if (!layout && is_key(name, len, "isClickable")) rc = read_rare(d, &doc->f[F_LISTENER]);
        else rc = skip_item(d);
        if (rc < 0) return -1;
    }
    return more < 0 ? -1 : close_scope(d, &s);
}

typedef struct {
    MapDoc *docs;
    Py_ssize_t n_docs;
    int have_nodes_all; /* every document had "nodes" and "layout" */
    Ints never;         /* per string index: 1 for "HTML" and "BODY" */
    int64_t pointer;    /* string index of "pointer"; -2: none */
} MapAnswer;

static void answer_free(MapAnswer *a) {
    for (Py_ssize_t i = 0; i < a->n_docs; i++)
        for (int k = 0; k < F_COUNT; k++) ints_free(&a->docs[i].f[k]);
    PyMem_Free(a->docs);
    a->docs = NULL;
    a->n_docs = 0;
    ints_free(&a->never);
}

static int read_documents(Dec *d, MapAnswer *a) {
    Scope s;
    if (open_scope(d, &s, 4, "documents") < 0) return -1;
    for (Py_ssize_t i = 0; i < a->n_docs; i++) /* a second "documents": the last counts */
        for (int k = 0; k < F_COUNT; k++) ints_free(&a->docs[i].f[k]);
    a->n_docs = 0;
    a->have_nodes_all = 1;
    Py_ssize_t cap = 0;
    int more;
    while ((more = scope_next(d, &s)) > 0) {
        if (a->n_docs == cap) {
            Py_ssize_t grown = cap ? cap * 2 : 4;
            MapDoc *docs = PyMem_Realloc(a->docs, (size_t)grown * sizeof *docs);
            if (docs == NULL) {
                PyErr_NoMemory();
                return -1;
            }
            a->docs = docs;
            cap = grown;
        }
        MapDoc *doc = &a->docs[a->n_docs++];
        memset(doc, 0, sizeof *doc);
        Scope ds;
        if (open_scope(d, &ds, 5, "a document") < 0) return -1;
        int seen = 0, again;
        const uint8_t *name;
        Py_ssize_t len;
        while ((again = next_key(d, &ds, &name, &len)) > 0) {
            int rc;
            if (is_key(name, len, "nodes")) {
                seen |= 1;
                rc = read_section(d, doc, 0);
            } else if (is_key(name, len, "layout")) {
                seen |= 2;
                rc = read_section(d, doc, 1);
            } else {
                rc = skip_item(d);
            }
            if (rc < 0) return -1;
        }
        if (seen != 3) a->have_nodes_all = 0;
        if (again < 0 || close_scope(d, &ds) < 0) return -1;
    }
    return more < 0 ? -1 : close_scope(d, &s);
}

/* Whether a string item (UTF-8 text, or UTF-16LE bytes) is the ASCII ``want``. */
static int string_is(int major, const uint8_t *s, Py_ssize_t n, const char *want) {
    if (major == 3) return is_key(s, n, want);
    Py_ssize_t k = (Py_ssize_t)strlen(want);
    if (n != 2 * k) return 0;
    for (Py_ssize_t i = 0; i < k; i++)
        if (s[2 * i] != (uint8_t)want[i] || s[2 * i + 1] != 0) return 0;
    return 1;
}

static int read_strings(Dec *d, MapAnswer *a) {
    Scope s;
    if (open_scope(d, &s, 4, "strings") < 0) return -1;
    a->never.n = 0;
    a->pointer = -2;
    int more;
    for (int64_t at = 0; (more = scope_next(d, &s)) > 0; at++) {
        Py_ssize_t head = d->pos, len = 0;
        int major;
        const uint8_t *text;
        if (string_item(d, "unexpected captureSnapshot answer: an entry of strings that is not a string",
                        &major, &text, &len) < 0)
            return -1;
        if (major == 3) {
            /* checked as the transcoder checks it */
            for (Py_ssize_t i = 0; i < len;) {
                if (text[i] < 0x80) {
                    i++;
                    continue;
                }
                int k = utf8_seq(text + i, len - i);
                if (k == 0) return fail(d, head, "malformed CBOR: invalid UTF-8 in the text string");
                i += k;
            }
        } else if (len & 1) {
            return fail(d, head, "malformed CBOR: a UTF-16 string of odd length %zd", len);
        }
        if (a->pointer == -2 && string_is(major, text, len, "pointer")) a->pointer = at;
        int never = string_is(major, text, len, "HTML") || string_is(major, text, len, "BODY");
        if (ints_push(&a->never, never) < 0) return -1;
    }
    return more < 0 ? -1 : close_scope(d, &s);
}

/* The map of one document, appended as pairs (see _document in _clickable.py). */
static int map_document(Dec *d, Py_ssize_t at, const MapAnswer *a, const MapDoc *doc, Ints *pairs) {
    Py_ssize_t count = doc->f[F_BACKEND].n;
    if (count == 0) return 0;
    const int64_t *parents = doc->f[F_PARENT].v, *types = doc->f[F_TYPE].v, *names = doc->f[F_NAME].v,
                  *backends = doc->f[F_BACKEND].v;
    if (doc->f[F_PARENT].n < count || doc->f[F_TYPE].n < count)
        return fail(d, at, "unexpected captureSnapshot answer: a document's node arrays differ in length");
    int rc = -1;
    int64_t *cursor = PyMem_Malloc((size_t)count * sizeof *cursor);
    int64_t *effective = PyMem_Malloc((size_t)count * sizeof *effective);
    int64_t *owner = PyMem_Malloc((size_t)count * sizeof *owner);
    Py_ssize_t *texts = PyMem_Malloc((size_t)count * sizeof *texts); /* text counts, then offsets */
    Py_ssize_t *order = PyMem_Malloc((size_t)count * sizeof *order); /* owners by first text */
    uint8_t *listener = PyMem_Calloc((size_t)count, 1);
    Py_ssize_t *members = NULL, *fill = NULL;
    if (!cursor || !effective || !owner || !texts || !order || !listener) {
        PyErr_NoMemory();
        goto done;
    }
    for (Py_ssize_t i = 0; i < count; i++) {
        cursor[i] = -1;
        texts[i] = 0;
    }
    for (Py_ssize_t k = 0; k < doc->f[F_LISTENER].n; k++) {
        int64_t i = doc->f[F_LISTENER].v[k];
        if (i >= 0 && i < count) listener[i] = 1;
    }
    Py_ssize_t boxes = doc->f[F_AT].n < doc->f[F_CURSOR].n ? doc->f[F_AT].n : doc->f[F_CURSOR].n;
    for (Py_ssize_t k = 0; k < boxes; k++) {
        int64_t i = doc->f[F_AT].v[k], style = doc->f[F_CURSOR].v[k];
        if (style == INT64_MIN || i >= count) continue; /* no styles, or past the nodes */
        if (i < 0) {
            if (i < -count) {
                fail(d, at, "unexpected captureSnapshot answer: layout.nodeIndex %lld", (long long)i);
                goto done;
            }
            i += count; /* as a Python list index */
        }
        cursor[i] = style;
    }
    Py_ssize_t owners = 0;
    int64_t pointer = a->pointer;
    for (Py_ssize_t i = 0; i < count; i++) {
        int64_t parent = parents[i];
        int in = parent >= 0 && parent < i;
        int64_t inherited = in ? effective[parent] : -1;
        int64_t own = cursor[i];
        effective[i] = own != -1 ? own : inherited;
        int64_t up = in ? owner[parent] : -1;
        if (types[i] == 1) {
            if (i >= doc->f[F_NAME].n) { /* read only for elements, as in _document */
                fail(d, at, "unexpected captureSnapshot answer: a document's node arrays differ in length");
                goto done;
            }
            int64_t name = names[i];
            int never = name >= 0 && name < a->never.n && a->never.v[name];
            if (!never && (listener[i] || (own == pointer && inherited != pointer))) {
                if (ints_push(pairs, backends[i]) < 0 || ints_push(pairs, backends[i]) < 0) goto done;
                owner[i] = i;
            } else {
                owner[i] = up;
            }
        } else if (types[i] == 3 && up != -1) {
            owner[i] = -1; /* as in _document: an owned text node owns nothing */
            if (texts[up]++ == 0) order[owners++] = up;
        } else {
            owner[i] = up;
        }
    }
    if (owners) {
        /* the text nodes of each owner, in node order */
        members = PyMem_Malloc((size_t)count * sizeof *members);
        fill = PyMem_Malloc((size_t)count * sizeof *fill);
        if (members == NULL || fill == NULL) {
            PyErr_NoMemory();
            goto done;
        }
        Py_ssize_t offset = 0;
        for (Py_ssize_t k = 0; k < owners; k++) {
            Py_ssize_t e = order[k], n = texts[e];
            texts[e] = offset; /* where its members start */
            fill[e] = offset;  /* where the next one goes */
            offset += n;
        }
        for (Py_ssize_t i = 0; i < count; i++) {
            int64_t parent = parents[i];
            if (types[i] != 3 || !(parent >= 0 && parent < i)) continue;
            int64_t up = owner[parent];
            if (up != -1) members[fill[up]++] = i;
        }
        for (Py_ssize_t k = 0; k < owners; k++) {
            Py_ssize_t e = order[k], first = texts[e], n = fill[e] - first;
            if (n > CLICKABLE_MAX_TEXT_NODES) continue;
            for (Py_ssize_t j = first; j < first + n; j++)
                if (ints_push(pairs, backends[members[j]]) < 0 || ints_push(pairs, backends[e]) < 0)
                    goto done;
        }
    }
    rc = 0;
done:
    PyMem_Free(cursor);
    PyMem_Free(effective);
    PyMem_Free(owner);
    PyMem_Free(texts);
    PyMem_Free(order);
    PyMem_Free(listener);
    PyMem_Free(members);
    PyMem_Free(fill);
    return rc;
}

/* Read a captureSnapshot result and write {"clickableMap":[...]} for it. */
static int put_clickable_map(Dec *d) {
    Py_ssize_t at = d->pos;
    MapAnswer a = {.docs = NULL, .n_docs = 0, .have_nodes_all = 1, .pointer = -2};
    int rc = -1, have_docs = 0, have_strings = 0;
    Scope s;
    if (open_scope(d, &s, 5, "the result") < 0) goto done;
    const uint8_t *name;
    Py_ssize_t len;
    int more;
    while ((more = next_key(d, &s, &name, &len)) > 0) {
        int r;
        if (is_key(name, len, "documents")) {
            have_docs = 1;
            r = read_documents(d, &a);
        } else if (is_key(name, len, "strings")) {
            have_strings = 1;
            r = read_strings(d, &a);
        } else {
            r = skip_item(d);
        }
        if (r < 0) goto done;
    }
    if (more < 0 || close_scope(d, &s) < 0) goto done;
    if (!have_docs || !have_strings || !a.have_nodes_all) {
        fail(d, at, "unexpected captureSnapshot answer: no %s",
             !have_docs ? "documents" : !have_strings ? "strings" : "nodes or layout in a document");
        goto done;
    }
    Ints pairs = {NULL, 0, 0};
    for (Py_ssize_t i = 0; i < a.n_docs; i++) {
        if (map_document(d, at, &a, &a.docs[i], &pairs) < 0) {
            ints_free(&pairs);
            goto done;
        }
    }
    Out *o = &d->out;
    if (put_raw(o, "{\"clickableMap\":[", 17) == 0) {
        rc = 0;
        for (Py_ssize_t k = 0; k < pairs.n && rc == 0; k++) {
            int64_t x = pairs.v[k];
            if (k) rc = put_raw(o, ",", 1);
            if (rc == 0) rc = put_uint(o, x < 0 ? (uint64_t)0 - (uint64_t)x : (uint64_t)x, x < 0);
        }
        if (rc == 0) rc = put_raw(o, "]}", 2);
    }
    ints_free(&pairs);
done:
    answer_free(&a);
    return rc;
}

/* ------------------------------------------------------------------ */
/* a lean getFullAXTree answer's flat values                           */

#define AX_ANSWER "getFullAXTree"

/* A lean AX node's role, name or value (an AXValue map), written flat: the
 * JSON of its "value" (the last, as a JSON decoder would take it), null
 * when it has none; its other keys ("type", "sources" ...) are stepped over. */
static int put_flat_value(Dec *d, const char *what) {
    Out *o = &d->out;
    if (d->pos < d->size && d->buf[d->pos] == 0xf6) { /* null, which the decoder takes as none */
        d->pos++;
        return put_raw(o, "null", 4);
    }
    Scope s;
    if (open_scope_of(d, &s, 5, AX_ANSWER, what) < 0) return -1;
    Py_ssize_t mark = o->len;
    int have = 0, more;
    const uint8_t *name;
    Py_ssize_t len;
    while ((more = next_key(d, &s, &name, &len)) > 0) {
        if (is_key(name, len, "value")) {
            o->len = mark; /* a second "value": the last counts */
            if (item(d) < 0) return -1;
            have = 1;
        } else if (skip_item(d) < 0) {
            return -1;
        }
    }
    if (more < 0 || close_scope(d, &s) < 0) return -1;
    return have ? 0 : put_raw(o, "null", 4);
}

/* One AXProperty map of a lean node, written flat as [name, value] (the
 * value as put_flat_value writes it) when its name is in LEAN_PROPERTIES;
 * *kept says whether it was written. A property without a name or a value
 * fails, as the decoder would refuse it. */
static int put_flat_property(Dec *d, int *kept) {
    Out *o = &d->out;
    Scope s;
    Py_ssize_t at = d->pos;
    if (open_scope_of(d, &s, 5, AX_ANSWER, "a node's property") < 0) return -1;
    Py_ssize_t name_at = -1, value_at = -1;
    int more;
    const uint8_t *name;
    Py_ssize_t len;
    while ((more = next_key(d, &s, &name, &len)) > 0) {
        if (is_key(name, len, "name")) name_at = d->pos;
        else if (is_key(name, len, "value")) value_at = d->pos;
        if (skip_item(d) < 0) return -1;
    }
    if (more < 0) return -1;
    if (name_at < 0 || value_at < 0)
        return fail(d, at, "unexpected " AX_ANSWER " answer: a property without a %s",
                    name_at < 0 ? "name" : "value");
    Py_ssize_t end = d->pos;
    d->pos = name_at;
    int major;
    const uint8_t *text;
    if (string_item(d, "unexpected " AX_ANSWER " answer: a property name that is not a string",
                    &major, &text, &len) < 0)
        return -1;
    *kept = major == 3 && listed(LEAN_PROPERTIES, text, len);
    if (*kept) {
        if (put_raw(o, "[", 1) < 0 || put_text(d, name_at, text, len) < 0 || put_raw(o, ",", 1) < 0)
            return -1;
        d->pos = value_at;
        if (put_flat_value(d, "a property's value") < 0 || put_raw(o, "]", 1) < 0) return -1;
    }
    d->pos = end;
    return close_scope(d, &s);
}

/* A lean node's properties (an array of AXProperty maps), written flat:
 * [[name, value], ...], only those put_flat_property keeps. */
static int put_flat_properties(Dec *d) {
    Out *o = &d->out;
    Scope s;
    if (open_scope_of(d, &s, 4, AX_ANSWER, "a node's properties") < 0) return -1;
    if (put_raw(o, "[", 1) < 0) return -1;
    int written = 0, more;
    while ((more = scope_next(d, &s)) > 0) {
        Py_ssize_t mark = o->len;
        int kept = 0;
        if (written && put_raw(o, ",", 1) < 0) return -1;
        if (put_flat_property(d, &kept) < 0) return -1;
        if (kept) written++;
        else o->len = mark;
    }
    if (more < 0 || close_scope(d, &s) < 0) return -1;
    return put_raw(o, "]", 1);
}

static int container(Dec *d, Py_ssize_t head, int is_map, int indefinite, uint64_t count) {
    Out *o = &d->out;
    if (enter_container(d, head, is_map, indefinite, count) < 0) return -1;
    RESERVE(o, 1);
    o->data[o->len++] = is_map ? '{' : '[';
    int top = is_map && d->depth == 1;
    /* lean answer: which keys this map drops (see lean_drops) */
    int lean = 0;
    if (is_map && d->lean_depth) {
        if (d->depth == d->lean_depth + 2) lean = d->lean_kind == 1 ? 1 : 2;
        else if (d->depth == d->lean_depth + 3 && d->lean_kind == 2) lean = 3;
    }
    if (lean == 1) d->node_shown = d->drop_node = d->text_node = 0;
    /* a lean AX tree's result map: its "nodes" are written as "flatNodes" */
    int result_map = is_map && d->lean_depth && d->lean_kind == 1 && d->depth == d->lean_depth;
    /* a lean AX tree's "nodes" array: nodes after the first (the root) that
     * note_node_key finds are left out, and the rest of them goes unread */
    int nodes_array = !is_map && d->lean_depth && d->lean_kind == 1 && d->depth == d->lean_depth + 1;
    Py_ssize_t written = 0;
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
        Py_ssize_t mark = o->len;
        if (written) {
            RESERVE(o, 1);
            o->data[o->len++] = ',';
        }
        written++;
        const uint8_t *name = NULL;
        Py_ssize_t name_len = 0;
        if (is_map) {
            Py_ssize_t key_at = o->len;
            if (key(d, &name, &name_len) < 0) return -1;
            if (result_map && is_key(name, name_len, "nodes")) {
                o->len = key_at;
                if (put_raw(o, "\"flatNodes\"", 11) < 0) return -1;
            }
            RESERVE(o, 1);
            o->data[o->len++] = ':';
            if (lean &&
                ((lean == 1 && (d->drop_node || (d->text_node && is_key(name, name_len, "childIds")))) ||
                 (name != NULL && lean_drops(lean, name, name_len)))) {
                /* stepped over, not written (an envelope's content goes unread) */
                if (skip_item(d) < 0) return -1;
                o->len = mark; /* the entry never happened */
                written--;
                continue;
            }
            if (lean == 1 && name != NULL) {
                /* role, name and value written flat; properties too, those the walk reads */
                int flat = is_key(name, name_len, "role") || is_key(name, name_len, "name") ||
                           is_key(name, name_len, "value");
                if (flat || is_key(name, name_len, "properties")) {
                    Py_ssize_t value_at = o->len;
                    if ((flat ? put_flat_value(d, "a node's role, name or value")
                              : put_flat_properties(d)) < 0)
                        return -1;
                    note_node_key(d, name, name_len, o->data + value_at, o->len - value_at);
                    continue;
                }
            }
            if (top && name != NULL && name_len == 6 && memcmp(name, "result", 6) == 0 &&
                d->have_id) {
                int kind = lean_kind_of(d);
                if (kind < 0) return -1;
                if (kind == 3) {
                    if (put_clickable_map(d) < 0) return -1;
                    continue;
                }
                if (kind) {
                    d->lean_depth = d->depth + 1;
                    d->lean_kind = kind;
                    int rc = item(d);
                    d->lean_depth = 0;
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
        Py_ssize_t value_at = o->len;
        if (nodes_array) d->may_drop = n > 0;
        if (item(d) < 0) return -1;
        if (lean == 1 && name != NULL)
            note_node_key(d, name, name_len, o->data + value_at, o->len - value_at);
        if (nodes_array) {
            if (d->drop_node) {
                o->len = mark; /* left out: never printed, nor anything below it */
                written--;
            }
            d->node_shown = d->drop_node = d->may_drop = 0;
        }
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
    (void)self;
    if (nargs < 1 || nargs > 4) {
        PyErr_SetString(PyExc_TypeError,
                        "to_json(data, lean=None, lean_clickable=None, clickable_map=None) takes 1 "
                        "to 4 arguments");
        return NULL;
    }
    PyObject *lean = nargs >= 2 && args[1] != Py_None ? args[1] : NULL;
    PyObject *lean_click = nargs >= 3 && args[2] != Py_None ? args[2] : NULL;
    PyObject *click_map = nargs == 4 && args[3] != Py_None ? args[3] : NULL;
    if ((lean != NULL && !PySet_Check(lean)) || (lean_click != NULL && !PySet_Check(lean_click)) ||
        (click_map != NULL && !PySet_Check(click_map))) {
        PyErr_SetString(PyExc_TypeError, "to_json: lean sets must be sets of call ids or None");
        return NULL;
    }
    Py_buffer view;
    if (PyObject_GetBuffer(args[0], &view, PyBUF_SIMPLE) < 0) return NULL;
    Dec d = {.buf = view.buf, .size = view.len, .pos = 0, .depth = 0, .have_id = 0, .call_id = 0,
             .lean = lean, .lean_click = lean_click, .click_map = click_map, .lean_depth = 0,
             .lean_kind = 0};
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

static int enc(Out *o, PyObject *v, int depth);

static int enc_dict(Out *o, PyObject *v, int depth) {
    Py_ssize_t start = env_start(o, 0xbf);
    if (start < 0) return -1;
    PyObject *k, *val;
    Py_ssize_t pos = 0;
    while (PyDict_Next(v, &pos, &k, &val)) {
        if (!PyUnicode_Check(k)) {
            PyErr_Format(PyExc_TypeError, "CDP map keys must be str, not %.100s", Py_TYPE(k)->tp_name);
            return -1;
        }
        Py_INCREF(val);
        int rc = enc_str(o, k) < 0 || enc(o, val, depth + 1) < 0 ? -1 : 0;
        Py_DECREF(val);
        if (rc < 0) return -1;
    }
    return env_end(o, start);
}

static int enc(Out *o, PyObject *v, int depth) {
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
    if (PyFloat_Check(v)) return enc_double(o, PyFloat_AS_DOUBLE(v));
    if (PyDict_Check(v)) return enc_dict(o, v, depth);
    if (PyList_Check(v) || PyTuple_Check(v)) {
        Py_ssize_t start = env_start(o, 0x9f);
        if (start < 0) return -1;
        for (Py_ssize_t i = 0; i < PySequence_Fast_GET_SIZE(v); i++) {
            PyObject *element = Py_NewRef(PySequence_Fast_GET_ITEM(v, i));
            int rc = enc(o, element, depth + 1);
            Py_DECREF(element);
            if (rc < 0) return -1;
        }
        return env_end(o, start);
    }
    if (PyBytes_Check(v) || PyByteArray_Check(v)) {
        Py_buffer view;
        if (PyObject_GetBuffer(v, &view, PyBUF_SIMPLE) < 0) return -1;
        int rc = put_raw(o, "\xd6", 1);
        if (rc == 0) rc = enc_head(o, 2, (uint64_t)view.len);
        if (rc == 0) rc = put_raw(o, view.buf, view.len);
        PyBuffer_Release(&view);
        return rc;
    }
    if (default_hook != NULL && default_hook != Py_None) {
        PyObject *plain = PyObject_CallOneArg(default_hook, v);
        if (plain == NULL) return -1;
        if (plain == v) {
            Py_DECREF(plain);
            PyErr_Format(PyExc_TypeError, "cannot encode %.100s as CDP CBOR", Py_TYPE(v)->tp_name);
            return -1;
        }
        int rc = enc(o, plain, depth + 1);
        Py_DECREF(plain);
        return rc;
    }
    PyErr_Format(PyExc_TypeError, "cannot encode %.100s as CDP CBOR", Py_TYPE(v)->tp_name);
    return -1;
}

static PyObject *encode(PyObject *self, PyObject *v) {
    (void)self;
    Out o;
    if (out_init(&o, 256) < 0) return NULL;
    if (enc(&o, v, 0) < 0) {
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
    (void)self;
    if (nargs != 4) {
        PyErr_SetString(PyExc_TypeError, "encode_call(call_id, method, params, session_id)");
        return NULL;
    }
    PyObject *call_id = args[0], *method = args[1], *params = args[2], *session = args[3];
    if (!PyLong_Check(call_id) || !PyUnicode_Check(method)) {
        PyErr_SetString(PyExc_TypeError, "encode_call: call_id must be int and method str");
        return NULL;
    }
    Out o;
    if (out_init(&o, 256) < 0) return NULL;
    Py_ssize_t start = env_start(&o, 0xbf);
    int ok = start >= 0 && enc_key(&o, "id") == 0 && enc(&o, call_id, 1) == 0 &&
             enc_key(&o, "method") == 0 && enc_str(&o, method) == 0;
    if (ok && params != Py_None && PyObject_IsTrue(params))
        ok = enc_key(&o, "params") == 0 && enc(&o, params, 1) == 0;
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
    (void)self;
    Py_XSETREF(default_hook, Py_NewRef(hook));
    Py_RETURN_NONE;
}

static PyMethodDef methods[] = {
    {"to_json", (PyCFunction)(void (*)(void))to_json, METH_FASTCALL,
     "to_json(data, lean=None, lean_clickable=None, clickable_map=None) -> one CBOR message as "
     "compact JSON bytes."},
    {"encode_call", (PyCFunction)(void (*)(void))encode_call, METH_FASTCALL,
     "encode_call(call_id, method, params, session_id) -> Chrome's enveloped CBOR of a call."},
    {"encode", encode, METH_O, "Encode a value as Chrome's enveloped CBOR."},
    {"set_default", set_default, METH_O, "Set the hook that turns unknown objects into builtins."},
    {NULL, NULL, 0, NULL},
};

/* Version of what kobrowser/cdp/_pipe.py relies on (functions, arguments,
 * behaviour). Bump it together with _pipe.py's _CODEC_ABI on every such
 * change: a build left over from an older _cbor.c (an editable install not
 * rebuilt) is then refused at import and the JSON pipe used, instead of
 * failing every launch. 2: to_json(data, lean). 3: to_json(data, lean,
 * lean_clickable) and the CLICKABLE_*_KEYS attributes. 4: a lean AX answer
 * leaves out its InlineTextBox nodes. 5: to_json(data, lean, lean_clickable,
 * clickable_map). */
#define CODEC_ABI 6

static int exec_module(PyObject *module) {
    init_tables();
    PyObject *code = PyUnicode_FromString(
        "class CBORError(ValueError):\n"
        "    '''Malformed, truncated or oversized CBOR; ``offset`` is where reading failed.'''\n"
        "    def __init__(self, message, offset, call_id=None):\n"
        "        super().__init__(message)\n"
        "        self.offset = offset\n"
        "        self.call_id = call_id\n");
    if (code == NULL) return -1;
    PyObject *ns = PyDict_New();
    if (ns == NULL) {
        Py_DECREF(code);
        return -1;
    }
    PyObject *name = PyModule_GetNameObject(module);
    if (name == NULL || PyDict_SetItemString(ns, "__builtins__", PyEval_GetBuiltins()) < 0 ||
        PyDict_SetItemString(ns, "__name__", name) < 0) {
        Py_XDECREF(name);
        Py_DECREF(code);
        Py_DECREF(ns);
        return -1;
    }
    Py_DECREF(name);
    PyObject *res = PyRun_String(PyUnicode_AsUTF8(code), Py_file_input, ns, ns);
    Py_DECREF(code);
    if (res == NULL) {
        Py_DECREF(ns);
        return -1;
    }
    Py_DECREF(res);
    CBORError = PyDict_GetItemString(ns, "CBORError");
    Py_XINCREF(CBORError);
    Py_DECREF(ns);
    if (CBORError == NULL) return -1;
    if (PyModule_AddObjectRef(module, "CBORError", CBORError) < 0) return -1;
    if (PyModule_AddIntConstant(module, "ABI", CODEC_ABI) < 0) return -1;
    if (PyModule_AddIntConstant(module, "CLICKABLE_MAX_TEXT_NODES", CLICKABLE_MAX_TEXT_NODES) < 0)
        return -1;
    const char *const *const lists[3] = {CLICKABLE_DOCUMENT_KEYS, CLICKABLE_SECTION_KEYS, LEAN_PROPERTIES};
    const char *const names[3] = {"CLICKABLE_DOCUMENT_KEYS", "CLICKABLE_SECTION_KEYS", "LEAN_PROPERTIES"};
    for (int i = 0; i < 3; i++) {
        PyObject *keys = PyList_New(0);
        if (keys == NULL) return -1;
        for (const char *const *k = lists[i]; *k != NULL; k++) {
            PyObject *key = PyUnicode_FromString(*k);
            if (key == NULL || PyList_Append(keys, key) < 0) {
                Py_XDECREF(key);
                Py_DECREF(keys);
                return -1;
            }
            Py_DECREF(key);
        }
        PyObject *tuple = PyList_AsTuple(keys);
        Py_DECREF(keys);
        if (tuple == NULL) return -1;
        int rc = PyModule_AddObjectRef(module, names[i], tuple);
        Py_DECREF(tuple);
        if (rc < 0) return -1;
    }
    return 0;
}

static PyModuleDef_Slot slots[] = {{Py_mod_exec, exec_module}, {0, NULL}};

static struct PyModuleDef moduledef = {
    PyModuleDef_HEAD_INIT,
    .m_name = "kobrowser.cdp._cbor",
    .m_doc = "Chrome DevTools CBOR <-> JSON.",
    .m_size = 0,
    .m_methods = methods,
    .m_slots = slots,
};

PyMODINIT_FUNC PyInit__cbor(void) { return PyModuleDef_Init(&moduledef); }
