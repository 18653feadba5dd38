/* kobrowser.snapshot._cwalk: the full-mode snapshot walk in C (optional).
 *
 * THE REFERENCE IS kobrowser/snapshot/_tree.py::_build. This file is a
 * line-by-line transliteration of it for full builds (no scope, no memo), with
 * the hot helpers it inlines: _walkstate.push_children, _states.read_props,
 * the single-child finish case and the text piece tuple, and two more that
 * measured as a large part of the walk when called back: _walkstate.finish
 * (see finish_node) and frame_state's node index (see own_frame_state: for Chrome's
 * decimal ids an array by number, PosIndex, instead of a dict). Everything cold or
 * rule-heavy is a call back into the Python function that holds the rule
 * (finish_candidate, resolve_labels, flush_run, merge_text, push_frame,
 * frame_state, value_to_text, is_password_value, role_info, states_of, the
 * list-marker regex), handed over once by configure() (see _native.py). A rule
 * changed in the Python walk must be changed here too:
 * tests/snapshot/test_cwalk.py compares the two walks on random trees.
 *
 * build(frame, index, proper) returns the printed roots, as _build(frame, (),
 * True, None, index, proper) would, or None when it meets an object it does not
 * read (an AX node, value or property of a type configure() was not given, a
 * field that is not a list/tuple where the structs have one ...): the caller
 * then runs the Python walk, which gives the answer or raises what Python
 * raises. Giving up half way is safe: the walk only changes what it created
 * (and the copy of the node index frame_state() made for it).
 *
 * The nodes and properties of the types configure() names in flat_types
 * (_ax.FlatAXNode, FlatAXProperty: the CBOR pipe's lean answer) hold their
 * values themselves, not AXValues; unwrap() reads either, as the Python walk
 * does with its `flat` test.
 *
 * Comments "py:" quote the Python lines a block mirrors.
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <structmember.h>

#include <string.h>

#define CWALK_ABI 4

/* Kinds (_roles); configure() checks that the Python values match. */
enum { SKIP = 0, BREAK = 1, TEXT = 2, TRANSPARENT = 3, NAMED = 4, STRUCTURE = 5, INTERACTIVE = 6, IFRAME = 7 };

/* ------------------------------------------------------------------------ */
/* Configuration (configure())                                              */

#define MAX_TYPES 4
#define MAX_RULES 64

/* Fields read at member offsets, per struct type. */
enum { N_IGNORED, N_ROLE, N_NAME, N_VALUE, N_PROPS, N_CHILDREN, N_BACKEND, N_NODEID, N_FIELDS };
static const char *const NODE_FIELDS[N_FIELDS] = {"ignored", "role",     "name",             "value",
                                                  "properties", "childIds", "backendDOMNodeId", "nodeId"};
enum { P_NAME, P_VALUE, P_FIELDS };
static const char *const PROP_FIELDS[P_FIELDS] = {"name", "value"};
static const char *const VALUE_FIELDS[1] = {"value"};
enum { O_ROLE, O_NAME, O_VALUE, O_STATES, O_CHILDREN, O_FIELDS };
static const char *const OUT_FIELDS[O_FIELDS] = {"role", "name", "value", "states", "children"};

typedef struct {
    PyTypeObject *type; /* owned */
    Py_ssize_t off[N_FIELDS];
    int flat; /* a flat node or property (_ax.FlatAXNode): values held as they are, no AXValue */
} Layout;

typedef struct {
    Layout layouts[MAX_TYPES];
    int count;
} Layouts;

/* A state property rule of _states._PROP_BITS: (name, value) -> bit. */
typedef struct {
    PyObject *name;  /* owned */
    PyObject *value; /* owned */
    long bit;
} PropRule;

typedef struct {
    int ready;
    PyObject *node_type; /* _node.Node */
    PyObject *role_cache, *role_info, *states_by_bits, *states_of;
    PyObject *value_to_text, *is_password_value;
    PyObject *finish_candidate, *resolve_labels, *flush_run, *merge_text;
    PyObject *push_frame, *frame_state, *marker_match;
    PyObject *separator, *line_break, *label_start, *label_end;
    PyObject *inline_roles, *field_roles;
    long clickable_bit, focusable_bit, editable_flag, focusable_flag;
    Layouts nodes, values, props;
    Layout out; /* Node: what the walk (name, children) and the numbering (_cnumber.h) read */
    PropRule rules[MAX_RULES];
    int nrules;
    PyObject *state_props; /* frozenset of the rules' names */
    PyObject *s_empty, *s_label, *s_generic, *s_editable, *s_focusable, *s_pop, *s_get, *zero, *minus_one;
} Config;

static Config C;

#define FIELD(obj, off) (*(PyObject **)((char *)(obj) + (off)))

static PyObject *kwarg(PyObject *kw, const char *name) {
    PyObject *v = PyDict_GetItemString(kw, name); /* borrowed */
    if (v == NULL) PyErr_Format(PyExc_TypeError, "configure() needs %s", name);
    return v;
}

/* The offset of member `name` of `type`, checking it is a plain object member. */
static Py_ssize_t member_offset(PyTypeObject *type, const char *name) {
    PyObject *d = PyObject_GetAttrString((PyObject *)type, name);
    if (d == NULL) return -1;
    Py_ssize_t off = -1;
    if (Py_IS_TYPE(d, &PyMemberDescr_Type)) {
        PyMemberDef *m = ((PyMemberDescrObject *)d)->d_member;
        PyTypeObject *owner = ((PyMemberDescrObject *)d)->d_common.d_type;
        if ((m->type == T_OBJECT_EX || m->type == T_OBJECT) && PyType_IsSubtype(type, owner) &&
            m->offset >= (Py_ssize_t)sizeof(PyObject) &&
            m->offset + (Py_ssize_t)sizeof(PyObject *) <= type->tp_basicsize)
            off = m->offset;
    }
    Py_DECREF(d);
    if (off < 0) PyErr_Format(PyExc_TypeError, "%s.%s is not an object member", type->tp_name, name);
    return off;
}

static int layout_init(Layout *l, PyObject *type, const char *const *names, int n) {
    if (!PyType_Check(type)) {
        PyErr_SetString(PyExc_TypeError, "configure() needs types");
        return -1;
    }
    for (int i = 0; i < n; i++) {
        if ((l->off[i] = member_offset((PyTypeObject *)type, names[i])) < 0) return -1;
    }
    l->type = (PyTypeObject *)Py_NewRef(type);
    return 0;
}

/* `flat`: the tuple of the types whose values are flat (see Layout). */
static int layouts_init(Layouts *ls, PyObject *types, PyObject *flat, const char *const *names, int n) {
    if (!PyTuple_Check(types) || PyTuple_GET_SIZE(types) < 1 || PyTuple_GET_SIZE(types) > MAX_TYPES ||
        !PyTuple_Check(flat)) {
        PyErr_SetString(PyExc_TypeError, "configure() needs tuples of 1 to 4 struct types");
        return -1;
    }
    for (Py_ssize_t i = 0; i < PyTuple_GET_SIZE(types); i++) {
        Layout *l = &ls->layouts[ls->count];
        if (layout_init(l, PyTuple_GET_ITEM(types, i), names, n) < 0) return -1;
        ls->count++;
        l->flat = PySequence_Contains(flat, PyTuple_GET_ITEM(types, i));
        if (l->flat < 0) return -1;
    }
    return 0;
}

/* The layout of obj's type, or NULL (a type the walk does not read). */
static inline const Layout *layout_of(const Layouts *ls, PyObject *obj) {
    PyTypeObject *t = Py_TYPE(obj);
    for (int i = 0; i < ls->count; i++)
        if (ls->layouts[i].type == t) return &ls->layouts[i];
    return NULL;
}

static void config_clear(void) {
    PyObject **objs[] = {&C.node_type, &C.role_cache, &C.role_info, &C.states_by_bits, &C.states_of,
                         &C.value_to_text, &C.is_password_value, &C.finish_candidate, &C.resolve_labels,
                         &C.flush_run, &C.merge_text, &C.push_frame, &C.frame_state,
                         &C.marker_match, &C.separator, &C.line_break, &C.label_start, &C.label_end,
                         &C.inline_roles, &C.field_roles, &C.state_props, &C.s_empty, &C.s_label,
                         &C.s_generic, &C.s_editable, &C.s_focusable, &C.s_pop, &C.s_get, &C.zero,
                         &C.minus_one};
    for (size_t i = 0; i < sizeof(objs) / sizeof(objs[0]); i++) Py_CLEAR(*objs[i]);
    Layouts *all[] = {&C.nodes, &C.values, &C.props};
    for (int k = 0; k < 3; k++) {
        for (int i = 0; i < all[k]->count; i++) Py_CLEAR(all[k]->layouts[i].type);
        all[k]->count = 0;
    }
    Py_CLEAR(C.out.type);
    for (int i = 0; i < C.nrules; i++) {
        Py_CLEAR(C.rules[i].name);
        Py_CLEAR(C.rules[i].value);
    }
    C.nrules = 0;
    C.ready = 0;
}

