/* plain_json in C: whether a value is made only of dict, list, str, int, float, bool and None
   themselves (no subclass, no other type), nested at most MAX_DEPTH levels.

   The pure-Python twin is contractgen.runtime.jsonvalue._plain_json_python; this one reads the same value
   without running a line of its classes' code (exact types only, so PyDict_Next and the list's own
   array are all it touches) at a fraction of the cost, which is most of what a guarded happy call
   spends beyond its validators (bench/guard_overhead.py). */

#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <math.h>
#include <stdint.h>

/* jsonvalue.MAX_DEPTH: the runtime uses this module only where the two agree */
#define MAX_DEPTH 256

static int
plain(PyObject *value, Py_ssize_t depth)
{
    PyTypeObject *kind = Py_TYPE(value);
    if (kind == &PyUnicode_Type || kind == &PyLong_Type || kind == &PyFloat_Type
            || kind == &PyBool_Type || value == Py_None)
        return 1;
    if (kind == &PyDict_Type) {
        Py_ssize_t position = 0;
        PyObject *key, *member;
        if (depth >= MAX_DEPTH)
            return 0;
        /* exact dict, exact str keys: no __eq__, __hash__ or __iter__ of the tool's runs here */
        while (PyDict_Next(value, &position, &key, &member)) {
            if (Py_TYPE(key) != &PyUnicode_Type || !plain(member, depth + 1))
                return 0;
        }
        return 1;
    }
    if (kind == &PyList_Type) {
        if (depth >= MAX_DEPTH)
            return 0;
        for (Py_ssize_t i = 0; i < PyList_GET_SIZE(value); i++) {
            if (!plain(PyList_GET_ITEM(value, i), depth + 1))
                return 0;
        }
        return 1;
    }
    return 0;
}

static PyObject *
plain_json(PyObject *module, PyObject *const *args, Py_ssize_t nargs)
{
    Py_ssize_t depth = 0;
    if (nargs < 1 || nargs > 2) {
        PyErr_SetString(PyExc_TypeError, "plain_json(value, depth=0, /)");
        return NULL;
    }
    if (nargs == 2) {
        depth = PyLong_AsSsize_t(args[1]);
        if (depth == -1 && PyErr_Occurred())
            return NULL;
    }
    return PyBool_FromLong(plain(args[0], depth));
}


/* clean_json: what plain_json reads, and also what the guard needs of a value before it trusts a
   validator's yes without another walk: every float finite, every integer shorter than
   INT_BITS bits (jsonvalue.INT_DIGITS_CAP digits read right by every check), no lone surrogate in a
   string or key, and at most `budget` members in all, counted per path (a member shared by many
   containers counts each time: the work is bounded by the budget, not by what is in memory). With
   `copy`, the value is copied as it is read (new dicts and lists, the same immutable scalars), so a
   caller's thread that changes it later changes nothing the guard checked. No code of the value's
   runs: exact types only. */

/* 10**4300 > 2**14284: an integer of at most this many bits has at most 4300 digits */
#define INT_BITS 14284

static int
clean_text(PyObject *text)
{
    if (PyUnicode_KIND(text) == PyUnicode_1BYTE_KIND)
        return 1;
    Py_ssize_t length = PyUnicode_GET_LENGTH(text);
    int kind = PyUnicode_KIND(text);
    const void *data = PyUnicode_DATA(text);
    for (Py_ssize_t i = 0; i < length; i++) {
        Py_UCS4 unit = PyUnicode_READ(kind, data, i);
        if (unit >= 0xD800 && unit <= 0xDFFF)
            return 0;
    }
    return 1;
}

/* a new reference to the clean copy (or to value itself when !copy), NULL with no error set when
   the value is not clean, NULL with an error set on a failure (memory) */
static PyObject *
clean(PyObject *value, Py_ssize_t depth, Py_ssize_t *budget, int copy)
{
    PyTypeObject *kind = Py_TYPE(value);
    if (kind == &PyUnicode_Type) {
        if (!clean_text(value))
            return NULL;
        return Py_NewRef(value);
    }
    if (kind == &PyBool_Type || value == Py_None)
        return Py_NewRef(value);
    if (kind == &PyLong_Type) {
        int overflow = 0;
        PyLong_AsLongLongAndOverflow(value, &overflow);
        if (overflow != 0) {
            int64_t bits = (int64_t)_PyLong_NumBits(value);
            if (bits < 0 || bits > INT_BITS) {
                PyErr_Clear();
                return NULL;
            }
        }
        return Py_NewRef(value);
    }
    if (kind == &PyFloat_Type) {
        double number = PyFloat_AS_DOUBLE(value);
        if (!isfinite(number))
            return NULL;
        return Py_NewRef(value);
    }
    if (depth >= MAX_DEPTH)
        return NULL;
    if (kind == &PyDict_Type) {
        Py_ssize_t position = 0;
        PyObject *key, *member;
        *budget -= PyDict_GET_SIZE(value);
        if (*budget < 0)
            return NULL;
        PyObject *made = copy ? PyDict_New() : NULL;
        if (copy && made == NULL)
            return NULL;
        while (PyDict_Next(value, &position, &key, &member)) {
            if (Py_TYPE(key) != &PyUnicode_Type || !clean_text(key)) {
                Py_XDECREF(made);
                return NULL;
            }
            PyObject *read = clean(member, depth + 1, budget, copy);
            if (read == NULL) {
                Py_XDECREF(made);
                return NULL;
            }
            if (copy && PyDict_SetItem(made, key, read) < 0) {
                Py_DECREF(read);
                Py_DECREF(made);
                return NULL;
            }
            Py_DECREF(read);
        }
        return copy ? made : Py_NewRef(value);
    }
    if (kind == &PyList_Type) {
        Py_ssize_t size = PyList_GET_SIZE(value);
        *budget -= size;
        if (*budget < 0)
            return NULL;
        PyObject *made = copy ? PyList_New(size) : NULL;
        if (copy && made == NULL)
            return NULL;
        for (Py_ssize_t i = 0; i < size; i++) {
            PyObject *read = clean(PyList_GET_ITEM(value, i), depth + 1, budget, copy);
            if (read == NULL) {
                Py_XDECREF(made);
                return NULL;
            }
            if (copy)
                PyList_SET_ITEM(made, i, read);
            else
                Py_DECREF(read);
        }
        return copy ? made : Py_NewRef(value);
    }
    return NULL;
}

