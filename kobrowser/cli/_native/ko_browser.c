/*
 * ko-browser: the native client of the hot commands (C99 + POSIX, no dependencies).
 *
 * A warm command costs the Python client its interpreter's start-up (tens of
 * ms) for a few hundred microseconds of work. This program serves the commands
 * an agent runs in a loop (snapshot, get, click, fill, type, press, open, ...)
 * itself: it parses the command line, sends one request over the session
 * daemon's Unix socket (the protocol of kobrowser/cli/_protocol.py) and prints
 * the reply exactly as the Python client does (kobrowser/cli/_client/_main.py).
 *
 * Everything else goes to the Python client, `ko-browser-py` (installed beside
 * this program), by exec with the same arguments: an unknown command, --help,
 * a spelling it does not read (abbreviations, -ic, --, a value it would have
 * to judge), no daemon listening (the Python client starts one), an
 * environment whose output encoding it does not know. Nothing has been sent
 * then, so the Python client does the whole command, byte for byte its own.
 * When a reply arrives that it does not fully understand (a lone surrogate in
 * the text, an unexpected field type), it hands the reply it read to the
 * Python client (KOBROWSER_NATIVE_REPLY=FD:REQUEST_ID, the line in a temporary
 * file), which prints it as it prints any reply: the request is never sent twice.
 *
 * KOBROWSER_PYTHON_CLIENT=1 sends every command to the Python client.
 */

#define _GNU_SOURCE 1
#include <errno.h>
#include <fcntl.h>
#include <langinfo.h>
#include <limits.h>
#include <locale.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#ifdef __linux__
#include <sys/mman.h>
#endif
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <sys/types.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

#ifndef SOCK_CLOEXEC /* macOS */
#define SOCK_CLOEXEC 0
#endif
#ifndef MSG_NOSIGNAL /* macOS: SO_NOSIGPIPE on the socket instead */
#define MSG_NOSIGNAL 0
#endif

#define PROG "ko-browser"
#define FALLBACK_NAME "ko-browser-py"
#define DEFAULT_TIMEOUT 30.0
#define ANSWER_GRACE 15.0
#define LONGEST_WAIT 1e7
#define MAX_DEPTH 200

/* -- growable byte buffer ---------------------------------------------------- */

typedef struct {
    char *data;
    size_t len, cap;
} buf_t;

static void die_oom(void) {
    static const char msg[] = PROG ": out of memory\n";
    (void)!write(2, msg, sizeof msg - 1);
    _exit(1);
}

static void buf_reserve(buf_t *b, size_t extra) {
    if (b->len + extra + 1 <= b->cap) return;
    size_t cap = b->cap ? b->cap : 256;
    while (cap < b->len + extra + 1) cap *= 2;
    char *data = realloc(b->data, cap);
    if (!data) die_oom();
    b->data = data;
    b->cap = cap;
}

static void buf_add(buf_t *b, const char *s, size_t n) {
    buf_reserve(b, n);
    memcpy(b->data + b->len, s, n);
    b->len += n;
    b->data[b->len] = 0;
}

static void buf_str(buf_t *b, const char *s) { buf_add(b, s, strlen(s)); }

static void buf_chr(buf_t *b, char c) { buf_add(b, &c, 1); }

static void buf_fmt(buf_t *b, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    char tmp[512];
    int n = vsnprintf(tmp, sizeof tmp, fmt, ap);
    va_end(ap);
    if (n > 0) buf_add(b, tmp, (size_t)n < sizeof tmp ? (size_t)n : sizeof tmp - 1);
}

/* -- UTF-8 ------------------------------------------------------------------- */

/* The code point at s (n bytes left) and its length, or -1 when not valid UTF-8
 * (overlong forms, surrogates and values past U+10FFFF included, as Python refuses them). */
static long utf8_next(const unsigned char *s, size_t n, int *len) {
    unsigned c = s[0];
    if (c < 0x80) {
        *len = 1;
        return c;
    }
    int need;
    long cp, min;
    if ((c & 0xE0) == 0xC0) need = 1, cp = c & 0x1F, min = 0x80;
    else if ((c & 0xF0) == 0xE0) need = 2, cp = c & 0x0F, min = 0x800;
    else if ((c & 0xF8) == 0xF0) need = 3, cp = c & 0x07, min = 0x10000;
    else return -1;
    if ((size_t)need >= n) return -1;
    for (int i = 1; i <= need; i++) {
        if ((s[i] & 0xC0) != 0x80) return -1;
        cp = (cp << 6) | (s[i] & 0x3F);
    }
    if (cp < min || cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF)) return -1;
    *len = need + 1;
    return cp;
}

static int utf8_valid(const char *s) {
    size_t n = strlen(s);
    const unsigned char *p = (const unsigned char *)s;
    while (n) {
        int len;
        if (utf8_next(p, n, &len) < 0) return 0;
        p += len;
        n -= (size_t)len;
    }
    return 1;
}

static void utf8_put(buf_t *b, long cp) {
    char o[4];
    size_t n;
    if (cp < 0x80) o[0] = (char)cp, n = 1;
    else if (cp < 0x800) o[0] = (char)(0xC0 | (cp >> 6)), o[1] = (char)(0x80 | (cp & 0x3F)), n = 2;
    else if (cp < 0x10000) {
        o[0] = (char)(0xE0 | (cp >> 12));
        o[1] = (char)(0x80 | ((cp >> 6) & 0x3F));
        o[2] = (char)(0x80 | (cp & 0x3F));
        n = 3;
    } else {
        o[0] = (char)(0xF0 | (cp >> 18));
        o[1] = (char)(0x80 | ((cp >> 12) & 0x3F));
        o[2] = (char)(0x80 | ((cp >> 6) & 0x3F));
        o[3] = (char)(0x80 | (cp & 0x3F));
        n = 4;
    }
    buf_add(b, o, n);
}