static int get_long(PyObject *kw, const char *name, long *out) {
    PyObject *v = kwarg(kw, name);
    if (v == NULL) return -1;
    *out = PyLong_AsLong(v);
    return (*out == -1 && PyErr_Occurred()) ? -1 : 0;
}

/* configure(**env): see _native.py for what each name is. */
static PyObject *configure(PyObject *self, PyObject *args, PyObject *kw) {
    (void)self;
    if (PyTuple_GET_SIZE(args) != 0 || kw == NULL) {
        PyErr_SetString(PyExc_TypeError, "configure() takes keyword arguments only");
        return NULL;
    }
    config_clear();
    struct { PyObject **slot; const char *name; } objs[] = {
        {&C.node_type, "Node"}, {&C.role_cache, "ROLE_CACHE"}, {&C.role_info, "role_info"},
        {&C.states_by_bits, "STATES_BY_BITS"}, {&C.states_of, "states_of"},
        {&C.value_to_text, "value_to_text"}, {&C.is_password_value, "is_password_value"},
        {&C.finish_candidate, "finish_candidate"}, {&C.resolve_labels, "resolve_labels"},
        {&C.flush_run, "flush_run"}, {&C.merge_text, "merge_text"},
        {&C.push_frame, "push_frame"}, {&C.frame_state, "frame_state"}, {&C.marker_match, "marker_match"},
        {&C.separator, "SEPARATOR"}, {&C.line_break, "LINE_BREAK"}, {&C.label_start, "LABEL_START"},
        {&C.label_end, "LABEL_END"}, {&C.inline_roles, "INLINE_ROLES"}, {&C.field_roles, "FIELD_ROLES"},
    };
    for (size_t i = 0; i < sizeof(objs) / sizeof(objs[0]); i++) {
        PyObject *v = kwarg(kw, objs[i].name);
        if (v == NULL) goto fail;
        *objs[i].slot = Py_NewRef(v);
    }
    if (!PyDict_CheckExact(C.role_cache) || !PyDict_CheckExact(C.states_by_bits) ||
        !PyAnySet_Check(C.inline_roles) || !PyAnySet_Check(C.field_roles) || !PyType_Check(C.node_type)) {
        PyErr_SetString(PyExc_TypeError, "configure(): ROLE_CACHE/STATES_BY_BITS must be dicts, "
                                         "INLINE_ROLES/FIELD_ROLES sets, Node a type");
        goto fail;
    }
    /* The kinds must be the ones this file was written for. */
    static const char *const kinds[] = {"SKIP", "BREAK", "TEXT", "TRANSPARENT", "NAMED", "STRUCTURE",
                                        "INTERACTIVE", "IFRAME"};
    for (long k = 0; k < 8; k++) {
        long v;
        if (get_long(kw, kinds[k], &v) < 0) goto fail;
        if (v != k) {
            PyErr_Format(PyExc_ValueError, "configure(): kind %s is %ld, _cwalk.c has %ld", kinds[k], v, k);
            goto fail;
        }
    }
    if (get_long(kw, "CLICKABLE_BIT", &C.clickable_bit) < 0 || get_long(kw, "FOCUSABLE_BIT", &C.focusable_bit) < 0 ||
        get_long(kw, "EDITABLE", &C.editable_flag) < 0 || get_long(kw, "FOCUSABLE", &C.focusable_flag) < 0)
        goto fail;
    /* Struct layouts. */
    PyObject *t, *flat;
    if ((flat = kwarg(kw, "flat_types")) == NULL) goto fail;
    if ((t = kwarg(kw, "node_types")) == NULL || layouts_init(&C.nodes, t, flat, NODE_FIELDS, N_FIELDS) < 0)
        goto fail;
    if ((t = kwarg(kw, "value_types")) == NULL || layouts_init(&C.values, t, flat, VALUE_FIELDS, 1) < 0)
        goto fail;
    if ((t = kwarg(kw, "property_types")) == NULL || layouts_init(&C.props, t, flat, PROP_FIELDS, P_FIELDS) < 0)
        goto fail;
    if (layout_init(&C.out, C.node_type, OUT_FIELDS, O_FIELDS) < 0) goto fail;
    /* py: _states._PROP_BITS, read by read_props: (name, value) -> bit. */
    PyObject *bits = kwarg(kw, "PROP_BITS");
    if (bits == NULL) goto fail;
    if (!PyDict_Check(bits)) {
        PyErr_SetString(PyExc_TypeError, "configure(): PROP_BITS must be a dict");
        goto fail;
    }
    C.state_props = PySet_New(NULL);
    if (C.state_props == NULL) goto fail;
    Py_ssize_t pos = 0;
    PyObject *key, *val;
    while (PyDict_Next(bits, &pos, &key, &val)) {
        if (!PyTuple_CheckExact(key) || PyTuple_GET_SIZE(key) != 2 || !PyUnicode_CheckExact(PyTuple_GET_ITEM(key, 0)) ||
            C.nrules == MAX_RULES) {
            PyErr_SetString(PyExc_ValueError, "configure(): PROP_BITS keys must be (str, value), at most 64");
            goto fail;
        }
        PropRule *r = &C.rules[C.nrules];
        r->bit = PyLong_AsLong(val);
        if (r->bit == -1 && PyErr_Occurred()) goto fail;
        r->name = Py_NewRef(PyTuple_GET_ITEM(key, 0));
        r->value = Py_NewRef(PyTuple_GET_ITEM(key, 1));
        C.nrules++;
        if (PySet_Add(C.state_props, r->name) < 0) goto fail;
    }
    if ((C.s_empty = PyUnicode_InternFromString("")) == NULL || (C.s_label = PyUnicode_InternFromString("label")) == NULL ||
        (C.s_generic = PyUnicode_InternFromString("generic")) == NULL ||
        (C.s_editable = PyUnicode_InternFromString("editable")) == NULL ||
        (C.s_focusable = PyUnicode_InternFromString("focusable")) == NULL ||
        (C.s_pop = PyUnicode_InternFromString("pop")) == NULL || (C.s_get = PyUnicode_InternFromString("get")) == NULL ||
        (C.zero = PyLong_FromLong(0)) == NULL || (C.minus_one = PyLong_FromLong(-1)) == NULL)
        goto fail;
    C.ready = 1;
    Py_RETURN_NONE;
fail:
    config_clear();
    return NULL;
}

/* ------------------------------------------------------------------------ */
/* Small helpers                                                            */

/* ASCII whitespace as str.split() sees it (Py_UNICODE_ISSPACE below 128). */
static const unsigned char ASCII_SPACE[128] = {
    [9] = 1, [10] = 1, [11] = 1, [12] = 1, [13] = 1, [28] = 1, [29] = 1, [30] = 1, [31] = 1, [32] = 1};

static inline int is_space(Py_UCS4 ch) { return ch < 128 ? ASCII_SPACE[ch] : Py_UNICODE_ISSPACE(ch); }

/* py: " ".join(s.split()) for an exact str; a new reference. */
static PyObject *normalize(PyObject *s) {
    Py_ssize_t n = PyUnicode_GET_LENGTH(s);
    int kind = PyUnicode_KIND(s);
    const void *data = PyUnicode_DATA(s);
    int clean = 1; /* already normalized: no space but single inner ' ' */
    for (Py_ssize_t i = 0; i < n; i++) {
        Py_UCS4 ch = PyUnicode_READ(kind, data, i);
        if (is_space(ch) &&
            (ch != ' ' || i == 0 || i == n - 1 || is_space(PyUnicode_READ(kind, data, i + 1)))) {
            clean = 0;
            break;
        }
    }
    if (clean) return Py_NewRef(s);
    if (PyUnicode_IS_ASCII(s)) {
        PyObject *out = PyUnicode_New(n, 127);
        if (out == NULL) return NULL;
        const unsigned char *p = PyUnicode_1BYTE_DATA(s);
        unsigned char *q = PyUnicode_1BYTE_DATA(out);
        Py_ssize_t k = 0;
        int pending = 0;
        for (Py_ssize_t i = 0; i < n; i++) {
            if (ASCII_SPACE[p[i]]) {
                pending = k > 0;
                continue;
            }
            if (pending) q[k++] = ' ';
            pending = 0;
            q[k++] = p[i];
        }
        PyObject *r = PyUnicode_Substring(out, 0, k);
        Py_DECREF(out);
        return r;
    }
    PyObject *parts = PyUnicode_Split(s, NULL, -1);
    if (parts == NULL) return NULL;
    PyObject *space = PyUnicode_FromOrdinal(' ');
    PyObject *r = space ? PyUnicode_Join(space, parts) : NULL;
    Py_XDECREF(space);
    Py_DECREF(parts);
    return r;
}

