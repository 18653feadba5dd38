/*
 * The numbering of _format._format_elements in C, without a FormatCache
 * (every fresh or unmirrored snapshot): included by _cwalk.c, which
 * configures the Node layout it reads (configure(): C.out).
 *
 *   number(roots, head, name_max, value_max, element)
 *       -> (text, entries, top), or None: run _format_elements instead.
 *
 * roots: the printed tree's top-level Nodes; head: the text before the
 * first line (the "Page:" line and its blank line, or ""); element: the
 * ElementFactory, called once per node in id order as element(id, node,
 * depth, children), children being the still empty list the entries of the
 * node's printed children are appended to. The text is built in two passes
 * (the lines' pieces are kept, then copied into one str of the exact size
 * and kind, as "".join would make it), with public API only.
 *
 * It gives up (None, nothing raised) on an object it does not read: a node
 * that is not a Node, a role, name or state that is not a str, a value that
 * is neither None nor a str, states that are not a tuple, children that are
 * not a list. _format_elements then runs and gives the answer (or raises).
 * Giving up half way is safe: the element factory only makes entries.
 *
 * Comments "py:" quote the Python lines a block mirrors.
 */

/* One printed line: its pieces (borrowed from the node, or owned when cut). */
typedef struct {
    PyObject *role, *name, *value, *states; /* name/value NULL when not printed */
    int cut_name, cut_value;                /* the piece is an owned, cut copy */
    Py_ssize_t number, depth;
} NumLine;

typedef struct {
    PyObject *node; /* owned */
    PyObject *siblings; /* owned: the list its entry joins */
    Py_ssize_t depth;
} NumItem;

typedef struct {
    NumLine *lines;
    Py_ssize_t n_lines, cap_lines;
    NumItem *stack;
    Py_ssize_t n_stack, cap_stack;
} Numbering;

static void numbering_clear(Numbering *nb) {
    for (Py_ssize_t i = 0; i < nb->n_lines; i++) {
        if (nb->lines[i].cut_name) Py_XDECREF(nb->lines[i].name);
        if (nb->lines[i].cut_value) Py_XDECREF(nb->lines[i].value);
    }
    for (Py_ssize_t i = 0; i < nb->n_stack; i++) {
        Py_DECREF(nb->stack[i].node);
        Py_DECREF(nb->stack[i].siblings);
    }
    PyMem_Free(nb->lines);
    PyMem_Free(nb->stack);
}

static int num_push(Numbering *nb, PyObject *node, PyObject *siblings, Py_ssize_t depth) {
    if (nb->n_stack == nb->cap_stack) {
        Py_ssize_t cap = nb->cap_stack ? nb->cap_stack * 2 : 64;
        NumItem *s = PyMem_Realloc(nb->stack, (size_t)cap * sizeof *s);
        if (s == NULL) {
            PyErr_NoMemory();
            return -1;
        }
        nb->stack = s;
        nb->cap_stack = cap;
    }
    nb->stack[nb->n_stack++] = (NumItem){Py_NewRef(node), Py_NewRef(siblings), depth};
    return 0;
}

/* py: if len(text) > limit: text = text[: limit - 3] + "..." (the cut copy without its "...") */
static PyObject *num_cut(PyObject *text, Py_ssize_t limit, int *cut) {
    *cut = 0;
    if (PyUnicode_GET_LENGTH(text) <= limit) return text;
    *cut = 1;
    return PyUnicode_Substring(text, 0, limit - 3);
}

static Py_ssize_t num_digits(Py_ssize_t n) {
    Py_ssize_t k = 1;
    while (n >= 10) {
        n /= 10;
        k++;
    }
    return k;
}

/* Copy `piece` into `out` at *at. */
static int num_copy(PyObject *out, Py_ssize_t *at, PyObject *piece) {
    Py_ssize_t n = PyUnicode_GET_LENGTH(piece);
    if (n && PyUnicode_CopyCharacters(out, *at, piece, 0, n) < 0) return -1;
    *at += n;
    return 0;
}

static void num_ascii(int kind, void *data, Py_ssize_t *at, const char *s, Py_ssize_t n) {
    for (Py_ssize_t i = 0; i < n; i++) PyUnicode_WRITE(kind, data, *at + i, (Py_UCS4)(unsigned char)s[i]);
    *at += n;
}