/* Python's str.isspace(), which str.split() splits on. */
static int py_space(long cp) {
    return (cp >= 0x09 && cp <= 0x0D) || (cp >= 0x1C && cp <= 0x20) || cp == 0x85 ||
           cp == 0xA0 || cp == 0x1680 || (cp >= 0x2000 && cp <= 0x200A) || cp == 0x2028 ||
           cp == 0x2029 || cp == 0x202F || cp == 0x205F || cp == 0x3000;
}

/* json.dumps(text) with ensure_ascii (text: valid UTF-8). */
static void json_quote(buf_t *b, const char *s, size_t n) {
    const unsigned char *p = (const unsigned char *)s;
    buf_chr(b, '"');
    while (n) {
        int len = 1;
        long cp = utf8_next(p, n, &len);
        if (cp < 0) cp = 0xFFFD; /* never: callers pass valid UTF-8 */
        switch (cp) {
        case '"': buf_str(b, "\\\""); break;
        case '\\': buf_str(b, "\\\\"); break;
        case '\n': buf_str(b, "\\n"); break;
        case '\r': buf_str(b, "\\r"); break;
        case '\t': buf_str(b, "\\t"); break;
        case '\b': buf_str(b, "\\b"); break;
        case '\f': buf_str(b, "\\f"); break;
        default:
            if (cp < 0x20 || cp > 0x7E) {
                if (cp == 0x7F) buf_chr(b, 0x7F);
                else if (cp < 0x10000) buf_fmt(b, "\\u%04x", (unsigned)cp);
                else {
                    long v = cp - 0x10000;
                    buf_fmt(b, "\\u%04x\\u%04x", (unsigned)(0xD800 | (v >> 10)),
                            (unsigned)(0xDC00 | (v & 0x3FF)));
                }
            } else buf_chr(b, (char)cp);
        }
        p += len;
        n -= (size_t)len;
    }
    buf_chr(b, '"');
}

/* -- JSON scanning (the reply) -------------------------------------------------
 * Strict: what this accepts, Python's json.loads accepts and reads the same way;
 * anything else is left to the Python client (a hand-off). */

typedef struct {
    const char *p; /* token start (NULL: absent) */
    size_t n;
} span_t;

static const char *ws(const char *p, const char *end) {
    while (p < end && (*p == ' ' || *p == '\t' || *p == '\r' || *p == '\n')) p++;
    return p;
}

static int hexval(char c) {
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    if (c >= 'A' && c <= 'F') return c - 'A' + 10;
    return -1;
}

static const char *scan_string(const char *p, const char *end) {
    if (p >= end || *p != '"') return NULL;
    p++;
    while (p < end) {
        unsigned char c = (unsigned char)*p;
        if (c == '"') return p + 1;
        if (c < 0x20 || c >= 0x80) return NULL; /* control: refused; non-ASCII: never sent */
        if (c == '\\') {
            if (p + 1 >= end) return NULL;
            char e = p[1];
            if (e == 'u') {
                if (p + 6 > end) return NULL;
                for (int i = 2; i < 6; i++)
                    if (hexval(p[i]) < 0) return NULL;
                p += 6;
                continue;
            }
            if (!strchr("\"\\/bfnrt", e) || !e) return NULL;
            p += 2;
            continue;
        }
        p++;
    }
    return NULL;
}

static const char *scan_number(const char *p, const char *end) {
    const char *start = p;
    if (p < end && *p == '-') p++;
    if (end - p >= 8 && !memcmp(p, "Infinity", 8)) return p + 8;
    if (p >= end) return NULL;
    if (*p == '0') p++;
    else if (*p >= '1' && *p <= '9')
        while (p < end && *p >= '0' && *p <= '9') p++;
    else return NULL;
    if (p < end && *p == '.') {
        p++;
        if (p >= end || *p < '0' || *p > '9') return NULL;
        while (p < end && *p >= '0' && *p <= '9') p++;
    }
    if (p < end && (*p == 'e' || *p == 'E')) {
        p++;
        if (p < end && (*p == '+' || *p == '-')) p++;
        if (p >= end || *p < '0' || *p > '9') return NULL;
        while (p < end && *p >= '0' && *p <= '9') p++;
    }
    if (p - start > 300) return NULL; /* Python's int limit, and floats that overflow */
    return p;
}

static const char *scan_value(const char *p, const char *end, int depth);

static const char *scan_container(const char *p, const char *end, int depth) {
    char close = *p == '{' ? '}' : ']';
    int object = *p == '{';
    if (depth > MAX_DEPTH) return NULL;
    p = ws(p + 1, end);
    if (p < end && *p == close) return p + 1;
    for (;;) {
        if (object) {
            p = scan_string(p, end);
            if (!p) return NULL;
            p = ws(p, end);
            if (p >= end || *p != ':') return NULL;
            p = ws(p + 1, end);
        }
        p = scan_value(p, end, depth + 1);
        if (!p) return NULL;
        p = ws(p, end);
        if (p < end && *p == ',') {
            p = ws(p + 1, end);
            continue;
        }
        if (p < end && *p == close) return p + 1;
        return NULL;
    }
}

static const char *scan_value(const char *p, const char *end, int depth) {
    if (p >= end) return NULL;
    switch (*p) {
    case '"': return scan_string(p, end);
    case '{':
    case '[': return scan_container(p, end, depth);
    case 't': return end - p >= 4 && !memcmp(p, "true", 4) ? p + 4 : NULL;
    case 'f': return end - p >= 5 && !memcmp(p, "false", 5) ? p + 5 : NULL;
    case 'n': return end - p >= 4 && !memcmp(p, "null", 4) ? p + 4 : NULL;
    case 'N': return end - p >= 3 && !memcmp(p, "NaN", 3) ? p + 3 : NULL;
    default: return scan_number(p, end);
    }
}

/* The members of a JSON object (already scanned whole): for each name in
 * `names`, the span of its last value. Returns 0 when a member's name has an
 * escape (it might spell one of the names) or the object is not one. */