/* Truth of x, with the bool fast path. */
static inline int truthy(PyObject *x) {
    if (x == Py_True) return 1;
    if (x == Py_False || x == Py_None) return 0;
    if (PyTuple_CheckExact(x) || PyList_CheckExact(x)) return Py_SIZE(x) != 0;
    return PyObject_IsTrue(x);
}

/* py: role == "label" (role an exact str from ROLE_CACHE / role_info). */
static inline int is_label(PyObject *role) {
    return role == C.s_label || (PyUnicode_GET_LENGTH(role) == 5 && PyUnicode_Compare(role, C.s_label) == 0);
}

/* py: STATES_BY_BITS.get(bits) or states_of(bits); a new reference. */
static PyObject *states_for(long bits) {
    PyObject *key = PyLong_FromLong(bits);
    if (key == NULL) return NULL;
    PyObject *states = PyDict_GetItemWithError(C.states_by_bits, key);
    if (states != NULL) Py_INCREF(states);
    else if (!PyErr_Occurred()) states = PyObject_CallOneArg(C.states_of, key);
    Py_DECREF(key);
    return states;
}

/* ------------------------------------------------------------------------ */
/* The walk's state                                                         */

/* The top document's node index without a dict (see own_frame_state).
 *
 * Chrome's AX node ids are decimal integers written as strings ("2453"). When
 * every node's id is one, canonical (no sign, no leading zero, at most 9
 * digits) and not far above the node count, `at[id]` holds the position in
 * `nodes` of the last node with that id, or -1: the dict {nodeId: node} of
 * frame_state() as an array (a later node with the same id wins there too).
 * A taken id is set to -1, as by_id.pop() takes it out. Two canonical
 * decimal strings are equal exactly when their numbers are, and a child id
 * that is not canonical names no node, so lookups give what the dict gives,
 * without hashing or comparing strings: a fifth of the walk on a large page.
 * Otherwise (any other id) the walk keeps the dict. */
#define POS_MAX_DIGITS 9
#define POS_LIMIT(nodes) (8 * (nodes) + 65536) /* ids must be below this (tests/snapshot/test_cwalk.py) */
typedef struct {
    int32_t *at;      /* PyMem; NULL: not used */
    Py_ssize_t size;  /* entries in at */
    PyObject *nodes;  /* a tuple of the frame's nodes, owned */
} PosIndex;

/* The number a canonical decimal id stands for, or -1 (any other string). */
static inline Py_ssize_t decimal_id(PyObject *s) {
    if (!PyUnicode_IS_COMPACT_ASCII(s)) return -1;
    Py_ssize_t n = PyUnicode_GET_LENGTH(s);
    const unsigned char *d = (const unsigned char *)PyUnicode_DATA(s);
    if (n == 0 || n > POS_MAX_DIGITS || (d[0] == '0' && n > 1)) return -1;
    Py_ssize_t v = 0;
    for (Py_ssize_t i = 0; i < n; i++) {
        unsigned c = (unsigned)d[i] - '0';
        if (c > 9) return -1;
        v = v * 10 + (Py_ssize_t)c;
    }
    return v;
}

/* A frame being walked: py FrameState (frame id, nodeId -> node, owners, clickable map). */
typedef struct {
    PyObject *fs;       /* the frame_state() tuple, owned; the rest borrowed from it */
    PyObject *frame_id; /* fs[0] */
    PyObject *by_id;    /* fs[1]: a dict, or a _Kept */
    PyObject *take;     /* by_id.pop when by_id is not an exact dict (owned), else NULL */
    PyObject *clickmap; /* fs[3] */
    PyObject *click_get; /* clickmap.get when it is not an exact dict (owned), else NULL */
    int has_click;      /* py: bool(fs[3]) (the map does not change during the walk) */
    PosIndex pos;       /* the index by position (own_frame_state), used instead of by_id when set */
} Frame;

/* py Ctx = (out, carrier, in_field, fs, in_scope, owner); in_scope is always True here. */
typedef struct {
    PyObject *out;     /* owned */
    PyObject *carrier; /* owned */
    int in_field;
    Py_ssize_t frame;  /* index into Walk.frames */
    PyObject *owner;   /* owned int */
    int owner_ok;      /* py: owner >= 0 */
} Ctx;

/* Stack items. py: (node, ctx, AX parent, None) is OP_VISIT; (None, None, out, extra)
 * is OP_END; (None, node, out, kind) is OP_FINISH; (None, node, out, tuple) OP_CANDIDATE. */
enum { OP_VISIT, OP_END, OP_FINISH, OP_CANDIDATE };
typedef struct {
    int op;
    int kind;        /* OP_FINISH */
    Py_ssize_t ctx;  /* OP_VISIT */
    PyObject *a;     /* VISIT: AX node; END: out list; FINISH/CANDIDATE: printed node (owned) */
    PyObject *b;     /* VISIT: AX parent; END: marker or NULL (SEPARATOR); FINISH/CANDIDATE: parent list */
    PyObject *c;     /* CANDIDATE: (only_candidate, kind, base states, acts) */
} Item;

typedef struct {
    Item *items;
    Py_ssize_t n, cap;
    Ctx *ctxs;
    Py_ssize_t nctx, ctxcap;
    Frame *frames;
    Py_ssize_t nframes, framecap;
    PyObject *labeled;     /* py labeled: set of id() of children lists holding label markers */
    PyObject *seen_frames; /* py seen_frames */
    PyObject *tmp;         /* push_frame's stack */
    long acts;             /* py acts */
    int bail;              /* gave up: the Python walk runs instead */
} Walk;

/* Give up: an object the walk does not read. */
static int bail(Walk *w) {
    w->bail = 1;
    return -1;
}

static int grow(void **p, Py_ssize_t *cap, size_t size) {
    Py_ssize_t ncap = *cap ? *cap * 2 : 256;
    void *q = PyMem_Realloc(*p, (size_t)ncap * size);
    if (q == NULL) {
        PyErr_NoMemory();
        return -1;
    }
    *p = q;
    *cap = ncap;
    return 0;
}

/* Push an item; steals a, b and c (also on failure). */
static int push(Walk *w, int op, int kind, Py_ssize_t ctx, PyObject *a, PyObject *b, PyObject *c) {
    if (w->n == w->cap && grow((void **)&w->items, &w->cap, sizeof(Item)) < 0) {
        Py_XDECREF(a);
        Py_XDECREF(b);
        Py_XDECREF(c);
        return -1;
    }
    Item *it = &w->items[w->n++];
    it->op = op;
    it->kind = kind;
    it->ctx = ctx;
    it->a = a;
    it->b = b;
    it->c = c;
    return 0;
}

static Py_ssize_t new_ctx(Walk *w, PyObject *out, PyObject *carrier, int in_field, Py_ssize_t frame,
                          PyObject *owner, int owner_ok) {
    if (w->nctx == w->ctxcap && grow((void **)&w->ctxs, &w->ctxcap, sizeof(Ctx)) < 0) return -1;
    Ctx *c = &w->ctxs[w->nctx];
    c->out = Py_NewRef(out);
    c->carrier = Py_NewRef(carrier);
    c->in_field = in_field;
    c->frame = frame;
    c->owner = Py_NewRef(owner);
    c->owner_ok = owner_ok;
    return w->nctx++;
}