static PyObject *
clean_json(PyObject *module, PyObject *const *args, Py_ssize_t nargs)
{
    if (nargs != 4) {
        PyErr_SetString(PyExc_TypeError, "clean_json(value, budget, copy, refused, /)");
        return NULL;
    }
    Py_ssize_t budget = PyLong_AsSsize_t(args[1]);
    if (budget == -1 && PyErr_Occurred())
        return NULL;
    int copy = PyObject_IsTrue(args[2]);
    if (copy < 0)
        return NULL;
    PyObject *read = clean(args[0], 0, &budget, copy);
    if (read == NULL && !PyErr_Occurred())
        return Py_NewRef(args[3]);
    return read;
}

/* names_within: whether value is exact JSON (as plain reads it) whose every member name, at any
   depth, is in the frozenset names, reading at most budget members in all (counted per path). The
   output scrub asks it of a call's arguments: when it says so, no name the call used can mark a
   secret and the result is left as it is (secret_positions.SecretPositions). */

static int
within(PyObject *value, PyObject *names, Py_ssize_t depth, Py_ssize_t *budget)
{
    PyTypeObject *kind = Py_TYPE(value);
    if (kind == &PyUnicode_Type || kind == &PyLong_Type || kind == &PyFloat_Type
            || kind == &PyBool_Type || value == Py_None)
        return 1;
    if (depth >= MAX_DEPTH)
        return 0;
    if (kind == &PyDict_Type) {
        Py_ssize_t position = 0;
        PyObject *key, *member;
        *budget -= PyDict_GET_SIZE(value);
        if (*budget < 0)
            return 0;
        while (PyDict_Next(value, &position, &key, &member)) {
            /* an exact str's hash and equality are str's own: no code of the caller's runs */
            if (Py_TYPE(key) != &PyUnicode_Type || PySet_Contains(names, key) != 1
                    || !within(member, names, depth + 1, budget))
                return 0;
        }
        return 1;
    }
    if (kind == &PyList_Type) {
        *budget -= PyList_GET_SIZE(value);
        if (*budget < 0)
            return 0;
        for (Py_ssize_t i = 0; i < PyList_GET_SIZE(value); i++) {
            if (!within(PyList_GET_ITEM(value, i), names, depth + 1, budget))
                return 0;
        }
        return 1;
    }
    return 0;
}

static PyObject *
names_within(PyObject *module, PyObject *const *args, Py_ssize_t nargs)
{
    if (nargs != 3 || !PyFrozenSet_CheckExact(args[1])) {
        PyErr_SetString(PyExc_TypeError, "names_within(value, names: frozenset, budget, /)");
        return NULL;
    }
    Py_ssize_t budget = PyLong_AsSsize_t(args[2]);
    if (budget == -1 && PyErr_Occurred())
        return NULL;
    int found = within(args[0], args[1], 0, &budget);
    PyErr_Clear();  /* PySet_Contains cannot fail on an exact str; nothing is left set */
    return PyBool_FromLong(found);
}

static PyMethodDef methods[] = {
    {"plain_json", (PyCFunction)(void (*)(void))plain_json, METH_FASTCALL,
     "plain_json(value, depth=0, /): made only of exact JSON types, at most MAX_DEPTH deep"},
    {"clean_json", (PyCFunction)(void (*)(void))clean_json, METH_FASTCALL,
     "clean_json(value, budget, copy, refused, /): value (or its copy) when clean JSON, else refused"},
    {"names_within", (PyCFunction)(void (*)(void))names_within, METH_FASTCALL,
     "names_within(value, names, budget, /): exact JSON whose every member name is in names"},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module = {PyModuleDef_HEAD_INIT, "_plain", NULL, 0, methods};

PyMODINIT_FUNC
PyInit__plain(void)
{
    PyObject *created = PyModule_Create(&module);
    if (created != NULL && PyModule_AddIntConstant(created, "MAX_DEPTH", MAX_DEPTH) < 0) {
        Py_DECREF(created);
        return NULL;
    }
    return created;
}