static int members(span_t obj, const char *const *names, span_t *out, int count) {
    const char *p = obj.p, *end = obj.p + obj.n;
    for (int i = 0; i < count; i++) out[i].p = NULL, out[i].n = 0;
    if (p >= end || *p != '{') return 0;
    p = ws(p + 1, end);
    if (p < end && *p == '}') return 1;
    for (;;) {
        const char *key = p;
        p = scan_string(p, end);
        if (!p) return 0;
        size_t klen = (size_t)(p - key) - 2;
        if (memchr(key + 1, '\\', klen)) return 0;
        p = ws(p, end);
        p = ws(p + 1, end); /* ':' */
        const char *value = p;
        p = scan_value(p, end, 1);
        if (!p) return 0;
        for (int i = 0; i < count; i++)
            if (strlen(names[i]) == klen && !memcmp(names[i], key + 1, klen))
                out[i].p = value, out[i].n = (size_t)(p - value);
        p = ws(p, end);
        if (p < end && *p == ',') {
            p = ws(p + 1, end);
            continue;
        }
        return 1;
    }
}

static int is_string(span_t s) { return s.p && s.n >= 2 && s.p[0] == '"'; }

static int span_is(span_t s, const char *text) {
    return s.p && s.n == strlen(text) && !memcmp(s.p, text, s.n);
}

/* The text of a string token as UTF-8; 0 when it holds a lone surrogate
 * (Python would write it escaped, or as a raw byte: its own business). */
static int unquote(span_t s, buf_t *out) {
    const char *p = s.p + 1, *end = s.p + s.n - 1;
    while (p < end) {
        const char *run = p;
        while (p < end && *p != '\\') p++;
        if (p > run) buf_add(out, run, (size_t)(p - run));
        if (p >= end) break;
        char e = p[1];
        if (e != 'u') {
            static const char from[] = "\"\\/bfnrt", to[] = "\"\\/\b\f\n\r\t";
            buf_chr(out, to[strchr(from, e) - from]);
            p += 2;
            continue;
        }
        long cp = (hexval(p[2]) << 12) | (hexval(p[3]) << 8) | (hexval(p[4]) << 4) | hexval(p[5]);
        p += 6;
        if (cp >= 0xD800 && cp <= 0xDBFF && end - p >= 6 && p[0] == '\\' && p[1] == 'u') {
            long lo = (hexval(p[2]) << 12) | (hexval(p[3]) << 8) | (hexval(p[4]) << 4) | hexval(p[5]);
            if (lo >= 0xDC00 && lo <= 0xDFFF) {
                cp = 0x10000 + ((cp - 0xD800) << 10) + (lo - 0xDC00);
                p += 6;
            }
        }
        if (cp >= 0xD800 && cp <= 0xDFFF) return 0;
        utf8_put(out, cp);
    }
    return 1;
}

/* json.dumps(json.loads(token)) for a token json.dumps wrote compactly: the
 * same tokens, with ", " and ": " between them. */
static void respace(buf_t *out, span_t s) {
    const char *p = s.p, *end = s.p + s.n;
    while (p < end) {
        char c = *p;
        if (c == '"') {
            const char *q = scan_string(p, end);
            buf_add(out, p, (size_t)(q - p));
            p = q;
            continue;
        }
        if (c == ' ' || c == '\t' || c == '\r' || c == '\n') {
            p++;
            continue;
        }
        buf_chr(out, c);
        if (c == ',' || c == ':') buf_chr(out, ' ');
        p++;
    }
}

/* -- the command line ------------------------------------------------------------ */

enum kind { FLAG, NOFLAG, TEXT, WHOLE, WHOLE_NONE, CHOICE, ID };

typedef struct {
    const char *short_name, *long_name, *dest;
    enum kind kind;
    long low;
    const char *choices; /* "a|b|c" */
} option_t;

typedef struct {
    const char *dest;
    enum kind kind;
    int optional;
    long low;
    const char *choices;
} positional_t;

typedef struct {
    const char *words, *cmd; /* "get title", "get.title" */
    const option_t *options;
    const positional_t *positionals;
} command_t;

static const option_t SNAPSHOT_OPTIONS[] = {
    {"-i", "--interactive", "interactive", FLAG, 0, NULL},
    {"-c", "--compact", "compact", FLAG, 0, NULL},
    {"-d", "--depth", "depth", WHOLE, 0, NULL},
    {"-s", "--selector", "selector", TEXT, 0, NULL},
    {NULL, "--text-limit", "text_limit", WHOLE_NONE, 4, NULL},
    {NULL, "--no-clickable", "clickable", NOFLAG, 0, NULL},
    {NULL, "--diff", "diff", FLAG, 0, NULL},
    {NULL, NULL, NULL, FLAG, 0, NULL},
};
static const option_t CLICK_OPTIONS[] = {
    {NULL, "--right", "right", FLAG, 0, NULL},
    {NULL, "--double", "double", FLAG, 0, NULL},
    {NULL, NULL, NULL, FLAG, 0, NULL},
};
static const option_t TYPE_OPTIONS[] = {
    {NULL, "--delay", "delay", WHOLE, 0, NULL},
    {NULL, NULL, NULL, FLAG, 0, NULL},
};
static const option_t OPEN_OPTIONS[] = {
    {NULL, "--wait-until", "wait_until", CHOICE, 0, "commit|domcontentloaded|load|networkidle"},
    {NULL, NULL, NULL, FLAG, 0, NULL},
};
static const option_t NO_OPTIONS[] = {{NULL, NULL, NULL, FLAG, 0, NULL}};

static const positional_t NO_POSITIONALS[] = {{NULL, ID, 0, 0, NULL}};
static const positional_t ID_ONLY[] = {{"id", ID, 0, 1, NULL}, {NULL, ID, 0, 0, NULL}};
static const positional_t ID_TEXT[] = {
    {"id", ID, 0, 1, NULL}, {"text", TEXT, 0, 0, NULL}, {NULL, ID, 0, 0, NULL}};