/* Register a frame_state() tuple; its index. */
static Py_ssize_t new_frame(Walk *w, PyObject *fs) {
    if (!PyTuple_CheckExact(fs) || PyTuple_GET_SIZE(fs) != 4) return bail(w);
    if (w->nframes == w->framecap && grow((void **)&w->frames, &w->framecap, sizeof(Frame)) < 0) return -1;
    Frame *f = &w->frames[w->nframes];
    memset(f, 0, sizeof(*f));
    f->fs = Py_NewRef(fs);
    w->nframes++;
    f->frame_id = PyTuple_GET_ITEM(fs, 0);
    f->by_id = PyTuple_GET_ITEM(fs, 1);
    f->clickmap = PyTuple_GET_ITEM(fs, 3);
    if (!PyDict_CheckExact(f->by_id) && (f->take = PyObject_GetAttr(f->by_id, C.s_pop)) == NULL) return -1;
    if (!PyDict_CheckExact(f->clickmap) && (f->click_get = PyObject_GetAttr(f->clickmap, C.s_get)) == NULL)
        return -1;
    if ((f->has_click = PyObject_IsTrue(f->clickmap)) < 0) return -1;
    return w->nframes - 1;
}

/* py: fs[3].get(key, dflt); a new reference. */
static PyObject *click_get(Frame *f, PyObject *key, PyObject *dflt) {
    if (f->click_get == NULL) {
        PyObject *v = PyDict_GetItemWithError(f->clickmap, key);
        if (v != NULL) return Py_NewRef(v);
        return PyErr_Occurred() ? NULL : Py_NewRef(dflt);
    }
    PyObject *args[2] = {key, dflt};
    return PyObject_Vectorcall(f->click_get, args, 2, NULL);
}

/* py: by_id.pop(cid, None); a new reference (Py_None when absent). */
static PyObject *take(Frame *f, PyObject *cid) {
    if (f->pos.at != NULL) {
        if (!PyUnicode_CheckExact(cid)) {
            /* As the dict: an unhashable id raises; one that can equal no str names no node. */
            if (PyObject_Hash(cid) == -1) return NULL;
            if (PyLong_CheckExact(cid) || PyFloat_CheckExact(cid) || PyBool_Check(cid) || cid == Py_None)
                return Py_NewRef(Py_None);
            return NULL; /* anything else: the caller bails */
        }
        Py_ssize_t id = decimal_id(cid), p;
        if (id < 0 || id >= f->pos.size || (p = f->pos.at[id]) < 0) return Py_NewRef(Py_None);
        f->pos.at[id] = -1;
        return Py_NewRef(PyTuple_GET_ITEM(f->pos.nodes, p));
    }
    if (f->take != NULL) {
        PyObject *args[2] = {cid, Py_None};
        return PyObject_Vectorcall(f->take, args, 2, NULL);
    }
#if PY_VERSION_HEX >= 0x030D0000
    PyObject *child;
    if (PyDict_Pop(f->by_id, cid, &child) < 0) return NULL;
    return child != NULL ? child : Py_NewRef(Py_None);
#else
    return _PyDict_Pop(f->by_id, cid, Py_None);
#endif
}

/* _walkstate.push_children: push the children of a node (ids `kids`) so that
 * they pop in document order, taking each out of the frame's index.
 * py: for cid in reversed(ax.childIds): child = take(cid, None); if child is not None: push(...) */
static int push_children(Walk *w, PyObject *kids, Py_ssize_t ctx, PyObject *up) {
    int is_list = PyList_CheckExact(kids);
    if (!is_list && !PyTuple_CheckExact(kids)) return bail(w);
    Frame *f = &w->frames[w->ctxs[ctx].frame];
    Py_INCREF(kids);
    int rc = 0;
    for (Py_ssize_t i = Py_SIZE(kids) - 1; i >= 0; i--) {
        if (i >= Py_SIZE(kids)) continue; /* a list changed by a key's __eq__ */
        PyObject *cid = Py_NewRef(is_list ? PyList_GET_ITEM(kids, i) : PyTuple_GET_ITEM(kids, i));
        PyObject *child = take(f, cid);
        Py_DECREF(cid);
        if (child == NULL) {
            rc = PyErr_Occurred() ? -1 : bail(w); /* an id of another type: the Python walk reads it */
            break;
        }
        if (child == Py_None) {
            Py_DECREF(child);
            continue;
        }
        if ((rc = push(w, OP_VISIT, 0, ctx, child, Py_NewRef(up), NULL)) < 0) break;
    }
    Py_DECREF(kids);
    return rc;
}

/* The `.value` of an AXValue; borrowed, or NULL when not a value type. */
static inline PyObject *value_of(PyObject *v) {
    const Layout *l = layout_of(&C.values, v);
    return l ? FIELD(v, l->off[0]) : NULL;
}

/* What a node's or property's value field `v` holds: `v` itself when flat
 * (py: `v if flat else v.value`); borrowed, NULL as value_of. */
static inline PyObject *unwrap(int flat, PyObject *v) { return flat ? v : value_of(v); }

/* _states.read_props: state bits and flags of a node's properties. */
static int read_props(Walk *w, PyObject *props, long *bits, long *flags) {
    int is_list = PyList_CheckExact(props);
    if (!is_list && !PyTuple_CheckExact(props)) return bail(w);
    for (Py_ssize_t i = 0; i < Py_SIZE(props); i++) {
        PyObject *prop = is_list ? PyList_GET_ITEM(props, i) : PyTuple_GET_ITEM(props, i);
        const Layout *l = layout_of(&C.props, prop);
        if (l == NULL) return bail(w);
        PyObject *pname = FIELD(prop, l->off[P_NAME]);
        PyObject *pvalue = FIELD(prop, l->off[P_VALUE]);
        if (pname == NULL || pvalue == NULL || !PyUnicode_CheckExact(pname)) return bail(w);
        /* py: if pname in _STATE_PROPS: */
        int state = PySet_Contains(C.state_props, pname);
        if (state < 0) return -1;
        if (state) {
            /* py: v = prop.value if flat else prop.value.value; if v.__class__ is bool or str: bits |= _PROP_BITS.get((pname, v), 0) */
            PyObject *v = unwrap(l->flat, pvalue);
            if (v == NULL) return bail(w);
            if (!PyBool_Check(v) && !PyUnicode_CheckExact(v)) continue;
            for (int k = 0; k < C.nrules; k++) {
                PropRule *r = &C.rules[k];
                int eq = PyUnicode_Compare(r->name, pname) == 0;
                if (eq) eq = PyObject_RichCompareBool(r->value, v, Py_EQ);
                if (eq < 0) return -1;
                if (eq) {
                    *bits |= r->bit;
                    break;
                }
            }
        } else if (PyUnicode_Compare(pname, C.s_editable) == 0) {
            *flags |= C.editable_flag; /* py: elif pname == "editable": */
        } else if (PyUnicode_Compare(pname, C.s_focusable) == 0) {
            /* py: elif pname == "focusable" and (prop.value if flat else prop.value.value) is True: */
            PyObject *v = unwrap(l->flat, pvalue);
            if (v == NULL) return bail(w);
            if (v == Py_True) *flags |= C.focusable_flag;
        }
    }
    return 0;
}

/* Call fn(args...) for its effect; -1 on error. */
static int call_void(PyObject *fn, PyObject *const *args, size_t n) {
    PyObject *r = PyObject_Vectorcall(fn, args, n, NULL);
    if (r == NULL) return -1;
    Py_DECREF(r);
    return 0;
}

/* py: labeled and id(lst) in labeled */
static int is_labeled(Walk *w, PyObject *lst) {
    if (PySet_GET_SIZE(w->labeled) == 0) return 0;
    PyObject *key = PyLong_FromVoidPtr(lst);
    if (key == NULL) return -1;
    int r = PySet_Contains(w->labeled, key);
    Py_DECREF(key);
    return r;
}

/* py: parent[-1] is node -> parent.pop() (raises IndexError on an empty list, as Python). */
static int pop_if_last(PyObject *parent, PyObject *node) {
    Py_ssize_t m = PyList_GET_SIZE(parent);
    if (m == 0) {
        PyErr_SetString(PyExc_IndexError, "list index out of range");
        return -1;
    }
    if (PyList_GET_ITEM(parent, m - 1) != node) return 0;
    return PyList_SetSlice(parent, m - 1, m, NULL);
}

/* py: " ".join(raw.split()) not in carrier, or not carrier: the piece is not carried. */
static int not_carried(PyObject *raw, PyObject *carrier) {
    if (PyUnicode_GET_LENGTH(carrier) == 0) return 1;
    PyObject *norm = normalize(raw);
    if (norm == NULL) return -1;
    int in = PyUnicode_Contains(carrier, norm);
    Py_DECREF(norm);
    return in < 0 ? -1 : !in;
}

