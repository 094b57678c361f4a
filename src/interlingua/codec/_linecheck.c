/* interlingua.codec._linecheck: the compiled form of the JSON Lines block proof (issue 31, ADR 0046).
 *
 * One function, line_shape(data, start, end, limit) -> (lines, pairs, deep), the same answer as
 * interlingua.codec._line_shape.pure_line_shape (which documents what the three figures prove):
 *
 *   lines  the line ends ("\n") in data[start:end];
 *   pairs  the line ends whose neighbours in the span's JSON punctuation (the bytes {}[],: and "\n",
 *          everything else skipped) are "}" before and "{" after (bytes.count(b"}\n{") of that
 *          punctuation);
 *   deep   whether some line of the span holds at least `limit` opening brackets ("{" or "[",
 *          inside strings too).
 *
 * Line ends are found with memchr; the brackets of a line are counted 64 bytes at a time (SSE2
 * where the compiler targets it, a plain loop elsewhere); the neighbours of a line end are found by
 * stepping over non-punctuation bytes, normally none. Built against the stable ABI (Python 3.11+).
 * Optional: the package works without it (the pure-Python path is chosen at import).
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <string.h>

#if defined(__SSE2__) || defined(_M_X64) || (defined(_M_IX86_FP) && _M_IX86_FP >= 2)
#include <emmintrin.h>
#define LINECHECK_SSE2 1
#endif

/* 1 for the JSON punctuation bytes the proof keeps: { } [ ] , : and the line end. */
static unsigned char PUNCT[256];

static void
init_tables(void)
{
    memset(PUNCT, 0, sizeof PUNCT);
    PUNCT['{'] = PUNCT['}'] = PUNCT['['] = PUNCT[']'] = PUNCT[','] = PUNCT[':'] = PUNCT['\n'] = 1;
}

/* The opening brackets in p[0:n]: bytes b with (b | 0x20) == '{' are exactly '{' (0x7B) and '[' (0x5B). */
static Py_ssize_t
count_open(const unsigned char *p, Py_ssize_t n)
{
    Py_ssize_t total = 0, i = 0;
#ifdef LINECHECK_SSE2
    const __m128i k20 = _mm_set1_epi8(0x20), k7b = _mm_set1_epi8(0x7B), zero = _mm_setzero_si128();
    /* 64 bytes a round into four 8-bit counters per lane (at most 63 rounds: their sum stays below 256) */
    while (n - i >= 64) {
        Py_ssize_t rounds = (n - i) / 64;
        if (rounds > 63) {
            rounds = 63;
        }
        const Py_ssize_t stop = i + rounds * 64;
        __m128i a0 = zero, a1 = zero, a2 = zero, a3 = zero;
        for (; i < stop; i += 64) {
            a0 = _mm_sub_epi8(a0, _mm_cmpeq_epi8(_mm_or_si128(_mm_loadu_si128((const __m128i *)(p + i)), k20), k7b));
            a1 = _mm_sub_epi8(a1, _mm_cmpeq_epi8(_mm_or_si128(_mm_loadu_si128((const __m128i *)(p + i + 16)), k20), k7b));
            a2 = _mm_sub_epi8(a2, _mm_cmpeq_epi8(_mm_or_si128(_mm_loadu_si128((const __m128i *)(p + i + 32)), k20), k7b));
            a3 = _mm_sub_epi8(a3, _mm_cmpeq_epi8(_mm_or_si128(_mm_loadu_si128((const __m128i *)(p + i + 48)), k20), k7b));
        }
        __m128i sums = _mm_sad_epu8(_mm_add_epi8(_mm_add_epi8(a0, a1), _mm_add_epi8(a2, a3)), zero);
        total += _mm_cvtsi128_si32(sums) + _mm_cvtsi128_si32(_mm_srli_si128(sums, 8));
    }
    if (n - i >= 16) {
        __m128i acc = zero;
        for (; n - i >= 16; i += 16) {  /* at most 3 rounds */
            acc = _mm_sub_epi8(acc, _mm_cmpeq_epi8(_mm_or_si128(_mm_loadu_si128((const __m128i *)(p + i)), k20), k7b));
        }
        __m128i sums = _mm_sad_epu8(acc, zero);
        total += _mm_cvtsi128_si32(sums) + _mm_cvtsi128_si32(_mm_srli_si128(sums, 8));
    }
#endif
    for (; i < n; i++) {
        total += (p[i] | 0x20) == 0x7B;
    }
    return total;
}