static const positional_t ID_NAME[] = {
    {"id", ID, 0, 1, NULL}, {"name", TEXT, 0, 0, NULL}, {NULL, ID, 0, 0, NULL}};
static const positional_t KEY[] = {{"key", TEXT, 0, 0, NULL}, {NULL, ID, 0, 0, NULL}};
static const positional_t URL[] = {{"url", TEXT, 0, 0, NULL}, {NULL, ID, 0, 0, NULL}};
static const positional_t SCRIPT[] = {{"script", TEXT, 0, 0, NULL}, {NULL, ID, 0, 0, NULL}};
static const positional_t SCROLL[] = {
    {"direction", CHOICE, 0, 0, "up|down|left|right"},
    {"amount", WHOLE, 1, 0, NULL},
    {NULL, ID, 0, 0, NULL}};

/* The hot commands: each spelled as the Python parser defines it
 * (kobrowser/cli/_client/_parser_page.py); tests check both agree. */
static const command_t COMMANDS[] = {
    {"snapshot", "snapshot", SNAPSHOT_OPTIONS, NO_POSITIONALS},
    {"get title", "get.title", NO_OPTIONS, NO_POSITIONALS},
    {"get url", "get.url", NO_OPTIONS, NO_POSITIONALS},
    {"get text", "get.text", NO_OPTIONS, ID_ONLY},
    {"get html", "get.html", NO_OPTIONS, ID_ONLY},
    {"get value", "get.value", NO_OPTIONS, ID_ONLY},
    {"get box", "get.box", NO_OPTIONS, ID_ONLY},
    {"get attr", "get.attr", NO_OPTIONS, ID_NAME},
    {"is visible", "is.visible", NO_OPTIONS, ID_ONLY},
    {"is enabled", "is.enabled", NO_OPTIONS, ID_ONLY},
    {"is checked", "is.checked", NO_OPTIONS, ID_ONLY},
    {"click", "click", CLICK_OPTIONS, ID_ONLY},
    {"dblclick", "dblclick", NO_OPTIONS, ID_ONLY},
    {"hover", "hover", NO_OPTIONS, ID_ONLY},
    {"focus", "focus", NO_OPTIONS, ID_ONLY},
    {"check", "check", NO_OPTIONS, ID_ONLY},
    {"uncheck", "uncheck", NO_OPTIONS, ID_ONLY},
    {"scrollintoview", "scrollintoview", NO_OPTIONS, ID_ONLY},
    {"fill", "fill", NO_OPTIONS, ID_TEXT},
    {"type", "type", TYPE_OPTIONS, ID_TEXT},
    {"press", "press", NO_OPTIONS, KEY},
    {"open", "open", OPEN_OPTIONS, URL},
    {"back", "back", NO_OPTIONS, NO_POSITIONALS},
    {"forward", "forward", NO_OPTIONS, NO_POSITIONALS},
    {"reload", "reload", NO_OPTIONS, NO_POSITIONALS},
    {"scroll", "scroll", NO_OPTIONS, SCROLL},
    {"tab list", "tab.list", NO_OPTIONS, NO_POSITIONALS},
    {"eval", "eval", NO_OPTIONS, SCRIPT},
    {NULL, NULL, NULL, NULL},
};

typedef struct {
    const command_t *command;
    char session[65];
    int json;
    const char *timeout; /* the text, a JSON number */
    buf_t args;          /* "key":value,... */
} request_t;

/* Digits only (Python's whole-number types also take spaces and other scripts'
 * digits: those go to the Python client), at most 18 of them. */
static int whole_number(const char *s, long long *out) {
    size_t n = strlen(s);
    if (n == 0 || n > 18) return 0;
    long long v = 0;
    for (size_t i = 0; i < n; i++) {
        if (s[i] < '0' || s[i] > '9') return 0;
        v = v * 10 + (s[i] - '0');
    }
    *out = v;
    return 1;
}

static int choice_of(const char *value, const char *choices) {
    size_t n = strlen(value);
    const char *p = choices;
    while (*p) {
        const char *bar = strchr(p, '|');
        size_t len = bar ? (size_t)(bar - p) : strlen(p);
        if (len == n && !memcmp(p, value, n)) return 1;
        if (!bar) break;
        p = bar + 1;
    }
    return 0;
}

/* Add "dest":value for a value of `kind`; 0 when the text is not one this
 * program is sure the Python parser reads the same way. */
static int add_value(buf_t *args, const char *dest, enum kind kind, long low, const char *choices,
                     const char *text) {
    long long number = 0;
    if (kind != TEXT && kind != CHOICE && !(kind == WHOLE_NONE && !strcmp(text, "none"))) {
        if (!whole_number(text, &number) || number < low) return 0;
    }
    if (kind == CHOICE && !choice_of(text, choices)) return 0;
    if (args->len) buf_chr(args, ',');
    buf_fmt(args, "\"%s\":", dest);
    if (kind == TEXT || kind == CHOICE) json_quote(args, text, strlen(text));
    else if (kind == WHOLE_NONE && !strcmp(text, "none")) buf_str(args, "null");
    else buf_fmt(args, "%lld", number);
    return 1;
}

static int valid_session(const char *s) {
    size_t n = strlen(s);
    if (n == 0 || n > 64) return 0;
    for (size_t i = 0; i < n; i++) {
        char c = s[i];
        int alnum = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9');
        if (!alnum && (i == 0 || (c != '_' && c != '.' && c != '-'))) return 0;
    }
    return 1;
}

/* A deadline as Python's float() reads it and JSON can carry: digits with
 * at most one '.', digits on both sides, > 0. */
