/* plain_json in C: whether a value is made only of dict, list, str, int, float, bool and None
   themselves (no subclass, no other type), nested at most MAX_DEPTH levels.

   The pure-Python twin is contractgen.runtime.jsonvalue._plain_json_python; this one reads the same value
   without running a line of its classes' code (exact types only, so PyDict_Next and the list's own
   array are all it touches) at a fraction of the cost, which is most of what a guarded happy call
   spends beyond its validators (bench/guard_overhead.py). */

#define PY_SSIZE_T_CLEAN
#include <Python.h>

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

static PyMethodDef methods[] = {
    {"plain_json", (PyCFunction)(void (*)(void))plain_json, METH_FASTCALL,
     "plain_json(value, depth=0, /): made only of exact JSON types, at most MAX_DEPTH deep"},
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