static PyObject *
line_shape(PyObject *module, PyObject *const *args, Py_ssize_t nargs)
{
    (void)module;
    if (nargs != 4) {
        PyErr_SetString(PyExc_TypeError, "line_shape(data, start, end, limit) takes 4 arguments");
        return NULL;
    }
    Py_ssize_t start = PyLong_AsSsize_t(args[1]);
    if (start == -1 && PyErr_Occurred()) {
        return NULL;
    }
    Py_ssize_t end = PyLong_AsSsize_t(args[2]);
    if (end == -1 && PyErr_Occurred()) {
        return NULL;
    }
    Py_ssize_t limit = PyLong_AsSsize_t(args[3]);
    if (limit == -1 && PyErr_Occurred()) {
        return NULL;
    }
    Py_buffer view;
    if (PyObject_GetBuffer(args[0], &view, PyBUF_SIMPLE) < 0) {
        return NULL;
    }
    if (start < 0 || end < start || end > view.len) {
        PyBuffer_Release(&view);
        PyErr_Format(PyExc_ValueError, "line_shape: span %zd:%zd is not within the %zd bytes given", start, end, view.len);
        return NULL;
    }
    const unsigned char *base = (const unsigned char *)view.buf;
    const unsigned char *p = base + start, *stop = base + end;
    Py_ssize_t lines = 0, pairs = 0;
    int deep = 0;
    while (p < stop) {
        const unsigned char *nl = memchr(p, '\n', (size_t)(stop - p));
        const unsigned char *line_end = nl != NULL ? nl : stop;
        if (!deep && count_open(p, line_end - p) >= limit) {
            deep = 1;
        }
        if (nl == NULL) {
            break;
        }
        lines++;
        /* the punctuation byte before this line end (within the span) and the one after it */
        const unsigned char *b = nl;
        while (b > base + start && !PUNCT[b[-1]]) {
            b--;
        }
        if (b > base + start && b[-1] == '}') {
            const unsigned char *a = nl + 1;
            while (a < stop && !PUNCT[*a]) {
                a++;
            }
            if (a < stop && *a == '{') {
                pairs++;
            }
        }
        p = nl + 1;
    }
    /* a span ending with a line end has an empty last line: it holds no bracket (limit > 0 below) */
    if (!deep && limit <= 0) {
        deep = 1;
    }
    PyBuffer_Release(&view);
    return Py_BuildValue("(nnO)", lines, pairs, deep ? Py_True : Py_False);
}

/* Whether some line of data[start:end] holds "session" (quotes included) starting within its first 50
 * bytes: where a session header line has it (codec._jsonl._header_spans). Only a hint for the reader
 * (a block holding none is decoded whole first; a header line never decodes as an envelope, so a wrong
 * hint costs time, never a different result). */
static PyObject *
header_hint(PyObject *module, PyObject *const *args, Py_ssize_t nargs)
{
    (void)module;
    if (nargs != 3) {
        PyErr_SetString(PyExc_TypeError, "header_hint(data, start, end) takes 3 arguments");
        return NULL;
    }
    Py_ssize_t start = PyLong_AsSsize_t(args[1]);
    if (start == -1 && PyErr_Occurred()) {
        return NULL;
    }
    Py_ssize_t end = PyLong_AsSsize_t(args[2]);
    if (end == -1 && PyErr_Occurred()) {
        return NULL;
    }
    Py_buffer view;
    if (PyObject_GetBuffer(args[0], &view, PyBUF_SIMPLE) < 0) {
        return NULL;
    }
    if (start < 0 || end < start || end > view.len) {
        PyBuffer_Release(&view);
        PyErr_Format(PyExc_ValueError, "header_hint: span %zd:%zd is not within the %zd bytes given", start, end, view.len);
        return NULL;
    }
    static const char word[] = "\"session\"";
    const Py_ssize_t wlen = (Py_ssize_t)(sizeof word - 1);
    const unsigned char *p = (const unsigned char *)view.buf + start, *stop = (const unsigned char *)view.buf + end;
    int found = 0;
    while (p < stop && !found) {
        const unsigned char *nl = memchr(p, '\n', (size_t)(stop - p));
        const unsigned char *line_end = nl != NULL ? nl : stop;
        Py_ssize_t last = line_end - p - wlen; /* the last start the word fits at */
        if (last > 49) {
            last = 49;
        }
        for (Py_ssize_t k = 0; k <= last; k++) {
            if (p[k] == '"' && memcmp(p + k, word, (size_t)wlen) == 0) {
                found = 1;
                break;
            }
        }
        p = line_end + 1;
    }
    PyBuffer_Release(&view);
    return PyBool_FromLong(found);
}