static int seconds_text(const char *s) {
    size_t n = strlen(s), digits = 0, dots = 0, nonzero = 0;
    if (n == 0 || n > 30) return 0;
    for (size_t i = 0; i < n; i++) {
        if (s[i] == '.') {
            if (dots++ || i == 0 || i == n - 1) return 0;
        } else if (s[i] >= '0' && s[i] <= '9') {
            digits++;
            nonzero |= s[i] != '0';
        } else return 0;
    }
    if (s[0] == '0' && n > 1 && s[1] != '.') return 0; /* not a JSON number */
    return digits && nonzero;
}

/* Global options: 1 taken (and *i moved past its value), 0 not one, -1 refused. */
static int global_option(request_t *req, int argc, char **argv, int *i) {
    const char *arg = argv[*i];
    if (!strcmp(arg, "--json")) {
        req->json = 1;
        return 1;
    }
    int session = !strcmp(arg, "--session"), timeout = !strcmp(arg, "--timeout");
    if (!session && !timeout) return 0;
    if (*i + 1 >= argc) return -1;
    const char *value = argv[++*i];
    if (session) {
        if (!valid_session(value)) return -1;
        strcpy(req->session, value);
    } else {
        if (!seconds_text(value)) return -1;
        req->timeout = value;
    }
    return 1;
}

/* Parse the command line; 0 when the Python client should run it. */
static int parse(int argc, char **argv, request_t *req) {
    int i = 1;
    for (; i < argc && argv[i][0] == '-'; i++)
        if (global_option(req, argc, argv, &i) != 1) return 0;
    if (i >= argc) return 0;
    const command_t *cmd = NULL;
    int words = 1;
    for (const command_t *c = COMMANDS; c->words; c++) {
        const char *space = strchr(c->words, ' ');
        if (!space) {
            if (!strcmp(c->words, argv[i])) cmd = c, words = 1;
        } else if (i + 1 < argc && strlen(argv[i]) == (size_t)(space - c->words) &&
                   !memcmp(c->words, argv[i], (size_t)(space - c->words)) &&
                   !strcmp(space + 1, argv[i + 1])) {
            cmd = c, words = 2;
        }
        if (cmd) break;
    }
    if (!cmd) return 0;
    req->command = cmd;
    int positional = 0, right = 0, twice = 0;
    for (i += words; i < argc; i++) {
        const char *arg = argv[i];
        if (arg[0] == '-') {
            int taken = global_option(req, argc, argv, &i);
            if (taken < 0) return 0;
            if (taken) continue;
            const option_t *opt = cmd->options;
            const char *value = NULL;
            for (; opt->dest; opt++) {
                if ((opt->short_name && !strcmp(arg, opt->short_name)) ||
                    !strcmp(arg, opt->long_name))
                    break;
                size_t n = strlen(opt->long_name);
                if (opt->kind != FLAG && opt->kind != NOFLAG && !strncmp(arg, opt->long_name, n) &&
                    arg[n] == '=' && arg[n + 1] && arg[n + 1] != '-') {
                    value = arg + n + 1;
                    break;
                }
            }
            if (!opt->dest) return 0;
            if (opt->kind == FLAG || opt->kind == NOFLAG) {
                if (!strcmp(opt->dest, "right")) right = 1;
                else if (!strcmp(opt->dest, "double")) twice = 1;
                else {
                    if (req->args.len) buf_chr(&req->args, ',');
                    buf_fmt(&req->args, "\"%s\":%s", opt->dest, opt->kind == FLAG ? "true" : "false");
                }
                continue;
            }
            if (!value) {
                if (i + 1 >= argc || argv[i + 1][0] == '-') return 0;
                value = argv[++i];
            }
            if (!utf8_valid(value) ||
                !add_value(&req->args, opt->dest, opt->kind, opt->low, opt->choices, value))
                return 0;
            continue;
        }
        const positional_t *pos = &cmd->positionals[positional];
        if (!pos->dest) return 0; /* one too many */
        if (!utf8_valid(arg) || !add_value(&req->args, pos->dest, pos->kind, pos->low, pos->choices, arg))
            return 0;
        positional++;
    }
    if (cmd->positionals[positional].dest && !cmd->positionals[positional].optional) return 0;
    if (right) {
        if (req->args.len) buf_chr(&req->args, ',');
        buf_str(&req->args, "\"button\":\"right\"");
    }
    if (twice) {
        if (req->args.len) buf_chr(&req->args, ',');
        buf_str(&req->args, "\"click_count\":2");
    }
    return 1;
}

/* -- the Python client ---------------------------------------------------------------- */

static char **g_argv;

static int try_exec(const char *dir, size_t dirlen) {
    char path[PATH_MAX];
    if (dirlen + sizeof FALLBACK_NAME + 1 > sizeof path) return 0;
    memcpy(path, dir, dirlen);
    path[dirlen] = '/';
    memcpy(path + dirlen + 1, FALLBACK_NAME, sizeof FALLBACK_NAME);
    if (access(path, X_OK) != 0) return 0;
    g_argv[0] = path;
    execv(path, g_argv);
    return 0;
}

/* Run the Python client, `ko-browser-py` beside this program, with the same arguments. */
static void fallback(void) {
    char self[PATH_MAX];
    ssize_t n = readlink("/proc/self/exe", self, sizeof self - 1);
    if (n > 0) {
        self[n] = 0;
        char *slash = strrchr(self, '/');
        if (slash) try_exec(self, (size_t)(slash - self));
    }
    const char *slash = strrchr(g_argv[0], '/');
    if (slash) try_exec(g_argv[0], (size_t)(slash - g_argv[0]));
    const char *path = getenv("PATH");
    while (path && *path) {
        const char *colon = strchr(path, ':');
        size_t len = colon ? (size_t)(colon - path) : strlen(path);
        if (len) try_exec(path, len);
        if (!colon) break;
        path = colon + 1;
    }
    static const char msg[] = PROG ": cannot run the Python client (" FALLBACK_NAME
                                   "), which should be installed beside " PROG
                                   "; reinstall ko-browser\n";
    (void)!write(2, msg, sizeof msg - 1);
    _exit(1);
}

/* -- output ------------------------------------------------------------------------ */