/* _walkstate.finish: finish a printed node, merge its text, drop it if unnamed empty
 * structure. In C (not called back) because it runs for every printed element with
 * children (12,000 calls on the 2,400-row table, a third of the walk's time when
 * called back); merge_text stays in Python, called when there is text to merge. */
static int finish_node(Walk *w, PyObject *node, PyObject *children, PyObject *parent, int kind) {
    Py_ssize_t n = PyList_GET_SIZE(children);
    if (n == 1) {
        PyObject *only = PyList_GET_ITEM(children, 0);
        if (PyTuple_CheckExact(only)) {
            /* py: The common case: a link's, button's, cell's own text.
             *   children.clear(); carrier = only[2]
             *   if not carrier or " ".join(only[0].split()) not in carrier: flush_run([only], children) */
            if (PyTuple_GET_SIZE(only) != 6 || !PyUnicode_CheckExact(PyTuple_GET_ITEM(only, 0)) ||
                !PyUnicode_CheckExact(PyTuple_GET_ITEM(only, 2)))
                return bail(w);
            Py_INCREF(only);
            int show = PyList_SetSlice(children, 0, 1, NULL) < 0
                           ? -1
                           : not_carried(PyTuple_GET_ITEM(only, 0), PyTuple_GET_ITEM(only, 2));
            if (show > 0) {
                PyObject *run = PyList_New(1);
                if (run == NULL) {
                    show = -1;
                } else {
                    PyList_SET_ITEM(run, 0, Py_NewRef(only));
                    PyObject *args[2] = {run, children};
                    show = call_void(C.flush_run, args, 2);
                    Py_DECREF(run);
                }
            }
            Py_DECREF(only);
            if (show < 0) return -1;
        } else if (Py_TYPE(only) != C.out.type) {
            /* py: elif only.__class__ is not Node: children.clear()  # a lone line break or block end */
            if (PyList_SetSlice(children, 0, 1, NULL) < 0) return -1;
        }
    } else if (n > 1) {
        /* py: merge_text(children); a list of printed nodes only has nothing to merge
         * (merge_text would give the same list back). */
        int only_nodes = 1;
        for (Py_ssize_t i = 0; i < n && only_nodes; i++)
            only_nodes = Py_TYPE(PyList_GET_ITEM(children, i)) == C.out.type;
        if (!only_nodes && call_void(C.merge_text, &children, 1) < 0) return -1;
    }
    /* py: if kind == STRUCTURE and not children and not node.name and parent[-1] is node: parent.pop() */
    if (kind == STRUCTURE && PyList_GET_SIZE(children) == 0) {
        PyObject *name = FIELD(node, C.out.off[O_NAME]);
        if (name == NULL) return bail(w);
        int named = truthy(name);
        if (named < 0) return -1;
        if (!named) return pop_if_last(parent, node);
    }
    return 0;
}

/* ------------------------------------------------------------------------ */
/* Finishing a printed node (the `if ax is None:` part of the loop)          */

static int finish_item(Walk *w, Item *it) {
    if (it->op == OP_END) {
        /* py: parent.append(SEPARATOR if extra is None else extra) */
        return PyList_Append(it->a, it->b != NULL ? it->b : C.separator);
    }
    PyObject *node = it->a, *parent = it->b;
    if (it->op == OP_CANDIDATE) {
        /* py: if finish_candidate(ctx, parent, extra, acts, labeled): acts += 1 */
        PyObject *acts = PyLong_FromLong(w->acts);
        if (acts == NULL) return -1;
        PyObject *args[5] = {node, parent, it->c, acts, w->labeled};
        PyObject *r = PyObject_Vectorcall(C.finish_candidate, args, 5, NULL);
        Py_DECREF(acts);
        if (r == NULL) return -1;
        int kept = truthy(r);
        Py_DECREF(r);
        if (kept < 0) return -1;
        w->acts += kept;
        return 0;
    }
    /* py: children = ctx.children */
    PyObject *children = FIELD(node, C.out.off[O_CHILDREN]);
    if (children == NULL || !PyList_CheckExact(children)) return bail(w);
    int lab = is_labeled(w, children);
    if (lab < 0) return -1;
    /* py: if labeled and id(children) in labeled: resolve_labels(children) */
    if (lab && call_void(C.resolve_labels, &children, 1) < 0) return -1;
    /* py: elif <one text piece>: (inline) ... continue / finish(ctx, parent, extra): the same
     * steps, both in finish_node(). */
    return finish_node(w, node, children, parent, it->kind);
}

/* ------------------------------------------------------------------------ */
/* Visiting an AX node (the rest of the loop)                               */

/* py: push_frame(stack, ax, (children, "", child_field, fs, True, 0), fs, seen_frames),
 * then the items it pushed move to the C stack. */
static int call_push_frame(Walk *w, PyObject *ax, PyObject *children, int child_field, Frame *f) {
    PyObject *ctx = Py_BuildValue("(OOOOOO)", children, C.s_empty, child_field ? Py_True : Py_False, f->fs,
                                  Py_True, C.zero);
    if (ctx == NULL) return -1;
    PyObject *args[5] = {w->tmp, ax, ctx, f->fs, w->seen_frames};
    int rc = call_void(C.push_frame, args, 5);
    Py_DECREF(ctx);
    if (rc < 0) return -1;
    PyObject *last_ctx = NULL; /* borrowed from the items of tmp */
    Py_ssize_t last = -1;
    for (Py_ssize_t i = 0; i < PyList_GET_SIZE(w->tmp) && rc == 0; i++) {
        PyObject *item = PyList_GET_ITEM(w->tmp, i);
        /* py: (child, child_ctx, up, None) */
        if (!PyTuple_CheckExact(item) || PyTuple_GET_SIZE(item) != 4) {
            rc = bail(w);
            break;
        }
        PyObject *c = PyTuple_GET_ITEM(item, 1);
        if (c != last_ctx) {
            /* py child_ctx = (out, carrier, in_field, child_fs, in_scope, 0) */
            if (!PyTuple_CheckExact(c) || PyTuple_GET_SIZE(c) != 6 || !PyList_CheckExact(PyTuple_GET_ITEM(c, 0)) ||
                !PyUnicode_CheckExact(PyTuple_GET_ITEM(c, 1)) || PyTuple_GET_ITEM(c, 4) != Py_True ||
                !PyLong_CheckExact(PyTuple_GET_ITEM(c, 5))) {
                rc = bail(w);
                break;
            }
            int in_field = truthy(PyTuple_GET_ITEM(c, 2));
            int owner_ok = PyObject_RichCompareBool(PyTuple_GET_ITEM(c, 5), C.zero, Py_GE);
            Py_ssize_t fi = (in_field < 0 || owner_ok < 0) ? -1 : new_frame(w, PyTuple_GET_ITEM(c, 3));
            if (fi < 0 || (last = new_ctx(w, PyTuple_GET_ITEM(c, 0), PyTuple_GET_ITEM(c, 1), in_field, fi,
                                          PyTuple_GET_ITEM(c, 5), owner_ok)) < 0) {
                rc = -1;
                break;
            }
            last_ctx = c;
        }
        rc = push(w, OP_VISIT, 0, last, Py_NewRef(PyTuple_GET_ITEM(item, 0)), Py_NewRef(PyTuple_GET_ITEM(item, 2)),
                  NULL);
    }
    if (PyList_SetSlice(w->tmp, 0, PY_SSIZE_T_MAX, NULL) < 0) rc = -1;
    return rc;
}