/* Pass 2: the text of the kept lines, after `head`. */
static PyObject *num_text(const Numbering *nb, PyObject *head) {
    Py_ssize_t size = PyUnicode_GET_LENGTH(head);
    Py_UCS4 maxchar = PyUnicode_MAX_CHAR_VALUE(head);
#define NUM_SEEN(s)                                                   \
    do {                                                              \
        size += PyUnicode_GET_LENGTH(s);                              \
        Py_UCS4 m_ = PyUnicode_MAX_CHAR_VALUE(s);                     \
        if (m_ > maxchar) maxchar = m_;                               \
    } while (0)
    for (Py_ssize_t i = 0; i < nb->n_lines; i++) {
        const NumLine *l = &nb->lines[i];
        /* py: f"{indent}{number}: {node.role}" ... + "\n" */
        size += 2 * l->depth + num_digits(l->number) + 2 + 1;
        NUM_SEEN(l->role);
        if (l->name != NULL) { /* py: f'{line} "{name}"' */
            size += 3 + (l->cut_name ? 3 : 0);
            NUM_SEEN(l->name);
        }
        if (l->value != NULL) { /* py: f'{line} value="{value}"' */
            size += 9 + (l->cut_value ? 3 : 0);
            NUM_SEEN(l->value);
        }
        Py_ssize_t k = PyTuple_GET_SIZE(l->states);
        for (Py_ssize_t j = 0; j < k; j++) { /* py: f"{line} {' '.join(node.states)}" */
            size += 1;
            NUM_SEEN(PyTuple_GET_ITEM(l->states, j));
        }
    }
#undef NUM_SEEN
    PyObject *out = PyUnicode_New(size, maxchar);
    if (out == NULL) return NULL;
    int kind = PyUnicode_KIND(out);
    void *data = PyUnicode_DATA(out);
    Py_ssize_t at = 0;
    if (num_copy(out, &at, head) < 0) goto fail;
    for (Py_ssize_t i = 0; i < nb->n_lines; i++) {
        const NumLine *l = &nb->lines[i];
        for (Py_ssize_t d = 0; d < l->depth; d++) num_ascii(kind, data, &at, "  ", 2);
        char digits[24];
        int n = snprintf(digits, sizeof digits, "%zd: ", l->number);
        num_ascii(kind, data, &at, digits, n);
        if (num_copy(out, &at, l->role) < 0) goto fail;
        if (l->name != NULL) {
            num_ascii(kind, data, &at, " \"", 2);
            if (num_copy(out, &at, l->name) < 0) goto fail;
            num_ascii(kind, data, &at, l->cut_name ? "...\"" : "\"", l->cut_name ? 4 : 1);
        }
        if (l->value != NULL) {
            num_ascii(kind, data, &at, " value=\"", 8);
            if (num_copy(out, &at, l->value) < 0) goto fail;
            num_ascii(kind, data, &at, l->cut_value ? "...\"" : "\"", l->cut_value ? 4 : 1);
        }
        Py_ssize_t k = PyTuple_GET_SIZE(l->states);
        for (Py_ssize_t j = 0; j < k; j++) {
            num_ascii(kind, data, &at, " ", 1);
            if (num_copy(out, &at, PyTuple_GET_ITEM(l->states, j)) < 0) goto fail;
        }
        num_ascii(kind, data, &at, "\n", 1);
    }
    if (at != size) {
        PyErr_SetString(PyExc_SystemError, "_cwalk.number: the text's size was miscounted");
        goto fail;
    }
    return out;
fail:
    Py_DECREF(out);
    return NULL;
}

/* Pass 1 for one node: keep its line, make its entry, push its children.
 * Returns 0, 1 to give up, -1 on error. */