static void write_all(int fd, const char *data, size_t n) {
    static int ignoring;
    if (!ignoring) { /* only now: a Python client run before inherits no SIG_IGN */
        signal(SIGPIPE, SIG_IGN);
        ignoring = 1;
    }
    while (n) {
        ssize_t w = write(fd, data, n);
        if (w < 0) {
            if (errno == EINTR) continue;
            return; /* EPIPE (`| head`): the Python client drops the rest too */
        }
        data += w;
        n -= (size_t)w;
    }
}

/* Python's `_fail`: one line on stderr (and the JSON object with --json); the exit status. */
static int fail(const request_t *req, const char *type_token, const char *message,
                const char *hint, const char *exit_token) {
    buf_t line = {0};
    buf_str(&line, PROG ": ");
    const char *shown = *message ? message : "failed";
    if (hint && *hint) {
        size_t n = strlen(shown);
        while (n && shown[n - 1] == '.') n--;
        buf_add(&line, shown, n);
        buf_str(&line, "; ");
        buf_str(&line, hint);
    } else buf_str(&line, shown);
    /* " ".join(line.split()) */
    buf_t joined = {0};
    const unsigned char *p = (const unsigned char *)line.data;
    size_t left = line.len;
    int pending = 0;
    while (left) {
        int len = 1;
        long cp = utf8_next(p, left, &len);
        if (cp < 0) cp = p[0], len = 1;
        if (py_space(cp)) pending = joined.len > 0;
        else {
            if (pending) buf_chr(&joined, ' ');
            pending = 0;
            buf_add(&joined, (const char *)p, (size_t)len);
        }
        p += len;
        left -= (size_t)len;
    }
    buf_chr(&joined, '\n');
    write_all(2, joined.data, joined.len);
    if (req->json) {
        buf_t out = {0};
        buf_str(&out, "{\"ok\": false, \"command\": \"");
        buf_str(&out, req->command->words);
        buf_str(&out, "\", \"error\": {\"type\": ");
        buf_str(&out, type_token);
        buf_str(&out, ", \"message\": ");
        json_quote(&out, message, strlen(message));
        buf_str(&out, ", \"exit\": ");
        buf_str(&out, exit_token);
        if (hint && *hint) {
            buf_str(&out, ", \"hint\": ");
            json_quote(&out, hint, strlen(hint));
        }
        buf_str(&out, "}}\n");
        write_all(1, out.data, out.len);
    }
    return !strcmp(exit_token, "2") ? 2 : 1;
}

/* -- talking to the daemon --------------------------------------------------------------- */

static volatile sig_atomic_t g_interrupted;

static void on_sigint(int sig) {
    (void)sig;
    g_interrupted = 1;
}

static void interrupted(void) {
    static const char msg[] = PROG ": interrupted; a command already sent may still finish\n";
    write_all(2, msg, sizeof msg - 1);
    _exit(130);
}

/* Wait until fd is ready (events), at most `seconds`; 0 on time-out. */
static int wait_fd(int fd, short events, double seconds) {
    struct timespec now;
    clock_gettime(CLOCK_MONOTONIC, &now);
    double deadline = now.tv_sec + now.tv_nsec / 1e9 + seconds;
    for (;;) {
        clock_gettime(CLOCK_MONOTONIC, &now);
        double left = deadline - (now.tv_sec + now.tv_nsec / 1e9);
        if (left <= 0) return 0;
        struct pollfd pfd = {fd, events, 0};
        int ms = left > 1e6 ? 1000000000 : (int)(left * 1000) + 1;
        int r = poll(&pfd, 1, ms);
        if (r > 0) return 1;
        if (r < 0 && errno == EINTR && g_interrupted) interrupted();
    }
}

/* The runtime directory as Python's runtime_dir() names it (pathlib-normal),
 * when it exists, is ours and private; else NULL (the Python client then
 * creates it, repairs its mode or says what is wrong). */
static const char *runtime_dir(char *out, size_t size) {
    const char *dir = getenv("KOBROWSER_RUNTIME_DIR");
    if (dir && *dir) {
        if (strlen(dir) >= size) return NULL;
        strcpy(out, dir);
    } else {
        const char *xdg = getenv("XDG_RUNTIME_DIR");
        struct stat st;
        if (xdg && *xdg && stat(xdg, &st) == 0 && S_ISDIR(st.st_mode)) {
            if (snprintf(out, size, "%s/kobrowser", xdg) >= (int)size) return NULL;
        } else if (snprintf(out, size, "/tmp/kobrowser-%u", (unsigned)getuid()) >= (int)size)
            return NULL;
    }
    /* only a path pathlib prints as given: no '//', no '.' part, no trailing '/' */
    size_t n = strlen(out);
    if (strstr(out, "//") || (n > 1 && out[n - 1] == '/') || !strcmp(out, ".") ||
        !strncmp(out, "./", 2) || strstr(out, "/./") || (n >= 2 && !strcmp(out + n - 2, "/.")))
        return NULL;
    if (!utf8_valid(out)) return NULL;
    struct stat st;
    if (lstat(out, &st) != 0 || !S_ISDIR(st.st_mode) || st.st_uid != getuid() ||
        (st.st_mode & 077))
        return NULL;
    return out;
}

static void new_id(char *out, size_t size) {
    struct timespec now;
    clock_gettime(CLOCK_REALTIME, &now);
    unsigned char r[4] = {0};
    int fd = open("/dev/urandom", O_RDONLY | O_CLOEXEC);
    if (fd >= 0) {
        (void)!read(fd, r, sizeof r);
        close(fd);
    }
    snprintf(out, size, "%ld-%lld%09ld-%02x%02x%02x%02x", (long)getpid(), (long long)now.tv_sec,
             now.tv_nsec, r[0], r[1], r[2], r[3]);
    /* time.time_ns() has no leading zeros: the seconds are never 0 */
}