/* Visit AX node `ax` (AX parent `parent`) in context `ci`. */
static int visit(Walk *w, PyObject *ax, PyObject *parent, Py_ssize_t ci) {
    const Layout *l = layout_of(&C.nodes, ax);
    if (l == NULL) return bail(w);
    const Py_ssize_t *o = l->off;
    for (int k = 0; k < N_FIELDS; k++)
        if (FIELD(ax, o[k]) == NULL) return bail(w); /* an unset field: AttributeError in Python */
    Ctx c = w->ctxs[ci]; /* a copy: new_ctx() may move the array */
    Frame *f = &w->frames[c.frame];
    PyObject *kids = FIELD(ax, o[N_CHILDREN]);
    int has_kids = truthy(kids);
    if (has_kids < 0) return -1;
    /* py: if ax.ignored: if ax.childIds: push_children(stack, ax, ctx, fs[1]); continue */
    int ignored = truthy(FIELD(ax, o[N_IGNORED]));
    if (ignored < 0) return -1;
    if (ignored) return has_kids ? push_children(w, kids, ci, ax) : 0;
    /* py: raw = (role_v if flat else role_v.value) if role_v is not None else ""
     *     info = roles.get(raw) if raw.__class__ is str else None
     *     role, kind = info if info is not None else role_info(raw if raw.__class__ is str else "") */
    PyObject *role_v = FIELD(ax, o[N_ROLE]);
    PyObject *raw = C.s_empty;
    if (role_v != Py_None && (raw = unwrap(l->flat, role_v)) == NULL) return bail(w);
    PyObject *info = NULL;
    if (PyUnicode_CheckExact(raw)) {
        info = PyDict_GetItemWithError(C.role_cache, raw);
        if (info == NULL && PyErr_Occurred()) return -1;
        Py_XINCREF(info);
    }
    if (info == NULL && (info = PyObject_CallOneArg(C.role_info, PyUnicode_CheckExact(raw) ? raw : C.s_empty)) == NULL)
        return -1;
    int rc = -1;
    PyObject *name = NULL, *value = NULL, *states = NULL, *node = NULL, *children = NULL, *child_owner = NULL;
    if (!PyTuple_CheckExact(info) || PyTuple_GET_SIZE(info) != 2 || !PyUnicode_CheckExact(PyTuple_GET_ITEM(info, 0)) ||
        !PyLong_CheckExact(PyTuple_GET_ITEM(info, 1))) {
        rc = bail(w);
        goto done;
    }
    PyObject *role = PyTuple_GET_ITEM(info, 0); /* borrowed from info */
    long kind = PyLong_AsLong(PyTuple_GET_ITEM(info, 1));
    if (kind < SKIP || kind > IFRAME) {
        rc = PyErr_Occurred() ? -1 : bail(w);
        goto done;
    }
    PyObject *backend = FIELD(ax, o[N_BACKEND]);
    if (backend != Py_None && !PyLong_CheckExact(backend)) {
        rc = bail(w);
        goto done;
    }
    if (kind == TEXT) {
        /* py: if out is not None and not in_field: */
        rc = 0;
        if (c.in_field) goto done;
        PyObject *name_v = FIELD(ax, o[N_NAME]);
        if (name_v == Py_None) goto done;
        PyObject *text = unwrap(l->flat, name_v);
        if (text == NULL) {
            rc = bail(w);
            goto done;
        }
        /* py: if text.__class__ is str and text: */
        if (!PyUnicode_CheckExact(text) || PyUnicode_GET_LENGTH(text) == 0) goto done;
        if (backend == Py_None) {
            /* py: if backend is None and parent.ignored and _MARKER.fullmatch(text): continue */
            const Layout *pl = layout_of(&C.nodes, parent);
            PyObject *pign = pl ? FIELD(parent, pl->off[N_IGNORED]) : NULL;
            if (pign == NULL) {
                rc = bail(w);
                goto done;
            }
            int pi = truthy(pign);
            if (pi < 0) goto fail;
            if (pi) {
                PyObject *m = PyObject_CallOneArg(C.marker_match, text);
                if (m == NULL) goto fail;
                int marker = truthy(m);
                Py_DECREF(m);
                if (marker < 0) goto fail;
                if (marker) goto done; /* the ::marker of a presentational list item */
            }
        }
        /* py: mine = 0
         *     if fs[3] and owner >= 0 and backend is not None:
         *         mine = fs[3].get(backend, 0)
         *         if mine == owner: mine = 0
         *         elif mine: acts += 1  # text of a clickable element Chrome left out */
        PyObject *mine = Py_NewRef(C.zero);
        if (f->has_click && c.owner_ok && backend != Py_None) {
            Py_SETREF(mine, click_get(f, backend, C.zero));
            if (mine == NULL) goto fail;
            int same = PyObject_RichCompareBool(mine, c.owner, Py_EQ);
            int yes = same ? 0 : truthy(mine);
            if (same < 0 || yes < 0) {
                Py_DECREF(mine);
                goto fail;
            }
            if (same) Py_SETREF(mine, Py_NewRef(C.zero));
            else if (yes) w->acts++;
        }
        /* py: out.append((text, parent, carrier, fs[0], backend, mine)) */
        PyObject *piece = PyTuple_Pack(6, text, parent, c.carrier, f->frame_id, backend, mine);
        Py_DECREF(mine);
        if (piece == NULL) goto fail;
        rc = PyList_Append(c.out, piece);
        Py_DECREF(piece);
        goto done;
    }
    if (kind < TRANSPARENT) {
        /* py: if kind == BREAK and out is not None: out.append(LINE_BREAK) */
        rc = kind == BREAK ? PyList_Append(c.out, C.line_break) : 0;
        goto done;
    }
    /* py: self_click = bool(clickmap) and backend is not None and clickmap.get(backend) == backend */
    int self_click = 0;
    if (f->has_click && backend != Py_None) {
        PyObject *m = click_get(f, backend, Py_None);
        if (m == NULL) goto fail;
        self_click = PyObject_RichCompareBool(m, backend, Py_EQ);
        Py_DECREF(m);
        if (self_click < 0) goto fail;
    }
    /* py: name = "" for TRANSPARENT, else name_v (flat) or name_v.value (value_to_text() if not a str), normalized */
    if (kind == TRANSPARENT || FIELD(ax, o[N_NAME]) == Py_None) {
        name = Py_NewRef(C.s_empty);
    } else {
        PyObject *nv = unwrap(l->flat, FIELD(ax, o[N_NAME]));
        if (nv == NULL) {
            rc = bail(w);
            goto done;
        }
        if (PyUnicode_CheckExact(nv)) nv = Py_NewRef(nv);
        else if ((nv = PyObject_CallOneArg(C.value_to_text, nv)) == NULL) goto fail;
        if (!PyUnicode_CheckExact(nv)) {
            Py_DECREF(nv);
            rc = bail(w);
            goto done;
        }
        if (PyUnicode_GET_LENGTH(nv)) {
            name = normalize(nv);
            Py_DECREF(nv);
            if (name == NULL) goto fail;
        } else {
            name = nv;
        }
    }
    /* py: bits, flags = read_props(ax.properties) if ax.properties else (0, 0) */
    long bits = 0, flags = 0;
    PyObject *props = FIELD(ax, o[N_PROPS]);
    int has_props = truthy(props);
    if (has_props < 0) goto fail;
    if (has_props && read_props(w, props, &bits, &flags) < 0) goto done;
    int only_candidate = 0;
    long promote = 0;
    int label = is_label(role);
    if (kind == TRANSPARENT || (kind == NAMED && PyUnicode_GET_LENGTH(name) == 0)) {
        /* Kept by Chrome, not printed by the spec: a run end, or a candidate.
         * py: if owner >= 0 and role != "label": promote from self_click and FOCUSABLE */
        if (c.owner_ok && !label) {
            if (self_click) promote = C.clickable_bit;
            if (flags & C.focusable_flag) promote |= C.focusable_bit;
        }
        if (!promote) {
            /* py: if self_click and owner >= 0: ctx = (out, carrier, in_field, fs, in_scope, backend) */
            Py_ssize_t cj = ci;
            if (self_click && c.owner_ok) {
                int ok = PyObject_RichCompareBool(backend, C.zero, Py_GE);
                if (ok < 0 || (cj = new_ctx(w, c.out, c.carrier, c.in_field, c.frame, backend, ok)) < 0) goto fail;
            }
            rc = 0;
            if (has_kids) {
                int inl = PySet_Contains(C.inline_roles, role);
                if (inl < 0) goto fail;
                if (inl) {
                    /* Lifted: its text joins its parent's as if it were there. */
                    rc = push_children(w, kids, cj, parent);
                    goto done;
                }
                /* py: out.append(SEPARATOR); push((None, None, out, None)) */
                if (PyList_Append(c.out, C.separator) < 0 || push(w, OP_END, 0, 0, Py_NewRef(c.out), NULL, NULL) < 0)
                    goto fail;
                if (label) {
                    /* py: out.append(LABEL_START); push((None, None, out, LABEL_END)); labeled.add(id(out)) */
                    if (PyList_Append(c.out, C.label_start) < 0 ||
                        push(w, OP_END, 0, 0, Py_NewRef(c.out), Py_NewRef(C.label_end), NULL) < 0)
                        goto fail;
                    PyObject *key = PyLong_FromVoidPtr(c.out);
                    if (key == NULL) goto fail;
                    int r = PySet_Add(w->labeled, key);
                    Py_DECREF(key);
                    if (r < 0) goto fail;
                }
                rc = push_children(w, kids, cj, ax);
            }
            goto done;
        }
        only_candidate = 1;
        /* py: role = role or "generic" */
        if (PyUnicode_GET_LENGTH(role) == 0) role = C.s_generic;
    } else if (kind < INTERACTIVE && c.owner_ok && !label) {
        if (self_click) promote = C.clickable_bit;
        if (flags & C.focusable_flag) promote |= C.focusable_bit;
    }
    /* A printed element.
     * py: child_field = in_field or (bool(flags & EDITABLE) and role in FIELD_ROLES) */
    int child_field = c.in_field;
    if (!child_field && (flags & C.editable_flag)) {
        child_field = PySet_Contains(C.field_roles, role);
        if (child_field < 0) goto fail;
    }
    /* py: child_carrier = carrier if only_candidate else ("" if kind == IFRAME else name) */
    PyObject *child_carrier = only_candidate ? c.carrier : (kind == IFRAME ? C.s_empty : name);
    /* py: child_owner = -1 if INTERACTIVE, backend if self_click and owner >= 0, else owner */
    int child_owner_ok;
    if (kind == INTERACTIVE) {
        child_owner = Py_NewRef(C.minus_one);
        child_owner_ok = 0;
    } else if (self_click && c.owner_ok) {
        child_owner = Py_NewRef(backend);
        child_owner_ok = PyObject_RichCompareBool(backend, C.zero, Py_GE);
        if (child_owner_ok < 0) goto fail;
    } else {
        child_owner = Py_NewRef(c.owner);
        child_owner_ok = c.owner_ok;
    }
    /* py: value = " ".join(value_to_text(value_v if flat else value_v.value).split())
     *     if not value or value == name or is_password_value(value): value = None */
    value = Py_NewRef(Py_None);
    PyObject *value_v = FIELD(ax, o[N_VALUE]);
    if (value_v != Py_None) {
        PyObject *vv = unwrap(l->flat, value_v);
        if (vv == NULL) {
            rc = bail(w);
            goto done;
        }
        if (PyUnicode_CheckExact(vv)) vv = Py_NewRef(vv); /* value_to_text: "Strings as they are" */
        else if ((vv = PyObject_CallOneArg(C.value_to_text, vv)) == NULL) goto fail;
        if (!PyUnicode_CheckExact(vv)) {
            Py_DECREF(vv);
            rc = bail(w);
            goto done;
        }
        PyObject *norm = normalize(vv);
        Py_DECREF(vv);
        if (norm == NULL) goto fail;
        int drop = PyUnicode_GET_LENGTH(norm) == 0;
        if (!drop) {
            drop = PyUnicode_Compare(norm, name) == 0;
            if (drop == 0 && PyErr_Occurred()) {
                Py_DECREF(norm);
                goto fail;
            }
        }
        if (!drop) {
            PyObject *pw = PyObject_CallOneArg(C.is_password_value, norm);
            drop = pw == NULL ? -1 : truthy(pw);
            Py_XDECREF(pw);
            if (drop < 0) {
                Py_DECREF(norm);
                goto fail;
            }
        }
        if (drop) Py_DECREF(norm);
        else Py_SETREF(value, norm);
    }
    /* py: states = states_by_bits.get(bits | promote) or states_of(...) */
    if ((states = states_for(bits | promote)) == NULL) goto fail;
    /* py: node = Node(role, name, value, states, fs[0], backend, []); out.append(node) */
    if ((children = PyList_New(0)) == NULL) goto fail;
    {
        PyObject *args[7] = {role, name, value, states, f->frame_id, backend, children};
        if ((node = PyObject_Vectorcall(C.node_type, args, 7, NULL)) == NULL) goto fail;
    }
    if (Py_TYPE(node) != C.out.type) {
        rc = bail(w);
        goto done;
    }
    if (PyList_Append(c.out, node) < 0) goto fail;
    if (promote) {
        /* py: push((None, node, out, (only_candidate, kind, states_of(bits), acts))) */
        PyObject *base = states_for(bits);
        if (base == NULL) goto fail;
        PyObject *extra = Py_BuildValue("(OlNl)", only_candidate ? Py_True : Py_False, kind, base, w->acts);
        if (extra == NULL || push(w, OP_CANDIDATE, (int)kind, 0, Py_NewRef(node), Py_NewRef(c.out), extra) < 0)
            goto fail;
        rc = 0;
        if (has_kids) {
            Py_ssize_t cj = new_ctx(w, children, child_carrier, child_field, c.frame, child_owner, child_owner_ok);
            rc = cj < 0 ? -1 : push_children(w, kids, cj, ax);
        }
        goto done;
    }
    if (kind >= INTERACTIVE) w->acts++;
    rc = 0;
    if (kind == IFRAME) {
        /* py: push((None, node, out, kind)); push_frame(stack, ax, (node.children, "", child_field, fs, True, 0), ...) */
        if (push(w, OP_FINISH, (int)kind, 0, Py_NewRef(node), Py_NewRef(c.out), NULL) < 0) goto fail;
        rc = call_push_frame(w, ax, children, child_field, f);
    } else if (has_kids) {
        /* py: push((None, node, out, kind)); the children, inline push_children */
        Py_ssize_t cj;
        if (push(w, OP_FINISH, (int)kind, 0, Py_NewRef(node), Py_NewRef(c.out), NULL) < 0 ||
            (cj = new_ctx(w, children, child_carrier, child_field, c.frame, child_owner, child_owner_ok)) < 0)
            goto fail;
        rc = push_children(w, kids, cj, ax);
    } else if (kind == STRUCTURE && PyUnicode_GET_LENGTH(name) == 0) {
        /* py: out.pop() */
        Py_ssize_t m = PyList_GET_SIZE(c.out);
        rc = PyList_SetSlice(c.out, m - 1, m, NULL);
    }
    goto done;
fail:
    rc = -1;
done:
    Py_DECREF(info);
    Py_XDECREF(name);
    Py_XDECREF(value);
    Py_XDECREF(states);
    Py_XDECREF(node);
    Py_XDECREF(children);
    Py_XDECREF(child_owner);
    return rc;
}