/* The line starts (offsets into data) of the lines of data[start:end] that may be session header lines:
 * the line starts with "{", holds "session" (quotes included) starting within its first 50 bytes, and
 * ends with a line end within the span. The same list as interlingua.codec._line_shape.pure_header_lines
 * (the reader checks each candidate line itself: codec._jsonl._header_spans). */
static PyObject *
header_lines(PyObject *module, PyObject *const *args, Py_ssize_t nargs)
{
    (void)module;
    if (nargs != 3) {
        PyErr_SetString(PyExc_TypeError, "header_lines(data, start, end) takes 3 arguments");
        return NULL;
    }
    Py_ssize_t start = PyLong_AsSsize_t(args[1]);
    if (start == -1 && PyErr_Occurred()) {
        return NULL;
    }
    Py_ssize_t end = PyLong_AsSsize_t(args[2]);
    if (end == -1 && PyErr_Occurred()) {
        return NULL;
    }
    Py_buffer view;
    if (PyObject_GetBuffer(args[0], &view, PyBUF_SIMPLE) < 0) {
        return NULL;
    }
    if (start < 0 || end < start || end > view.len) {
        PyBuffer_Release(&view);
        PyErr_Format(PyExc_ValueError, "header_lines: span %zd:%zd is not within the %zd bytes given", start, end, view.len);
        return NULL;
    }
    PyObject *out = PyList_New(0);
    if (out == NULL) {
        PyBuffer_Release(&view);
        return NULL;
    }
    static const char word[] = "\"session\"";
    const Py_ssize_t wlen = (Py_ssize_t)(sizeof word - 1);
    const unsigned char *base = (const unsigned char *)view.buf;
    const unsigned char *p = base + start, *stop = base + end;
    while (p < stop) {
        const unsigned char *nl = memchr(p, '\n', (size_t)(stop - p));
        if (nl == NULL) {
            break; /* a last line without its line end is no header line */
        }
        if (*p == '{') {
            Py_ssize_t last = nl - p - wlen; /* the last start the word fits at */
            if (last > 49) {
                last = 49;
            }
            for (Py_ssize_t k = 1; k <= last; k++) {
                if (p[k] == '"' && memcmp(p + k, word, (size_t)wlen) == 0) {
                    PyObject *at = PyLong_FromSsize_t(p - base);
                    if (at == NULL || PyList_Append(out, at) < 0) {
                        Py_XDECREF(at);
                        Py_DECREF(out);
                        PyBuffer_Release(&view);
                        return NULL;
                    }
                    Py_DECREF(at);
                    break;
                }
            }
        }
        p = nl + 1;
    }
    PyBuffer_Release(&view);
    return out;
}

static PyMethodDef linecheck_methods[] = {
    {"line_shape", (PyCFunction)(void (*)(void))line_shape, METH_FASTCALL,
     "line_shape(data, start, end, limit) -> (lines, pairs, deep): the JSON Lines block proof's figures for "
     "data[start:end] (see interlingua.codec._line_shape.pure_line_shape)."},
    {"header_hint", (PyCFunction)(void (*)(void))header_hint, METH_FASTCALL,
     "header_hint(data, start, end) -> bool: some line of data[start:end] holds \"session\" within its first 50 bytes."},
    {"header_lines", (PyCFunction)(void (*)(void))header_lines, METH_FASTCALL,
     "header_lines(data, start, end) -> list[int]: the starts of the lines of data[start:end] that may be session header "
     "lines (see interlingua.codec._line_shape.pure_header_lines)."},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef linecheck_module = {
    PyModuleDef_HEAD_INIT, "_linecheck",
    "The compiled JSON Lines line check (optional; interlingua.codec._line_shape picks it at import).",
    0, linecheck_methods, NULL, NULL, NULL, NULL,
};

PyMODINIT_FUNC
PyInit__linecheck(void)
{
    init_tables();
    return PyModule_Create(&linecheck_module);
}