static int num_node(Numbering *nb, NumItem *it, Py_ssize_t name_max, Py_ssize_t value_max,
                    PyObject *element, PyObject *entries) {
    PyObject *node = it->node;
    if (Py_TYPE(node) != C.out.type) return 1;
    PyObject *role = FIELD(node, C.out.off[O_ROLE]), *name = FIELD(node, C.out.off[O_NAME]),
             *value = FIELD(node, C.out.off[O_VALUE]), *states = FIELD(node, C.out.off[O_STATES]),
             *kids = FIELD(node, C.out.off[O_CHILDREN]);
    if (role == NULL || name == NULL || value == NULL || states == NULL || kids == NULL ||
        !PyUnicode_CheckExact(role) || !PyUnicode_CheckExact(name) ||
        (value != Py_None && !PyUnicode_CheckExact(value)) || !PyTuple_CheckExact(states) ||
        !PyList_CheckExact(kids))
        return 1;
    for (Py_ssize_t j = 0; j < PyTuple_GET_SIZE(states); j++)
        if (!PyUnicode_CheckExact(PyTuple_GET_ITEM(states, j))) return 1;
    if (nb->n_lines == nb->cap_lines) {
        Py_ssize_t cap = nb->cap_lines ? nb->cap_lines * 2 : 256;
        NumLine *lines = PyMem_Realloc(nb->lines, (size_t)cap * sizeof *lines);
        if (lines == NULL) {
            PyErr_NoMemory();
            return -1;
        }
        nb->lines = lines;
        nb->cap_lines = cap;
    }
    /* py: number += 1 */
    Py_ssize_t number = nb->n_lines + 1;
    NumLine *l = &nb->lines[nb->n_lines];
    *l = (NumLine){role, NULL, NULL, states, 0, 0, number, it->depth};
    /* py: if name: ... if value: ... (cut to the limits) */
    if (PyUnicode_GET_LENGTH(name) && (l->name = num_cut(name, name_max, &l->cut_name)) == NULL)
        return -1;
    nb->n_lines++; /* from here on, numbering_clear() releases the cut copies */
    if (value != Py_None && PyUnicode_GET_LENGTH(value) &&
        (l->value = num_cut(value, value_max, &l->cut_value)) == NULL)
        return -1;
    /* py: below = []; entry = element(number, node, depth, below); keep(entry); siblings.append(entry) */
    PyObject *below = PyList_New(0);
    if (below == NULL) return -1;
    PyObject *id = PyLong_FromSsize_t(number), *depth = PyLong_FromSsize_t(it->depth);
    PyObject *entry = NULL;
    if (id != NULL && depth != NULL) {
        PyObject *args[4] = {id, node, depth, below};
        entry = PyObject_Vectorcall(element, args, 4, NULL);
    }
    Py_XDECREF(id);
    Py_XDECREF(depth);
    int rc = -1;
    if (entry != NULL && PyList_Append(entries, entry) == 0 && PyList_Append(it->siblings, entry) == 0) {
        /* py: for child in reversed(children): push((child, child_indent, child_depth, below)) */
        rc = 0;
        for (Py_ssize_t j = PyList_GET_SIZE(kids) - 1; j >= 0 && rc == 0; j--)
            rc = num_push(nb, PyList_GET_ITEM(kids, j), below, it->depth + 1);
    }
    Py_XDECREF(entry);
    Py_DECREF(below);
    return rc;
}

/* number(roots, head, name_max, value_max, element): see the top of this file. */
static PyObject *number(PyObject *self, PyObject *const *args, Py_ssize_t nargs) {
    (void)self;
    if (nargs != 5) {
        PyErr_SetString(PyExc_TypeError, "number(roots, head, name_max, value_max, element)");
        return NULL;
    }
    PyObject *roots = args[0], *head = args[1], *element = args[4];
    if (!C.ready) {
        PyErr_SetString(PyExc_RuntimeError, "_cwalk.number: configure() first");
        return NULL;
    }
    if (!PyList_CheckExact(roots) || !PyUnicode_CheckExact(head)) Py_RETURN_NONE;
    Py_ssize_t name_max = PyLong_AsSsize_t(args[2]), value_max = PyLong_AsSsize_t(args[3]);
    if ((name_max == -1 || value_max == -1) && PyErr_Occurred()) return NULL;
    if (name_max < 3 || value_max < 3) {
        PyErr_SetString(PyExc_ValueError, "_cwalk.number: limits below 3");
        return NULL;
    }
    Numbering nb = {NULL, 0, 0, NULL, 0, 0};
    PyObject *entries = PyList_New(0), *top = PyList_New(0), *text = NULL, *result = NULL;
    int rc = entries != NULL && top != NULL ? 0 : -1;
    /* py: stack = [(n, "", 0, top) for n in reversed(roots)] */
    for (Py_ssize_t j = PyList_GET_SIZE(roots) - 1; j >= 0 && rc == 0; j--)
        rc = num_push(&nb, PyList_GET_ITEM(roots, j), top, 0);
    /* py: while stack: node, indent, depth, siblings = pop() */
    while (rc == 0 && nb.n_stack) {
        NumItem it = nb.stack[--nb.n_stack];
        rc = num_node(&nb, &it, name_max, value_max, element, entries);
        Py_DECREF(it.node);
        Py_DECREF(it.siblings);
    }
    if (rc == 0 && (text = num_text(&nb, head)) != NULL)
        result = PyTuple_Pack(3, text, entries, top);
    numbering_clear(&nb);
    Py_XDECREF(text);
    Py_XDECREF(entries);
    Py_XDECREF(top);
    if (rc == 1) Py_RETURN_NONE;
    return result;
}