/* ------------------------------------------------------------------------ */
/* build()                                                                  */

static void walk_clear(Walk *w) {
    for (Py_ssize_t i = 0; i < w->n; i++) {
        Py_XDECREF(w->items[i].a);
        Py_XDECREF(w->items[i].b);
        Py_XDECREF(w->items[i].c);
    }
    for (Py_ssize_t i = 0; i < w->nctx; i++) {
        Py_DECREF(w->ctxs[i].out);
        Py_DECREF(w->ctxs[i].carrier);
        Py_DECREF(w->ctxs[i].owner);
    }
    for (Py_ssize_t i = 0; i < w->nframes; i++) {
        Py_DECREF(w->frames[i].fs);
        Py_XDECREF(w->frames[i].take);
        Py_XDECREF(w->frames[i].click_get);
        PyMem_Free(w->frames[i].pos.at);
        Py_XDECREF(w->frames[i].pos.nodes);
    }
    PyMem_Free(w->items);
    PyMem_Free(w->ctxs);
    PyMem_Free(w->frames);
    Py_XDECREF(w->labeled);
    Py_XDECREF(w->seen_frames);
    Py_XDECREF(w->tmp);
}

/* A node's nodeId (borrowed), or NULL when the node is not of a configured
 * type or its id is not an exact str (the walk then bails). */
static inline PyObject *node_id(PyObject *node) {
    const Layout *l = layout_of(&C.nodes, node);
    PyObject *id = l ? FIELD(node, l->off[N_NODEID]) : NULL;
    return id != NULL && PyUnicode_CheckExact(id) ? id : NULL;
}

/* The PosIndex of `nodes` (see PosIndex), the root's id taken out; 0 with
 * pos->at NULL when an id is not a canonical decimal (or too large), -1 on error. */