/* Hand the reply line to the Python client, which prints it as its own. */
static void hand_off(const char *data, size_t n, const char *request_id) {
#ifdef __linux__
    int fd = memfd_create("ko-browser-reply", 0);
#else
    int fd = -1;
#endif
    if (fd < 0) {
        char name[] = "/tmp/kobrowser-reply-XXXXXX";
        fd = mkstemp(name);
        if (fd < 0) {
            static const char msg[] = PROG ": cannot hand the reply to the Python client\n";
            write_all(2, msg, sizeof msg - 1);
            _exit(1);
        }
        unlink(name);
    }
    write_all(fd, data, n);
    lseek(fd, 0, SEEK_SET);
    char value[300];
    snprintf(value, sizeof value, "%d:%s", fd, request_id);
    setenv("KOBROWSER_NATIVE_REPLY", value, 1);
    fallback();
}

static double answer_grace(void) {
    const char *text = getenv("KOBROWSER_ANSWER_GRACE");
    if (!text || !*text) return ANSWER_GRACE;
    /* parse(): only plain decimals reach here */
    return strtod(text, NULL);
}

static int plain_decimal(const char *s) {
    size_t n = strlen(s), dots = 0, digits = 0;
    if (!n || n > 30) return 0;
    for (size_t i = 0; i < n; i++) {
        if (s[i] == '.') dots++;
        else if (s[i] >= '0' && s[i] <= '9') digits++;
        else return 0;
    }
    return dots <= 1 && digits;
}

/* Python's stdout writes UTF-8 here (a UTF-8 locale, or C/POSIX: UTF-8 mode). */
static int utf8_output(void) {
    if (getenv("PYTHONIOENCODING") || getenv("PYTHONUTF8") || getenv("PYTHONLEGACYWINDOWSSTDIO"))
        return 0;
    const char *name = setlocale(LC_CTYPE, "");
    if (!name) return 1; /* unusable locale: C, which Python runs in UTF-8 mode */
    if (!strcmp(name, "C") || !strcmp(name, "POSIX")) return 1;
    const char *codeset = nl_langinfo(CODESET);
    return codeset && (!strcmp(codeset, "UTF-8") || !strcmp(codeset, "utf8"));
}

int main(int argc, char **argv) {
    g_argv = argv;
    const char *force = getenv("KOBROWSER_PYTHON_CLIENT");
    unsetenv("KOBROWSER_NATIVE_REPLY"); /* only ever set by hand_off() below */
    if (force && *force && strcmp(force, "0")) fallback();

    request_t req = {0};
    const char *session = getenv("KOBROWSER_SESSION");
    strcpy(req.session, "default");
    int parsed = 1;
    if (session && *session) {
        if (valid_session(session)) strcpy(req.session, session);
        else parsed = 0; /* the Python client says what is wrong with it */
    }
    parsed = parsed && parse(argc, argv, &req);
#ifdef KOBROWSER_NATIVE_TEST
    /* tests: what parse() made of the command line, without a daemon */
    if (getenv("KOBROWSER_NATIVE_DRY_RUN")) {
        buf_t out = {0};
        if (!parsed) buf_str(&out, "null\n");
        else {
            buf_fmt(&out, "{\"cmd\":\"%s\",\"session\":\"%s\",\"json\":%s,\"timeout\":%s,\"args\":{",
                    req.command->cmd, req.session, req.json ? "true" : "false",
                    req.timeout ? req.timeout : "null");
            if (req.args.len) buf_add(&out, req.args.data, req.args.len);
            buf_str(&out, "}}\n");
        }
        write_all(1, out.data, out.len);
        return 0;
    }
#endif
    if (!parsed) fallback();
    const char *grace = getenv("KOBROWSER_ANSWER_GRACE");
    if (grace && *grace && !plain_decimal(grace)) fallback();
    if (!utf8_output()) fallback();

    char dir[PATH_MAX];
    if (!runtime_dir(dir, sizeof dir)) fallback();
    struct sockaddr_un addr = {0};
    addr.sun_family = AF_UNIX;
    if ((size_t)snprintf(addr.sun_path, sizeof addr.sun_path, "%s/%s.sock", dir, req.session) >=
        sizeof addr.sun_path)
        fallback();

    struct sigaction sa = {0};
    sa.sa_handler = on_sigint;
    sigaction(SIGINT, &sa, NULL); /* no SA_RESTART: a blocked call returns EINTR */

    int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (fd < 0) fallback();
    fcntl(fd, F_SETFD, FD_CLOEXEC);
#ifdef SO_NOSIGPIPE
    int one = 1;
    setsockopt(fd, SOL_SOCKET, SO_NOSIGPIPE, &one, sizeof one);
#endif
    if (connect(fd, (struct sockaddr *)&addr, sizeof addr) != 0) {
        if (g_interrupted) interrupted();
        close(fd);
        fallback(); /* no daemon, a dead one, or an error: the Python client's to say */
    }

    char request_id[128];
    new_id(request_id, sizeof request_id);
    buf_t line = {0};
    buf_fmt(&line, "{\"v\":1,\"id\":\"%s\",\"cmd\":\"%s\",\"args\":{", request_id,
            req.command->cmd);
    if (req.args.len) buf_add(&line, req.args.data, req.args.len);
    buf_str(&line, "},\"opts\":{");
    if (req.timeout) buf_fmt(&line, "\"timeout\":%s%s", req.timeout, req.json ? "" : ",");
    if (!req.json) buf_str(&line, "\"text_only\":true"); /* as the Python client: no result */
    buf_str(&line, "}}\n");

    double budget = (req.timeout ? strtod(req.timeout, NULL) : DEFAULT_TIMEOUT) + answer_grace();
    double wait = budget < LONGEST_WAIT ? budget : LONGEST_WAIT;
    char log_path[PATH_MAX + 80];
    snprintf(log_path, sizeof log_path, "%s/%s.log", dir, req.session);
    char budget_text[64];
    snprintf(budget_text, sizeof budget_text, "%g", budget);

    /* send, once */
    const char *p = line.data;
    size_t left = line.len;
    while (left) {
        if (!wait_fd(fd, POLLOUT, wait)) {
            errno = 0; /* Python's TimeoutError: "timed out" */
            goto send_failed;
        }
        ssize_t w = send(fd, p, left, MSG_NOSIGNAL);
        if (w < 0) {
            if (errno == EINTR) {
                if (g_interrupted) interrupted();
                continue;
            }
            if (errno == EAGAIN) continue;
            goto send_failed;
        }
        p += w;
        left -= (size_t)w;
    }

    /* read the reply line */
    buf_t in = {0};
    size_t scanned = 0;
    const char *reason = "connection closed";
    for (;;) {
        char *nl = in.len > scanned ? memchr(in.data + scanned, '\n', in.len - scanned) : NULL;
        if (nl) break;
        scanned = in.len;
        if (!wait_fd(fd, POLLIN, wait)) {
            char message[400];
            snprintf(message, sizeof message,
                     "no answer from session '%s' within %s s; the command was sent once and is "
                     "not repeated, it may still finish",
                     req.session, budget_text);
            return fail(&req, "\"ClientTimeout\"", message,
                        "check with `ko-browser get url` or `ko-browser snapshot`", "1");
        }
        buf_reserve(&in, 1 << 16);
        ssize_t r = recv(fd, in.data + in.len, 1 << 16, 0);
        if (r < 0) {
            if (errno == EINTR) {
                if (g_interrupted) interrupted();
                continue;
            }
            reason = strerror(errno);
            in.len = 0;
            break;
        }
        if (r == 0) break;
        in.len += (size_t)r;
        in.data[in.len] = 0;
    }
    close(fd);
    char *nl = in.len ? memchr(in.data, '\n', in.len) : NULL;
    if (!nl) {
        char message[300], hint[PATH_MAX + 200];
        snprintf(message, sizeof message,
                 "the session daemon stopped before answering (%s); the command is not repeated, "
                 "it may or may not have run",
                 reason);
        snprintf(hint, sizeof hint, "see %s; the next command starts a new session", log_path);
        return fail(&req, "\"DaemonLost\"", message, hint, "1");
    }
    size_t line_len = (size_t)(nl - in.data);

    /* the reply: a JSON object this program reads exactly as Python would, or a hand-off */
    const char *start = ws(in.data, nl), *end = nl;
    while (end > start && (end[-1] == ' ' || end[-1] == '\t' || end[-1] == '\r')) end--;
    if (start >= end || *start != '{' || scan_value(start, end, 0) != end)
        hand_off(in.data, line_len + 1, request_id);
    static const char *const names[] = {"v", "id", "ok", "result", "text", "error"};
    span_t m[6];
    span_t reply = {start, (size_t)(end - start)};
    char quoted_id[140];
    snprintf(quoted_id, sizeof quoted_id, "\"%s\"", request_id);
    if (!members(reply, names, m, 6) || !span_is(m[0], "1") ||
        !(m[1].p == NULL || span_is(m[1], "null") || span_is(m[1], quoted_id)))
        hand_off(in.data, line_len + 1, request_id);

    if (span_is(m[2], "true")) {
        buf_t out = {0};
        if (req.json) {
            buf_str(&out, "{\"ok\": true, \"command\": \"");
            buf_str(&out, req.command->words);
            buf_str(&out, "\", \"result\": ");
            if (m[3].p) respace(&out, m[3]);
            else buf_str(&out, "null");
            buf_str(&out, "}\n");
        } else {
            if (m[4].p && !span_is(m[4], "null")) {
                if (!is_string(m[4]) || !unquote(m[4], &out))
                    hand_off(in.data, line_len + 1, request_id);
            }
            buf_chr(&out, '\n');
        }
        write_all(1, out.data, out.len);
        return 0;
    }
    /* (an empty error object is replaced by a default one in Python) */
    if (!span_is(m[2], "false") || !m[5].p || span_is(m[5], "{}"))
        hand_off(in.data, line_len + 1, request_id);
    static const char *const error_names[] = {"type", "message", "hint", "exit"};
    span_t e[4];
    if (!members(m[5], error_names, e, 4)) hand_off(in.data, line_len + 1, request_id);
    buf_t message = {0}, hint = {0};
    int ok = (!e[0].p || is_string(e[0])) && (!e[1].p || is_string(e[1])) &&
             (!e[2].p || is_string(e[2]));
    if (ok && e[3].p) { /* a whole number as Python writes it */
        for (size_t k = 0; k < e[3].n; k++) ok &= e[3].p[k] >= '0' && e[3].p[k] <= '9';
        ok &= e[3].n <= 18 && (e[3].n == 1 || e[3].p[0] != '0');
    }
    if (ok && e[1].p) ok = unquote(e[1], &message) && !(message.len && memchr(message.data, 0, message.len));
    if (ok && e[2].p) ok = unquote(e[2], &hint) && !(hint.len && memchr(hint.data, 0, hint.len));
    if (!ok) hand_off(in.data, line_len + 1, request_id);
    char type_token[512], exit_token[32];
    if (e[0].p && e[0].n < sizeof type_token) {
        memcpy(type_token, e[0].p, e[0].n);
        type_token[e[0].n] = 0;
    } else if (e[0].p) hand_off(in.data, line_len + 1, request_id);
    else strcpy(type_token, "\"Error\"");
    if (e[3].p) {
        memcpy(exit_token, e[3].p, e[3].n);
        exit_token[e[3].n] = 0;
    } else strcpy(exit_token, "1");
    return fail(&req, type_token, e[1].p ? (message.data ? message.data : "") : "failed",
                hint.data ? hint.data : "", exit_token);

send_failed:;
    char lost[300];
    snprintf(lost, sizeof lost, "lost the session daemon while sending (%s)",
             errno ? strerror(errno) : "timed out");
    return fail(&req, "\"ClientError\"", lost, "run the command again", "1");
}