static int pos_index(Walk *w, PyObject *nodes, PosIndex *pos) {
    Py_ssize_t n = PyList_GET_SIZE(nodes), top = -1;
    /* Ids are read twice (bounds, then positions): far cheaper than a dict of them. */
    Py_ssize_t limit = POS_LIMIT(n); /* an id above that would make the array large: keep the dict */
    for (Py_ssize_t i = 0; i < n; i++) {
        PyObject *id = node_id(PyList_GET_ITEM(nodes, i));
        if (id == NULL) return bail(w);
        Py_ssize_t v = decimal_id(id);
        if (v < 0 || v >= limit) return 0;
        if (v > top) top = v;
    }
    pos->at = PyMem_Malloc((size_t)(top + 1) * sizeof(int32_t));
    if (pos->at == NULL) {
        PyErr_NoMemory();
        return -1;
    }
    memset(pos->at, 0xff, (size_t)(top + 1) * sizeof(int32_t)); /* -1 */
    pos->size = top + 1;
    for (Py_ssize_t i = 0; i < n; i++) /* every id read above: each a str, a decimal in range */
        pos->at[decimal_id(node_id(PyList_GET_ITEM(nodes, i)))] = (int32_t)i;
    /* py: by_id.pop(frame.nodes[0].nodeId, None) */
    pos->at[decimal_id(node_id(PyList_GET_ITEM(nodes, 0)))] = -1;
    /* A copy: the index must keep the nodes it was made of, as the dict does. */
    if ((pos->nodes = PyList_AsTuple(nodes)) == NULL) {
        PyMem_Free(pos->at);
        pos->at = NULL;
        return -1;
    }
    return 0;
}

/* _walkstate.frame_state(frame) without an index, in C: the dict comprehension over
 * every node costs a fifth of the C walk when done in Python. With Chrome's
 * decimal ids, `pos` is filled and the tuple's index is an empty dict (unread:
 * the walk takes nodes through `pos`, and push_frame reads only fs[2]).
 * py: by_id = {n.nodeId: n for n in frame.nodes}; by_id.pop(frame.nodes[0].nodeId, None)
 *     return (frame.frame_id, by_id, frame.children, frame.clickable) */
static PyObject *own_frame_state(Walk *w, PyObject *frame, PosIndex *pos) {
    PyObject *nodes = PyObject_GetAttrString(frame, "nodes"), *by_id = NULL, *fs = NULL;
    PyObject *fid = NULL, *owners = NULL, *clickable = NULL;
    if (nodes == NULL) return NULL;
    if (!PyList_CheckExact(nodes) || PyList_GET_SIZE(nodes) == 0) {
        bail(w);
        goto done;
    }
    if ((by_id = PyDict_New()) == NULL || pos_index(w, nodes, pos) < 0) goto done;
    for (Py_ssize_t i = 0; pos->at == NULL && i < PyList_GET_SIZE(nodes); i++) {
        PyObject *n = PyList_GET_ITEM(nodes, i), *id = node_id(n);
        if (id == NULL) {
            bail(w);
            goto done;
        }
        if (PyDict_SetItem(by_id, id, n) < 0) goto done;
    }
    if (pos->at == NULL) {
        /* present: the loop put it there */
        if (PyDict_DelItem(by_id, node_id(PyList_GET_ITEM(nodes, 0))) < 0) goto done;
    }
    if ((fid = PyObject_GetAttrString(frame, "frame_id")) == NULL ||
        (owners = PyObject_GetAttrString(frame, "children")) == NULL ||
        (clickable = PyObject_GetAttrString(frame, "clickable")) == NULL)
        goto done;
    fs = PyTuple_Pack(4, fid, by_id, owners, clickable);
done:
    Py_DECREF(nodes);
    Py_XDECREF(by_id);
    Py_XDECREF(fid);
    Py_XDECREF(owners);
    Py_XDECREF(clickable);
    return fs;
}

/* How the last build() found the top document's nodes by id (see last_index()). */
static const char *last_index = "none";

static PyObject *last_index_fn(PyObject *self, PyObject *unused) {
    (void)self;
    (void)unused;
    return PyUnicode_FromString(last_index);
}

/* build(frame, index, proper) -> list of printed roots, or None (use the Python walk). */
static PyObject *build(PyObject *self, PyObject *const *args, Py_ssize_t nargs) {
    (void)self;
    if (nargs != 3) {
        PyErr_SetString(PyExc_TypeError, "build(frame, index, proper)");
        return NULL;
    }
    if (!C.ready) {
        PyErr_SetString(PyExc_RuntimeError, "kobrowser.snapshot._cwalk is not configured");
        return NULL;
    }
    PyObject *frame = args[0];
    Walk w;
    memset(&w, 0, sizeof(w));
    PyObject *roots = NULL, *nodes = NULL, *fs = NULL, *fid = NULL;
    int ok = 0;
    /* py: roots = []; fs = frame_state(frame, index, proper); seen_frames = {id(frame)}; labeled = set() */
    if ((roots = PyList_New(0)) == NULL || (w.labeled = PySet_New(NULL)) == NULL ||
        (w.seen_frames = PySet_New(NULL)) == NULL || (w.tmp = PyList_New(0)) == NULL ||
        (fid = PyLong_FromVoidPtr(frame)) == NULL || PySet_Add(w.seen_frames, fid) < 0)
        goto out;
    PosIndex pos = {NULL, 0, NULL};
    if (args[1] == Py_None) {
        fs = own_frame_state(&w, frame, &pos);
    } else {
        fs = PyObject_Vectorcall(C.frame_state, args, 3, NULL);
    }
    Py_ssize_t fi = fs == NULL ? -1 : new_frame(&w, fs);
    if (fi < 0) {
        PyMem_Free(pos.at);
        Py_XDECREF(pos.nodes);
        goto out;
    }
    w.frames[fi].pos = pos; /* the frame owns it now (walk_clear) */
    last_index = args[1] != Py_None ? "given" : pos.at != NULL ? "positions" : "dict";
    /* py: top = (roots, "", False, fs, True, 0); push_children(stack, frame.nodes[0], top, fs[1]) */
    Py_ssize_t top = new_ctx(&w, roots, C.s_empty, 0, fi, C.zero, 1);
    if (top < 0 || (nodes = PyObject_GetAttrString(frame, "nodes")) == NULL) goto out;
    if (!PyList_CheckExact(nodes) || PyList_GET_SIZE(nodes) == 0) {
        bail(&w);
        goto out;
    }
    PyObject *root = PyList_GET_ITEM(nodes, 0);
    const Layout *rl = layout_of(&C.nodes, root);
    PyObject *kids = rl ? FIELD(root, rl->off[N_CHILDREN]) : NULL;
    if (kids == NULL) {
        bail(&w);
        goto out;
    }
    if (push_children(&w, kids, top, root) < 0) goto out;
    /* py: while stack: ax, ctx, parent, extra = pop() */
    while (w.n) {
        Item it = w.items[--w.n];
        int rc = it.op == OP_VISIT ? visit(&w, it.a, it.b, it.ctx) : finish_item(&w, &it);
        Py_XDECREF(it.a);
        Py_XDECREF(it.b);
        Py_XDECREF(it.c);
        if (rc < 0) goto out;
    }
    /* py: if labeled and id(roots) in labeled: resolve_labels(roots); merge_text(roots) */
    int lab = is_labeled(&w, roots);
    if (lab < 0 || (lab && call_void(C.resolve_labels, &roots, 1) < 0)) goto out;
    if (call_void(C.merge_text, &roots, 1) < 0) goto out;
    ok = 1;
out:
    walk_clear(&w);
    Py_XDECREF(nodes);
    Py_XDECREF(fs);
    Py_XDECREF(fid);
    if (ok) return roots;
    Py_XDECREF(roots);
    if (w.bail && !PyErr_Occurred()) Py_RETURN_NONE;
    return NULL;
}

#include "_cnumber.h"

static PyMethodDef methods[] = {
    {"build", (PyCFunction)(void (*)(void))build, METH_FASTCALL,
     "build(frame, index, proper) -> printed roots, or None: _tree._build for a full build."},
    {"number", (PyCFunction)(void (*)(void))number, METH_FASTCALL,
     "number(roots, head, name_max, value_max, element) -> (text, entries, top), or None: "
     "_format._format_elements without a cache."},
    {"last_index", last_index_fn, METH_NOARGS,
     "last_index() -> how the last build() indexed the top document: 'positions' (Chrome's "
     "decimal ids, an array), 'dict', or 'given' (the caller's index). For tests."},
    {"configure", (PyCFunction)(void (*)(void))configure, METH_VARARGS | METH_KEYWORDS,
     "configure(**env): the Python rules and objects the walk calls (see _native.py)."},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef moduledef = {PyModuleDef_HEAD_INIT, "kobrowser.snapshot._cwalk",
                                       "The snapshot walk of _tree._build in C (see _native.py).", -1, methods};

PyMODINIT_FUNC PyInit__cwalk(void) {
    PyObject *m = PyModule_Create(&moduledef);
    if (m != NULL && PyModule_AddIntConstant(m, "ABI", CWALK_ABI) < 0) Py_CLEAR(m);
    return m;
}
